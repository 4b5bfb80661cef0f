import nock from 'nock';
import { beforeScenario, requestLog, testProbot } from '../test/helpers/github.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { Deliver } from '../test/sim/events.js';
import { SimGitHub } from '../test/sim/github.js';
import { nextRuns } from './latency.js';
import { table } from './stats.js';

const BRANCH = 'coder/example/phase-1';
/** GitHub's secondary limit on content-creating requests, per App installation. */
const WRITES_PER_MINUTE = 80;
const WRITES_PER_HOUR = 500;

interface Count {
  requests: number;
  reads: number;
  repeated: number;
  /** The writes, as `METHOD path` with the repository's part left out. */
  writes: string[];
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
    writes: log
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path.replace(/^\/repos\/[^/]+\/[^/]+/, '')}`),
  };
}

/** The events of one phase, started with `command` (`/coder next`, or `/coder run`: inside a run). */
async function phaseEvents(
  command: string,
): Promise<{ rows: [string, Count][]; again: [string, Count][] }> {
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
  /** The same events again (not part of the phase's count): what a repeat writes. */
  const again: [string, Count][] = [];
  rows.push([command, await measure(() => deliver.comment(command))]);
  const pr = sim.pulls[0]!;
  // Each push reaches the loop first as `pull_request.synchronize`, as on GitHub, then as CI.
  sim.push(BRANCH, { 'test/health.test.ts': 'test\n', 'src/health.ts': 'code\n' });
  rows.push([
    'push (synchronize)',
    await measure(() => deliver.pullRequest('synchronize', pr.number)),
  ]);
  rows.push(['CI red (attempt 1)', await measure(() => deliver.ci(BRANCH, 'failure'))]);
  // GitHub sends one CI result several times: check_run, check_suite and workflow_run.
  again.push([
    'CI red, delivered again',
    await measure(() => deliver.checkSuite(BRANCH, { conclusion: 'failure' })),
  ]);
  sim.push(BRANCH, { 'src/health.ts': 'fixed\n' });
  rows.push([
    'push (synchronize)',
    await measure(() => deliver.pullRequest('synchronize', pr.number)),
  ]);
  rows.push(['CI green → code review', await measure(() => deliver.ci(BRANCH, 'success'))]);
  again.push(['CI green, delivered again', await measure(() => deliver.checkSuite(BRANCH))]);
  rows.push([
    'approval → completion commit',
    await measure(() => deliver.review(pr.number, 'reviewer1', 'approved')),
  ]);
  rows.push(['final verification green', await measure(() => deliver.ci(BRANCH, 'success'))]);
  again.push([
    'final verification, delivered again',
    await measure(() => deliver.checkSuite(BRANCH)),
  ]);
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
  return { rows, again };
}

/** The writes of a phase by kind: what a cut of writes is measured against. */
function byKind(rows: [string, Count][]): string {
  const kinds: [string, RegExp][] = [
    ['check run created', /^POST \/check-runs$/],
    ['check run updated', /^PATCH \/check-runs\//],
    ['comment (reply or progress) created', /^POST \/issues\/\d+\/comments$/],
    ['comment edited', /^PATCH \/issues\/comments\//],
    ['git: tree, commit, ref', /\/git\//],
    ['pull request opened or edited', /^(POST|PATCH) \/pulls(\/\d+)?$/],
    ['reviewers requested', /requested_reviewers/],
    ['reaction', /reactions$/],
  ];
  const all = rows.flatMap(([, c]) => c.writes);
  const counted = kinds.map(([name, re]) => [name, all.filter((w) => re.test(w)).length] as const);
  const other = all.length - counted.reduce((sum, [, n]) => sum + n, 0);
  return table(
    ['write', 'count'],
    [...counted, ['other', other] as const].filter(([, n]) => n > 0).map(([name, n]) => [name, n]),
  );
}

/** API requests per loop event (REST, installation token excluded), against the in-memory GitHub. */
export async function benchLoop(): Promise<string> {
  // The rounds before the PR: one `/coder next` with GitHub answering each request in 100 ms.
  const [next] = await nextRuns(1);
  const show = (rows: [string, Count][]) =>
    table(
      ['event', 'requests', 'reads', 'writes', 'repeated reads'],
      rows.map(([name, c]) => [name, c.requests, c.reads, c.requests - c.reads, c.repeated]),
    );
  const { rows: outside, again } = await phaseEvents('/coder next');
  const { rows: inside } = await phaseEvents('/coder run');
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
    `/coder next → pull request: ${next!.prRounds} rounds of dependent requests, ${next!.prRequests} requests (GitHub answering each in 100 ms; \`npm run bench -- latency\` times them)`,
    '',
    'Loop events through the Probot app (REST requests; the installation token and GET /app, read once per process, excluded)',
    'Outside a run (/coder next):',
    show(outside),
    'Inside a run (/coder run: the progress comment kept up to date):',
    show(inside),
    'The same CI result delivered again (GitHub sends each as check_run, check_suite and workflow_run; not counted in the phase):',
    show(again),
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
    'The writes of a phase by kind (/coder next … merged):',
    byKind(outside),
    'The writes of a phase of a /coder run, by kind:',
    byKind(inside.slice(1)),
  ].join('\n');
}
