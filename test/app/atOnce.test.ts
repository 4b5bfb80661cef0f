import nock from 'nock';
import { afterScenario, beforeScenario, testProbot } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';

/**
 * One event handled twice at the same time: GitHub redelivers a delivery to another replica while
 * the first still handles it, or two replicas take the same event. Never twice. (One App process
 * takes one head's events one at a time; two replicas are two processes.)
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
    deliver.replicas.push(await testProbot());
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
    deliver.replicas.push(await testProbot());
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

describe('one CI result, its events delivered at once (the App takes one head’s events one at a time)', () => {
  it('red: check_suite and workflow_run completed for the head together: one "CI failed" reply, one attempt', async () => {
    const { sim, deliver } = await started();
    const head = sim.refs.get(BRANCH)!;
    sim.ci(head, 'failure', 'build');
    // GitHub sends both for every GitHub Actions run that completes.
    const run = examplePayload('workflow_run', 'completed');
    run.workflow_run.head_branch = BRANCH;
    run.workflow_run.head_sha = head;
    run.workflow_run.conclusion = 'failure';
    await Promise.all([
      deliver.checkSuite(BRANCH, { sha: head, conclusion: 'failure' }),
      deliver.probotReceive({ id: 'wr-at-once', name: 'workflow_run', payload: run }),
    ]);
    expect(replies(sim).filter((r) => r.startsWith('**CI failed**'))).toHaveLength(1);
  });

  it('green, check_suite delivered twice at once: one "CI passed" reply', async () => {
    const { sim, deliver } = await started();
    const head = sim.refs.get(BRANCH)!;
    sim.ci(head, 'success', 'test');
    await Promise.all([
      deliver.checkSuite(BRANCH, { sha: head }),
      deliver.checkSuite(BRANCH, { sha: head }),
    ]);
    expect(replies(sim).filter((r) => r.startsWith('**CI passed**'))).toHaveLength(1);
  });

  it('red with an agent, check_suite delivered twice at once: one hand-off', async () => {
    const { sim, deliver } = await started(
      'agent:\n  command: node examples/agents/scripted.mjs\n',
    );
    const head = sim.refs.get(BRANCH)!;
    const before = sim.dispatches.length;
    sim.ci(head, 'failure', 'test');
    await Promise.all([
      deliver.checkSuite(BRANCH, { sha: head, conclusion: 'failure' }),
      deliver.checkSuite(BRANCH, { sha: head, conclusion: 'failure' }),
    ]);
    expect(sim.dispatches.length - before).toBe(1);
  });
});
