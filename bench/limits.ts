import { fork } from 'node:child_process';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../src/app/app.js';
import {
  CONTENT_LIMITS,
  makeWriteQueues,
  mostWrites,
  WRITE_BUCKETS,
} from '../src/github/throttle.js';
import { NOW, testProbotOptions } from '../test/helpers/github.js';
import { commentDelivery } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import { deliver, type LoadRequest, type LoadResult } from './load.js';
import { table } from './stats.js';

const SECRET = 'bench-secret';
const BRANCH = 'coder/example/phase-1';
/** How long the load runs: more than the minute GitHub counts in. */
const SECONDS = 75;

/**
 * The server load of `bench/server.ts` (the same mix, 16 deliveries at a time from a second
 * process) with the App's real write throttling on — the token buckets of
 * src/github/throttle.ts, in-process as for one replica without Redis — for `SECONDS`: the
 * content-creating requests GitHub receives in any minute, against its limit of 80.
 */
export async function benchLimits(): Promise<string> {
  nock.restore();
  try {
    return await run();
  } finally {
    nock.activate();
  }
}

async function run(): Promise<string> {
  const sim = new SimGitHub({ ...examplePlanFiles(), 'src/a.ts': 'a\n' });
  for (const login of ['Codertocat', 'alice']) sim.permissions.set(login, 'write');
  const writes: number[] = [];
  const counted: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && !url.includes('/access_tokens')) writes.push(performance.now());
    return sim.fetch(input, init);
  };
  const queues = makeWriteQueues();
  const options = testProbotOptions({ throttle: 'real' });
  const server = new Server({
    Probot: Probot.defaults({
      ...options,
      Octokit: options.Octokit.defaults((o: { throttle?: object }) => ({
        ...o,
        throttle: { ...o.throttle, write: queues.write, notifications: queues.notifications },
      })),
      request: { fetch: counted },
      secret: SECRET,
    }),
    host: '127.0.0.1',
    port: 0,
    enableStaticFiles: false,
    log: pino({ level: 'silent' }),
    request: { fetch: counted },
  });
  await server.load(createApp({ now: () => NOW }));
  const http = await server.start();
  const { port } = http.address() as { port: number };
  const url = `http://127.0.0.1:${port}/api/github/webhooks`;
  const start = commentDelivery('/coder next');
  delete start.payload.issue.pull_request;
  await deliver(url, SECRET, start.name, start.payload);
  const head = sim.refs.get(BRANCH);
  if (!head) throw new Error('the /coder next of the set-up did not take the lock');

  const child = fork(new URL('./load.ts', import.meta.url), { stdio: 'inherit' });
  try {
    const result = await new Promise<LoadResult>((resolve, reject) => {
      child.once('message', (m: { result?: LoadResult; error?: string }) =>
        m.result ? resolve(m.result) : reject(new Error(m.error)),
      );
      const request: LoadRequest = {
        url,
        secret: SECRET,
        branch: BRANCH,
        head,
        total: 5_000,
        concurrency: 16,
        seconds: SECONDS,
      };
      child.send(request);
    });
    // The most writes in any 60 s window: each window starting at a write.
    let most = 0;
    for (let i = 0, j = 0; i < writes.length; i++) {
      while (j < writes.length && writes[j]! - writes[i]! < 60_000) j++;
      most = Math.max(most, j - i);
    }
    const span = (writes[writes.length - 1]! - writes[0]!) / 1000;
    return [
      `Content-creating requests under the server load with the App's write throttling on: ${result.latencies.length.toLocaleString('en')} deliveries in ${result.seconds.toFixed(0)} s (16 at a time; the queued ones answered 202 after 9 s, as GitHub is), writes counted at GitHub`,
      table(
        ['writes', 'over', 'most in any minute', "GitHub's limit", 'bound: a minute / an hour'],
        [
          [
            writes.length,
            `${span.toFixed(0)} s`,
            most,
            `${CONTENT_LIMITS.perMinute} a minute, ${CONTENT_LIMITS.perHour} an hour`,
            `${mostWrites(WRITE_BUCKETS.minute, 60_000)} / ${mostWrites(WRITE_BUCKETS.hour, 3_600_000)}`,
          ],
        ],
      ),
    ].join('\n');
  } finally {
    child.kill();
    // Events still waiting for a token are dropped: their writes never reach GitHub.
    // The hour's first: a write's job in the minute's bucket runs until the hour's lets it pass.
    const stops = [queues.hour, queues.write].flatMap((group) =>
      group.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true })),
    );
    await Promise.allSettled(stops);
    await server.stop();
  }
}
