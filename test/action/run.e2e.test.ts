import { jest } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseChecklist } from '../../src/core/index.js';
import { gitIn, runBundle, type BundleRun } from '../helpers/bundle.js';
import { OWNER, REPO } from '../helpers/github.js';
import { dispatchPayload, examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * `/coder run` end to end on the BUILT Action (issue 23): a three-phase plan run by the scripted
 * agent with `autoMerge: true`. People act exactly four times — `/coder run` and one approval per
 * phase; the test plays the agent workflow each hand-off starts and CI. Every phase goes `[x]` in
 * order, one PR per phase, never two open at once, no lock branch left behind, and the progress
 * comment ends showing the plan complete.
 */
const SCRIPTED = join(repoRoot, 'examples', 'agents', 'scripted.mjs');
const branchOf = (n: number) => `coder/example/phase-${n}`;
const repository = {
  name: REPO,
  owner: { login: OWNER },
  html_url: `https://github.com/${OWNER}/${REPO}`,
  default_branch: 'master',
};

let sim: SimGitHub;
let server: { url: string; close: () => Promise<void> };
let work: string;
let runs = 0;
/** Open loop PRs seen after each bundle run: never more than one. */
let mostOpen = 0;

beforeEach(async () => {
  sim = new SimGitHub({
    ...examplePlanFiles(),
    'src/server.ts': 'export const port = 3000;\n',
    '.github/coder.yml': [
      'reviewers: [reviewer1]',
      'autoMerge: true',
      'agent:',
      `  command: ${JSON.stringify(`node ${JSON.stringify(SCRIPTED)}`)}`,
      '',
    ].join('\n'),
  });
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write');
  server = await sim.serve();
  work = await mkdtemp(join(tmpdir(), 'coder-loop-run-e2e-'));
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
  expect(sim.violations).toEqual([]);
});

const openLoopPulls = () =>
  sim.pulls.filter((p) => p.state === 'open' && p.head.startsWith('coder/'));

/** The loop step, as the workflow runs it with the App token. */
async function loop(event: string, payload: Record<string, unknown>): Promise<BundleRun> {
  const dir = join(work, `run-${++runs}`);
  await mkdir(dir, { recursive: true });
  const run = await runBundle({
    work: dir,
    event,
    payload: { ...payload, repository: { ...(payload.repository as object), ...repository } },
    env: {
      GITHUB_API_URL: server.url,
      INPUT_TOKEN: 'ghs_app_installation_token',
      'INPUT_APP-SLUG': 'coder-loop',
    },
  });
  expect(run.code).toBe(0);
  mostOpen = Math.max(mostOpen, openLoopPulls().length);
  return run;
}

/** The branch head checked out in a real git repository (the simulator takes git's sha). */
async function checkout(branch: string): Promise<{ dir: string; head: string }> {
  const sha = sim.refs.get(branch)!;
  const dir = join(work, `checkout-${++runs}`);
  for (const [path, text] of Object.entries(sim.files(sha))) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]) => gitIn(dir, work, ...args);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'head');
  const head = git('rev-parse', 'HEAD');
  sim.rekey(sha, head);
  return { dir, head };
}

/** The workflow the TDD hand-off starts: `step: agent` in the checkout, then `step: apply`. */
async function agentWorkflow(at: { dir: string; head: string }): Promise<Record<string, string>> {
  const dispatch = sim.dispatches.at(-1)!;
  const clientPayload = { ...dispatch.client_payload, headSha: at.head };
  const changesDir = join(work, `changes-${++runs}`);
  const event = dispatchPayload(clientPayload, { owner: OWNER, repo: REPO });
  const temp = join(work, `temp-${runs}`);
  await mkdir(temp, { recursive: true });
  const env = {
    GITHUB_API_URL: server.url,
    GITHUB_WORKSPACE: at.dir,
    RUNNER_TEMP: temp,
    'INPUT_CHANGES-DIR': changesDir,
    'INPUT_APP-SLUG': 'coder-loop',
  };
  const agent = await runBundle({
    work: temp,
    event: 'repository_dispatch',
    payload: event,
    cwd: at.dir,
    env: { ...env, INPUT_STEP: 'agent', INPUT_TOKEN: 'ghs_read_only_job_token' },
  });
  expect(agent.outputs.state).toBe('changed');
  const apply = await runBundle({
    work: temp,
    event: 'repository_dispatch',
    payload: event,
    env: {
      ...env,
      INPUT_STEP: 'apply',
      INPUT_TOKEN: 'ghs_app_installation_token',
      'INPUT_CHANGES-DIGEST': agent.outputs.digest!,
    },
  });
  expect(apply.code).toBe(0);
  mostOpen = Math.max(mostOpen, openLoopPulls().length);
  return apply.outputs;
}

