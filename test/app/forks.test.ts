import nock from 'nock';
import { decodeRecord, type LoopMarker } from '../../src/core/index.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * Only CI runs for the loop's PR count: GitHub lists every check run of a commit, whatever it ran
 * for. A fork's PR at the loop head's commit (its branch named like the lock branch) and the
 * review relay's own run (any run a review started) are no CI of the PR, whatever their names.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const record = (sim: SimGitHub): LoopMarker => {
  const pr = sim.pulls[0]!;
  return decodeRecord(sim.own(sim.headOf(pr))!.output!.text!, sim.headOf(pr))!;
};
const completed = (sim: SimGitHub) =>
  (sim.files(sim.headOf(sim.pulls[0]!))[MASTER_LOG] ?? '').includes('Coder completed');
const AGENT = 'agent:\n  command: node examples/agents/scripted.mjs\n';

describe('a fork’s PR at the loop head’s commit', () => {
  it('leaves red checks there: no attempt spent, no Debug & Fix hand-off; the PR’s own CI decides', async () => {
    const { sim, deliver, pr } = await started(AGENT);
    const head = sim.headOf(pr);
    const dispatched = sim.dispatches.length;
    // Mallory's fork PR (another base) at the same commit, from a branch named like the lock branch.
    sim.ci(head, 'failure', 'test', undefined, {
      runFor: { branch: BRANCH, repository: 'mallory/Hello-World' },
    });
    await deliver.checkSuite(BRANCH, { sha: head, conclusion: 'failure' });
    expect(record(sim).attempts).toBeUndefined();
    expect(sim.dispatches.length).toBe(dispatched);
    // The PR's own CI, green: the gate passes with the fork's red beside it.
    await deliver.ci(BRANCH, 'success', { name: 'build' });
    expect(record(sim).attempts).toBeUndefined();
    expect(sim.own(head)?.external_id).toBe('CodeReview');
  });

  it('deleted after its red run: the run is still no CI of the PR, no attempt spent, no Debug & Fix hand-off', async () => {
    const { sim, deliver, pr } = await started(AGENT);
    const head = sim.headOf(pr);
    const dispatched = sim.dispatches.length;
    sim.ci(head, 'failure', 'test', undefined, {
      runFor: { branch: BRANCH, repository: 'mallory/Hello-World' },
    });
    // Mallory deletes her fork: GitHub then names no head repository for its run.
    sim.deletedForks.add('mallory/Hello-World');
    await deliver.checkSuite(BRANCH, { sha: head, conclusion: 'failure' });
    expect(record(sim).attempts).toBeUndefined();
    expect(sim.dispatches.length).toBe(dispatched);
  });

  it('deleted after its green run: the run opens no gate, a writer’s approval completes nothing before the PR’s own CI passes', async () => {
    const { sim, deliver, pr } = await started();
    const head = sim.headOf(pr);
    sim.ci(head, 'success', 'test', undefined, {
      runFor: { branch: BRANCH, repository: 'mallory/Hello-World' },
    });
    sim.deletedForks.add('mallory/Hello-World');
    await deliver.checkSuite(BRANCH, { sha: head, conclusion: 'success' });
    expect(sim.own(head)?.external_id).not.toBe('CodeReview');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim)).toBe(false);
    // The PR's own CI, green: now the approval completes.
    await deliver.ci(BRANCH, 'success', { name: 'build' });
    expect(completed(sim)).toBe(true);
  });

  it('a run for another branch of this repository at the same commit is no CI of the PR either', async () => {
    const { sim, deliver, pr } = await started();
    const head = sim.headOf(pr);
    sim.ci(head, 'failure', 'test', undefined, { runFor: { branch: 'scratch' } });
    await deliver.ci(BRANCH, 'success', { name: 'build' });
    expect(record(sim).attempts).toBeUndefined();
    expect(sim.own(head)?.external_id).toBe('CodeReview');
  });
});

describe('the review relay’s own green run', () => {
  it('is no CI: an approval on a head with no other run does not complete', async () => {
    const { sim, deliver, pr } = await started();
    const head = sim.headOf(pr);
    // The relay job (coder-loop-review.yml, on `pull_request_review`), named like a CI check.
    sim.ci(head, 'success', 'test', undefined, {
      runFor: { event: 'pull_request_review', branch: BRANCH },
    });
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim)).toBe(false);
    expect(replies(sim).at(-1)).toMatch(/CI has not passed/);
    await deliver.comment('/coder retry');
    expect(completed(sim)).toBe(false);
    // CI of the PR, green: now the approval completes.
    await deliver.ci(BRANCH, 'success', { name: 'build' });
    expect(completed(sim)).toBe(true);
  });
});
