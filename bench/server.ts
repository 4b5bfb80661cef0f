import { fork } from 'node:child_process';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../src/app/app.js';
import {
  BODY_TIMEOUT_MS,
  guardedProbot,
  UNVERIFIED_BYTES,
  UnverifiedBudget,
} from '../src/app/server.js';
import { NOW, testProbotOptions } from '../test/helpers/github.js';
import { commentDelivery } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import type { FloodRequest, FloodResult } from './flood.js';
import { deliver, type LoadRequest, type LoadResult } from './load.js';
import { median, ms, p99, table } from './stats.js';

const SECRET = 'bench-secret';
const BRANCH = 'coder/example/phase-1';

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Events per second through the real webhook server (Probot's `Server`, signature checks, the
 * real app), on a loopback port. The load comes from a second process (`bench/load.ts`), as it
 * would from GitHub; GitHub's API is answered in-process by the in-memory model (no nock, no
 * OpenAPI check: the tests prove the requests, here they would only be load).
 */
export async function benchServer(): Promise<string> {
  nock.restore();
  try {
    return [await run(), '', await floods()].join('\n');
  } finally {
    nock.activate();
  }
}

const MiB = 1024 * 1024;
const rssMiB = () => process.memoryUsage().rss / MiB;
const settle = () => new Promise((r) => setTimeout(r, 200));

/**
 * 16 connections, from a second process, each declare 25,000,000 bytes, send 24,000,000 unsigned
 * and stall; meanwhile a signed `/coder help` is delivered. Run against the guarded server with
 * the defaults (the budget and the body time limit), and with both lifted (as before issue 18).
 */
async function floods(): Promise<string> {
  const rows: (string | number)[][] = [];
  for (const [name, limit, timeoutMs] of [
    [
      `defaults (${UNVERIFIED_BYTES / MiB} MiB, ${BODY_TIMEOUT_MS / 1000} s)`,
      UNVERIFIED_BYTES,
      BODY_TIMEOUT_MS,
    ],
    ['unbounded (before issue 18)', Infinity, 300_000],
  ] as const) {
    rows.push([name, ...(await flood(limit, timeoutMs))]);
  }
  return [
    '16 stalled unsigned uploads of 24,000,000 bytes each (from a second process), then a signed /coder help',
    table(
      [
        'bounds',
        'held / refused',
        'unverified bytes held',
        'RSS over idle (peak)',
        'signed delivery',
        'budget released after',
      ],
      rows,
    ),
  ].join('\n');
}

async function flood(limit: number, timeoutMs: number): Promise<(string | number)[]> {
  const sim = new SimGitHub({ ...examplePlanFiles(), 'src/a.ts': 'a\n' });
  sim.permissions.set('Codertocat', 'write');
  const budget = new UnverifiedBudget(limit);
  const fetch = sim.fetch.bind(sim) as typeof globalThis.fetch;
  const server = new Server({
    Probot: guardedProbot(
      Probot.defaults({ ...testProbotOptions(), request: { fetch }, secret: SECRET }),
      { secret: SECRET, log: pino({ level: 'silent' }), budget, bodyTimeoutMs: timeoutMs },
    ),
    host: '127.0.0.1',
    port: 0,
    enableStaticFiles: false,
    log: pino({ level: 'silent' }),
    request: { fetch },
  });
  await server.load(createApp({ now: () => NOW }));
  const http = await server.start();
  const { port } = http.address() as { port: number };
  const url = `http://127.0.0.1:${port}/api/github/webhooks`;
  const help = commentDelivery('/coder help');
  delete help.payload.issue.pull_request;
  await deliver(url, SECRET, help.name, help.payload); // warm-up: modules, JIT, the token

  const child = fork(new URL('./flood.ts', import.meta.url), { stdio: 'inherit' });
  const ask = <T>(message: FloodRequest | 'close') =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m: T & { error?: string }) =>
        m.error ? reject(new Error(m.error)) : resolve(m),
      );
      child.send(message);
    });
  try {
    globalThis.gc?.();
    await settle();
    const rss0 = rssMiB();
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 10);
    const began = performance.now();
    const { result } = await ask<{ result: FloodResult }>({
      port,
      count: 16,
      bytes: 24_000_000,
      declared: 25_000_000,
    });
    // The last bytes may still be in the kernel's buffers: wait until the server has them all.
    for (let last = -1; budget.held !== last; await settle()) last = budget.held;
    const held = budget.held;
    const t = performance.now();
    let signed = 'answered 2xx';
    await deliver(url, SECRET, help.name, help.payload).catch((e: Error) => (signed = e.message));
    signed += ` in ${(performance.now() - t).toFixed(0)} ms`;
    while (budget.held > 0 && performance.now() - began < 20_000) await settle();
    const released =
      budget.held === 0
        ? `${((performance.now() - began) / 1000).toFixed(1)} s (the body time limit)`
        : 'not within 20 s';
    clearInterval(sampler);
    return [
      `${result.held} / ${result.refused}`,
      `${(held / MiB).toFixed(1)} MiB`,
      `${(peak - rss0).toFixed(0)} MiB`,
      signed,
      released,
    ];
  } finally {
    await ask('close').catch(() => undefined);
    child.kill();
    await server.stop();
  }
}

