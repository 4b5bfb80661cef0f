import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changesDigest } from '../../src/action/agent/step.js';
import {
  buildAgentPayload,
  decodeRecord,
  withRecord,
  parseAgentPayload,
  parseConfigText,
  withoutRecord,
  type AgentPayload,
} from '../../src/core/index.js';
import { phaseStartedWorld } from '../helpers/agentWorld.js';
import { workflowContext } from '../helpers/bundle.js';
import { OWNER, REPO } from '../helpers/github.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { killProcessesWith, processesWith } from '../helpers/process.js';
import { repoRoot } from '../paths.js';
import { SIM_STORAGE, SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';
import { dispatchPayload } from '../helpers/payloads.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * The hand-off's two jobs, run as the BUILT Action (dist/index.js) in child processes: `step:
 * agent` in a real git checkout of the lock head with the scripted agent (examples/agents), then
 * `step: apply` against the in-memory GitHub over loopback HTTP, every request checked against
 * the OpenAPI description.
 */
const DIST = join(repoRoot, 'dist', 'index.js');
const SCRIPTED = join(repoRoot, 'examples', 'agents', 'scripted.mjs');
const BRANCH = 'coder/example/phase-1';
const AGENT_KEY = 'agent-secret-key-0123456789';

interface Run {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
  /** Requests of this run, `METHOD path`. */
  requests: string[];
}

let sim: SimGitHub;
let server: { url: string; close: () => Promise<void> };
let work: string;
let checkout: string;
let head: string;
let payload: AgentPayload;
let requests: string[];

function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const re = /^([^<\n]+)<<(ghadelimiter_[\w-]+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) outputs[m[1]!] = m[3]!;
  return outputs;
}

/**
 * The world after `/coder next`: the default branch holds the plan and a config whose agent is
 * `command`; the lock branch holds the [~] commit, checked out in a local git repository whose
 * commit is the branch head; the loop PR #2 is open.
 */
async function world(command: string, extra: Record<string, string> = {}): Promise<void> {
  const files: Record<string, string> = {
    ...examplePlanFiles(),
    'src/server.ts': 'export const port = 3000;\n',
    '.github/coder.yml': `agent:\n  command: ${JSON.stringify(command)}\n  env: [AGENT_KEY]\n`,
    ...extra,
  };
  ({ sim, checkout, head } = await phaseStartedWorld(files, work, BRANCH));
  sim.permissions.set('reviewer1', 'write');
  const { config } = parseConfigText(files['.github/coder.yml']!);
  payload = buildAgentPayload({
    node: 'tdd',
    repo: { owner: OWNER, repo: REPO },
    branch: BRANCH,
    headSha: head,
    pullRequest: 2,
    issue: 1,
    plan: { name: 'Example', phase: 1 },
    attempt: 1,
    agent: config!.agent!,
  });
  server = await sim.serve((method, url) => {
    // What GitHub hands out through a redirect (a job's log) is not the REST API.
    if (url.pathname.startsWith(SIM_STORAGE)) return;
    requests.push(`${method} ${decodeURIComponent(url.pathname)}`);
  });
}

/**
 * The digest of changes-dir as it is now: what step agent would have handed on had it written
 * these files (for changes.json contents no real agent run gives).
 */
async function digestNow(): Promise<{ 'INPUT_CHANGES-DIGEST': string }> {
  const dir = join(work, 'changes');
  const read = (name: string) => readFile(join(dir, name)).catch(() => undefined);
  const [changes, summary, run] = await Promise.all([
    read('changes.json'),
    read('summary.md'),
    read('run.json'),
  ]);
  return { 'INPUT_CHANGES-DIGEST': changesDigest(changes!, summary ?? '', run) };
}

/** The digest the last `step: agent` run gave (the agent job's output, handed to apply). */
let lastDigest: string | undefined;

