import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { CHECKLIST } from '../helpers/plans.js';
import { BRANCH, started } from '../helpers/world.js';
import type { SimGitHub, SimPull } from '../sim/github.js';

/**
 * "The PR of the lock branch" is the loop's own: GitHub lets any writer open another pull request
 * from the lock branch (into another base), and lists the newest first. Each lookup of the loop
 * PR by its branch takes the one the loop's identity opened, never just any.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** A writer's second PR from the lock branch, into another base (GitHub allows one per base). */
function secondPull(sim: SimGitHub, loop: SimPull): SimPull {
  sim.refs.set('release', sim.refs.get('master')!);
  const pr: SimPull = {
    ...loop,
    number: sim.pulls.length + 2,
    title: 'Backport',
    body: '',
    base: 'release',
    labels: new Set(),
    requested: [],
    author: 'Codertocat',
  };
  sim.pulls.push(pr);
  return pr;
}

describe('a second pull request from the lock branch', () => {
  it('the review relay still finds the loop PR: a relayed approval completes the phase', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    secondPull(sim, pr);
    const head = sim.headOf(pr);
    sim.listReview(pr.number, 'reviewer1', 'APPROVED', head, 9901);
    await deliver.event('workflow_run', reviewRelayRun(BRANCH, head, 'reviewer1'));
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [x] 1.1');
  });
});

describe('workflow_run is delivered by workflow name, from any branch', () => {
  it('a run of a workflow named CI on another branch, at the loop head’s commit, writes nothing', async () => {
    const { sim, deliver, pr } = await started();
    const head = sim.headOf(pr);
    sim.refs.set('writer/ci', head);
    const payload = examplePayload('workflow_run', 'completed');
    payload.workflow_run.name = 'CI';
    payload.workflow_run.head_branch = 'writer/ci';
    payload.workflow_run.head_sha = head;
    payload.workflow_run.conclusion = 'failure';
    const before = sim.writes.length;
    await deliver.event('workflow_run', payload);
    expect(sim.writes.slice(before)).toEqual([]);
    expect(sim.own(head)?.external_id).toBe('Verification');
  });
});
