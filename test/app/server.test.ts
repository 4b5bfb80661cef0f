import { rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../../src/app/app.js';
import {
  guardedProbot,
  MAX_WEBHOOK_BYTES,
  SMALL_BODY_BYTES,
  logFormat,
  StartProblem,
  startServer,
  UnverifiedBudget,
} from '../../src/app/server.js';
import { LoopOctokit } from '../../src/app/octokit.js';
import {
  afterScenario,
  API,
  BASE,
  beforeScenario,
  created,
  NOW,
  permission,
  requestLog,
  testProbotOptions,
} from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { freePort } from '../helpers/process.js';

const SECRET = 'webhook-secret-for-tests';

describe('the real webhook server on a loopback port', () => {
  let server: Server;
  let url: string;
  let logged: string[];

  beforeEach(async () => {
    beforeScenario();
    nock.enableNetConnect('127.0.0.1');
    logged = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    server = new Server({
      Probot: guardedProbot(Probot.defaults({ ...testProbotOptions(), secret: SECRET }), {
        secret: SECRET,
        log,
      }),
      host: '127.0.0.1',
      port: await freePort(),
      enableStaticFiles: false,
      log,
      request: testProbotOptions().request,
    });
    await server.load(createApp({ now: () => NOW }));
    await server.start();
    url = `http://127.0.0.1:${server.port}/api/github/webhooks`;
  });

  afterEach(async () => {
    await server.stop();
    afterScenario();
  });

  async function deliver(body: string, signature: string) {
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-hub-signature-256': signature,
      },
      body,
    });
  }

  it('handles a signed real payload', async () => {
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = '/coder help';
    const body = JSON.stringify(payload);
    permission('Codertocat', 'write');
    nock(API)
      .post(`${BASE}/issues/comments/${payload.comment.id}/reactions`)
      .reply(201, created.reaction())
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    const response = await deliver(body, await sign(SECRET, body));
    expect(response.status).toBe(200);
    // The middleware may answer before the handler's last request: wait for the reply.
    for (let i = 0; i < 100 && requestLog.length < 4; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(requestLog.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /app/installations/4242/access_tokens',
      `GET ${BASE}/collaborators/Codertocat/permission`,
      `POST ${BASE}/issues/comments/${payload.comment.id}/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
  });

  it('rejects a wrongly signed payload without a single API call', async () => {
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = '/coder next';
    const body = JSON.stringify(payload);
    const response = await deliver(body, await sign('not-the-secret', body));
    expect(response.status).toBe(400);
    expect(requestLog).toEqual([]);
  });

  it('refuses a body over 25 MB by its Content-Length, before reading it, and logs no payload', async () => {
    const big = 'x'.repeat(MAX_WEBHOOK_BYTES + 1024);
    const response = await deliver(big, 'sha256=00');
    expect(response.status).toBe(413);
    expect(requestLog).toEqual([]);
    const log = logged.join('');
    expect(log).toContain('refused: body over');
    expect(log.length).toBeLessThan(10_000);
  });

  it('refuses a chunked body once it passes 25 MB (no Content-Length to trust)', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(120);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 200) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'chunked',
        'x-hub-signature-256': 'sha256=00',
      },
      body: stream,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    // The server answers 413 and closes; the client may see the answer or the closed socket.
    if (response instanceof Response) expect(response.status).toBe(413);
    // The server stopped reading at the limit: the client could not send the 200 MB it had.
    expect(sent).toBeLessThan(100);
    expect(logged.join('')).toContain('refused: body over');
  });

  it('answers a wrong signature 400 and never logs the unverified payload', async () => {
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = 'SECRET-LOOKING-PAYLOAD-TEXT '.repeat(1000);
    const body = JSON.stringify(payload);
    const response = await deliver(body, await sign('not-the-secret', body));
    expect(response.status).toBe(400);
    const log = logged.join('');
    expect(log).toContain('the signature does not match');
    expect(log).not.toContain('SECRET-LOOKING-PAYLOAD-TEXT');
  });

  it('answers a signed payload missing what its handler reads 2xx, with one log line, and no request', async () => {
    for (const [event, payload] of [
      ['issue_comment', { ...examplePayload('issue_comment', 'created'), comment: undefined }],
      ['check_suite', { ...examplePayload('check_suite', 'completed'), check_suite: undefined }],
      ['status', { ...examplePayload('status'), sha: undefined }],
    ] as const) {
      const body = JSON.stringify(payload);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': `malformed-${event}`,
          'x-hub-signature-256': await sign(SECRET, body),
        },
        body,
      });
      expect(response.status).toBe(200);
    }
    expect(requestLog).toEqual([]);
    const log = logged.join('');
    expect(log).toContain('malformed issue_comment payload: comment');
    expect(log).toContain('malformed check_suite payload: check_suite');
    expect(log).toContain('malformed status payload: sha');
    expect(log).not.toContain('TypeError');
  });
});

/** A raw upload: headers, then `bytes` of body, then nothing (a stalled client). */
function stalledUpload(port: number, headers: Record<string, string>, bytes: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.on('error', () => {}); // a reset after the answer is what a refused upload may see
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  const head = Object.entries({
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-hub-signature-256': 'sha256=00',
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST /api/github/webhooks HTTP/1.1\r\n${head}\r\n`);
  if (bytes > 0) {
    const chunked = headers['transfer-encoding'] === 'chunked';
    const body = Buffer.alloc(bytes, 120);
    socket.write(chunked ? Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), body]) : body);
  }
  return { socket, closed };
}

