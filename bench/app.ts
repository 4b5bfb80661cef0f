import nock from 'nock';
import {
  API,
  BASE,
  beforeScenario,
  FakeRepo,
  permission,
  requestLog,
  sha,
  testProbot,
} from '../test/helpers/github.js';
import { examplePayload } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { median, table } from './stats.js';

/** The write answers of a successful `/coder next`. */
function mockStart(): void {
  const start = sha('start');
  nock(API)
    .post(`${BASE}/issues/comments/492700400/reactions`)
    .reply(201, { id: 1, content: 'eyes' })
    .post(`${BASE}/git/trees`)
    .reply(201, { sha: sha('tree'), url: '', tree: [], truncated: false })
    .post(`${BASE}/git/commits`)
    .reply(201, { sha: start, tree: { sha: sha('tree') }, parents: [] })
    .post(`${BASE}/git/refs`)
    .reply(201, {
      ref: 'refs/heads/coder/example/phase-1',
      node_id: 'R',
      url: '',
      object: { type: 'commit', sha: start, url: '' },
    })
    .post(`${BASE}/pulls`)
    .reply(201, {
      number: 7,
      html_url: '',
      body: '',
      state: 'open',
      head: { ref: 'coder/example/phase-1', sha: start },
    })
    .post(`${BASE}/issues/1/comments`)
    .reply(201, { id: 2 })
    .post(`${BASE}/check-runs`)
    .reply(201, { id: 3 });
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
