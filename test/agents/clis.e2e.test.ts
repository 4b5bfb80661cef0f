import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import {
  buildAgentPayload,
  decodeRecord,
  parseConfigText,
  type AgentPayload,
} from '../../src/core/index.js';
import { phaseStartedWorld } from '../helpers/agentWorld.js';
import { DIST, parseOutputs, workflowContext } from '../helpers/bundle.js';
import { OWNER, REPO } from '../helpers/github.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { repoRoot } from '../paths.js';
import { SIM_STORAGE, SimGitHub } from '../sim/github.js';
import { readAgentExamples, type AgentExample } from './examples.js';
import { startModelServer, strings, type Limit, type ModelServer } from './model-server.js';
import { startEgressGuard, type EgressGuard } from './egress.js';
import { freshBuild } from '../helpers/build.js';
import { dispatchPayload } from '../helpers/payloads.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * Every agent CLI docs/agent.md lists, its real npm package (pinned in test/agents/clis), run by
 * the BUILT Action's `step: agent` with the command examples/agents/<cli>.yml documents, against
 * the scripted model on 127.0.0.1 (test/agents/model-server.ts) that drives it through its own
 * tools: the failing test, the code, the summary. Then `step: apply` against the in-memory
 * GitHub: one commit on the head, the agent's own summary on the PR.
 */
const CLIS = join(repoRoot, 'test', 'agents', 'clis');
const BIN = join(CLIS, 'node_modules', '.bin');
const BRANCH = 'coder/example/phase-1';
/**
 * Where each run's checkout and RUNNER_TEMP live: not under /tmp, as on GitHub's runners
 * (/home/runner/work/_temp), where a CLI's sandbox that allows /tmp does not reach them. Beside
 * the tests, or, when this clone itself is under /tmp, in the user's cache: Codex's sandbox gives
 * its shell a /tmp of its own, so a checkout under /tmp is not there for its commands.
 */
const WORK_ROOT = isInside(tmpdir(), repoRoot)
  ? join(homedir(), '.cache', 'coder-loop-test', 'agent-runs')
  : join(repoRoot, 'test', 'agents', '.work');

