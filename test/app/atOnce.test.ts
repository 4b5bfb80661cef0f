import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';

/**
 * One event handled twice at the same time: GitHub redelivers a delivery to another replica while
 * the first still handles it, or two replicas take the same event. Never twice.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

describe('an approval delivered twice at once', () => {
  it('completes the phase once: one completion commit, one reply, the branch not said to have moved', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const approved = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved', undefined, { times: 2 });
    const head = sim.headOf(pr);
    expect(sim.commits.get(head)!.parents).toEqual([approved]);
    expect(sim.files(head)[MASTER_LOG]!.match(/Coder completed/g)).toHaveLength(1);
    expect(replies(sim).filter((r) => /moved/i.test(r))).toEqual([]);
    expect(
      replies(sim).filter((r) => r.startsWith('**Phase 1 — Endpoint approved**')),
    ).toHaveLength(1);
  });
});

describe('an architect’s approval of an escalated head delivered twice at once', () => {
  it('ends the escalation once: the label stays off, final verification merges', async () => {
    const { sim, deliver, pr } = await started(
      'architects: [archie]\nlocked: ["src/**"]\nautoMerge: true\n',
    );
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.pull(pr.number).labels.has('coder:escalated')).toBe(true);
    const approved = sim.headOf(pr);
    await deliver.review(pr.number, 'archie', 'approved', undefined, { times: 2 });
    const head = sim.headOf(pr);
    expect(sim.commits.get(head)!.parents).toEqual([approved]);
    expect(replies(sim).filter((r) => /moved/i.test(r))).toEqual([]);
    // The loop's own history of the label says the escalation ended (escalationStands).
    expect(sim.pull(pr.number).labels.has('coder:escalated')).toBe(false);
    expect(sim.labelEvents.filter((e) => e.issue === pr.number).at(-1)?.event).toBe('unlabeled');
    await deliver.ci(BRANCH, 'success');
    expect(sim.pull(pr.number).merged).toBe(true);
  });
});
