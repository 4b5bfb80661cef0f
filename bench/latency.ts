import nock from 'nock';
import { Probot } from 'probot';
import { createApp } from '../src/app/app.js';
import { makeWriteQueues, type WriteQueues } from '../src/github/throttle.js';
import { NOW, testProbotOptions } from '../test/helpers/github.js';
import { commentDelivery } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import { median, table } from './stats.js';

/** How long the simulated GitHub takes to answer each request. */
const REQUEST_MS = 100;

interface Timed {
  request: string;
  start: number;
  end: number;
}
/** The current run's requests, as the delayed transport saw them. */
let timeline: Timed[] = [];
const queues: { current: WriteQueues } = { current: makeWriteQueues() };

/**
 * `/coder next` as a user waits for it: the real Probot app with the loop's own throttling (the
 * App's write queues, as in production without Redis), GitHub answered by the in-memory model
 * after `REQUEST_MS` for every request. Each run starts with fresh queues (as for an App idle for
 * ten minutes) and a new installation, whose token is answered at once and not counted: a running
 * App holds it for an hour. The clock starts at the first API request.
 */
async function nextAsAUserWaits(run: number, probot: Probot, sim: { current: SimGitHub }) {
  queues.current = makeWriteQueues();
  sim.current = new SimGitHub(examplePlanFiles());
  sim.current.permissions.set('Codertocat', 'write');
  const log: Timed[] = [];
  timeline = log;
  const delivery = commentDelivery('/coder next');
  delete (delivery.payload.issue as { pull_request?: unknown }).pull_request;
  (delivery.payload as { installation?: { id: number } }).installation = { id: 7_000 + run };
  await probot.receive({
    id: `latency-${run}`,
    name: 'issue_comment',
    payload: delivery.payload,
  } as never);
  const t0 = Math.min(...log.map((r) => r.start));
  const at = (pattern: RegExp) => {
    const hit = log.find((r) => pattern.test(r.request));
    if (!hit)
      throw new Error(`/coder next made no ${pattern}: ${log.map((r) => r.request).join(', ')}`);
    return hit.end - t0;
  };
  // Rounds: a request's round is one more than the highest round of those that had ended when it
  // began (what it may have waited on); requests in flight together share a round.
  const sorted = [...log].sort((a, b) => a.start - b.start);
  const round = new Map<Timed, number>();
  for (const r of sorted)
    round.set(
      r,
      1 + Math.max(0, ...sorted.filter((q) => q.end <= r.start).map((q) => round.get(q)!)),
    );
  const prRequest = sorted.find((r) => /^POST .*\/pulls$/.test(r.request))!;
  return {
    prRounds: round.get(prRequest)!,
    prRequests: sorted.indexOf(prRequest) + 1,
    pr: at(/^POST .*\/pulls$/),
    reply: at(/^POST .*\/issues\/\d+\/comments$/),
    done: Math.max(...log.map((r) => r.end)) - t0,
    requests: log.length,
    log: log.map((r) => ({ ...r, start: r.start - t0, end: r.end - t0 })),
  };
}

type Run = Awaited<ReturnType<typeof nextAsAUserWaits>>;

/**
 * `count` runs of `/coder next` as a user waits for it (after one warm-up), GitHub answering every
 * request in `REQUEST_MS`.
 */
export async function nextRuns(count: number): Promise<Run[]> {
  nock.restore();
  try {
    const sim = { current: new SimGitHub({}) };
    const delayed: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const token = url.includes('/access_tokens');
      const start = performance.now();
      if (!token) await new Promise((r) => setTimeout(r, REQUEST_MS));
      const response = await sim.current.fetch(input, init);
      if (!token) {
        const path = decodeURIComponent(new URL(url).pathname);
        timeline.push({
          request: `${(init?.method ?? 'GET').toUpperCase()} ${path}`,
          start,
          end: performance.now(),
        });
      }
      return response;
    };
    const options = testProbotOptions({ throttle: 'real' });
    const probot = new Probot({
      ...options,
      // The App's own queues, but new ones for each run (each event's Octokit reads them).
      Octokit: options.Octokit.defaults((o: { throttle?: object }) => ({
        ...o,
        throttle: { ...o.throttle, ...queues.current },
      })),
      request: { fetch: delayed },
    });
    await probot.load(createApp({ now: () => NOW }));
    // One warm-up event: module loading, JIT, and the App's identity (read once per process).
    await nextAsAUserWaits(0, probot, sim);
    const runs = [];
    for (let i = 1; i <= count; i++) runs.push(await nextAsAUserWaits(i, probot, sim));
    return runs;
  } finally {
    nock.activate();
  }
}

/** The time to the PR and to the reply for `/coder next`, GitHub answering in `REQUEST_MS`. */
export async function benchLatency(): Promise<string> {
  const runs = await nextRuns(5);
  const last = runs[runs.length - 1]!;
  const times = (ms: number) =>
    `${(ms / 1000).toFixed(2)} s (${(ms / REQUEST_MS).toFixed(1)} request times)`;
  return [
    `/coder next as a user waits: GitHub answering every request in ${REQUEST_MS} ms, the App's own throttling on (median of 5; each run a fresh installation, its token not counted)`,
    table(
      [
        'requests',
        'to the PR: rounds / requests',
        'PR opened',
        'reply posted',
        'last request done',
      ],
      [
        [
          last.requests,
          `${last.prRounds} / ${last.prRequests}`,
          times(median(runs.map((r) => r.pr))),
          times(median(runs.map((r) => r.reply))),
          times(median(runs.map((r) => r.done))),
        ],
      ],
    ),
    '',
    'The last run, request by request (start → end, ms from the first request):',
    ...last.log.map(
      (r, i) =>
        `  ${String(i + 1).padStart(2)}. ${String(Math.round(r.start)).padStart(5)} → ${String(Math.round(r.end)).padStart(5)}  ${r.request}`,
    ),
  ].join('\n');
}
