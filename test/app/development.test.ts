import { jest } from '@jest/globals';
import { sign } from '@octokit/webhooks-methods';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homepageOfRemote } from '../../src/core/appRegistration.js';
import { check, checkAnswer } from '../helpers/openapi.js';
import { examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { appPrivateKey, freePort, startNode, type NodeProcess } from '../helpers/process.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built App (lib/app-bundle/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

/**
 * Webhooks in development, as docs/github-app.md sets them up: the BUILT App (`npm start`) with
 * `WEBHOOK_PROXY_URL`, receiving through smee-client. smee.io is not reachable from tests, so a
 * loopback server speaks its protocol (server-sent events whose data is the delivery's headers
 * and body); GitHub is the simulator over loopback HTTP, reached as GitHub Enterprise Server.
 */
jest.setTimeout(60_000);

const MAIN = join(repoRoot, 'lib', 'app-bundle', 'app.js');
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
  github = await sim.serve();
  smee = await smeeChannel();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await smee.close();
  await github.close();
  await rm(cwd, { recursive: true, force: true });
  expect([...violations, ...sim.violations]).toEqual([]);
});

/** A clone's `origin` remote ('' without one). */
function originOf(dir: string): string {
  try {
    return execFileSync('git', ['remote', 'get-url', 'origin'], { cwd: dir, encoding: 'utf8' });
  } catch {
    return '';
  }
}

/** The manifest the setup page's form posts to GitHub. */
async function manifestOf(url: string): Promise<Record<string, unknown>> {
  const page = await (await fetch(url)).text();
  const value = /name="manifest" id="manifest" value="([^"]*)"/.exec(page)![1]!;
  return JSON.parse(
    value.replace(/&(quot|#39|lt|gt|amp);/g, (_, e: string) =>
      e === 'quot' ? '"' : e === '#39' ? "'" : e === 'lt' ? '<' : e === 'gt' ? '>' : '&',
    ),
  ) as Record<string, unknown>;
}

it("the setup page is coder-loop's and registers the manifest with the proxy channel as its webhook URL", async () => {
  app = await startNode([MAIN], { cwd, env: { WEBHOOK_PROXY_URL: smee.url } });
  const page = await (await fetch(`${app.url}/`)).text();
  expect(page).toContain('<title>Set up coder-loop</title>');
  expect(page).toContain('<a href="/docs/github-app.md">');
  expect(page).not.toMatch(/probot\.github\.io|To start building a GitHub App/);
  const doc = await fetch(`${app.url}/docs/github-app.md`);
  expect([doc.status, (await doc.text()).split('\n')[0]]).toEqual([
    200,
    '# Running coder-loop as a GitHub App',
  ]);
  const manifest = await manifestOf(`${app.url}/probot`);
  expect(manifest.hook_attributes).toEqual({ url: smee.url, active: true });
  expect(manifest.public).toBe(false);
  expect(manifest.redirect_url).toBe(`${app.url}/probot/setup`);
  expect((manifest.default_permissions as Record<string, string>).members).toBe('read');
  // GitHub requires a homepage: the clone's GitHub page, else this server — never a made-up one.
  expect([`${app.url}/`, homepageOfRemote(originOf(repoRoot))]).toContain(manifest.url);
});

it('without a proxy channel, the manifest names the webhook path, and the App answers deliveries there', async () => {
  app = await startNode([MAIN], { cwd, env: { NO_SMEE_SETUP: 'true' } });
  const page = await (await fetch(`${app.url}/probot`)).text();
  expect(page).toContain('GitHub cannot reach this machine there');
  const hook = ((await manifestOf(`${app.url}/probot`)).hook_attributes as { url: string }).url;
  expect(hook).toBe(`${app.url}/api/github/webhooks`);
  await app.stop();

  // The App as registered: the same host and port, now with its credentials.
  const host = new URL(github.url).host;
  app = await startNode([MAIN], {
    cwd,
    env: {
      APP_ID: '1',
      PRIVATE_KEY: appPrivateKey(),
      WEBHOOK_SECRET: SECRET,
      GHE_HOST: host,
      GHE_PROTOCOL: 'http',
    },
  });
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = '/coder help';
  const body = JSON.stringify(payload);
  const response = await fetch(hook.replace(/:\d+\//, `:${app.port}/`), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'setup-delivery-1',
      'x-hub-signature-256': await sign(SECRET, body),
    },
    body,
  });
  expect(response.status).toBe(200);
  // The request's line names method, path and status; its headers (the signature) stay out.
  await app.waitFor(/POST \/api\/github\/webhooks 200/);
  expect(app.output()).not.toMatch(/"headers"|x-hub-signature|user-agent/);
});