async function action(
  step: 'agent' | 'apply',
  extraEnv: Record<string, string> = {},
  clientPayload: unknown = payload,
  /**
   * The loop asked for this hand-off (its record on the head names it, as the loop writes it
   * before it sends one), and its App sent the dispatch: unless a test says otherwise.
   */
  { asked = true, sender = 'coder-loop[bot]' }: { asked?: boolean; sender?: string } = {},
): Promise<Run> {
  const eventPath = join(work, 'event.json');
  const output = join(work, `output-${step}.txt`);
  const valid = parseAgentPayload(clientPayload).payload;
  if (asked && valid) sim.askHandOff(valid);
  const event = dispatchPayload(clientPayload, { owner: OWNER, repo: REPO });
  event.sender.login = sender;
  await writeFile(eventPath, JSON.stringify(event));
  await writeFile(output, '');
  await mkdir(join(work, 'runner-temp'), { recursive: true });
  const before = requests.length;
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    GITHUB_EVENT_NAME: 'repository_dispatch',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: server.url,
    GITHUB_OUTPUT: output,
    GITHUB_WORKSPACE: checkout,
    RUNNER_TEMP: join(work, 'runner-temp'),
    INPUT_TOKEN: step === 'agent' ? 'ghs_read_only_job_token' : 'ghs_app_installation_token',
    INPUT_STEP: step,
    'INPUT_APP-SLUG': 'coder-loop',
    'INPUT_CHANGES-DIR': join(work, 'changes'),
    // As the workflow hands it on: the last agent step's digest.
    ...(step === 'apply' && lastDigest ? { 'INPUT_CHANGES-DIGEST': lastDigest } : {}),
    ...workflowContext('repository_dispatch', event, 'coder-agent.yml'),
    AGENT_KEY,
    NOT_FOR_THE_AGENT: 'leaked',
    ...extraEnv,
  };
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [DIST], { env, cwd: checkout }, (error, out) =>
      resolve({ code: error ? Number(error.code) : 0, stdout: out }),
    );
  });
  const outputs = parseOutputs(await readFile(output, 'utf8'));
  if (step === 'agent') lastDigest = outputs.digest;
  return { code, stdout, outputs, requests: requests.slice(before) };
}

const changes = async () =>
  JSON.parse(await readFile(join(work, 'changes', 'changes.json'), 'utf8')) as {
    outcome: string;
    headSha: string;
    changes: { path: string; mode?: string; content?: string; deleted?: true }[];
  };

/** The agent run's own folder under RUNNER_TEMP (prompt.md, context/, output/). */
async function agentFolder(): Promise<string> {
  const temp = join(work, 'runner-temp');
  const [name] = (await readdir(temp)).filter((n) => n.startsWith('coder-loop-agent-'));
  return join(temp, name!);
}

const prComments = () => sim.comments.filter((c) => c.issue === 2).map((c) => c.body);
const childrenOf = (sha: string) =>
  [...sim.commits.values()].filter((c) => c.parents.includes(sha));

beforeEach(async () => {
  lastDigest = undefined;
  requests = [];
  work = await mkdtemp(join(tmpdir(), 'coder-loop-agent-e2e-'));
});

afterEach(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
  expect(sim.violations).toEqual([]);
});

// The bundle spaces writes a second apart, as GitHub asks of integrations (throttling plugin).
jest.setTimeout(60_000);