async function run(): Promise<string> {
  const sim = new SimGitHub({ ...examplePlanFiles(), 'src/a.ts': 'a\n' });
  for (const login of ['Codertocat', 'alice']) sim.permissions.set(login, 'write');

  // GitHub's share of each delivery (wall and CPU inside the model), to take out of the App's.
  const inGitHub = { wall: 0, cpu: 0 };
  const timedFetch: typeof fetch = async (input, init) => {
    const wall = performance.now();
    const cpu = cpuMs();
    try {
      return await sim.fetch(input, init);
    } finally {
      inGitHub.wall += performance.now() - wall;
      inGitHub.cpu += cpuMs() - cpu;
    }
  };
  // The App's own handling of each delivery: from the signature check to the last handler.
  const own: { event: string; wall: number; cpu: number; requests: number }[] = [];
  let measuring = false;

  const server = new Server({
    // The tests' options, but GitHub answered by the model directly: no OpenAPI check here.
    Probot: Probot.defaults({
      ...testProbotOptions(),
      request: { fetch: timedFetch },
      secret: SECRET,
    }),
    host: '127.0.0.1',
    port: 0,
    enableStaticFiles: false,
    log: pino({ level: 'silent' }),
    request: { fetch: timedFetch },
  });
  await server.load((app) => {
    const verifyAndReceive = app.webhooks.verifyAndReceive.bind(app.webhooks);
    app.webhooks.verifyAndReceive = async (delivery) => {
      if (!measuring) return verifyAndReceive(delivery);
      const before = { ...inGitHub, requests: sim.requests };
      const wall = performance.now();
      const cpu = cpuMs();
      try {
        return await verifyAndReceive(delivery);
      } finally {
        own.push({
          event: delivery.name,
          wall: performance.now() - wall - (inGitHub.wall - before.wall),
          cpu: cpuMs() - cpu - (inGitHub.cpu - before.cpu),
          requests: sim.requests - before.requests,
        });
      }
    };
    return createApp({ now: () => NOW })(app);
  });
  const http = await server.start();
  const { port } = http.address() as { port: number };
  const url = `http://127.0.0.1:${port}/api/github/webhooks`;

  // A loop PR for the CI events.
  const start = commentDelivery('/coder next');
  delete start.payload.issue.pull_request;
  await deliver(url, SECRET, start.name, start.payload);
  const head = sim.refs.get(BRANCH);
  if (!head) throw new Error('the /coder next of the set-up did not take the lock');

  const child = fork(new URL('./load.ts', import.meta.url), { stdio: 'inherit' });
  const load = (total: number, concurrency: number) =>
    new Promise<LoadResult>((resolve, reject) => {
      child.once('message', (m: { result?: LoadResult; error?: string }) =>
        m.result ? resolve(m.result) : reject(new Error(m.error)),
      );
      child.send({ url, secret: SECRET, branch: BRANCH, head, total, concurrency } as LoadRequest);
    });
  try {
    // Warm-up: module loading and JIT are not what a running App pays per event.
    await load(100, 4);
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const cpu0 = cpuMs();
    const throughput = await load(2000, 16);
    const cpuPerEvent = (cpuMs() - cpu0) / 2000;
    clearInterval(sampler);
    measuring = true;
    const sequential = await load(500, 1);
    measuring = false;

    const latencies = throughput.latencies.map((l) => l.ms);
    const kinds = [...new Set(sequential.latencies.map((l) => l.kind))];
    // Deliveries one at a time arrive in the order sent: the n-th measured is the n-th sent.
    const rows = kinds.map((kind) => {
      const mine = own.filter((_, i) => sequential.latencies[i]!.kind === kind);
      return [
        kind,
        mine[0]!.requests,
        ms(median(mine.map((o) => o.cpu))),
        ms(p99(mine.map((o) => o.cpu))),
        ms(median(mine.map((o) => o.wall))),
        ms(p99(mine.map((o) => o.wall))),
      ];
    });
    return [
      `The webhook server: 2,000 signed deliveries over loopback from a second process, 16 at a time; GitHub answered in-process by the in-memory model`,
      table(
        ['events/s', 'median latency', 'p99 latency', 'server CPU per event', 'peak RSS'],
        [
          [
            (2000 / throughput.seconds).toFixed(0),
            ms(median(latencies)),
            ms(p99(latencies)),
            ms(cpuPerEvent),
            `${(peak / 1024 / 1024).toFixed(0)} MiB (${((peak - rss0) / 1024 / 1024).toFixed(0)} MiB over idle)`,
          ],
        ],
      ),
      '',
      "The App's own time per delivery: 500 one at a time, from the signature check to the last handler, GitHub's share (time inside the model) taken out",
      table(
        ['event', 'requests', 'CPU median', 'CPU p99', 'wall median', 'wall p99'],
        [
          [
            'all',
            '',
            ms(median(own.map((o) => o.cpu))),
            ms(p99(own.map((o) => o.cpu))),
            ms(median(own.map((o) => o.wall))),
            ms(p99(own.map((o) => o.wall))),
          ],
          ...rows,
        ],
      ),
    ].join('\n');
  } finally {
    child.kill();
    await server.stop();
  }
}
