import nock from 'nock';
import { decodeRecord, type LoopMarker } from '../../src/core/index.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { BRANCH, replies, started } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * Triage before Debug & Fix: a red head whose failure is not the code's — a cancelled run, one
 * that never started, a job that failed in GitHub's own set-up — is re-run by the loop through
 * the API and costs no attempt and no agent run; a check that passes on the re-run is flaky; a
 * real failure is an attempt, as ever.
 */

/** GitHub's annotation on a job whose hosted runner went away mid-job. */
const LOST =
  'The hosted runner: GitHub Actions 2 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.';

const AGENT = 'agent:\n  command: node examples/agents/scripted.mjs\narchitects: [archie]\n';

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** The loop's record on the branch head. */
const record = (sim: SimGitHub): LoopMarker => {
  const head = sim.refs.get(BRANCH)!;
  return decodeRecord(sim.own(head)!.output!.text, head)!;
};
/** The hand-offs past the first (TDD): Debug & Fix, review-fix. */
const agentRuns = (sim: SimGitHub) =>
  sim.dispatches.filter((d) => (d.client_payload as { node: string }).node !== 'tdd');

describe('infrastructure: re-run by the loop, no attempt', () => {
  it('a cancelled run is re-run once (its failed jobs); its green re-run goes on to code review', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'cancelled');
    const run = sim.checkRuns.find((r) => r.name === 'test')!.job!.run;
    expect(sim.reruns).toEqual([{ run, whole: false }]);
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
    expect(sim.own(sim.refs.get(BRANCH)!)).toMatchObject({ external_id: 'Verification' });
    // The same event again (the check suite's completion) asks nothing more.
    await deliver.checkSuite(BRANCH, { conclusion: 'cancelled' });
    expect(sim.reruns).toHaveLength(1);
    await deliver.ci(BRANCH, 'success');
    expect(sim.own(sim.refs.get(BRANCH)!)).toMatchObject({ external_id: 'CodeReview' });
    expect(record(sim).attempts).toBeUndefined();
    expect(replies(sim).some((r) => /flaky/i.test(r))).toBe(false);
  });

  it('a workflow run that never started (startup_failure) is re-run whole', async () => {
    const { sim, deliver } = await started(AGENT);
    const run = await deliver.startupFailure(BRANCH);
    expect(sim.reruns).toEqual([{ run: run.id, whole: true }]);
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
  });

  it('a job that failed in GitHub’s set-up, before any step of the project ran, is re-run', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'failure', { setup: true });
    expect(sim.reruns).toHaveLength(1);
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
  });

  it('a job GitHub annotated with its own outage (its runner lost mid-job) is re-run, though its steps ran', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'failure', { annotation: LOST });
    expect(sim.reruns).toHaveLength(1);
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
  });

  it('a job its `timeout-minutes` stopped (GitHub: `cancelled`, annotated so) is a real failure: a hang is the code’s', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'cancelled', {
      annotation: 'The job has exceeded the maximum execution time of 15m0s',
    });
    expect(sim.reruns).toEqual([]);
    expect(record(sim).attempts).toHaveLength(1);
  });

  it('the older wording of the same annotation (naming the runner, in minutes) is read the same', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'cancelled', {
      annotation:
        'The job running on runner GitHub Actions 2 has exceeded the maximum execution time of 360 minutes.',
    });
    expect(sim.reruns).toEqual([]);
    expect(record(sim).attempts).toHaveLength(1);
  });

  it('a failed job whose annotation is anyone else’s words is a real failure', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'failure', {
      annotation: 'Process completed with exit code 1.',
    });
    expect(sim.reruns).toEqual([]);
    expect(record(sim).attempts).toHaveLength(1);
  });

  it('the same again is named as infrastructure and re-run; past `rerun.perHead` it escalates', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'cancelled');
    await deliver.ci(BRANCH, 'cancelled');
    expect(sim.reruns).toHaveLength(2);
    expect(replies(sim).at(-1)).toMatch(/^\*\*CI failed again for a reason outside the code\*\*/);
    await deliver.ci(BRANCH, 'cancelled');
    expect(sim.reruns).toHaveLength(2);
    expect(replies(sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\*/);
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
  });

  it('with `rerun.infrastructure: false` a cancelled run is an attempt, as a failure is', async () => {
    const { sim, deliver } = await started(`${AGENT}rerun:\n  infrastructure: false\n`);
    await deliver.ci(BRANCH, 'cancelled');
    expect(sim.reruns).toEqual([]);
    expect(record(sim).attempts).toHaveLength(1);
  });
});