function isInside(folder: string, path: string): boolean {
  const rel = relative(realpathSync(folder), realpathSync(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const TEST_FILE = 'test/coder/health.test.mjs';
const CODE_FILE = 'src/coder/health.mjs';
const TEST_TEXT =
  "import assert from 'node:assert/strict';\nimport { health } from '../../src/coder/health.mjs';\n\nassert.deepEqual(health(), { status: 'ok' });\n";
const CODE_TEXT = "export const health = () => ({ status: 'ok' });\n";
/** The test, run with the CLI's shell tool; what it prints is what the model gets back. */
const RUN_TEST = `node ${TEST_FILE} > /dev/null 2>&1; echo "the test exited with $?"`;

/**
 * One test's world: its own folder, in-memory GitHub and scripted model, so that tests that only
 * wait (a CLI's backoff, the agent's time limit) run beside the others (`it.concurrent`).
 */
interface Run {
  sim: SimGitHub;
  /** The digest of the last `step: agent` run (its output), handed to `step: apply`. */
  lastDigest?: string;
  github: { url: string; close: () => Promise<void> };
  model: ModelServer;
  /** The proxy every CLI is pointed at: it records any host but 127.0.0.1 the CLI asks for. */
  egress: EgressGuard;
  work: string;
  checkout: string;
  head: string;
  payload: AgentPayload;
  requests: string[];
}

/**
 * Runs `test` in a folder of its own (its world built by `world()`), then stops that world's
 * servers, removes the folder, and checks every request the in-memory GitHub answered.
 */
async function inRun(test: (r: Run) => Promise<void>): Promise<void> {
  await mkdir(WORK_ROOT, { recursive: true });
  const r: Partial<Run> = {
    requests: [],
    work: await mkdtemp(join(WORK_ROOT, 'run-')),
    egress: await startEgressGuard(),
  };
  try {
    await test(r as Run);
  } finally {
    await r.github?.close();
    await r.model?.close();
    await r.egress!.close();
    await rm(r.work!, { recursive: true, force: true });
  }
  expect(r.sim?.violations).toEqual([]);
  // The CLI, run as docs/agent.md documents it, reached no host but 127.0.0.1.
  expect(r.egress!.refused).toEqual([]);
}

const runnerTemp = (r: Run) => join(r.work, 'runner-temp');

/** The agent run's own folder under RUNNER_TEMP (prompt.md, context/, output/). */
async function agentFolder(r: Run): Promise<string> {
  const [name] = (await readdir(runnerTemp(r))).filter((n) => n.startsWith('coder-loop-agent-'));
  if (!name) throw new Error('step agent made no folder under RUNNER_TEMP');
  return join(runnerTemp(r), name);
}

/** The world after `/coder next`, with the example's agent config (plus the test's variables). */
async function world(
  r: Run,
  example: AgentExample,
  extra: Record<string, string> = {},
  limit?: Limit,
  keepPartialWork = false,
): Promise<void> {
  const agent = {
    ...example.agent,
    env: [...example.agent.env],
    ...(keepPartialWork ? { keepPartialWork: true } : {}),
  };
  for (const name of [...Object.keys(example.test.env), ...Object.keys(r.egress.env)])
    if (!agent.env.includes(name)) agent.env.push(name);
  const files: Record<string, string> = {
    ...examplePlanFiles(),
    'src/server.ts': 'export const port = 3000;\n',
    '.github/coder.yml': yaml.dump({ agent }, { lineWidth: -1 }),
    ...extra,
  };
  ({
    sim: r.sim,
    checkout: r.checkout,
    head: r.head,
  } = await phaseStartedWorld(files, r.work, BRANCH));
  const { config, problems } = parseConfigText(files['.github/coder.yml']!);
  if (!config?.agent)
    throw new Error(`the example's agent config is refused: ${JSON.stringify(problems)}`);
  r.payload = buildAgentPayload({
    node: 'tdd',
    repo: { owner: OWNER, repo: REPO },
    branch: BRANCH,
    headSha: r.head,
    pullRequest: 2,
    issue: 1,
    plan: { name: 'Example', phase: 1 },
    attempt: 1,
    agent: config.agent,
  });
  r.github = await r.sim.serve((method, url) => {
    if (url.pathname.startsWith(SIM_STORAGE)) return;
    r.requests.push(`${method} ${decodeURIComponent(url.pathname)}`);
  });
  r.model = await startModelServer({
    cwd: r.checkout,
    final: 'Done: the health test and its code.',
    ...(limit ? { limit } : {}),
    steps: async () => [
      { path: TEST_FILE, content: TEST_TEXT },
      { run: RUN_TEST },
      { path: CODE_FILE, content: CODE_TEXT },
      { run: RUN_TEST },
      {
        path: join(await agentFolder(r), 'output', 'summary.md'),
        content: `${example.name} wrote the failing test \`${TEST_FILE}\`, then \`${CODE_FILE}\`.\n`,
      },
    ],
  });
}

async function action(
  r: Run,
  step: 'agent' | 'apply',
  example: AgentExample,
  /** The Action's own environment (not the agent's). */
  own: Record<string, string> = {},
) {
  const eventPath = join(r.work, 'event.json');
  const output = join(r.work, `output-${step}.txt`);
  // The loop asked for this hand-off: its record on the head names it, as the loop writes it.
  r.sim.askHandOff(r.payload);
  const event = dispatchPayload(r.payload, { owner: OWNER, repo: REPO });
  await writeFile(eventPath, JSON.stringify(event));
  await writeFile(output, '');
  await mkdir(runnerTemp(r), { recursive: true });
  await mkdir(join(r.work, 'home'), { recursive: true });
  // The runner user's own settings, where a CLI needs one (examples/agents/<cli>.yml `test.home`).
  for (const [path, text] of Object.entries(example.test.home ?? {})) {
    await mkdir(dirname(join(r.work, 'home', path)), { recursive: true });
    await writeFile(join(r.work, 'home', path), text);
  }
  const testEnv = Object.fromEntries(
    Object.entries(example.test.env).map(([k, v]) => [k, v.replace('{model}', r.model.url)]),
  );
  const env = {
    // The CLIs as a workflow's `npm install -g` would put them on PATH.
    PATH: `${BIN}${delimiter}${process.env.PATH}`,
    HOME: join(r.work, 'home'),
    GITHUB_EVENT_NAME: 'repository_dispatch',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: r.github.url,
    GITHUB_OUTPUT: output,
    GITHUB_WORKSPACE: r.checkout,
    RUNNER_TEMP: runnerTemp(r),
    INPUT_TOKEN: step === 'agent' ? 'ghs_read_only_job_token' : 'ghs_app_installation_token',
    INPUT_STEP: step,
    'INPUT_APP-SLUG': 'coder-loop',
    'INPUT_CHANGES-DIR': join(r.work, 'changes'),
    // As the workflow hands it on: the agent step's digest, to the apply step.
    ...(step === 'apply' && r.lastDigest ? { 'INPUT_CHANGES-DIGEST': r.lastDigest } : {}),
    // What GitHub sets for the hand-off's run: the default branch's coder-agent.yml.
    ...workflowContext('repository_dispatch', event, 'coder-agent.yml'),
    ...testEnv,
    ...r.egress.env,
    ...own,
  };
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(
      process.execPath,
      [DIST],
      { env, cwd: r.checkout, maxBuffer: 64 * 1024 * 1024 },
      (error, out) => resolve({ code: error ? Number(error.code) : 0, stdout: out }),
    );
  });
  const outputs = parseOutputs(await readFile(output, 'utf8'));
  if (step === 'agent') r.lastDigest = outputs.digest;
  return { code, stdout, outputs };
}

const prComments = (r: Run) => r.sim.comments.filter((c) => c.issue === 2).map((c) => c.body);

const EXAMPLES = readAgentExamples();

beforeAll(() => {
  const missing = EXAMPLES.filter(
    (e) => !existsSync(join(CLIS, 'node_modules', e.package, 'package.json')),
  );
  if (missing.length)
    throw new Error(
      `The agent CLIs are not installed (${missing.map((e) => e.package).join(', ')}): run \`npm run agent-clis\` (npm ci --prefix test/agents/clis).`,
    );
});

// A real CLI's cold start, its tool runs, and the bundle's throttled writes.
const TIMEOUT_MS = 240_000;
jest.setTimeout(TIMEOUT_MS);

async function tdd(r: Run, example: AgentExample, extra: Record<string, string> = {}) {
  await world(r, example, extra);
  const agent = await action(r, 'agent', example);
  const prompt = await readFile(join(await agentFolder(r), 'prompt.md'), 'utf8');
  return { agent, prompt };
}

async function expectLanded(
  r: Run,
  example: AgentExample,
  agent: Awaited<ReturnType<typeof action>>,
  prompt: string,
) {
  // The WHOLE prompt reached the model, as one text.
  const texts = r.model.requests.flatMap((q) => strings(q.body));
  expect(texts.some((t) => t.includes(prompt.trim()))).toBe(true);
  // Through the CLI's own tools: the test, red; the code, green; the summary.
  expect(r.model.calls).toHaveLength(5);
  expect(r.model.calls[0]).toContain(TEST_FILE);
  expect(r.model.calls[2]).toContain(CODE_FILE);
  expect(r.model.calls[4]).toContain('summary.md');
  const firstWith = (text: string) =>
    r.model.requests.findIndex((q) => strings(q.body).some((t) => t.includes(text)));
  const red = firstWith('the test exited with 1');
  const green = firstWith('the test exited with 0');
  expect(red).toBeGreaterThan(-1);
  expect(green).toBeGreaterThan(red);
  expect(agent.outputs).toMatchObject({ state: 'changed', branch: BRANCH });
  const changes = JSON.parse(await readFile(join(r.work, 'changes', 'changes.json'), 'utf8')) as {
    changes: { path: string }[];
  };
  expect(changes.changes.map((c) => c.path).sort()).toEqual([CODE_FILE, TEST_FILE]);

  const apply = await action(r, 'apply', example);
  expect(apply.outputs).toMatchObject({ state: 'committed', 'failed-attempt': 'false' });
  const commit = apply.outputs.commit!;
  expect(r.sim.refs.get(BRANCH)).toBe(commit);
  expect(r.sim.commits.get(commit)!.parents).toEqual([r.head]);
  expect(r.sim.files(BRANCH)[TEST_FILE]).toBe(TEST_TEXT);
  expect(r.sim.files(BRANCH)[CODE_FILE]).toBe(CODE_TEXT);
  // The agent's own summary, not the output tail.
  expect(prComments(r)).toHaveLength(1);
  expect(prComments(r)[0]).toContain(`${example.name} wrote the failing test`);
  // The usage the CLI printed in its machine-readable output, parsed and shown on the PR.
  expect(prComments(r)[0]).toMatch(
    /Agent run: [^\n]*[1-9][\d,]* input and [1-9][\d,]* output tokens/,
  );
}

describe.each(EXAMPLES.map((e) => [e.name, e] as const))(
  '%s, as docs/agent.md documents it',
  (_name, example) => {
    it('step agent runs it against the scripted model; step apply lands its work as one commit', () =>
      inRun(async (r) => {
        const { agent, prompt } = await tdd(r, example);
        await expectLanded(r, example, agent, prompt);
      }));
  },
);

describe('a prompt of ~200 KB (a large phase)', () => {
  it('reaches the model whole through stdin', () =>
    inRun(async (r) => {
      const example = EXAMPLES.find((e) => e.id === 'claude-code')!;
      // A phase of 260 tasks, each with a long text: the prompt lists every one.
      const files = examplePlanFiles();
      const tasks = Array.from(
        { length: 260 },
        (_, i) =>
          `  - [ ] 1.2.${i + 2} Handle case ${i + 2}: ${'the endpoint answers within the documented limits, '.repeat(14).trim()}`,
      ).join('\n');
      const { agent, prompt } = await tdd(r, example, {
        [CHECKLIST]: files[CHECKLIST]!.replace(
          '  - [ ] 1.2.1 Register the route before authentication middleware\n',
          `  - [ ] 1.2.1 Register the route before authentication middleware\n${tasks}\n`,
        ),
      });
      expect(Buffer.byteLength(prompt)).toBeGreaterThan(150_000);
      await expectLanded(r, example, agent, prompt);
    }));
});

/**
 * The Action's scheduled sweep (examples/workflows/coder-resume.yml): the loop run on `schedule`
 * from the default branch's workflow, whose event file holds the cron and, as GitHub's have since
 * 2022, the repository and its organization (the same objects as a real event's). `aheadMs` runs
 * it that much later than now: the first scheduled run after the pause's end (a preload moves
 * the bundle's clock).
 */
async function sweep(r: Run, aheadMs = 0) {
  const eventPath = join(r.work, 'schedule.json');
  const output = join(r.work, 'output-sweep.txt');
  const { repository, organization } = dispatchPayload({}, { owner: OWNER, repo: REPO }) as {
    repository: unknown;
    organization?: unknown;
  };
  await writeFile(
    eventPath,
    JSON.stringify({
      schedule: '*/15 * * * *',
      repository,
      ...(organization ? { organization } : {}),
    }),
  );
  await writeFile(output, '');
  const clock = join(r.work, 'clock-ahead.mjs');
  await writeFile(
    clock,
    `const Real = Date;\nconst ahead = ${aheadMs};\nglobalThis.Date = class extends Real {\n  constructor(...args) {\n    if (args.length) super(...args);\n    else super(Real.now() + ahead);\n  }\n  static now() {\n    return Real.now() + ahead;\n  }\n};\n`,
  );
  const ref = 'refs/heads/master';
  const env = {
    PATH: process.env.PATH,
    HOME: join(r.work, 'home'),
    GITHUB_EVENT_NAME: 'schedule',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: r.github.url,
    GITHUB_OUTPUT: output,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REF: ref,
    GITHUB_WORKFLOW_REF: `${OWNER}/${REPO}/.github/workflows/coder-resume.yml@${ref}`,
    RUNNER_TEMP: runnerTemp(r),
    INPUT_TOKEN: 'ghs_app_installation_token',
    'INPUT_APP-SLUG': 'coder-loop',
  };
  const stdout = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(clock).href, DIST],
      { env, cwd: r.work },
      (_error, out) => resolve(out),
    );
  });
  return { stdout, outputs: parseOutputs(await readFile(output, 'utf8')) };
}

