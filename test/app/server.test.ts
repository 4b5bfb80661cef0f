import { sign } from '@octokit/webhooks-methods';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../../src/app/app.js';
import { guardedProbot, MAX_WEBHOOK_BYTES } from '../../src/app/server.js';
import {
  afterScenario,
  beforeScenario,
  BASE,
  API,
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
      .reply(201, { id: 1, content: 'eyes' })
      .post(`${BASE}/issues/1/comments`)
      .reply(201, { id: 2 });
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