describe('flaky: fails, is re-run, passes on the same head', () => {
  it('with `rerun.failures` the failing job is re-run first: its pass names it flaky, no attempt', async () => {
    const { sim, deliver } = await started(`${AGENT}rerun:\n  failures: true\n`);
    await deliver.ci(BRANCH, 'failure');
    expect(sim.reruns).toHaveLength(1);
    expect(agentRuns(sim)).toEqual([]);
    await deliver.ci(BRANCH, 'success');
    const said = sim.comments.map((c) => c.body).find((b) => b.startsWith('**Flaky**'));
    expect(said).toMatch(/`test` failed, then passed on a re-run of the same head/);
    expect(record(sim)).toMatchObject({ flaky: [{ sha: sim.refs.get(BRANCH), name: 'test' }] });
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
    expect(sim.own(sim.refs.get(BRANCH)!)).toMatchObject({ external_id: 'CodeReview' });
    // The phase report lists it, with the re-run the loop asked.
    const head = sim.refs.get(BRANCH)!;
    await deliver.review(2, 'reviewer1', 'approved');
    const report = Object.entries(sim.files(BRANCH)).find(([path]) =>
      /\/Reports\/01_Endpoint\.md$/.test(path),
    )![1];
    expect(report).toContain('## What the phase cost');
    expect(report).toContain('- Re-runs asked by the loop: 1 (0 for infrastructure)');
    expect(report).toContain(
      `- Flaky checks: 1\n  - test on \`${head.slice(0, 7)}\`: failed, then passed on a re-run`,
    );
  });

  it('a person’s re-run that passes on the same head takes back the attempt it cost', async () => {
    const { sim, deliver } = await started();
    await deliver.ci(BRANCH, 'failure');
    expect(record(sim).attempts).toHaveLength(1);
    await deliver.ci(BRANCH, 'success'); // the failed job's next attempt
    expect(replies(sim).some((r) => r.startsWith('**Flaky**'))).toBe(true);
    expect(record(sim).attempts).toBeUndefined();
    expect(record(sim).flaky).toEqual([{ sha: sim.refs.get(BRANCH), name: 'test' }]);
  });
  it('the same check flaking again on the same head takes back that attempt too, and is named once', async () => {
    const { sim, deliver } = await started();
    await deliver.ci(BRANCH, 'failure');
    await deliver.ci(BRANCH, 'success');
    expect(record(sim).attempts).toBeUndefined();
    await deliver.ci(BRANCH, 'failure');
    expect(record(sim).attempts).toHaveLength(1);
    await deliver.ci(BRANCH, 'success');
    expect(record(sim).attempts).toBeUndefined();
    expect(record(sim).flaky).toEqual([{ sha: sim.refs.get(BRANCH), name: 'test' }]);
    expect(replies(sim).filter((r) => r.startsWith('**Flaky**'))).toHaveLength(1);
  });
});

