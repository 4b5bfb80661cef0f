import nock from 'nock';
import { Probot } from 'probot';
import { createApp } from '../src/app/app.js';
import { CHECKLIST } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import { makeChecklist } from './checklist.js';
import {
  API,
  BASE,
  beforeScenario,
  created,
  FakeRepo,
  NOW,
  permission,
  requestLog,
  sha,
  testProbot,
  testProbotOptions,
} from '../test/helpers/github.js';
import { commentDelivery, examplePayload } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { median, ms, table } from './stats.js';

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * `/coder next` on a plan of `tasks` tasks the App has never seen: every run starts a new
 * in-memory GitHub (`test/sim/`) whose checklist differs by one comment line, so the blob sha and
 * with it the plan cache key are new (a cold cache: the App reads and parses the plan). GitHub is
 * answered in-process through `fetch`; the CPU spent inside the model (GitHub's share) is taken
 * out. Returns the App's own CPU per event, median of `runs`.
 */
async function nextColdCache(
  tasks: number,
  runs: number,
): Promise<{ cpu: number; requests: number }> {
  // One App for all runs, as in production (its installation token stays cached); a new
  // repository state per run.
  let sim = new SimGitHub({});
  let inGitHub = 0;
  const timedFetch: typeof fetch = async (input, init) => {
    const before = cpuMs();
    try {
      return await sim.fetch(input, init);
    } finally {
      inGitHub += cpuMs() - before;
    }
  };
  const probot = new Probot({ ...testProbotOptions(), request: { fetch: timedFetch } });
  await probot.load(createApp({ now: () => NOW }));
  const cpu: number[] = [];
  let requests = 0;
  for (let i = 0; i < runs + 3; i++) {
    const files: Record<string, string> = { ...examplePlanFiles(), 'src/a.ts': 'a\n' };
    files[CHECKLIST] = `${makeChecklist(tasks)}\n<!-- bench run ${i} -->\n`;
    sim = new SimGitHub(files);
    sim.permissions.set('Codertocat', 'write');
    const delivery = commentDelivery('/coder next');
    delete (delivery.payload.issue as { pull_request?: unknown }).pull_request;
    inGitHub = 0;
    const before = cpuMs();
    await probot.receive({
      id: `cold-${tasks}-${i}`,
      name: 'issue_comment',
      payload: delivery.payload,
    } as never);
    const own = cpuMs() - before - inGitHub;
    if (![...sim.refs.keys()].some((ref) => ref.startsWith('coder/'))) {
      throw new Error(`/coder next on ${tasks} tasks took no lock`);
    }
    requests = sim.requests;
    if (i >= 3) cpu.push(own); // the first runs load modules, fetch the token and warm the JIT
  }
  return { cpu: median(cpu), requests };
}

/** The write answers of a successful `/coder next`. */
function mockStart(): void {
  const start = sha('start');
  nock(API)
    .post(`${BASE}/issues/comments/492700400/reactions`)
    .reply(201, created.reaction())
    .post(`${BASE}/git/trees`)
    .reply(201, created.tree(sha('tree')))
    .post(`${BASE}/git/commits`)
    .reply(201, created.commit(start))
    .post(`${BASE}/git/refs`)
    .reply(201, created.ref())
    .post(`${BASE}/pulls`)
    .reply(201, created.pull(7, start))
    .post(`${BASE}/issues/1/comments`)
    .reply(201, created.comment(2, 1))
    .post(`${BASE}/check-runs`)
    .reply(201, created.checkRun(3));
}

/** `/coder next` with a cold plan cache on a 50-task and a 2,000-task plan: the App's own CPU. */
export async function benchNextCold(): Promise<string> {
  nock.restore();
  try {
    const rows: (string | number)[][] = [];
    for (const tasks of [50, 2_000]) {
      const { cpu, requests } = await nextColdCache(tasks, 15);
      rows.push([tasks.toLocaleString('en'), requests, ms(cpu)]);
    }
    return [
      "/coder next with a cold plan cache: the App's own CPU per event (GitHub's share, the time inside the in-memory model, taken out; median of 15)",
      table(['tasks in the plan', 'requests', 'App CPU per event'], rows),
    ].join('\n');
  } finally {
    nock.activate();
  }
}

/** `/coder next` through the real Probot app: API requests (from the request log) and CPU time. */
export async function benchApp(): Promise<string> {
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = '/coder next';
  const runs = 15;
  const cpu: number[] = [];
  let requests: string[] = [];
  for (let i = 0; i < runs; i++) {
    beforeScenario();
    // A repository config, so the count does not include the org-level fallback read.
    new FakeRepo(examplePlanFiles(), 'master', 'maxRetries: 3\n').mount();
    permission('Codertocat', 'write');
    mockStart();
    const probot = await testProbot();
    const before = process.cpuUsage();
    await probot.receive({ id: `bench-${i}`, name: 'issue_comment', payload });
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    requests = requestLog
      .filter((r) => !r.path.includes('/access_tokens'))
      .map((r) => `${r.method} ${r.path}`);
    nock.cleanAll();
  }
  nock.enableNetConnect();
  const reads = requests.filter((r) => r.startsWith('GET '));
  const repeated = reads.length - new Set(reads).size;
  return [
    '/coder next through the Probot app (REST requests, installation token excluded)',
    table(
      ['event', 'requests', 'reads', 'writes', 'repeated reads', 'median CPU per event'],
      [
        [
          '/coder next',
          requests.length,
          reads.length,
          requests.length - reads.length,
          repeated,
          `${median(cpu).toFixed(1)} ms`,
        ],
      ],
    ),
    '',
    ...requests.map((r, i) => `  ${String(i + 1).padStart(2)}. ${r}`),
  ].join('\n');
}
