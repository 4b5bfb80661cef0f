import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { WRITE_BUCKETS } from '../../src/github/throttle.js';
import { commentDelivery, examplePayload } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles, MASTER_LOG } from '../helpers/plans.js';
import {
  appPrivateKey,
  deliverWebhook,
  settleQuiet,
  startNode,
  type NodeProcess,
} from '../helpers/process.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';
import { startRedis } from '../helpers/redis.js';

// Runs the built App (lib/app-bundle/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

/**
 * Two replicas of the BUILT App (`npm start`: its bundle, lib/app-bundle/app.js) behind one webhook
 * secret, sharing Probot's write throttling through a real redis-server (`REDIS_URL`), with GitHub
 * answered by the simulator over loopback HTTP. The race scenarios go to both at once: one branch,
 * one PR, one start commit — and the writes of both replicas together take from one pair of token
 * buckets, which hold GitHub's secondary limits (80 content-creating requests a minute, 500 an
 * hour).
 */
jest.setTimeout(180_000);

const MAIN = join(repoRoot, 'lib', 'app-bundle', 'app.js');
const SECRET = 'replicas-webhook-secret';
const BRANCH = 'coder/example/phase-1';

/** Tokens left in the shared minute bucket when the race starts. */
const DRAINED = 2;

/**
 * Sets up the replicas' shared minute bucket in Redis before they first write, nearly empty:
 * Bottleneck keeps a limiter's settings when they exist (the App's group `coder-loop-write`,
 * key `no-id`: Probot gives a webhook event's Octokit no throttling id).
 */
async function drainSharedBucket(): Promise<BucketRecord> {
  const connection = new Bottleneck.IORedisConnection({ client: new Redis(redis.url) });
  const limiter = new Bottleneck({
    id: 'coder-loop-write-no-id',
    datastore: 'ioredis',
    connection,
    reservoir: DRAINED,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: WRITE_BUCKETS.minute.every,
    reservoirIncreaseMaximum: WRITE_BUCKETS.minute.burst,
    timeout: 60_000,
  });
  await limiter.ready();
  await connection.disconnect();
  return bucketRecord();
}

/**
 * What the shared minute bucket's limiter keeps in Redis: the writes it let through and finished
 * (`done`), and the time of its latest token by its own clock (Redis's, `lastReservoirIncrease`:
 * tokens are added one per interval since the previous one).
 */
interface BucketRecord {
  done: number;
  lastIncrease: number;
}
async function bucketRecord(): Promise<BucketRecord> {
  const client = new Redis(redis.url);
  try {
    const [done, lastIncrease] = await client.hmget(
      'b_coder-loop-write-no-id_settings',
      'done',
      'lastReservoirIncrease',
    );
    return { done: Number(done), lastIncrease: Number(lastIncrease) };
  } finally {
    client.disconnect();
  }
}

let cwd: string;
let redis: Awaited<ReturnType<typeof startRedis>>;
let sim: SimGitHub;
let github: { url: string; close: () => Promise<void> };
let replicas: NodeProcess[] = [];
let writes: { request: string }[];

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'coder-loop-replicas-'));
  redis = await startRedis();
});

afterAll(async () => {
  redis.process.kill('SIGTERM');
  await rm(cwd, { recursive: true, force: true });
});

beforeEach(async () => {
  sim = new SimGitHub(examplePlanFiles());
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('octocat', 'write');
  writes = [];
  github = await sim.serve((method, url) => {
    if (method !== 'GET') writes.push({ request: `${method} ${url.pathname}` });
  });
  const env = {
    APP_ID: '1',
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: SECRET,
    REDIS_URL: redis.url,
    GHE_HOST: new URL(github.url).host,
    GHE_PROTOCOL: 'http',
    NODE_ENV: 'production',
  };
  replicas = await Promise.all([startNode([MAIN], { cwd, env }), startNode([MAIN], { cwd, env })]);
});

afterEach(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await github.close();
  expect(sim.violations).toEqual([]);
});

function deliver(replica: NodeProcess, delivery: { id: string; name: string; payload: unknown }) {
  return deliverWebhook(replica, SECRET, delivery);
}

/**
 * Waits until `done` holds and GitHub then hears nothing for 5 s — longer than a drained bucket's
 * wait for its next token (1 s, checked in Redis every second), so no replica still has a write
 * queued.
 */
