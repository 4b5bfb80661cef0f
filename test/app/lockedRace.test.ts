import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, started } from '../helpers/world.js';

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

describe('a locked change never completes without an architect', () => {
  it('the branch force-pushed back past the locked change after the approval: the locked change does not reach the default branch', async () => {
    const config = 'architects: [archie]\nlocked: ["src/core/**"]\nautoMerge: true\n';
    const { sim, deliver, pr } = await started(config);
    const before = sim.headOf(pr);
    // A writer pushes a locked change; CI passes on it.
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' });
    await deliver.ci(BRANCH, 'success');
    const approved = sim.headOf(pr);
    // reviewer1 (no architect) approves that head: GitHub's event names the PR as it stood then.
    sim.reviews.push({
      id: 9999,
      pr: pr.number,
      user: 'reviewer1',
      state: 'APPROVED',
      commit_id: approved,
    });
    const payload = examplePayload('pull_request_review', 'submitted');
    payload.review.id = 9999;
    payload.review.state = 'approved';
    payload.review.commit_id = approved;
    payload.review.user.login = 'reviewer1';
    payload.review.user.type = 'User';
    payload.sender.login = 'reviewer1';
    payload.pull_request = { ...payload.pull_request, ...sim.pullJson(pr) };
    // Before the loop handles it, the writer force-pushes the branch back to the commit before
    // the locked change: the PR's files no longer show it.
    sim.refs.set(BRANCH, before);
    sim.recordRef(BRANCH, approved, before, 'dev-pusher');
    await deliver.probotReceive({ id: 'rv-race', name: 'pull_request_review', payload });
    // Final verification on whatever the branch holds now, then autoMerge.
    await deliver.ci(BRANCH, 'success');
    // The locked change must not reach the default branch without an architect: the approval
    // of the head the branch left is not completed, and the thread says why.
    expect(sim.files('master')['src/core/engine.ts']).toBeUndefined();
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(sim.refs.get(BRANCH)).toBe(before);
    expect(sim.comments.map((c) => c.body).join('\n')).toContain(approved.slice(0, 7));
  });
});
