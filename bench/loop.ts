import nock from 'nock';
import { beforeScenario, requestLog, testProbot } from '../test/helpers/github.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { Deliver } from '../test/sim/events.js';
import { SimGitHub } from '../test/sim/github.js';
import { table } from './stats.js';

const BRANCH = 'coder/example/phase-1';

interface Count {
  requests: number;
  reads: number;
  repeated: number;
}

async function measure(step: () => Promise<void>): Promise<Count> {
  const from = requestLog.length;
  await step();
  // `GET /app` (the App's identity) is read once per process, by the first event that needs it.
  const log = requestLog
    .slice(from)
    .filter((r) => !r.path.includes('/access_tokens') && r.path !== '/app');
  const reads = log.filter((r) => r.method === 'GET').map((r) => r.path);
  return {
    requests: log.length,
    reads: reads.length,
    repeated: reads.length - new Set(reads).size,
  };
}

/** API requests per loop event (REST, installation token excluded), against the in-memory GitHub. */
export async function benchLoop(): Promise<string> {
  beforeScenario();
  const sim = new SimGitHub({
    ...examplePlanFiles(),
    '.github/coder.yml': 'reviewers: [reviewer1]\n',
  });
  sim.mount();
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write');
  const deliver = new Deliver(await testProbot(), sim);
  await deliver.comment('/coder next');
  const pr = sim.pulls[0]!;
  sim.push(BRANCH, { 'test/health.test.ts': 'test\n', 'src/health.ts': 'code\n' });
  const rows: [string, Count][] = [];
  rows.push(['CI red (attempt 1)', await measure(() => deliver.ci(BRANCH, 'failure'))]);
  sim.push(BRANCH, { 'src/health.ts': 'fixed\n' });
  rows.push(['CI green → code review', await measure(() => deliver.ci(BRANCH, 'success'))]);
  rows.push([
    'approval → completion commit',
    await measure(() => deliver.review(pr.number, 'reviewer1', 'approved')),
  ]);
  rows.push(['final verification green', await measure(() => deliver.ci(BRANCH, 'success'))]);
  nock.cleanAll();
  nock.enableNetConnect();
  return [
    'Loop events through the Probot app (REST requests; the installation token and GET /app, read once per process, excluded)',
    table(
      ['event', 'requests', 'reads', 'writes', 'repeated reads'],
      rows.map(([name, c]) => [name, c.requests, c.reads, c.requests - c.reads, c.repeated]),
    ),
  ].join('\n');
}
