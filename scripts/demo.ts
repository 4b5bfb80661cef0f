/**
 * `npm run demo`: one phase of a plan through the whole loop, with no account and no network.
 *
 * GitHub is the in-memory GitHub of the tests (test/sim/github.ts), served on 127.0.0.1; the loop
 * is the BUILT Action bundle (dist/index.js), run once per workflow event as a runner would; the
 * coder is the scripted agent (examples/agents/scripted.mjs), run by the Action's `step: agent` in
 * a real git checkout and committed by `step: apply`. The demo plays the rest of GitHub: CI and
 * one approving reviewer. Each flowchart node is narrated: what GitHub shows now, the files written.
 * Every line fits 80 columns. `--keep` keeps the working folder (the checkouts, each run's files).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle, type BundleRun } from '../test/helpers/bundle.js';
import { OWNER, REPO } from '../test/helpers/github.js';
import { examplePayload, reviewRelayRun } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPTED = join(ROOT, 'examples', 'agents', 'scripted.mjs');
const BRANCH = 'coder/example/phase-1';
const ISSUE = 1;
const repository = {
  name: REPO,
  owner: { login: OWNER },
  html_url: `https://github.com/${OWNER}/${REPO}`,
  default_branch: 'master',
};

const keep = process.argv.includes('--keep');
const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const say = (line = '') => process.stdout.write(`${line}\n`);
/** Most columns of a line the demo prints. */
const WIDTH = 80;

/**
 * `text` in lines of at most WIDTH columns, broken between words: the first line follows `used`
 * columns already printed, the others are indented by `hang`. A word wider than a line is cut.
 */
function wrap(text: string, used: number, hang: number): string[] {
  const lines: string[] = [];
  const width = (s: string) => [...s].length;
  let room = WIDTH - used;
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && width(next) > room) {
      lines.push(line);
      line = word;
      room = WIDTH - hang;
    } else line = next;
    while (width(line) > room) {
      lines.push([...line].slice(0, room).join(''));
      line = [...line].slice(room).join('');
      room = WIDTH - hang;
    }
  }
  lines.push(line);
  return lines.map((l, i) => (i ? `${' '.repeat(hang)}${l}` : l));
}
const sayWrapped = (text: string) => wrap(text, 0, 0).forEach((line) => say(line));

const started = Date.now();
let step = 0;
function node(name: string, what: string) {
  const seconds = `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;
  const title = `${++step}. ${name}`;
  const [first, ...rest] = wrap(what, [...`${seconds} ${title} — `].length, 10);
  say();
  say(`${paint(2, seconds)} ${paint(1, title)} ${paint(2, '—')} ${first}`);
  rest.forEach((line) => say(line));
}
/** A line of what GitHub shows: a label at column 9, the text at column 19, wrapped there. */
function show(label: string, text: string) {
  const [first, ...rest] = wrap(text, 19, 19);
  say(`         ${paint(36, label.padEnd(9))} ${first}`);
  rest.forEach((line) => say(line));
}

const sim = new SimGitHub({
  ...examplePlanFiles(),
  'src/server.ts': 'export const port = 3000;\n',
  '.github/coder.yml': [
    '# The demo repository: one reviewer, the scripted agent as the coder.',
    'reviewers: [reviewer1]',
    'agent:',
    `  command: ${JSON.stringify(`node ${JSON.stringify(SCRIPTED)}`)}`,
    '',
  ].join('\n'),
});
sim.permissions.set('Codertocat', 'write');
sim.permissions.set('reviewer1', 'write');
const server = await sim.serve();
const work = await mkdtemp(join(tmpdir(), 'coder-loop-demo-'));
let runs = 0;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: work,
      GIT_AUTHOR_NAME: 'demo',
      GIT_AUTHOR_EMAIL: 'demo@example.com',
      GIT_COMMITTER_NAME: 'demo',
      GIT_COMMITTER_EMAIL: 'demo@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  })
    .toString('utf8')
    .trim();
}

/** The loop step of the Action for one event, with the App's token. */
async function loop(event: string, payload: Record<string, unknown>): Promise<BundleRun> {
  const dir = join(work, `run-${++runs}`);
  await mkdir(dir, { recursive: true });
  const run = await runBundle({
    work: dir,
    event,
    payload: { ...payload, repository: { ...(payload.repository as object), ...repository } },
    env: {
      GITHUB_API_URL: server.url,
      INPUT_TOKEN: 'ghs_demo_app_token',
      'INPUT_APP-SLUG': 'coder-loop',
    },
  });
  if (run.code !== 0) throw new Error(`the Action failed on ${event}:\n${run.stdout}`);
  return run;
}

/** The lock branch's head checked out with git (the commit takes git's sha in the sim too). */
async function checkout(): Promise<{ dir: string; head: string }> {
  const sha = sim.refs.get(BRANCH)!;
  const dir = join(work, `checkout-${++runs}`);
  for (const [path, text] of Object.entries(sim.files(sha))) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'head');
  const head = git(dir, 'rev-parse', 'HEAD');
  sim.rekey(sha, head);
  return { dir, head };
}

/** The files a commit changed against its parent. */
function written(sha: string): string[] {
  const commit = sim.commits.get(sha)!;
  const before = sim.files(commit.parents[0]!);
  const after = sim.files(sha);
  return Object.keys(after)
    .filter((path) => before[path] !== after[path])
    .sort();
}

function showCommit(sha: string) {
  const commit = sim.commits.get(sha)!;
  show('commit', `${sha.slice(0, 7)} "${commit.message.split('\n')[0]}" on ${BRANCH}`);
  for (const path of written(sha)) show('', `wrote ${path}`);
}

function showComment() {
  const comment = sim.comments.at(-1)!;
  const where = comment.issue === ISSUE ? `issue #${ISSUE}` : `PR #${comment.issue}`;
  show('comment', `on ${where}: ${comment.body.split('\n')[0]!.replace(/\*\*/g, '')}`);
}