/** The loop's record on `sha` (its App's `coder-loop` check run there). */
const recordOn = (r: Run, sha: string) => decodeRecord(r.sim.own(sha)?.output?.text, sha);

/** What `step: agent` handed on (changes-dir/changes.json). */
async function handedOn(r: Run) {
  return JSON.parse(await readFile(join(r.work, 'changes', 'changes.json'), 'utf8')) as {
    outcome: string;
    pause?: { reason: string; until?: string };
    changes: { path: string }[];
  };
}

/** Every workflow the repository's default branch holds, as examples/workflows has them. */
const WORKFLOWS = Object.fromEntries(
  readdirSync(join(repoRoot, 'examples', 'workflows')).map((name) => [
    `.github/workflows/${name}`,
    readFileSync(join(repoRoot, 'examples', 'workflows', name), 'utf8'),
  ]),
);

/**
 * Each CLI at its provider's limit, as its real package ends there: the scripted model answers
 * the provider's own 429 once the failing test is written (test/agents/model-server.ts). Where a
 * CLI retries a 429, its own knob keeps the test short.
 */
interface LimitCase {
  id: string;
  label: string;
  /** The CLI's environment for this case (replacing the example's test variables). */
  env?: Record<string, string>;
  resetSeconds: number;
  /** What the pause's reason says. */
  reason: RegExp;
  /** Whether the CLI said when the limit resets. */
  until: boolean;
  /** How many limit answers the CLI took before it gave up (its retries). */
  answers: number;
  /** The Anthropic API's spend limit (a 400), not its 429. */
  spend?: true;
  /** The agent's time limit (`CODER_LOOP_AGENT_TIMEOUT_MS`): a CLI that waits out the limit. */
  timeoutMs?: number;
  /**
   * The case spends most of its time waiting (the CLI's own backoff, the agent's time limit): it
   * runs beside the other tests (`it.concurrent`, started with the file) instead of holding the
   * Jest worker idle.
   */
  waits?: true;
}