/** CI reports green on the branch head: one check run, then the check_suite event. */
function ciGreen(branch: string) {
  const head = sim.refs.get(branch)!;
  sim.ci(head, 'success', 'test');
  const payload = examplePayload('check_suite', 'completed');
  payload.check_suite.head_branch = branch;
  payload.check_suite.head_sha = head;
  payload.check_suite.conclusion = 'success';
  return loop('check_suite', payload);
}

/** The people's acts, counted: the test's only human inputs. */
let peopleActed = 0;
let reviewId = 0;

function approve(prNumber: number) {
  peopleActed++;
  const pr = sim.pull(prNumber);
  const head = sim.headOf(pr);
  const id = ++reviewId;
  sim.reviews.push({ id, pr: prNumber, user: 'reviewer1', state: 'APPROVED', commit_id: head });
  // The review reaches the loop through the relay's workflow_run.
  return loop('workflow_run', reviewRelayRun(pr.head, head, 'reviewer1', prNumber));
}

// Each run of the bundle spaces its writes a second apart (the throttling plugin), as GitHub asks.
jest.setTimeout(900_000);

describe('/coder run on the built Action: a three-phase plan, the scripted agent, autoMerge', () => {
  it('four human acts run the plan to the end, phase after phase', async () => {
    const run = examplePayload('issue_comment', 'created');
    run.comment.body = '/coder run';
    delete run.issue.pull_request;
    peopleActed++;
    expect((await loop('issue_comment', run)).outputs.state).toBe('started');

    const done: number[] = [];
    for (let n = 1; n <= 3; n++) {
      const branch = branchOf(n);
      const pr = openLoopPulls();
      expect(pr.map((p) => p.head)).toEqual([branch]);
      expect(sim.dispatches.at(-1)!.client_payload).toMatchObject({ node: 'tdd', phase: n });
      // The hand-off: the scripted agent writes the test and the code; CI is green.
      const at = await checkout(branch);
      expect((await agentWorkflow(at)).state).toBe('committed');
      expect((await ciGreen(branch)).outputs.state).toBe('code-review');
      // One approval → the completion commit → final verification → the loop merges, and
      // starts the next phase (or ends the run) in the same job.
      expect((await approve(pr[0]!.number)).outputs.state).toBe('completing');
      const last = await ciGreen(branch);
      expect(last.outputs.state).toBe(n < 3 ? 'started' : 'run-complete');
      expect(sim.pull(pr[0]!.number)).toMatchObject({ state: 'closed', merged: true });
      // Phase n is all `[x]` on the default branch, and no later phase is.
      const phases = parseChecklist(sim.files('master')[CHECKLIST]!, CHECKLIST).phases;
      done.push(n);
      expect(
        phases.filter((p) => p.tasks.every((t) => t.state === 'done')).map((p) => p.number),
      ).toEqual(done);
      expect(sim.refs.has(branch)).toBe(false);
    }

    expect(peopleActed).toBe(4);
    // One PR per phase, in order, each merged; never two open at once; no lock branch left.
    expect(sim.pulls.map((p) => [p.head, p.state, p.merged])).toEqual([
      [branchOf(1), 'closed', true],
      [branchOf(2), 'closed', true],
      [branchOf(3), 'closed', true],
    ]);
    expect(mostOpen).toBe(1);
    expect([...sim.refs.keys()].filter((r) => r.startsWith('coder/'))).toEqual([]);
    // The one progress comment ends showing the plan complete, and what each phase cost: one agent
    // run, no failed attempt, pause or re-run; the scripted agent reports no cost, so it is unknown.
    const progress = sim.comments.filter((c) => c.body.includes('<!-- coder-loop:progress '));
    expect(progress).toHaveLength(1);
    expect(progress[0]!.body).toContain('The run of plan `Example` is complete');
    expect(progress[0]!.body.split('\n').filter((l) => /^\| \d/.test(l))).toEqual([
      expect.stringMatching(
        /^\| 1 — Endpoint \| ✅ merged \| #2 \| 1 \| 0 \| 0 \| 0 \| [\d.]+ min \| unknown \|$/,
      ),
      expect.stringMatching(
        /^\| 2 — Database probe \| ✅ merged \| #3 \| 1 \| 0 \| 0 \| 0 \| [\d.]+ min \| unknown \|$/,
      ),
      expect.stringMatching(
        /^\| 3 — Documentation \| ✅ merged \| #4 \| 1 \| 0 \| 0 \| 0 \| [\d.]+ min \| unknown \|$/,
      ),
    ]);
  });
});