it('LOG_FORMAT=pretty: readable lines, not JSON', async () => {
  app = await startNode([MAIN], { cwd, env: { NO_SMEE_SETUP: 'true', LOG_FORMAT: 'pretty' } });
  await fetch(`${app.url}/ping`);
  await app.waitFor(/GET \/ping 200/);
  const lines = app.output().trim().split('\n');
  expect(lines.some((line) => /^\[[\d:.]+\] INFO \(http\): GET \/ping 200/.test(line))).toBe(true);
  expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
});

it("GitHub's redirect after registering: the code becomes .env, and the next start serves the App", async () => {
  const spec = JSON.parse(
    readFileSync(
      createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json'),
      'utf8',
    ),
  ) as { components: { examples: Record<string, { value: { id: number; html_url: string } }> } };
  const conversion = {
    ...spec.components.examples['integration-from-manifest']!.value,
    pem: appPrivateKey(),
    webhook_secret: SECRET,
  };
  const requests: string[] = [];
  const ghes = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url!, 'http://ghes');
    violations.push(
      ...check(req.method!, url, req.headers, undefined).problems,
      ...checkAnswer(req.method!, url, req.headers, { status: 201, body: conversion }),
    );
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(conversion));
  });
  await new Promise<void>((resolve) => ghes.listen(0, '127.0.0.1', resolve));
  const ghesHost = `127.0.0.1:${(ghes.address() as { port: number }).port}`;
  try {
    app = await startNode([MAIN], {
      cwd,
      env: { NO_SMEE_SETUP: 'true', GHE_HOST: ghesHost, GHE_PROTOCOL: 'http' },
    });
    const redirect = await fetch(`${app.url}/probot/setup?code=abc123`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`${conversion.html_url}/installations/new`);
    expect(requests).toEqual(['POST /api/v3/app-manifests/abc123/conversions']);
    const dotenv = readFileSync(join(cwd, '.env'), 'utf8');
    expect(dotenv).toContain(`APP_ID=${conversion.id}\n`);
    expect(dotenv).toContain(`WEBHOOK_SECRET=${SECRET}\n`);
    await app.stop();

    // npm start again, with nothing in the environment but .env: the App, not the setup page.
    app = await startNode([MAIN], {
      cwd,
      env: { GHE_HOST: new URL(github.url).host, GHE_PROTOCOL: 'http' },
    });
    expect((await fetch(`${app.url}/probot`)).status).toBe(404);
    expect(app.output()).not.toContain('coder-loop setup');
  } finally {
    await new Promise((resolve) => ghes.close(resolve));
  }
});

it('an unreachable proxy channel is one warning line, and the App goes on serving', async () => {
  const refused = `http://127.0.0.1:${await freePort()}/channel`;
  app = await startNode([MAIN], {
    cwd,
    env: {
      APP_ID: '1',
      PRIVATE_KEY: appPrivateKey(),
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_PROXY_URL: refused,
    },
  });
  await app.waitFor(/cannot be reached/);
  expect((await fetch(`${app.url}/ping`)).status).toBe(200);
  const lines = app.output().trim().split('\n');
  expect(lines.filter((line) => line.includes(refused))).toEqual([
    expect.stringMatching(
      /the webhook proxy channel .* cannot be reached \(.*ECONNREFUSED.*\); serving without it/,
    ),
  ]);
  expect(app.output()).not.toMatch(/ErrorEvent|\n\s+at /);
});

it('production without credentials: one line naming what is missing, exit code 1', async () => {
  const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      cwd,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', APP_ID: '7' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
  expect(result).toEqual({
    code: 1,
    out: 'coder-loop: NODE_ENV=production and PRIVATE_KEY (or PRIVATE_KEY_PATH), WEBHOOK_SECRET not set: the App cannot start without its credentials (docs/deployment.md; .env.example lists every variable).\n',
  });
});

it('a private key pasted into .env over several lines without quotes is named, with the fix', async () => {
  const key = appPrivateKey();
  await writeFile(
    join(cwd, '.env'),
    `APP_ID=1\nPRIVATE_KEY=${key.trim()}\nWEBHOOK_SECRET=${SECRET}\n`,
  );
  const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN], { cwd, env: { PATH: process.env.PATH } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
  expect(result.code).toBe(1);
  expect(result.out).toMatch(
    /^coder-loop: \.env:2: PRIVATE_KEY is a private key pasted over several lines without quotes, and \.env keeps one line per variable\. Put the whole key in double quotes .* or save it as a \.pem file and set PRIVATE_KEY_PATH to its path\.\n$/,
  );
  expect(result.out).not.toContain('missing');
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
