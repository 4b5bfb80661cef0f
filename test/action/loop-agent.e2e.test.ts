import { jest } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitIn, runBundle, type BundleRun } from '../helpers/bundle.js';
import { OWNER, REPO } from '../helpers/github.js';
import { dispatchPayload, examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles, MASTER_LOG } from '../helpers/plans.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * The Implementation Track run by itself (issue 15): the BUILT Action drives a phase from
 * `/coder next` to "Phase 1 complete" with only the scripted agent and one approving human. The
 * loop step (App token) sends each hand-off; the test plays the workflow it starts — `step:
 * agent` in a real git checkout of the head, then `step: apply` — and plays CI. No human pushes.
 */
const SCRIPTED = join(repoRoot, 'examples', 'agents', 'scripted.mjs');
const BRANCH = 'coder/example/phase-1';
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

beforeEach(async () => {
  sim = new SimGitHub({
    ...examplePlanFiles(),
    'src/server.ts': 'export const port = 3000;\n',
    '.github/coder.yml': [
      'reviewers: [reviewer1]',
      'agent:',
      `  command: ${JSON.stringify(`node ${JSON.stringify(SCRIPTED)}`)}`,
      '',
    ].join('\n'),
  });
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write');
  server = await sim.serve();
  work = await mkdtemp(join(tmpdir(), 'coder-loop-loop-agent-'));
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
  expect(sim.violations).toEqual([]);
});

/** The loop step (`step` left out), as the workflow runs it with the App token. */
async function loop(event: string, payload: Record<string, unknown>): Promise<BundleRun> {
  const dir = join(work, `run-${++runs}`);
  await mkdir(dir, { recursive: true });
  return runBundle({
    work: dir,
    event,
    payload: { ...payload, repository: { ...(payload.repository as object), ...repository } },
    env: {
      GITHUB_API_URL: server.url,
      INPUT_TOKEN: 'ghs_app_installation_token',
      'INPUT_APP-SLUG': 'coder-loop',
    },
  });
}

/**
 * GitHub's commit shas are git's: the branch head is checked out in a real git repository and
 * the simulator's commit takes the sha git gives it (every record of it follows). Returns the
 * checkout, at the head.
 */
