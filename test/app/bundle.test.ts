import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { commentDelivery } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { appPrivateKey, deliverWebhook, startNode, type NodeProcess } from '../helpers/process.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';
import { startRedis } from '../helpers/redis.js';

// Runs the built App bundle (lib/app-bundle/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

/**
 * The App's bundle (lib/app-bundle/app.js, what `npm start` runs and the image holds) runs with
 * no node_modules at all: copied alone, with app.yml, into an empty directory laid out as the
 * image is (/app/lib/app-bundle/app.js, /app/app.yml), it serves the setup page and /ping, answers
 * a signed delivery, and with REDIS_URL shares Probot's throttling (Bottleneck, ioredis) and keeps
 * its wake-up queue (BullMQ) in a real redis-server.
 */
jest.setTimeout(120_000);

const SECRET = 'bundle-webhook-secret';

let dir: string;
let app: NodeProcess | undefined;
let sim: SimGitHub;
let github: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'coder-loop-bundle-'));
  await mkdir(join(dir, 'lib', 'app-bundle'), { recursive: true });
  await copyFile(
    join(repoRoot, 'lib', 'app-bundle', 'app.js'),
    join(dir, 'lib', 'app-bundle', 'app.js'),
  );
  await copyFile(join(repoRoot, 'app.yml'), join(dir, 'app.yml'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  sim = new SimGitHub(examplePlanFiles());
  sim.permissions.set('Codertocat', 'write');
  github = await sim.serve();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await github.close();
  expect(sim.violations).toEqual([]);
});

const MAIN = () => join(dir, 'lib', 'app-bundle', 'app.js');

/** The App's credentials, with GitHub the simulator (as GitHub Enterprise Server). */
const credentials = () => ({
  APP_ID: '1',
  PRIVATE_KEY: appPrivateKey(),
  WEBHOOK_SECRET: SECRET,
  GHE_HOST: new URL(github.url).host,
  GHE_PROTOCOL: 'http',
  NODE_ENV: 'production',
});

/** `/coder help` from webhooks-examples' issue_comment, answered with the help comment. */
async function helpAnswered(): Promise<void> {
  expect(await deliverWebhook(app!, SECRET, commentDelivery('/coder help'))).toBe(200);
  for (let i = 0; i < 100 && sim.comments.length === 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(sim.comments.map((c) => c.body.split('\n')[0])).toEqual([
    'coder-loop commands (the first line of a comment):',
  ]);
}

it('the directory and every one above it hold no node_modules', () => {
  const found: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) found.push(at);
    if (dirname(at) === at) break;
  }
  expect(found).toEqual([]);
});

it('without credentials: the setup page and /ping', async () => {
  app = await startNode([MAIN()], { cwd: dir, env: { NO_SMEE_SETUP: 'true' } });
  const page = await (await fetch(`${app.url}/`)).text();
  expect(page).toContain('<title>Set up coder-loop</title>');
  // app.yml, read beside the bundle, is the manifest the form posts.
  expect(page).toMatch(/name="manifest" id="manifest" value="[^"]*&quot;default_permissions&quot;/);
  const ping = await fetch(`${app.url}/ping`);
  expect([ping.status, await ping.text()]).toEqual([200, 'PONG']);
});

it('with credentials: a signed delivery is answered, an unsigned one refused', async () => {
  app = await startNode([MAIN()], { cwd: dir, env: credentials() });
  expect(app.output()).toContain('no REDIS_URL');
  await helpAnswered();
  const before = sim.requests;
  const forged = await fetch(`${app.url}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'forged',
      'x-hub-signature-256': 'sha256=' + '0'.repeat(64),
    },
    body: JSON.stringify(commentDelivery('/coder help').payload),
  });
  expect(forged.status).toBe(400);
  expect(sim.requests).toBe(before);
});

it('with REDIS_URL: the writes go through the throttling kept in Redis, the wake-up queue is there', async () => {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    app = await startNode([MAIN()], { cwd: dir, env: { ...credentials(), REDIS_URL: redis.url } });
    expect(app.output()).not.toContain('no REDIS_URL');
    await helpAnswered();
    // Bottleneck's limiter of the App's write bucket counted the comment (src/github/throttle.ts),
    // through Probot's ioredis connection.
    const done = await client.hget('b_coder-loop-write-no-id_settings', 'done');
    expect(Number(done)).toBeGreaterThanOrEqual(1);
    // BullMQ's worker of the wake-up queue (src/app/wake.ts) is connected, by its client name.
    const clients = String(await client.call('CLIENT', 'LIST'));
    const names = clients.split('\n').map((line) => /\bname=(\S*)/.exec(line)?.[1]);
    expect(names.some((name) => name?.startsWith('bull:'))).toBe(true);
    expect(app.output()).not.toMatch(/"level":(50|60)|Cannot find|npx/);
  } finally {
    client.disconnect();
    await app?.stop();
    app = undefined;
    redis.process.kill('SIGTERM');
  }
});