/** Markdown of a table cell as text: links as their text, code spans bare, escapes undone. */
const plain = (markdown: string) =>
  markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(?<!\\)`/g, '')
    .replace(/\\(.)/g, '$1')
    .replace(/\*\*/g, '')
    .trim();

/**
 * The Passes Spec? part of the check run's summary (its verdict line, the table of tasks, the test
 * rule) as text within 80 columns: each task on a line, its evidence under it. The table is
 * markdown for GitHub; its status marks become words here.
 */
function showSpecTable() {
  const summary = sim.own(sim.refs.get(BRANCH)!)?.output?.summary ?? '';
  const lines = summary.split('\n');
  const from = lines.findIndex((line) => line.startsWith('**Passes Spec?**'));
  if (from < 0) throw new Error(`no Passes Spec? table in the check run's summary:\n${summary}`);
  show('summary', plain(lines[from]!));
  for (const line of lines.slice(from + 1)) {
    if (line.startsWith('| ---') || line.startsWith('| task |')) continue;
    if (line.startsWith('|')) {
      const [task, status, evidence] = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => plain(cell));
      show('', `task ${task}`);
      show('', `  ${status!.replace(/^[^\p{L}]+/u, '')}: ${evidence}`);
    } else if (line.trim()) show('', plain(line).replace(/^[^\p{L}]+/u, ''));
  }
}

function showCheck() {
  const run = sim.own(sim.refs.get(BRANCH)!);
  if (run)
    show('check', `coder-loop: ${run.conclusion ?? run.status} — ${run.output?.title ?? ''}`);
}

/** The agent workflow a hand-off starts (examples/workflows/coder-agent.yml): agent, then apply. */
async function agentWorkflow(at: { dir: string; head: string }) {
  const dispatch = sim.dispatches.at(-1)!;
  const clientPayload: Record<string, unknown> = { ...dispatch.client_payload, headSha: at.head };
  // GitHub names the App that sent the dispatch as its sender: the loop, here `coder-loop[bot]`.
  const sender = { login: 'coder-loop[bot]', id: 1, type: 'Bot' };
  const event = { action: 'coder-loop-agent', client_payload: clientPayload, repository, sender };
  const temp = join(work, `temp-${++runs}`);
  await mkdir(temp, { recursive: true });
  const env = {
    GITHUB_API_URL: server.url,
    GITHUB_WORKSPACE: at.dir,
    RUNNER_TEMP: temp,
    'INPUT_CHANGES-DIR': join(work, `changes-${runs}`),
    'INPUT_APP-SLUG': 'coder-loop',
  };
  const agent = await runBundle({
    work: temp,
    event: 'repository_dispatch',
    payload: event,
    cwd: at.dir,
    env: { ...env, INPUT_STEP: 'agent', INPUT_TOKEN: 'ghs_demo_read_only_token' },
  });
  show('agent', `scripted agent, node ${String(clientPayload.node)}: ${agent.outputs.state}`);
  const apply = await runBundle({
    work: temp,
    event: 'repository_dispatch',
    payload: event,
    env: {
      ...env,
      INPUT_STEP: 'apply',
      INPUT_TOKEN: 'ghs_demo_app_token',
      'INPUT_CHANGES-DIGEST': agent.outputs.digest!,
    },
  });
  if (apply.outputs.state !== 'committed')
    throw new Error(`step apply: ${apply.outputs.state}\n${apply.stdout}`);
  showCommit(sim.refs.get(BRANCH)!);
}

