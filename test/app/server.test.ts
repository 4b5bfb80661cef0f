import { sign } from '@octokit/webhooks-methods';
import nock from 'nock';
import { pino } from 'pino';
import { Probot, Server } from 'probot';
import { createApp } from '../../src/app/app.js';
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

  beforeEach(async () => {
    beforeScenario();
    nock.enableNetConnect('127.0.0.1');
    server = new Server({
      Probot: Probot.defaults({ ...testProbotOptions(), secret: SECRET }),
      host: '127.0.0.1',
      port: await freePort(),
      enableStaticFiles: false,
      // The rejected delivery is logged as an error with its payload: keep test output readable.
      log: pino({ level: 'silent' }),
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
});