function settle(done: () => boolean): Promise<void> {
  return settleQuiet(() => sim.requests, done, {
    quietMs: 5000,
    timeoutMs: 150_000,
    pollMs: 250,
    failure: () => `the replicas did not settle: ${sim.comments.length} comments so far`,
  });
}

it('concurrent /coder next and a duplicate delivery across two replicas: one branch, one PR, one start', async () => {
  const drained = await drainSharedBucket();
  const first = commentDelivery('/coder next', { login: 'Codertocat', id: 9001 });
  const second = commentDelivery('/coder next', { login: 'octocat', id: 9002 });
  const statuses = await Promise.all([
    deliver(replicas[0]!, first),
    deliver(replicas[1]!, first), // GitHub redelivering the same delivery to the other replica
    deliver(replicas[1]!, second),
  ]);
  // 200 once handled, or 202 "still processing" when handling outlasts the middleware's 9 s
  // (writes a second apart once the drained bucket is empty): either way accepted, signature
  // verified.
  for (const status of statuses) expect([200, 202]).toContain(status);
  // The winner's "Coder started" and the other writer's reply.
  await settle(() => sim.comments.length >= 2);

  expect([...sim.refs.keys()].filter((r) => r.startsWith('coder/'))).toEqual([BRANCH]);
  expect(sim.pulls).toHaveLength(1);
  const branch = sim.files(BRANCH);
  expect(branch[CHECKLIST]).toContain('- [~] 1.1 Test');
  expect(branch[MASTER_LOG]!.match(/\*\*Coder started\*\*/g)).toHaveLength(1);
  // One start commit: the branch is main plus exactly one commit.
  const head = sim.commits.get(sim.refs.get(BRANCH)!)!;
  expect(head.parents).toEqual([sim.refs.get(sim.defaultBranch)]);
  expect(sim.comments).toHaveLength(2);
  expect(sim.comments.filter((c) => c.body.startsWith('**Coder started**'))).toHaveLength(1);

  // Both replicas took part, and their writes together went through one pair of token buckets
  // (src/github/throttle.ts) in Redis: the shared minute bucket, left with 2 tokens by
  // drainSharedBucket, counted every write GitHub got from either replica, and let through no more
  // than the 2 tokens and those its own clock added since — counts, not the milliseconds GitHub
  // saw them at. Two unshared buckets (no REDIS_URL) write all at once and count nothing in Redis.
  for (const replica of replicas) expect(replica.output()).toContain('coder-loop: ');
  const api = writes.filter((w) => !w.request.endsWith('/access_tokens'));
  expect(api.length).toBeGreaterThan(DRAINED + 8);
  const after = await bucketRecord();
  expect(after.done - drained.done).toBe(api.length);
  const added = Math.floor(
    (after.lastIncrease - drained.lastIncrease) / WRITE_BUCKETS.minute.every,
  );
  expect(api.length).toBeLessThanOrEqual(DRAINED + added);
});

it('one red CI result, its check_suite to one replica and its workflow_run to the other at once: one reply', async () => {
  await deliver(replicas[0]!, commentDelivery('/coder next', { login: 'Codertocat', id: 9101 }));
  await settle(() => sim.comments.some((c) => c.body.startsWith('**Coder started**')));
  sim.push(BRANCH, {
    'test/health.test.ts': 'test("health", () => {});\n',
    'src/health.ts': '1\n',
  });
  const head = sim.refs.get(BRANCH)!;
  sim.ci(head, 'failure', 'build');
  // GitHub sends both for a GitHub Actions run that completes, within milliseconds.
  const suite = examplePayload('check_suite', 'completed');
  suite.check_suite.head_branch = BRANCH;
  suite.check_suite.head_sha = head;
  suite.check_suite.conclusion = 'failure';
  suite.check_suite.pull_requests = [];
  const run = examplePayload('workflow_run', 'completed');
  run.workflow_run.head_branch = BRANCH;
  run.workflow_run.head_sha = head;
  run.workflow_run.conclusion = 'failure';
  const statuses = await Promise.all([
    deliver(replicas[0]!, { id: 'suite-9102', name: 'check_suite', payload: suite }),
    deliver(replicas[1]!, { id: 'run-9103', name: 'workflow_run', payload: run }),
  ]);
  for (const status of statuses) expect([200, 202]).toContain(status);
  await settle(() => sim.comments.some((c) => c.body.startsWith('**CI failed**')));
  expect(sim.comments.filter((c) => c.body.startsWith('**CI failed**'))).toHaveLength(1);
});