/** Waits (polling, never timing anything) until `done` holds; gives up after 2,000 polls. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i > 2000) throw new Error('the condition never held');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every raw socket a test opened: closed after it, so a failing test cannot hold the server. */
const sockets: Socket[] = [];

describe('unverified bodies are bounded in total and in time (issue 18, item 7)', () => {
  let server: Server;
  let port: number;
  let logged: string[];
  let budget: UnverifiedBudget;
  const MiB = 1024 * 1024;

  async function start(bodyTimeoutMs: number) {
    beforeScenario();
    nock.enableNetConnect('127.0.0.1');
    logged = [];
    budget = new UnverifiedBudget(8 * MiB); // large bodies may hold 6 MiB of it together
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    server = new Server({
      Probot: guardedProbot(Probot.defaults({ ...testProbotOptions(), secret: SECRET }), {
        secret: SECRET,
        log,
        budget,
        bodyTimeoutMs,
      }),
      host: '127.0.0.1',
      port: await freePort(),
      enableStaticFiles: false,
      log,
      request: testProbotOptions().request,
    });
    await server.load(createApp({ now: () => NOW }));
    await server.start();
    port = server.port;
  }
  const refusals = (status: string) => logged.filter((l) => l.includes(status)).length;

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await server.stop();
    afterScenario();
  });

  it('stalled large unsigned uploads hold at most the large share; more are refused 503 with Retry-After; a signed delivery still gets 200; closing them releases every byte', async () => {
    await start(60_000); // longer than the test: only the budget frees anything here
    const uploads: ReturnType<typeof stalledUpload>[] = [];
    // One at a time, each 2 MiB then stalled: three fit in the 6 MiB large share, the rest not.
    for (let i = 0; i < 6; i++) {
      const before = refusals('unverified bodies in flight');
      const held = budget.held;
      uploads.push(stalledUpload(port, { 'transfer-encoding': 'chunked' }, 2 * MiB));
      await until(
        () => budget.held === held + 2 * MiB || refusals('unverified bodies in flight') > before,
      );
    }
    expect(budget.held).toBe(6 * MiB);
    expect(budget.held).toBeLessThanOrEqual(budget.limit * 0.75);
    expect(refusals('unverified bodies in flight')).toBe(3);
    // A declared 24 MB body is refused before a byte of it is read: 503, Retry-After, closed.
    const declared = stalledUpload(port, { 'content-length': String(24 * MiB) }, 0);
    const answer = await declared.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nretry-after: 60\r\n/i);
    expect(budget.held).toBe(6 * MiB);

    // A signed delivery (a real payload) is still answered: it fits in the quarter kept for them.
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = '/coder help';
    const body = JSON.stringify(payload);
    permission('Codertocat', 'write');
    nock(API)
      .post(`${BASE}/issues/comments/${payload.comment.id}/reactions`)
      .reply(201, created.reaction())
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'signed-under-flood',
        'x-hub-signature-256': await sign(SECRET, body),
      },
      body,
    });
    expect(response.status).toBe(200);
    await until(() => requestLog.some((r) => r.path === `${BASE}/issues/1/comments`));
    expect(budget.held).toBe(6 * MiB); // the signed body's bytes were released once verified

    // The stalled clients go away: every byte they held is released.
    for (const u of uploads) u.socket.destroy();
    await Promise.all(uploads.map((u) => u.closed));
    await until(() => budget.held === 0);
    expect(budget.held).toBe(0);
  });

  it('a body that has not arrived within the time limit gets 408 and is closed; its bytes are released', async () => {
    await start(300);
    const small = stalledUpload(port, { 'transfer-encoding': 'chunked' }, SMALL_BODY_BYTES / 2);
    const large = stalledUpload(port, { 'content-length': String(4 * MiB) }, 3 * MiB);
    const [a, b] = await Promise.all([small.closed, large.closed]);
    expect(a).toMatch(/^HTTP\/1\.1 408 /);
    // The large one's unread bytes may turn the close into a reset before the answer is read.
    if (b) expect(b).toMatch(/^HTTP\/1\.1 408 /);
    expect(refusals('body not received within 300 ms')).toBe(2);
    await until(() => budget.held === 0);
    expect(budget.held).toBe(0);
  });
});