describe('a real failure is an attempt, as before', () => {
  it('with `rerun.failures`, one that fails again on its re-run is attempt 1 and goes to the agent', async () => {
    const { sim, deliver } = await started(`${AGENT}rerun:\n  failures: true\n`);
    await deliver.ci(BRANCH, 'failure');
    expect(sim.reruns).toHaveLength(1);
    expect(agentRuns(sim)).toEqual([]);
    await deliver.ci(BRANCH, 'failure');
    expect(sim.reruns).toHaveLength(1);
    expect(record(sim).attempts).toHaveLength(1);
    expect(agentRuns(sim)).toHaveLength(1);
    expect(replies(sim).at(-1)).toMatch(/^\*\*CI failed\*\* on pull request #2 — attempt 1 of 3/);
  });

  it('by default a test failure is not re-run: attempt 1 at once; a cancelled job beside it changes nothing', async () => {
    const { sim, deliver } = await started(AGENT);
    sim.ci(sim.refs.get(BRANCH)!, 'cancelled', 'lint');
    await deliver.ci(BRANCH, 'failure');
    expect(sim.reruns).toEqual([]);
    expect(record(sim).attempts).toHaveLength(1);
    expect(agentRuns(sim)).toHaveLength(1);
  });
});

describe('GitHub refuses the re-run: no loop, no stall', () => {
  it('an infrastructure failure whose re-run is refused: named with the refusal, no attempt, not asked again', async () => {
    const { sim, deliver } = await started(AGENT);
    sim.rerunRefusal = {
      status: 403,
      message: 'Unable to retry this workflow run because it was created over a month ago',
    };
    await deliver.ci(BRANCH, 'cancelled');
    expect(sim.rerunsRefused).toHaveLength(1);
    expect(sim.reruns).toEqual([]);
    const said = sim.comments.at(-1)!.body;
    expect(said).toMatch(
      /^\*\*CI failed for a reason outside the code\*\* on pull request #2: infrastructure/,
    );
    expect(said).toContain(
      'GitHub refused: “Unable to retry this workflow run because it was created over a month ago”',
    );
    expect(said).toContain('`/coder retry`');
    expect(record(sim).attempts).toBeUndefined();
    expect(record(sim).reruns).toEqual([expect.objectContaining({ refused: true })]);
    expect(agentRuns(sim)).toEqual([]);
    // The same completion again: not asked again, not said again.
    const comments = sim.comments.length;
    await deliver.checkSuite(BRANCH, { conclusion: 'cancelled' });
    expect(sim.rerunsRefused).toHaveLength(1);
    expect(sim.comments).toHaveLength(comments);
    expect(agentRuns(sim)).toEqual([]);
    // `/coder retry` hands it to Debug & Fix: attempt 1.
    await deliver.comment('/coder retry');
    expect(record(sim).attempts).toHaveLength(1);
    expect(agentRuns(sim)).toHaveLength(1);
  });

  it('a real failure whose flaky-telling re-run is refused is attempt 1, and its reply says so', async () => {
    const { sim, deliver } = await started(`${AGENT}rerun:\n  failures: true\n`);
    sim.rerunRefusal = { status: 403, message: 'This workflow run cannot be retried' };
    await deliver.ci(BRANCH, 'failure');
    expect(sim.rerunsRefused).toHaveLength(1);
    expect(record(sim).attempts).toHaveLength(1);
    expect(agentRuns(sim)).toHaveLength(1);
    const said = sim.comments.at(-1)!.body;
    expect(said).toMatch(/^\*\*CI failed\*\* on pull request #2 — attempt 1 of 3/);
    expect(said).toContain('GitHub refused (“This workflow run cannot be retried”)');
    // Redelivered: reported already, nothing more.
    await deliver.checkSuite(BRANCH, { conclusion: 'failure' });
    expect(sim.rerunsRefused).toHaveLength(1);
    expect(agentRuns(sim)).toHaveLength(1);
  });

  it('a refused re-run of a whole run that never started is no attempt either', async () => {
    const { sim, deliver } = await started(AGENT);
    sim.rerunRefusal = { status: 403, message: 'This workflow is already running' };
    await deliver.startupFailure(BRANCH);
    expect(sim.rerunsRefused).toEqual([expect.objectContaining({ whole: true })]);
    expect(sim.comments.at(-1)!.body).toContain(
      'GitHub refused: “This workflow is already running”',
    );
    expect(record(sim).attempts).toBeUndefined();
    expect(agentRuns(sim)).toEqual([]);
  });
});