/** CI reports on the branch head: a check run, then GitHub's check_suite event. */
async function ci(conclusion: 'success' | 'failure') {
  const head = sim.refs.get(BRANCH)!;
  sim.ci(head, conclusion, 'test');
  const payload = examplePayload('check_suite', 'completed');
  payload.check_suite.head_branch = BRANCH;
  payload.check_suite.head_sha = head;
  payload.check_suite.conclusion = conclusion;
  return loop('check_suite', payload);
}

try {
  say(paint(1, 'coder-loop demo: one phase of docs/plans/Example through the loop'));
  sayWrapped(
    `GitHub: in memory on ${server.url} · the loop: dist/index.js · the coder: scripted agent`,
  );
  sayWrapped(
    keep
      ? `Everything written lands in ${work}, kept at the end (--keep).`
      : `Everything written lands in ${work}, removed at the end (--keep keeps it).`,
  );
  sayWrapped('The red CI below is staged: the demo fails CI on purpose to show Debug & Fix.');

  node('Start', `Codertocat comments "/coder next" on issue #${ISSUE}`);
  const next = examplePayload('issue_comment', 'created');
  next.comment.body = '/coder next';
  delete next.issue.pull_request;
  const start = await loop('issue_comment', next);
  show('state', `${start.outputs.state}: plan Example, phase ${start.outputs.phase}`);

  node('Context valid? → Locked? → Mark [~]', 'the plan parses; the lock branch is created');
  show('branch', `${BRANCH} (the lock: one atomic ref creation)`);
  showCommit(sim.refs.get(BRANCH)!);

  const pr = sim.pull(Number(start.outputs['pull-request']));
  node('Automatic PR per phase', `PR #${pr.number} "${pr.title}" → ${pr.base}`);
  showCheck();
  showComment();

  node('TDD → Implement', 'handed to the coding agent (repository_dispatch "coder-loop-agent")');
  await agentWorkflow(await checkout());

  node('Verification', 'CI reports red on the new head (staged: the demo fails it on purpose)');
  let at = await checkout();
  const red = await ci('failure');
  show('state', `${red.outputs.state}: attempt 1 of 3`);
  showCheck();
  showComment();

  node('Debug & Fix', 'handed to the agent with the failing checks');
  await agentWorkflow(at);

  node('Verification', 'CI reports green');
  at = await checkout();
  const green = await ci('success');
  show('state', `${green.outputs.state}: reviewers requested (${pr.requested.join(', ')})`);

  node('Passes Spec?', 'each task of the phase traced to evidence in the PR, on the green head');
  showCheck();
  showSpecTable();

  node('Code Review', 'reviewer1 (write access) approves the head');
  const head = sim.headOf(pr);
  sim.reviews.push({ id: 1, pr: pr.number, user: 'reviewer1', state: 'APPROVED', commit_id: head });
  // The review reaches the loop through the relay's workflow_run (coder-loop-review.yml).
  const approved = await loop('workflow_run', reviewRelayRun(BRANCH, head, 'reviewer1'));
  show('state', `${approved.outputs.state}: no locked paths touched`);

  node('Mark [x] → Report → Update context → Log', 'one commit on top of the approved head');
  showCommit(sim.refs.get(BRANCH)!);

  node('Final Verification', 'CI reports green on the completion commit');
  await checkout();
  const done = await ci('success');
  show('state', done.outputs.state!);
  showCheck();

  node('Return to Orchestrator', `the reply on issue #${ISSUE}`);
  showComment();
  const last = sim.comments.at(-1)!.body;
  if (!/^\*\*Phase 1 complete\*\*/.test(last)) throw new Error(`unexpected reply: ${last}`);
  say();
  say(
    paint(
      32,
      `Phase 1 complete — in ${((Date.now() - started) / 1000).toFixed(1)} s, no account, no network.`,
    ),
  );
  sayWrapped('Next: README.md "Use it on your repository"; docs/loop.md explains every node.');
} finally {
  await server.close();
  if (keep) sayWrapped(`Kept ${work}: each run's files and the checkouts (--keep).`);
  else {
    await rm(work, { recursive: true, force: true });
    sayWrapped(`Removed ${work} (npm run demo -- --keep keeps it).`);
  }
}