describe('the bounds from the environment', () => {
  it.each([
    ['CODER_LOOP_UNVERIFIED_BYTES', '1000', 'at least 34952534'],
    ['CODER_LOOP_UNVERIFIED_BYTES', '64MB', 'at least 34952534'],
    ['CODER_LOOP_BODY_TIMEOUT_MS', '10', 'at least 1000'],
    ['CODER_LOOP_BODY_TIMEOUT_MS', '1.5', 'at least 1000'],
  ])('%s=%s stops the start with a message, before anything listens', async (name, value, why) => {
    await expect(
      startServer(createApp(), LoopOctokit, { WEBHOOK_SECRET: SECRET, APP_ID: '1', [name]: value }),
    ).rejects.toThrow(`${name}=${value} is not valid: write a whole number, ${why}.`);
  });
});

describe('the start, as a person at a terminal meets it', () => {
  it('logs readable lines at a terminal, JSON lines elsewhere, LOG_FORMAT deciding when set', () => {
    expect(logFormat({}, true)).toBe('pretty');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });

  const pem = join(tmpdir(), `coder-loop-bad-key-${process.pid}.pem`);
  beforeAll(() => writeFileSync(pem, '-----BEGIN RSA PRIVATE KEY-----\nnot base64\n'));
  afterAll(() => rmSync(pem, { force: true }));

  it.each([
    ['PRIVATE_KEY', () => ({ PRIVATE_KEY: 'not a key' })],
    [`PRIVATE_KEY_PATH (${pem})`, () => ({ PRIVATE_KEY_PATH: pem })],
  ])(
    'a malformed %s stops the start with one message: what is wrong, and the fix',
    async (source, envOf) => {
      const env = envOf();
      const start = startServer(createApp(), LoopOctokit, {
        WEBHOOK_SECRET: SECRET,
        APP_ID: '1',
        ...env,
      });
      await expect(start).rejects.toBeInstanceOf(StartProblem);
      await expect(start).rejects.toThrow(
        new RegExp(
          `^${source.replace(/[()./-]/g, '\\$&')} is not a private key \\(.+\\)\\. Use the \\.pem file GitHub gives`,
        ),
      );
    },
  );
});
