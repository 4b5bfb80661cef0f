import { sign } from '@octokit/webhooks-methods';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../src/app/app.js';
import { beforeScenario, NOW, testProbotOptions } from '../test/helpers/github.js';
import { fetchClock } from '../test/helpers/openapi.js';
import { examplePayload } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import { median, ms, table } from './stats.js';

const SECRET = 'bench-secret';

/**
 * Events per second through the real webhook server: signed real payloads over loopback, GitHub
 * answered by the in-memory model. Latency is the HTTP round trip of one delivery (the server
 * answers once the handler is done), so it includes the App's own time and the model's.
 */
export async function benchServer(): Promise<string> {
  beforeScenario();
  const sim = new SimGitHub({ ...examplePlanFiles(), 'src/a.ts': 'a\n' });
  sim.mount();
  for (const login of ['Codertocat', 'alice']) sim.permissions.set(login, 'write');
  nock.enableNetConnect('127.0.0.1');
  const server = new Server({
    Probot: Probot.defaults({ ...testProbotOptions(), secret: SECRET }),
    host: '127.0.0.1',
    port: 30000 + Math.floor(Math.random() * 20000),
    enableStaticFiles: false,
    log: pino({ level: 'silent' }),
    request: testProbotOptions().request,
  });
  await server.load(createApp({ now: () => NOW }));
  await server.start();
  const url = `http://127.0.0.1:${server.port}/api/github/webhooks`;

  // A loop PR to send CI events for.
  const start = examplePayload('issue_comment', 'created');
  start.comment.body = '/coder next';
  delete start.issue.pull_request;
  await deliver(url, 'issue_comment', start);
  const branch = 'coder/example/phase-1';

  const kinds: [string, () => { name: string; payload: unknown }][] = [
    ['/coder help', () => comment('/coder help', 'Codertocat')],
    ['/coder status', () => comment('/coder status', 'alice')],
    ['comment, no command', () => comment('Looks good to me', 'alice')],
    ['bot comment', () => comment('/coder next', 'dependabot[bot]', 'Bot')],
    [
      'CI on the loop PR',
      () => {
        const p = examplePayload('check_suite', 'completed');
        p.check_suite.head_branch = branch;
        p.check_suite.head_sha = sim.refs.get(branch);
        return { name: 'check_suite', payload: p };
      },
    ],
  ];
  const latencies: number[] = [];
  const perKind = new Map<string, number[]>();
  const total = 400;
  const concurrency = 4;
  const mem0 = process.memoryUsage().rss;
  let peak = mem0;
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const [kind, make] = kinds[i % kinds.length]!;
        const { name, payload } = make();
        const t = performance.now();
        await deliver(url, name, payload);
        const took = performance.now() - t;
        latencies.push(took);
        perKind.set(kind, [...(perKind.get(kind) ?? []), took]);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  // One at a time: each delivery's latency minus its time in (mocked) GitHub calls = the App's own time.
  const own: number[] = [];
  for (let i = 0; i < 100; i++) {
    const [, make] = kinds[i % kinds.length]!;
    const { name, payload } = make();
    const before = fetchClock.ms;
    const t = performance.now();
    await deliver(url, name, payload);
    own.push(performance.now() - t - (fetchClock.ms - before));
  }
  await server.stop();
  nock.cleanAll();
  nock.enableNetConnect();
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.floor(sorted.length * 0.99) - 1]!;
  return [
    `The webhook server: ${total} signed deliveries over loopback, ${concurrency} at a time, GitHub answered by the in-memory model`,
    table(
      ['events/s', 'median latency', 'p99 latency', 'peak RSS'],
      [
        [
          (total / seconds).toFixed(0),
          ms(median(latencies)),
          ms(p99),
          `${(peak / 1024 / 1024).toFixed(0)} MiB`,
        ],
      ],
    ),
    table(
      ["App's own time per event (one at a time, GitHub calls excluded)", 'median', 'p99'],
      [['100 deliveries', ms(median(own)), ms([...own].sort((a, b) => a - b)[98]!)]],
    ),
    table(
      ['event', 'median latency'],
      [...perKind].map(([k, v]) => [k, ms(median(v))]),
    ),
  ].join('\n');
}

function comment(body: string, login: string, type = 'User') {
  const p = examplePayload('issue_comment', 'created');
  p.comment.body = body;
  p.comment.user.login = login;
  p.comment.user.type = type;
  p.sender.login = login;
  p.sender.type = type;
  delete p.issue.pull_request;
  return { name: 'issue_comment', payload: p };
}

let delivery = 0;
async function deliver(url: string, name: string, payload: unknown): Promise<void> {
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': name,
      'x-github-delivery': `bench-${++delivery}`,
      'x-hub-signature-256': await sign(SECRET, body),
    },
    body,
  });
  await response.text();
}