describe('the built Action, step agent then step apply', () => {
  it('TDD with the scripted agent: a failing test, then the code, in one commit on the head', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    const agent = await action('agent');
    expect(agent.code).toBe(0);
    expect(agent.outputs).toMatchObject({ state: 'changed', branch: BRANCH, 'pull-request': '2' });
    // The agent job reads only: no write of any kind with its token.
    expect(agent.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
    const run = await changes();
    expect(run).toMatchObject({ outcome: 'changed', headSha: head });
    expect(run.changes.map((c) => [c.path, c.mode])).toEqual([
      ['src/coder/example-phase-1.mjs', '100644'],
      ['test/coder/example-phase-1.test.mjs', '100644'],
    ]);
    const summary = await readFile(join(work, 'changes', 'summary.md'), 'utf8');
    expect(summary).toContain('- wrote the failing test `test/coder/example-phase-1.test.mjs`');
    expect(summary).toContain('for tasks 1.1, 1.2, 1.2.1; the test passes');
    const folder = await agentFolder();
    const prompt = await readFile(join(folder, 'prompt.md'), 'utf8');
    expect(prompt).toContain('Implement phase 1 ("Endpoint") of the plan "Example"');
    expect(prompt).toContain('### Task plan (the phase document)');
    expect(JSON.parse(await readFile(join(folder, 'context', 'tasks.json'), 'utf8'))).toEqual({
      plan: 'Example',
      phase: { number: 1, name: 'Endpoint' },
      tasks: [
        {
          id: '1.1',
          state: 'doing',
          text: '1.1 Test: `GET /health` answers 200 with `{"status":"ok"}`',
        },
        { id: '1.2', state: 'doing', text: '1.2 Route and handler' },
        {
          id: '1.2.1',
          state: 'doing',
          text: '1.2.1 Register the route before authentication middleware',
        },
      ],
    });
    for (const file of [
      'context.md',
      'checklist.md',
      'task-plan.md',
      'codemap.mmd',
      'requirements/03_Requirements_Health.md',
    ])
      await expect(readFile(join(folder, 'context', file), 'utf8')).resolves.not.toBe('');

    const apply = await action('apply');
    expect(apply.code).toBe(0);
    expect(apply.outputs).toMatchObject({ state: 'committed', 'failed-attempt': 'false' });
    const commit = apply.outputs.commit!;
    expect(sim.refs.get(BRANCH)).toBe(commit);
    expect(sim.commits.get(commit)!.parents).toEqual([head]);
    expect(sim.commits.get(commit)!.message).toContain(`Coder-Loop-Agent: tdd ${head} 1`);
    expect(sim.files(BRANCH)['src/coder/example-phase-1.mjs']).toContain(
      'export const tasks = ["1.1","1.2","1.2.1"];',
    );
    // One test a task, each naming its task (Passes Spec? traces each task to its own line).
    for (const id of ['1.1', '1.2', '1.2.1'])
      expect(sim.files(BRANCH)['test/coder/example-phase-1.test.mjs']).toContain(
        `test('task ${id} is covered by the phase module'`,
      );
    // The run in the loop's record on the handed head, the commit, the loop's check run on it
    // (the record goes on from there), the comment.
    expect(apply.requests.filter((r) => !r.startsWith('GET'))).toEqual([
      'PATCH /repos/Codertocat/Hello-World/check-runs/101',
      'POST /repos/Codertocat/Hello-World/git/trees',
      'POST /repos/Codertocat/Hello-World/git/commits',
      `PATCH /repos/Codertocat/Hello-World/git/refs/heads/${BRANCH}`,
      'POST /repos/Codertocat/Hello-World/check-runs',
      'POST /repos/Codertocat/Hello-World/issues/2/comments',
    ]);
    expect(prComments()).toEqual([
      expect.stringMatching(
        /^\*\*Agent commit\*\* [0-9a-f]{7}: the coding agent \(TDD, attempt 1\)/,
      ),
    ]);
    expect(prComments()[0]).toContain('> Scripted agent, tdd (attempt 1):');
  });

  it("usage the CLI printed (Claude Code's result object) is measured into run.json and shown on the PR; run.json is under the digest", async () => {
    await world(`node ${JSON.stringify(SCRIPTED)} --usage stdout`);
    const agent = await action('agent');
    expect(agent.outputs.state).toBe('changed');
    const run = JSON.parse(await readFile(join(work, 'changes', 'run.json'), 'utf8'));
    expect(run).toEqual({
      version: 1,
      minutes: expect.any(Number),
      timedOut: false,
      usage: { inputTokens: 1234, outputTokens: 567, costUsd: 0.089 },
    });
    // A changed run.json is caught by the digest the agent job handed on.
    const original = await readFile(join(work, 'changes', 'run.json'), 'utf8');
    await writeFile(join(work, 'changes', 'run.json'), original.replace('1234', '1'));
    const refused = await action('apply', { 'INPUT_CHANGES-DIGEST': agent.outputs.digest! });
    expect(refused.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(sim.refs.get(BRANCH)).toBe(head);
    await writeFile(join(work, 'changes', 'run.json'), original);
    const apply = await action('apply', { 'INPUT_CHANGES-DIGEST': agent.outputs.digest! });
    expect(apply.outputs).toMatchObject({ state: 'committed', 'failed-attempt': 'false' });
    expect(prComments().at(-1)).toMatch(
      /CI runs on it next\.\n\nAgent run: [\d.]+ min, 1,234 input and 567 output tokens, \$0\.09\./,
    );
  });

  it('runs the agent with PATH, HOME, its own variables and CODER_* only; no change is a failed attempt', async () => {
    const envFile = join(tmpdir(), `coder-loop-env-${process.pid}-${Date.now()}.txt`);
    await world(`env > ${JSON.stringify(envFile)}`);
    const agent = await action('agent');
    expect(agent.outputs.state).toBe('no-change');
    const seen = (await readFile(envFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(0, l.indexOf('=')));
    await rm(envFile);
    // bash itself adds PWD, SHLVL and _.
    expect(seen.filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n)).sort()).toEqual([
      'AGENT_KEY',
      'CODER_ATTEMPT',
      'CODER_BRANCH',
      'CODER_CONTEXT_DIR',
      'CODER_NODE',
      'CODER_OUTPUT_DIR',
      'CODER_PHASE',
      'CODER_PLAN',
      'CODER_PROMPT_FILE',
      'HOME',
      'PATH',
    ]);
    const apply = await action('apply');
    expect(apply.outputs).toMatchObject({ state: 'no-change', 'failed-attempt': 'true' });
    expect(sim.refs.get(BRANCH)).toBe(head);
    expect(prComments()).toEqual([
      expect.stringMatching(/^\*\*No change\.\*\* .* This counts as a failed attempt\./),
    ]);
  });

  it('kills the agent and every process it started past the timeout; nothing is committed', async () => {
    const token = `coder-loop-sleeper-${process.pid}-${Date.now()}`;
    await world(`node -e 'setTimeout(() => {}, 300000)' ${token} & echo working; wait`);
    const agent = await action('agent', { CODER_LOOP_AGENT_TIMEOUT_MS: '1500' });
    expect(agent.outputs.state).toBe('timed-out');
    expect(processesWith(token)).toEqual([]);
    expect(await changes()).toMatchObject({ outcome: 'timed-out', changes: [] });
    const apply = await action('apply');
    expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(prComments()[0]).toContain(
      'was stopped after 30 minutes (it and every process it started were killed)',
    );
    expect(prComments()[0]).toContain('> working');
    expect(sim.refs.get(BRANCH)).toBe(head);
  });

  it('an agent that leaves a process behind to rewrite changes.json: none is left, nothing is applied', async () => {
    const token = `coder-loop-escapee-${process.pid}-${Date.now()}`;
    try {
      await world(`node ${JSON.stringify(SCRIPTED)} --mode escape --token ${token}`);
      const agent = await action('agent');
      expect(agent.outputs.state).toBe('failed');
      // The process that called setsid, double-forked and dropped its environment is gone too.
      expect(processesWith(token)).toEqual([]);
      // It never found changes-dir: the Action's process is outside the agent's /proc.
      const found = await readFile(join(await agentFolder(), 'output', 'escape-ready'), 'utf8');
      expect(found).toBe('undefined');
      expect(await changes()).toMatchObject({ outcome: 'failed', changes: [] });
      const apply = await action('apply', { 'INPUT_CHANGES-DIGEST': agent.outputs.digest! });
      expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
      expect(prComments()[0]).toMatch(/exited with code 3; nothing was committed/);
      expect(sim.refs.get(BRANCH)).toBe(head);
    } finally {
      killProcessesWith(token);
    }
  });

  it('changes-dir altered after step agent: apply refuses it by the digest the agent job handed on', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)} --mode fail`);
    const agent = await action('agent');
    expect(agent.outputs.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const file = join(work, 'changes', 'changes.json');
    const run = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(
      file,
      JSON.stringify({
        ...run,
        outcome: 'changed',
        reason: undefined,
        changes: [{ path: 'pwned.txt', mode: '100644', content: 'cHduZWQK' }],
      }),
    );
    const apply = await action('apply', { 'INPUT_CHANGES-DIGEST': agent.outputs.digest! });
    expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(prComments()[0]).toContain('its digest differs');
    expect(sim.files(BRANCH)['pwned.txt']).toBeUndefined();
    expect(sim.refs.get(BRANCH)).toBe(head);
  });

  it("the agent's output cannot issue workflow commands, nor set the next steps' environment", async () => {
    const githubEnv = join(work, 'github-env');
    await writeFile(githubEnv, 'KEPT=1\n');
    await world(
      `echo '::add-mask::x'; echo 'NODE_OPTIONS=--require /tmp/evil.cjs' >> ${JSON.stringify(githubEnv)}`,
    );
    const agent = await action('agent', { GITHUB_ENV: githubEnv });
    expect(agent.outputs.state).toBe('no-change');
    expect(await readFile(githubEnv, 'utf8')).toBe('KEPT=1\n');
    expect(agent.stdout).toMatch(/::stop-commands::([0-9a-f]{32})\n::add-mask::x\n[\s\S]*::\1::/);
  });

  it('apply without the digest step agent handed on refuses: nothing committed, a failed attempt', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    expect((await action('agent')).outputs.state).toBe('changed');
    const apply = await action('apply', { 'INPUT_CHANGES-DIGEST': '' });
    expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(prComments()[0]).toContain('came without the digest step agent wrote');
    expect(sim.refs.get(BRANCH)).toBe(head);
  });

  it("apply with the App token from a branch's workflow refuses with the setup error, writing nothing", async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    await action('agent');
    const apply = await action('apply', {
      GITHUB_REF: `refs/heads/${BRANCH}`,
      GITHUB_WORKFLOW_REF: `${OWNER}/${REPO}/.github/workflows/coder-agent.yml@refs/heads/${BRANCH}`,
    });
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain(
      `::error::coder-loop: this job holds the loop's token, but it runs the workflow of refs/heads/${BRANCH}, not of refs/heads/master.`,
    );
    expect(apply.requests).toEqual([]);
    expect(sim.refs.get(BRANCH)).toBe(head);
  });

  it('an agent that exits non-zero: its changes are not applied', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)} --mode fail`);
    expect((await action('agent')).outputs.state).toBe('failed');
    const apply = await action('apply');
    expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(prComments()[0]).toMatch(/exited with code 3; nothing was committed/);
    expect(apply.requests.filter((r) => !r.startsWith('GET') && r.includes('/git/'))).toEqual([]);
    expect(sim.refs.get(BRANCH)).toBe(head);
    // A failed attempt on the loop's record: Debug & Fix is handed off next.
    expect(sim.dispatches.at(-1)?.client_payload).toMatchObject({ node: 'debug-fix', attempt: 1 });
    // The issue is told what failed: the agent's run, not CI (none ran).
    const told = sim.comments.filter((c) => c.issue === 1).map((c) => c.body);
    expect(told.at(-1)).toMatch(
      /^\*\*The coding agent's run failed\*\* on pull request #2 — attempt 1 of 3; it made no commit, so no CI ran\. The coding agent \(tdd, attempt 1\) produced no commit: exited with code 3\./,
    );
    expect(told.join('\n')).not.toContain('CI failed');
  });

  /** A run `step: agent` ended at the provider's limit, as its changes.json says. */
  async function pausedRun(
    pause: { reason: string; until?: string },
    config = '',
    changed: { path: string; content: string }[] = [],
  ) {
    await world('true', config ? { '.github/coder.yml': config } : {});
    await action('agent');
    const file = join(work, 'changes', 'changes.json');
    const run = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(
      file,
      JSON.stringify({
        ...run,
        outcome: 'paused',
        reason: pause.reason,
        pause,
        changes: changed.map((c) => ({
          path: c.path,
          mode: '100644',
          content: Buffer.from(c.content).toString('base64'),
        })),
      }),
    );
    return action('apply', await digestNow());
  }

  it("a paused run's reason is the agent's words: quoted as untrusted text in the reply and the check run", async () => {
    const reason =
      'Claude Code reached its usage limit: @octocat @acme/admins ![x](https://evil.example/x.png) <img src=https://evil.example/y.png> [go](https://evil.example) ## Approved';
    const apply = await pausedRun({
      reason,
      until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(apply.outputs).toMatchObject({ state: 'paused', 'failed-attempt': 'false' });
    // What people read: the comments, and the check runs without the loop's record (an HTML
    // comment whose JSON cannot end it early).
    const posted = [
      ...sim.comments.map((c) => c.body),
      ...sim.checkRuns.map((c) =>
        JSON.stringify({ ...c, output: { ...c.output, text: withoutRecord(c.output?.text) } }),
      ),
    ].join('\n');
    expect(posted).toContain('Paused until');
    expect(posted).toContain('@\u200bacme/admins');
    for (const raw of [
      '<img',
      '@octocat',
      '@acme',
      '](https://evil',

      '## Approved',
      'https://evil',
    ])
      expect(posted).not.toContain(raw);
    // An image stays text: its `!` escaped.
    expect(posted).not.toMatch(/(?<!\\)!\[/);
  });

  it("a pause until a time no provider's limit lasts to (2286) is a failure, with its attempt", async () => {
    const apply = await pausedRun({
      reason: 'Claude Code reached its usage limit: Claude AI usage limit reached|9999999999',
      until: '2286-11-20T17:46:40.000Z',
    });
    expect(apply.outputs).toMatchObject({ state: 'agent-failed', 'failed-attempt': 'true' });
    expect(prComments()[0]).toMatch(
      /^\*\*Agent failed\.\*\* .*2286-11-20T17:46:40\.000Z is further away than any provider's limit lasts/,
    );
    expect(sim.comments.some((c) => c.body.includes('Paused until'))).toBe(false);
    expect(sim.dispatches.at(-1)?.client_payload).toMatchObject({ node: 'debug-fix', attempt: 1 });
  });

  it.each([
    ['off (the default): paused, its work not committed', '', false],
    ['on: paused, its work one partial commit', '  keepPartialWork: true\n', true],
  ])('keepPartialWork %s', async (_name, setting, kept) => {
    const apply = await pausedRun(
      { reason: 'Codex reached its usage limit: You’ve hit your usage limit.' },
      `agent:\n  command: "true"\n  env: [AGENT_KEY]\n${setting}`,
      [{ path: 'test/a.test.mjs', content: 'throw new Error("red");\n' }],
    );
    expect(apply.outputs).toMatchObject({ state: 'paused', 'failed-attempt': 'false' });
    expect(sim.refs.get(BRANCH) !== head).toBe(kept);
    expect(apply.outputs.commit ?? '').toBe(kept ? sim.refs.get(BRANCH) : '');
    expect(sim.comments.filter((c) => c.body.includes('Paused until'))).toHaveLength(1);
  });

  it.each([
    ['workflow', '.github/workflows/agent.yml'],
    ['checklist', CHECKLIST],
  ])('refuses an edit to %s: nothing committed, the comment says why', async (mode, path) => {
    await world(`node ${JSON.stringify(SCRIPTED)} --mode ${mode}`);
    expect((await action('agent')).outputs.state).toBe('changed');
    expect((await changes()).changes.map((c) => c.path)).toEqual([path]);
    const apply = await action('apply');
    expect(apply.outputs).toMatchObject({ state: 'refused', 'failed-attempt': 'true' });
    expect(apply.requests.filter((r) => !r.startsWith('GET') && r.includes('/git/'))).toEqual([]);
    expect(prComments()[0]).toContain('**Agent changes refused.**');
    expect(prComments()[0]).toContain(JSON.stringify(path));
    expect(sim.refs.get(BRANCH)).toBe(head);
  });

  it.each([
    [
      'two links that chain out of the repository',
      [
        { path: 'src/s', mode: '120000', content: Buffer.from('..').toString('base64') },
        { path: 'src/q', mode: '120000', content: Buffer.from('s/../..').toString('base64') },
      ],
      '"src/q" is a symbolic link that leaves the repository through a chain of links',
    ],
    [
      'the deletion of the folder that holds the plans',
      [{ path: 'docs', deleted: true }],
      '"docs" — deletes the folder that holds the plan documents (docs/plans/)',
    ],
  ])(
    'refuses %s in changes.json: nothing written but the comment',
    async (_name, forged, problem) => {
      await world('true');
      await action('agent');
      const file = join(work, 'changes', 'changes.json');
      const run = JSON.parse(await readFile(file, 'utf8'));
      await writeFile(file, JSON.stringify({ ...run, outcome: 'changed', changes: forged }));
      const apply = await action('apply', await digestNow());
      expect(apply.outputs).toMatchObject({ state: 'refused', 'failed-attempt': 'true' });
      expect(prComments()[0]).toContain(problem);
      expect(sim.refs.get(BRANCH)).toBe(head);
    },
  );

  it("a failed run's reason is escaped where the loop posts it", async () => {
    await world('true');
    await action('agent');
    const file = join(work, 'changes', 'changes.json');
    const run = JSON.parse(await readFile(file, 'utf8'));
    const reason =
      'exited 3\n\n## Approved\n@octocat <img src=https://evil.example/x.png> [go](https://evil.example) \u001b[31mred';
    await writeFile(file, JSON.stringify({ ...run, outcome: 'failed', reason }));
    const apply = await action('apply', await digestNow());
    expect(apply.outputs.state).toBe('agent-failed');
    const posted = [
      ...sim.comments.map((c) => c.body),
      ...sim.checkRuns.map((c) => JSON.stringify(c)),
      ...sim.pulls.map((p) => p.body),
    ].join('\n');
    expect(posted).toContain('&lt;img');
    for (const raw of ['<img', '@octocat', '](https://evil', '## Approved', '[31m', 'https://evil'])
      expect(posted).not.toContain(raw);
  });

  it('the branch moved during the run: nothing written, the PR says so', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    expect((await action('agent')).outputs.state).toBe('changed');
    const pushed = sim.push(BRANCH, { 'src/server.ts': 'export const port = 8080;\n' });
    const apply = await action('apply');
    expect(apply.outputs).toMatchObject({ state: 'moved', 'failed-attempt': 'false' });
    expect(sim.refs.get(BRANCH)).toBe(pushed);
    expect(childrenOf(head).map((c) => c.sha)).toEqual([pushed]);
    // The run is in the record of the head it was handed; nothing else but the comment.
    expect(apply.requests.filter((r) => !r.startsWith('GET'))).toEqual([
      'PATCH /repos/Codertocat/Hello-World/check-runs/101',
      'POST /repos/Codertocat/Hello-World/issues/2/comments',
    ]);
    expect(prComments()[0]).toMatch(/^\*\*Not applied\.\*\* .* moved to [0-9a-f]{7} meanwhile/);
  });

  it('a push between the commit and the ref update: the compare-and-swap refuses, nothing lands', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    await action('agent');
    sim.beforeRefUpdate = () => sim.push(BRANCH, { 'src/server.ts': 'export const port = 1;\n' });
    const apply = await action('apply');
    expect(apply.outputs.state).toBe('moved');
    expect(sim.files(BRANCH)['src/coder/example-phase-1.mjs']).toBeUndefined();
  });

  it('a redelivered dispatch: apply twice, one commit', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    await action('agent');
    const first = await action('apply');
    const second = await action('apply');
    expect(first.outputs.state).toBe('committed');
    expect(second.outputs).toMatchObject({
      state: 'already-applied',
      commit: first.outputs.commit,
    });
    expect(second.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
    expect(childrenOf(head)).toHaveLength(1);
    expect(prComments()).toHaveLength(1);
    // And the agent job of the redelivery finds the head moved: it does not run the agent.
    const again = await action('agent');
    expect(again.outputs.state).toBe('stale');
    expect((await action('apply')).outputs.state).toBe('stale');
    expect(childrenOf(head)).toHaveLength(1);
  });

  it('Debug & Fix: the failing check and its redacted log tail reach the agent', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    sim.ci(head, 'failure', 'test', `2026-01-01T00:00:00.0000000Z FAIL health\nkey ${AGENT_KEY}\n`);
    sim.ci(head, 'success', 'lint');
    const debug = { ...payload, node: 'debug-fix' as const, attempt: 1 };
    expect((await action('agent', {}, debug)).outputs.state).toBe('changed');
    const folder = await agentFolder();
    const failures = JSON.parse(
      await readFile(join(folder, 'context', 'ci-failures.json'), 'utf8'),
    );
    expect(failures).toEqual([
      {
        name: 'test',
        conclusion: 'failure',
        url: expect.stringMatching(/\/actions\/runs\/9\/job\/\d+$/),
        logTail: 'FAIL health\nkey [REDACTED]',
      },
    ]);
    const prompt = await readFile(join(folder, 'prompt.md'), 'utf8');
    expect(prompt).toContain('FAIL health');
    expect(prompt).not.toContain(AGENT_KEY);
    const apply = await action('apply', {}, debug);
    expect(apply.outputs.state).toBe('committed');
    expect(sim.files(BRANCH)['src/coder/example-phase-1.mjs']).toContain('"attempt 1: test"');
  });

  it('Debug & Fix without actions: read: the check is listed with its link and no log', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    sim.ci(head, 'failure', 'test', 'FAIL\n');
    sim.logsForbidden = true;
    const debug = { ...payload, node: 'debug-fix' as const };
    expect((await action('agent', {}, debug)).outputs.state).toBe('changed');
    const failures = JSON.parse(
      await readFile(join(await agentFolder(), 'context', 'ci-failures.json'), 'utf8'),
    );
    expect(failures[0].logMissing).toBe(
      'this job may not read Actions logs (give it `actions: read`)',
    );
  });

  it('review fix: the scripted agent edits the commented line', async () => {
    await world(`node ${JSON.stringify(SCRIPTED)}`);
    sim.reviews.push({
      id: 7,
      pr: 2,
      user: 'reviewer1',
      state: 'CHANGES_REQUESTED',
      commit_id: head,
      body: 'One change.',
      comments: [
        {
          path: 'src/server.ts',
          line: 1,
          body: 'Use 8080.\n```suggestion\nexport const port = 8080;\n```',
        },
      ],
    });
    const fix = { ...payload, node: 'review-fix' as const };
    expect((await action('agent', {}, fix)).outputs.state).toBe('changed');
    const review = JSON.parse(
      await readFile(join(await agentFolder(), 'context', 'review-comments.json'), 'utf8'),
    );
    expect(review).toMatchObject({
      reviewer: 'reviewer1',
      comments: [{ path: 'src/server.ts', line: 1 }],
    });
    expect((await action('apply', {}, fix)).outputs.state).toBe('committed');
    expect(sim.files(BRANCH)['src/server.ts']).toBe('export const port = 8080;\n');
  });

  it('a dispatch the loop’s record did not ask for runs nothing, and the log says why', async () => {
    await world(`node ${SCRIPTED}`);
    // Anyone with `contents: write` can send the event, with a well-formed payload for the loop
    // PR's current head: the record there asks for no hand-off.
    const agent = await action('agent', {}, payload, { asked: false });
    expect(agent.code).toBe(0);
    expect(agent.outputs.state).toBe('ignored');
    expect(agent.stdout).toContain(
      `::warning::coder-loop agent: this dispatch is no hand-off the loop asked for: the loop's record on ${head.slice(0, 7)} asks for no hand-off, not tdd (attempt 1). Nothing was run.`,
    );
    await expect(readdir(join(work, 'runner-temp'))).resolves.toEqual([]);
    await expect(readFile(join(work, 'changes', 'changes.json'))).rejects.toThrow();
    const apply = await action('apply', {}, payload, { asked: false });
    expect(apply.outputs.state).toBe('ignored');
    expect(apply.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
    expect(childrenOf(head)).toEqual([]);
  });

  it('a hand-off the record asked for, sent again by a writer (the sender is not the loop): nothing runs', async () => {
    await world(`node ${SCRIPTED}`);
    const agent = await action('agent', {}, payload, { sender: 'mallory' });
    expect(agent.outputs.state).toBe('ignored');
    expect(agent.stdout).toContain(
      '::warning::coder-loop agent: this dispatch is no hand-off the loop asked for: the dispatch was sent by @mallory, not by the loop (coder-loop[bot]). Nothing was run.',
    );
    await expect(readdir(join(work, 'runner-temp'))).resolves.toEqual([]);
  });

  it('step agent without `app-slug` refuses a hand-off the loop’s App sent: one error naming the fix, nothing run', async () => {
    await world(`node ${SCRIPTED}`);
    // Without the App's slug the step could only take the PR's author for the loop — and a
    // writer's workflow opens PRs and sends dispatches as github-actions[bot] too.
    const agent = await action('agent', { 'INPUT_APP-SLUG': '' });
    expect(agent.code).toBe(1);
    const errors = agent.stdout.split('\n').filter((l) => l.startsWith('::error::'));
    expect(errors).toEqual([
      expect.stringContaining(
        'this hand-off comes from coder-loop[bot], a GitHub App, and step agent has no `app-slug`',
      ),
    ]);
    expect(errors[0]).toContain('app-slug: coder-loop');
    await expect(readdir(join(work, 'runner-temp'))).resolves.toEqual([]);
    expect(agent.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
  });

  it('with `app-slug`, a dispatch a writer’s workflow sends as github-actions[bot] runs nothing', async () => {
    await world(`node ${SCRIPTED}`);
    const agent = await action('agent', {}, payload, { sender: 'github-actions[bot]' });
    expect(agent.outputs.state).toBe('ignored');
    expect(agent.stdout).toContain(
      'the dispatch was sent by @github-actions[bot], not by the loop (coder-loop[bot])',
    );
    await expect(readdir(join(work, 'runner-temp'))).resolves.toEqual([]);
  });

  it('an earlier hand-off replayed once the record asks for another: nothing runs', async () => {
    await world(`node ${SCRIPTED}`);
    sim.askHandOff({ ...payload, node: 'debug-fix', attempt: 2 });
    const agent = await action('agent', {}, payload, { asked: false });
    expect(agent.outputs.state).toBe('ignored');
    expect(agent.stdout).toContain(
      `asks for debug-fix (attempt 2) on ${head.slice(0, 7)}, not tdd (attempt 1). Nothing was run.`,
    );
  });

  it.each([
    ['escalated', { escalation: { reason: 'CI failed 3 times', sha: '' } }],
    [
      'paused',
      {
        pause: {
          node: 'tdd' as const,
          attempt: 1,
          until: '2099-01-01T00:00:00Z',
          since: '2026-01-01T00:00:00Z',
          reason: 'usage limit',
        },
      },
    ],
  ])(
    'a writer’s "Re-run jobs" of the last agent run on a PR the loop %s since: nothing runs, nothing is applied',
    async (_, since) => {
      await world(`node ${SCRIPTED}`);
      // The loop asked for this hand-off, then (on the same head) escalated or paused: its record
      // still names the hand-off. A re-run delivers the same dispatch, the loop its sender.
      sim.askHandOff(payload);
      const own = sim.own(head)!;
      const marker = decodeRecord(own.output?.text, head)!;
      own.output = {
        ...own.output,
        text: withRecord(
          '',
          {
            ...marker,
            ...since,
            ...('escalation' in since ? { escalation: { ...since.escalation, sha: head } } : {}),
          },
          head,
        ),
      };
      const agent = await action('agent', {}, payload, { asked: false });
      expect(agent.outputs.state).toBe('ignored');
      expect(agent.stdout).toContain(`is ${_}`);
      await expect(readdir(join(work, 'runner-temp'))).resolves.toEqual([]);
      const apply = await action('apply', {}, payload, { asked: false });
      expect(apply.outputs.state).toBe('ignored');
      expect(apply.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
      expect(childrenOf(head)).toEqual([]);
    },
  );

  it('refuses a payload out of shape, and acts on no pull request that is not a loop PR', async () => {
    await world('true');
    const bad = await action('agent', {}, { ...payload, branch: 'main' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      '::error::coder-loop: The hand-off payload is invalid: `branch`: must be a coder/ branch.',
    );
    sim.pull(2).state = 'closed';
    const closed = await action('apply');
    expect(closed.outputs.state).toBe('ignored');
    expect(closed.requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
  });
});
