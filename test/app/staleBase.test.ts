import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';

/**
 * A PR's `base.sha` is the base branch's head as GitHub recorded it (when the PR was opened, or
 * its base changed), not the branch's head now: GitHub does not move it as the base branch moves.
 * What the approved head changes is what it would bring to the base branch as it is, so it is
 * compared with the base branch's head now, read by its ref.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const CONFIG = 'locked: ["src/core/**"]\narchitects: [archie]\nautoMerge: true\n';
const STRICT = 'export const strict = true;\n';
const AUDITED = 'export const strict = true;\nexport const audit = true;\n';

describe('what a PR changes is judged against the base branch as it is, not as GitHub recorded it', () => {
  it('the default branch merged into the lock branch with its locked change undone: a writer’s approval escalates, and the change stays', async () => {
    const { sim, deliver, pr } = await started(CONFIG, { 'src/core/auth.ts': STRICT });
    // GitHub recorded the base's head when the loop opened the PR, and keeps it.
    pr.baseSha = sim.refs.get('master')!;
    // An architect's change to a locked file reaches the default branch.
    sim.push('master', { 'src/core/auth.ts': AUDITED }, 'audit', 'archie');
    // A writer merges the default branch into the lock branch, undoing that change in the merge.
    const lock = sim.refs.get(BRANCH)!;
    const merged = { ...sim.files('master'), ...sim.files(lock), 'src/core/auth.ts': STRICT };
    const merge = sim.commit(merged, [lock, sim.refs.get('master')!], 'Merge master');
    sim.commits.get(merge)!.author = 'dev-pusher';
    sim.refs.set(BRANCH, merge);
    sim.recordRef(BRANCH, lock, merge, 'dev-pusher');
    await deliver.pullRequest('synchronize', pr.number, { login: 'dev-pusher' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(pr.merged).toBe(false);
    expect(sim.files('master')['src/core/auth.ts']).toBe(AUDITED);
    expect(replies(sim)).toContain(
      '**Escalated to architect** (pull request #2): locked paths touched, and @reviewer1 is not an architect.',
    );
  });
});
