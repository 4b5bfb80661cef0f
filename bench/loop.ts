import nock from 'nock';
import { beforeScenario, requestLog, testProbot } from '../test/helpers/github.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { Deliver } from '../test/sim/events.js';
import { SimGitHub } from '../test/sim/github.js';
import { table } from './stats.js';

const BRANCH = 'coder/example/phase-1';
/** GitHub's secondary limit on content-creating requests, per App installation. */
const WRITES_PER_MINUTE = 80;
const WRITES_PER_HOUR = 500;

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

/** The events of one phase, started with `command` (`/coder next`, or `/coder run`: inside a run). */
async function phaseEvents(command: string): Promise<[string, Count][]> {
  beforeScenario();
  const sim = new SimGitHub({
    ...examplePlanFiles(),
    '.github/coder.yml': 'reviewers: [reviewer1]\n',
  });
  sim.mount();
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write');
  const deliver = new Deliver(await testProbot(), sim);
  const rows: [string, Count][] = [];
  rows.push([command, await measure(() => deliver.comment(command))]);
  const pr = sim.pulls[0]!;
  sim.push(BRANCH, { 'test/health.test.ts': 'test\n', 'src/health.ts': 'code\n' });
  rows.push(['CI red (attempt 1)', await measure(() => deliver.ci(BRANCH, 'failure'))]);
  sim.push(BRANCH, { 'src/health.ts': 'fixed\n' });
  rows.push(['CI green → code review', await measure(() => deliver.ci(BRANCH, 'success'))]);
  rows.push([
    'approval → completion commit',
    await measure(() => deliver.review(pr.number, 'reviewer1', 'approved')),
  ]);
  rows.push(['final verification green', await measure(() => deliver.ci(BRANCH, 'success'))]);
  // A person merges the PR (as GitHub's merge endpoint does), then GitHub sends `closed`.
  const head = sim.headOf(pr);
  const merge = sim.commit(sim.files(head), [sim.refs.get(pr.base)!, head], 'Merge');
  sim.refs.set(pr.base, merge);
  pr.merged = true;
  pr.state = 'closed';
  (pr as typeof pr & { lastHead?: string }).lastHead = head;
  rows.push([
    command === '/coder run' ? 'merged → the next phase starts' : 'merged',
    await measure(() => deliver.pullRequest('closed', pr.number)),
  ]);
  nock.cleanAll();
  nock.enableNetConnect();
  return rows;
}

/** API requests per loop event (REST, installation token excluded), against the in-memory GitHub. */
export async function benchLoop(): Promise<string> {
  const show = (rows: [string, Count][]) =>
    table(
      ['event', 'requests', 'reads', 'writes', 'repeated reads'],
      rows.map(([name, c]) => [name, c.requests, c.reads, c.requests - c.reads, c.repeated]),
    );
  const outside = await phaseEvents('/coder next');
  const inside = await phaseEvents('/coder run');
  const writes = (rows: [string, Count][]) =>
    rows.reduce((sum, [, c]) => sum + c.requests - c.reads, 0);
  // A phase: its start, one red CI, the fix's CI (→ code review), the approval (→ completion),
  // final verification and the merge. Inside a run the merge's event starts the next phase, so
  // a phase of a run is everything but the run's own start (`/coder run`, once per run).
  const phase = writes(outside);
  const ofRun = writes(inside.slice(1));
  const perHour = (w: number) =>
    Math.min(Math.floor(WRITES_PER_HOUR / w), Math.floor((60 * WRITES_PER_MINUTE) / w));
  return [
    'Loop events through the Probot app (REST requests; the installation token and GET /app, read once per process, excluded)',
    'Outside a run (/coder next):',
    show(outside),
    'Inside a run (/coder run: the progress comment kept up to date):',
    show(inside),
    '',
    `Writes (content-creating requests: POST, PATCH, PUT, DELETE) of a whole phase, against GitHub's secondary limit per installation (${WRITES_PER_MINUTE} a minute, ${WRITES_PER_HOUR} an hour):`,
    table(
      ['phase', 'writes', 'phases an hour before the limit binds', 'phases a minute'],
      [
        ['/coder next … merged', phase, perHour(phase), Math.floor(WRITES_PER_MINUTE / phase)],
        [
          'a phase of a /coder run (its merge starts the next)',
          ofRun,
          perHour(ofRun),
          Math.floor(WRITES_PER_MINUTE / ofRun),
        ],
      ],
    ),
  ].join('\n');
}