async function checkout(): Promise<{ dir: string; head: string }> {
  const sha = sim.refs.get(BRANCH)!;
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

/**
 * The workflow a hand-off starts (docs/agent.md): job 1 runs the agent in a checkout of the head
 * with a read-only token; job 2 applies its changes with the App token. Returns apply's outputs.
 */
async function workflow(
  at: { dir: string; head: string },
  { timesOut = false }: { timesOut?: boolean } = {},
): Promise<Record<string, string>> {
  const dispatch = sim.dispatches.at(-1)!;
  expect(dispatch.event_type).toBe('coder-loop-agent');
  // The hand-off went out for the head before the test gave it git's sha.
  const clientPayload = { ...dispatch.client_payload, headSha: at.head };
  const changesDir = join(work, `changes-${++runs}`);
  const event = dispatchPayload(clientPayload, { owner: OWNER, repo: REPO });
  const env = {
    GITHUB_API_URL: server.url,
    GITHUB_WORKSPACE: at.dir,
    RUNNER_TEMP: join(work, `temp-${runs}`),
    'INPUT_CHANGES-DIR': changesDir,
    'INPUT_APP-SLUG': 'coder-loop',
  };
  await mkdir(env.RUNNER_TEMP, { recursive: true });
  const agent = await runBundle({
    work: join(work, `temp-${runs}`),
    event: 'repository_dispatch',
    payload: event,
    cwd: at.dir,
    env: {
      ...env,
      INPUT_STEP: 'agent',
      INPUT_TOKEN: 'ghs_read_only_job_token',
      // An agent that runs out of time: the scripted one's partial mode outlives 3 s.
      ...(timesOut ? { CODER_LOOP_AGENT_TIMEOUT_MS: '3000' } : {}),
    },
  });
  expect(agent.outputs.state).toBe(timesOut ? 'timed-out' : 'changed');
  const apply = await runBundle({
    work: join(work, `temp-${runs}`),
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
  return apply.outputs;
}

/** CI reports on the branch head: one check run, then the check_suite event. */
function ci(conclusion: 'success' | 'failure') {
  const head = sim.refs.get(BRANCH)!;
  sim.ci(head, conclusion, 'test');
  const payload = examplePayload('check_suite', 'completed');
  payload.check_suite.head_branch = BRANCH;
  payload.check_suite.head_sha = head;
  payload.check_suite.conclusion = conclusion;
  return loop('check_suite', payload);
}

let reviewId = 0;
/** reviewer1 reviews the head (with line comments when asking for changes). */
function review(state: 'approved' | 'changes_requested') {
  const pr = sim.pull(2);
  const head = sim.headOf(pr);
  const id = ++reviewId;
  sim.reviews.push({
    id,
    pr: 2,
    user: 'reviewer1',
    state: state === 'approved' ? 'APPROVED' : 'CHANGES_REQUESTED',
    commit_id: head,
    ...(state === 'changes_requested'
      ? {
          body: 'One change.',
          comments: [
            {
              path: 'src/server.ts',
              line: 1,
              body: 'Use 8080.\n```suggestion\nexport const port = 8080;\n```',
            },
          ],
        }
      : {}),
  });
  // The review reaches the loop through the relay's workflow_run.
  return loop('workflow_run', reviewRelayRun(pr.head, head, 'reviewer1'));
}

// Each run of the bundle spaces its writes a second apart (the throttling plugin), as GitHub asks.
jest.setTimeout(600_000);

describe('a phase from /coder next to "Phase 1 complete" with only a scripted agent and one approval', () => {
  it('TDD → red CI → Debug & Fix → green → changes requested → review fix → approval → final verification', async () => {
    const next = examplePayload('issue_comment', 'created');
    next.comment.body = '/coder next';
    delete next.issue.pull_request;
    expect((await loop('issue_comment', next)).outputs.state).toBe('started');
    const nodes = () => sim.dispatches.map((d) => (d.client_payload as { node: string }).node);
    expect(nodes()).toEqual(['tdd']);

    // TDD: the agent writes a failing test, then the code: one commit on the head.
    let at = await checkout();
    expect((await workflow(at)).state).toBe('committed');
    const tddCommit = sim.refs.get(BRANCH)!;
    expect(sim.commits.get(tddCommit)!.parents).toEqual([at.head]);
    expect(Object.keys(sim.files(BRANCH))).toEqual(
      expect.arrayContaining([
        'test/coder/example-phase-1.test.mjs',
        'src/coder/example-phase-1.mjs',
      ]),
    );

    // Verification red → Debug & Fix, handed to the agent (attempt 1 of 3).
    at = await checkout();
    expect((await ci('failure')).outputs.state).toBe('failed');
    expect(nodes()).toEqual(['tdd', 'debug-fix']);
    expect(sim.dispatches.at(-1)!.client_payload).toMatchObject({ attempt: 1, headSha: at.head });
    expect((await workflow(at)).state).toBe('committed');

    // Green → Code Review; changes requested → review-fix.
    at = await checkout();
    expect((await ci('success')).outputs.state).toBe('code-review');
    expect((await review('changes_requested')).outputs.state).toBe('changes-requested');
    expect(nodes()).toEqual(['tdd', 'debug-fix', 'review-fix']);
    expect((await workflow(at)).state).toBe('committed');
    expect(sim.files(BRANCH)['src/server.ts']).toBe('export const port = 8080;\n');

    // Green again, one approving human → the completion commit → final verification.
    await checkout();
    expect((await ci('success')).outputs.state).toBe('code-review');
    expect((await review('approved')).outputs.state).toBe('completing');
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [x] 1.1 Test');
    expect(sim.files(BRANCH)[MASTER_LOG]).toContain('**Coder completed** — Example, Phase 1');
    expect((await ci('success')).outputs.state).toBe('complete');
    expect(sim.comments.at(-1)!.body).toMatch(/^\*\*Phase 1 complete\*\*/);

    // Every agent run is in the loop's record, carried from head to head, and in the report.
    const report = Object.values(sim.files(BRANCH)).find((text) =>
      text.startsWith('# Phase 1: Endpoint — report'),
    );
    expect(report).toMatch(
      /## Agent runs\n\n1\. TDD on `[0-9a-f]{7}`: [\d.]+ min\n2\. Debug & Fix on `[0-9a-f]{7}`: [\d.]+ min\n3\. Review fix on `[0-9a-f]{7}`: [\d.]+ min\n\nTotal: [\d.]+ min \(/,
    );

    // No human pushed: every commit on the branch is the loop's or the agent's.
    const messages: string[] = [];
    for (
      let sha: string | undefined = sim.refs.get(BRANCH);
      sha && sha !== sim.refs.get('master');
      sha = sim.commits.get(sha)?.parents[0]
    )
      messages.unshift(sim.commits.get(sha)!.message.split('\n')[0]!);
    expect(messages).toHaveLength(5);
    expect(messages.filter((m) => /agent/i.test(m))).toHaveLength(3);
    expect(nodes()).toEqual(['tdd', 'debug-fix', 'review-fix']);
  });
});

/** The loop's record on a commit: the newest `coder-loop` check run there. */
function recordOf(sha: string): Record<string, unknown> | undefined {
  const run = sim.checkRuns.filter((r) => r.head_sha === sha && r.name === 'coder-loop').at(-1);
  const text = run?.output?.text ?? '';
  const start = text.lastIndexOf('<!-- coder-loop:record ');
  if (start === -1) return undefined;
  return JSON.parse(
    text.slice(start + '<!-- coder-loop:record '.length, text.indexOf(' -->', start)),
  );
}

describe('an agent that runs out of time (agent.keepPartialWork)', () => {
  const config = (keep: boolean) =>
    [
      'reviewers: [reviewer1]',
      'agent:',
      `  command: ${JSON.stringify(`node ${JSON.stringify(SCRIPTED)} --mode partial --usage file`)}`,
      ...(keep ? ['  keepPartialWork: true'] : []),
      '',
    ].join('\n');
  const start = async (keep: boolean) => {
    const files = { ...sim.files('master'), '.github/coder.yml': config(keep) };
    sim.refs.set('master', sim.commit(files, [sim.refs.get('master')!], 'agent config'));
    const next = examplePayload('issue_comment', 'created');
    next.comment.body = '/coder next';
    delete next.issue.pull_request;
    expect((await loop('issue_comment', next)).outputs.state).toBe('started');
  };

  it('on: its work so far lands as one commit marked partial, a failed attempt the next one starts from', async () => {
    await start(true);
    const at = await checkout();
    const apply = await workflow(at, { timesOut: true });
    expect(apply).toMatchObject({ state: 'committed', 'failed-attempt': 'true' });
    const partial = sim.refs.get(BRANCH)!;
    expect(apply.commit).toBe(partial);
    const commit = sim.commits.get(partial)!;
    expect(commit.parents).toEqual([at.head]);
    expect(commit.message).toMatch(
      /^coder-loop agent: partial TDD for Example phase 1 \(attempt 1, timed out\)/,
    );
    expect(commit.message.split('\n')).toContain('Coder-Loop-Partial: timed out');
    // Only what the agent wrote before its time ran out: the failing test.
    expect(sim.files(partial)['test/coder/example-phase-1.test.mjs']).toBe(
      '// the failing test, written before the time ran out\n',
    );
    expect(sim.files(partial)['src/coder/example-phase-1.mjs']).toBeUndefined();
    const comments = sim.comments.filter((c) => c.issue === 2).map((c) => c.body);
    const said = comments.find((b) => b.startsWith('**Partial agent commit**'));
    expect(said).toContain('This counts as a failed attempt; the next attempt starts from it.');
    expect(said).toMatch(/Agent run: [\d.]+ min, 1,234 input and 567 output tokens, \$0\.09\./);
    // A failed attempt on the partial commit: Debug & Fix starts from it (attempt 1).
    expect(sim.dispatches.at(-1)!.client_payload).toMatchObject({
      node: 'debug-fix',
      attempt: 1,
      headSha: partial,
    });
    // The record on the partial commit: the attempt, and the run with its usage, marked partial.
    const record = recordOf(partial)!;
    expect(record.attempts).toEqual([
      expect.objectContaining({ sha: partial, agent: expect.stringMatching(/^tdd#/) }),
    ]);
    expect(record.agentRuns).toEqual([
      {
        node: 'tdd',
        sha: at.head,
        minutes: expect.any(Number),
        partial: true,
        usage: { inputTokens: 1234, outputTokens: 567, costUsd: 0.089 },
      },
    ]);
  });

  it('off: nothing is written, the run is a failed attempt on the head it was handed', async () => {
    await start(false);
    const at = await checkout();
    const apply = await workflow(at, { timesOut: true });
    expect(apply).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true', commit: '' });
    expect(sim.refs.get(BRANCH)).toBe(at.head);
    expect([...sim.commits.values()].filter((c) => c.parents.includes(at.head))).toEqual([]);
    expect(sim.dispatches.at(-1)!.client_payload).toMatchObject({
      node: 'debug-fix',
      attempt: 1,
      headSha: at.head,
    });
    const record = recordOf(at.head)!;
    expect(record.agentRuns).toEqual([
      {
        node: 'tdd',
        sha: at.head,
        minutes: expect.any(Number),
        usage: { inputTokens: 1234, outputTokens: 567, costUsd: 0.089 },
      },
    ]);
  });
});
