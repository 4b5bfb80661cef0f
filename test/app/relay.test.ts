import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { reviewRelayRun } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, started } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * The review relay (the Action): a relayed run stands for the reviewer's verdict on the head it
 * names, as GitHub keeps it. A comment the reviewer leaves after the verdict (a "Comment" review,
 * a reply in a review thread: GitHub lists both as COMMENTED reviews) is no verdict, and changes
 * nothing GitHub says of the reviewer's approval or change request.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const completed = (sim: SimGitHub) =>
  (sim.files(sim.headOf(sim.pulls[0]!))[MASTER_LOG] ?? '').includes('Coder completed');

/**
 * CI green on the loop PR's head, then reviewer1's verdict of `state` and, seconds later, a reply
 * in a review thread (GitHub lists it as the reviewer's newest review); the verdict's relay run is
 * heard after both.
 */
async function verdictThenComment(state: 'APPROVED' | 'CHANGES_REQUESTED' | 'DISMISSED') {
  const w = await started();
  await w.deliver.ci(BRANCH, 'success');
  const head = w.sim.headOf(w.pr);
  w.sim.listReview(w.pr.number, 'reviewer1', state, head);
  w.sim.listReview(w.pr.number, 'reviewer1', 'COMMENTED', head);
  const relay = () =>
    w.deliver.event('workflow_run', reviewRelayRun(BRANCH, head, 'reviewer1', w.pr.number));
  await relay();
  return { ...w, head, relay };
}

describe('a reviewer’s comment after their verdict, before the relay is heard', () => {
  it('the approval still completes the phase', async () => {
    const { sim, relay } = await verdictThenComment('APPROVED');
    // The comment's own relay run after the approval's.
    await relay();
    expect(completed(sim)).toBe(true);
  });

  it('a change request still sends the phase back to implementation', async () => {
    const { sim, head } = await verdictThenComment('CHANGES_REQUESTED');
    expect(sim.own(head)?.external_id).toBe('TDD');
  });

  it('an approval dismissed since is no approval: nothing completes', async () => {
    const { sim } = await verdictThenComment('DISMISSED');
    expect(completed(sim)).toBe(false);
  });
});

describe('the loop’s run of a relayed approval, re-run after the phase completed', () => {
  it('says nothing: the completion stands, and no one is asked to approve again', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    sim.listReview(pr.number, 'reviewer1', 'APPROVED', head, 9901);
    const relayed = reviewRelayRun(BRANCH, head, 'reviewer1', pr.number);
    await deliver.event('workflow_run', relayed);
    expect(completed(sim)).toBe(true);
    const comments = sim.comments.length;
    // "Re-run jobs" of the loop's own run: GitHub gives it the same event, whatever the attempt.
    await deliver.event('workflow_run', structuredClone(relayed));
    expect(sim.comments.slice(comments).map((c) => c.body)).toEqual([]);
  });
});

describe('two reviewers approve the same head (the App): the second heard after the first completed', () => {
  it('the second reviewer is not asked to approve the completion commit', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved', head);
    expect(completed(sim)).toBe(true);
    const comments = sim.comments.length;
    await deliver.review(pr.number, 'archie', 'approved', head);
    expect(sim.comments.slice(comments).map((c) => c.body)).toEqual([]);
  });
});