const LIMIT_CASES: LimitCase[] = [
  {
    id: 'claude-code',
    label: "a subscription's session limit (CLAUDE_CODE_OAUTH_TOKEN)",
    env: { ANTHROPIC_BASE_URL: '{model}', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-scripted' },
    resetSeconds: 2 * 3600,
    reason: /^Claude Code reached its usage limit: You've hit your session limit · resets /,
    until: true,
    answers: 1,
  },
  {
    id: 'claude-code',
    label: 'an API key past its retries (CLAUDE_CODE_MAX_RETRIES=1)',
    env: {
      ANTHROPIC_BASE_URL: '{model}',
      ANTHROPIC_API_KEY: 'sk-ant-scripted',
      CLAUDE_CODE_MAX_RETRIES: '1',
    },
    resetSeconds: 1,
    reason: /^Claude Code reached its rate limit: API Error: Request rejected \(429\) · /,
    until: false,
    answers: 2,
  },
  {
    id: 'claude-code',
    label: "an API key at its workspace's spend limit (the API's 400, not retried)",
    env: { ANTHROPIC_BASE_URL: '{model}', ANTHROPIC_API_KEY: 'sk-ant-scripted' },
    resetSeconds: 3 * 3600,
    spend: true,
    reason:
      /^Claude Code reached its usage limit: API Error: 400 You have reached your specified API usage limits\. You will regain access on \d{4}-\d{2}-\d{2} at \d{2}:\d{2} UTC\.$/,
    until: true,
    answers: 1,
  },
  {
    id: 'codex',
    label: 'a Plus plan at its usage limit (usage_limit_reached)',
    resetSeconds: 2 * 3600,
    reason: /^Codex reached its usage limit: You’ve hit your usage limit\. .* try again at /,
    until: true,
    answers: 1,
  },
  {
    id: 'gemini-cli',
    label: 'a daily quota (RESOURCE_EXHAUSTED, TerminalQuotaError)',
    resetSeconds: 40,
    reason:
      /^Gemini CLI reached its usage limit: .*You have exhausted your daily quota on this model\./,
    until: true,
    answers: 1,
  },
  {
    id: 'opencode',
    label:
      'a retry-after of an hour, waited out silently until its time ran out (its log says why)',
    resetSeconds: 3600,
    reason:
      /^OpenCode reached its rate limit: Rate limit reached for .* Please try again in 3600s\./,
    until: true,
    answers: 1,
    // Long enough for its cold start and first tool call on a busy runner, now that it runs
    // beside the other tests (their CLIs' starts take the same cores): at 40 s, a fresh-clone run
    // on a loaded machine saw its time run out before its second request, the one the limit
    // answers. Waited beside the others, the longer limit costs the suite little wall time.
    timeoutMs: 90_000,
    waits: true,
  },
  {
    id: 'opencode',
    label: 'a rate limit past its five retries (retry-after: 1)',
    resetSeconds: 1,
    reason: /^OpenCode reached its rate limit: Rate limit reached for /,
    until: true,
    answers: 6,
    waits: true,
  },
];

/** The example with this case's variables for the CLI (`agent.env` names them). */
function limitExample(c: LimitCase): AgentExample {
  const example = EXAMPLES.find((e) => e.id === c.id)!;
  return c.env ? { ...example, test: { ...example.test, env: c.env } } : example;
}

/**
 * `step: agent` of a CLI at the limit: it wrote the failing test, met the limit, gave up after its
 * own retries, and the run ends paused, its work handed on, with the reset when the CLI said it.
 */
async function pausedAtLimit(r: Run, c: LimitCase, extra: Record<string, string> = {}) {
  const example = limitExample(c);
  const started = Date.now();
  await world(
    r,
    example,
    extra,
    { after: 1, resetSeconds: c.resetSeconds, ...(c.spend ? { kind: 'spend' as const } : {}) },
    true,
  );
  const agent = await action(
    r,
    'agent',
    example,
    c.timeoutMs ? { CODER_LOOP_AGENT_TIMEOUT_MS: String(c.timeoutMs) } : {},
  );
  expect(r.model.calls).toHaveLength(1);
  expect(r.model.calls[0]).toContain(TEST_FILE);
  expect(r.model.limits).toHaveLength(c.answers);
  expect(agent.outputs).toMatchObject({ state: 'paused' });
  const run = await handedOn(r);
  expect(run.outcome).toBe('paused');
  expect(run.changes.map((x) => x.path)).toEqual([TEST_FILE]);
  expect(run.pause?.reason).toMatch(c.reason);
  if (c.until) {
    // Never before the provider's reset (a printed minute is read as its end), at most a minute
    // after it.
    const until = Date.parse(run.pause!.until!);
    const reset = r.model.resets.at(-1)!;
    expect(until).toBeGreaterThanOrEqual(reset);
    expect(until).toBeLessThanOrEqual(reset + 60_000);
    expect(until).toBeGreaterThanOrEqual(started + c.resetSeconds * 1000);
  } else expect(run.pause?.until).toBeUndefined();
  return { example, pause: run.pause! };
}

// Each case runs the whole path: the agent step at the limit, the apply step, the scheduled sweep.
describe.each(LIMIT_CASES.map((c) => [`${limitExample(c).name}, ${c.label}`, c] as const))(
  'at the provider limit: %s',
  (_name, c) => {
    (c.waits ? it.concurrent : it)(
      'step agent ends paused; step apply keeps the work and records the pause, no attempt spent; the scheduled sweep resumes the node after the reset, not before',
      () => inRun((r) => pausedThenResumed(r, c)),
      TIMEOUT_MS,
    );
  },
);

/** The whole path of one limit case (see the `describe.each` above). */
async function pausedThenResumed(r: Run, c: LimitCase) {
  const { example, pause } = await pausedAtLimit(r, c, WORKFLOWS);

  const apply = await action(r, 'apply', example);
  expect(apply.outputs).toMatchObject({ state: 'paused', 'failed-attempt': 'false' });
  // The work so far, one partial commit on the head.
  const commit = apply.outputs.commit!;
  expect(r.sim.refs.get(BRANCH)).toBe(commit);
  expect(r.sim.commits.get(commit)!.parents).toEqual([r.head]);
  expect(r.sim.commits.get(commit)!.message).toContain('paused at the provider');
  expect(r.sim.files(BRANCH)[TEST_FILE]).toBe(TEST_TEXT);
  expect(r.sim.files(BRANCH)[CODE_FILE]).toBeUndefined();
  // Paused until the reset (the CLI's, else `agent.pauseMinutes` from now), on that commit; no
  // attempt spent.
  const record = recordOn(r, commit)!;
  expect(record.pause).toMatchObject({ node: 'tdd', attempt: 1 });
  const until = record.pause!.until;
  // (The CLI's reset, or now when that has passed already: a pause never ends in the past.)
  if (pause.until) expect(Date.parse(until)).toBeGreaterThanOrEqual(Date.parse(pause.until));
  else expect(Date.parse(until)).toBeGreaterThan(Date.now() + 59 * 60_000);
  expect(record.attempts ?? []).toEqual([]);
  expect(record.pauses).toHaveLength(1);
  // Said once on the issue, with how it resumes: the scheduled workflow is installed.
  const told = r.sim.comments.filter((x) => x.body.includes('Paused until'));
  expect(told).toHaveLength(1);
  expect(told[0]!.body).toContain('The scheduled resume workflow hands');
  const dispatched = r.sim.dispatches.length;

  // The sweep five minutes before the reset: nothing.
  const early = await sweep(r, Date.parse(until) - Date.now() - 5 * 60_000);
  expect(early.outputs.state).toBe('not-due');
  expect(r.sim.dispatches).toHaveLength(dispatched);
  expect(recordOn(r, commit)?.pause).toBeDefined();

  // Its first run after the reset: the same node handed to the agent again, on the partial work.
  const late = await sweep(r, Date.parse(until) - Date.now() + 15 * 60_000);
  expect(late.outputs.state).toBe('resumed');
  expect(r.sim.dispatches).toHaveLength(dispatched + 1);
  const handOff = r.sim.dispatches.at(-1)!;
  expect(handOff.client_payload).toMatchObject({
    node: 'tdd',
    attempt: 1,
    headSha: commit,
    branch: BRANCH,
  });
  expect(recordOn(r, commit)?.pause).toBeUndefined();
  expect(recordOn(r, commit)?.attempts ?? []).toEqual([]);
}
