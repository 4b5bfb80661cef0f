import { jest } from '@jest/globals';
import { sign } from '@octokit/webhooks-methods';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check } from '../helpers/openapi.js';
import { examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { appPrivateKey, startNode, type NodeProcess } from '../helpers/process.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';

/**
 * Webhooks in development, as docs/github-app.md sets them up: the BUILT App (`npm start`) with
 * `WEBHOOK_PROXY_URL`, receiving through smee-client. smee.io is not reachable from tests, so a
 * loopback server speaks its protocol (server-sent events whose data is the delivery's headers
 * and body); GitHub is the simulator over loopback HTTP, reached as GitHub Enterprise Server.
 */
jest.setTimeout(60_000);

const MAIN = join(repoRoot, 'lib', 'app', 'main.js');
const SECRET = 'development-webhook-secret';

/** A smee.io channel on loopback: `send` pushes one delivery to every connected client. */
async function smeeChannel() {
  const clients: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/channel') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('event: ready\ndata: {}\n\n');
    clients.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/channel`,
    clients,
    send(headers: Record<string, string>, body: unknown) {
      const data = JSON.stringify({ ...headers, body, query: {}, timestamp: Date.now() });
      for (const client of clients) client.write(`data: ${data}\n\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of clients) client.end();
        server.close(() => resolve());
      }),
  };
}

let cwd: string;
let sim: SimGitHub;
let github: { url: string; close: () => Promise<void> };
let smee: Awaited<ReturnType<typeof smeeChannel>>;
let app: NodeProcess | undefined;
let violations: string[];

beforeEach(async () => {
  // A clean working directory: Probot reads app.yml, package.json and .env from it.
  cwd = await mkdtemp(join(tmpdir(), 'coder-loop-dev-'));
  await copyFile(join(repoRoot, 'app.yml'), join(cwd, 'app.yml'));
  await copyFile(join(repoRoot, 'package.json'), join(cwd, 'package.json'));
  sim = new SimGitHub(examplePlanFiles());
  sim.permissions.set('Codertocat', 'write');
  violations = [];
  github = await sim.serve((method, url, headers, body) => {
    violations.push(...check(method, url, headers, body).problems);
  });
  smee = await smeeChannel();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await smee.close();
  await github.close();
  await rm(cwd, { recursive: true, force: true });
  expect(violations).toEqual([]);
});

it('the setup page registers the manifest with the proxy channel as its webhook URL', async () => {
  app = await startNode([MAIN], { cwd, env: { WEBHOOK_PROXY_URL: smee.url } });
  // smee-client is installed (no "SmeeClient is not available") and forwards to the real path.
  await app.waitFor(
    /Forwarding http:\/\/127\.0\.0\.1:\d+\/channel to http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks/,
  );
  const page = await (await fetch(`${app.url}/probot`)).text();
  const manifest = JSON.parse(/name="manifest" id="manifest" value='([^']*)'/.exec(page)![1]!);
  expect(manifest.hook_attributes).toEqual({ url: smee.url });
  expect(manifest.public).toBe(false);
  expect(manifest.redirect_url).toBe(`${app.url}/probot/setup`);
  expect(manifest.default_permissions.members).toBe('read');
  expect(app.output()).not.toContain('SmeeClient is not available');
});

it('without a proxy channel, the setup page says where to point the webhook URL', async () => {
  app = await startNode([MAIN], { cwd, env: { NO_SMEE_SETUP: 'true' } });
  await app.waitFor(/coder-loop: no webhook proxy channel/);
  expect(app.output()).toContain('https://<public host>/api/github/webhooks');
  const page = await (await fetch(`${app.url}/probot`)).text();
  const manifest = JSON.parse(/name="manifest" id="manifest" value='([^']*)'/.exec(page)![1]!);
  // Probot's fallback, which the warning is about.
  expect(manifest.hook_attributes).toEqual({ url: `${app.url}/` });
});

it('a signed delivery through the proxy channel reaches the App and is answered', async () => {
  const host = new URL(github.url).host;
  app = await startNode([MAIN], {
    cwd,
    env: {
      APP_ID: '1',
      PRIVATE_KEY: appPrivateKey(),
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_PROXY_URL: smee.url,
      GHE_HOST: host,
      GHE_PROTOCOL: 'http',
    },
  });
  await app.waitFor(/Forwarding .* to http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks/);
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = '/coder help';
  smee.send(
    {
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'dev-delivery-1',
      'x-hub-signature-256': await sign(SECRET, JSON.stringify(payload)),
    },
    payload,
  );
  await app.waitFor(/POST http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks - 200/);
  for (let i = 0; i < 100 && sim.comments.length === 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(sim.comments.map((c) => c.body.split('\n')[0])).toEqual([
    'coder-loop commands (the first line of a comment):',
  ]);
  // The same delivery with a wrong signature is refused before any API call.
  const before = sim.requests;
  smee.send(
    {
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'dev-delivery-2',
      'x-hub-signature-256': await sign('not-the-secret', JSON.stringify(payload)),
    },
    payload,
  );
  await app.waitFor(/POST http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks - 400/);
  expect(sim.requests).toBe(before);
});
