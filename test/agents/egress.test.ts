import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { startEgressGuard, type EgressGuard } from './egress.js';

/**
 * The agent CLIs' tripwire (test/agents/egress.ts): traffic to the loopback is carried through,
 * any other host is refused without being reached, and recorded.
 */
let guard: EgressGuard;
let local: Server;
let localPort: number;

beforeEach(async () => {
  guard = await startEgressGuard();
  local = createServer((req, res) => res.end(`local ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  localPort = (local.address() as AddressInfo).port;
});

afterEach(async () => {
  await guard.close();
  await new Promise<void>((resolve) => local.close(() => resolve()));
});

const proxy = () => new URL(guard.env.HTTPS_PROXY!);

/**
 * What the proxy answers to `head` (a request's head, written as a client behind a proxy writes
 * it), over a plain socket: no HTTP client of this process's, which another suite's interceptors
 * (nock) may have patched in this worker. The status code, and the body when the answer ends.
 */
function ask(head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(proxy().port), proxy().hostname, () => socket.write(head));
    let answer = '';
    const done = () => {
      const [status = '', ...rest] = answer.split('\r\n\r\n');
      resolve({ status: Number(status.split(' ')[1]), body: rest.join('\r\n\r\n') });
    };
    socket.on('data', (d) => {
      answer += d;
      // A tunnel stays open once it is made: its status line is the answer.
      if (head.startsWith('CONNECT') && answer.includes('\r\n\r\n')) socket.end();
    });
    socket.on('end', done);
    socket.on('error', reject);
  });
}

/** A plain-HTTP request through the proxy, which names its target in full. */
const viaProxy = (target: string) =>
  ask(`GET ${target} HTTP/1.1\r\nHost: ${new URL(target).host}\r\nConnection: close\r\n\r\n`);

/** A CONNECT through the proxy (HTTPS, WebSockets): the status it answers. */
const connectVia = async (authority: string) =>
  (await ask(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`)).status;

describe('the egress guard', () => {
  it('names itself to every proxy variable, and the loopback as the exception', () => {
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY'])
      expect([guard.env[name], guard.env[name.toLowerCase()]]).toEqual([
        guard.env.HTTPS_PROXY,
        guard.env.HTTPS_PROXY,
      ]);
    expect(guard.env.NO_PROXY).toBe('127.0.0.1,localhost,::1');
    expect(guard.env.no_proxy).toBe(guard.env.NO_PROXY);
  });

  it('carries a request to the loopback through, and records nothing', async () => {
    await expect(viaProxy(`http://127.0.0.1:${localPort}/v1/x`)).resolves.toEqual({
      status: 200,
      body: 'local GET /v1/x',
    });
    await expect(connectVia(`127.0.0.1:${localPort}`)).resolves.toBe(200);
    expect(guard.refused).toEqual([]);
  });

  it('refuses any other host without reaching it, and records each', async () => {
    // `.invalid` names nothing (RFC 2606): were it looked up or reached, the test would hang or
    // fail on its answer, not on the guard's 403.
    await expect(viaProxy('http://registry.example.invalid/pkg')).resolves.toMatchObject({
      status: 403,
    });
    await expect(connectVia('github.example.invalid:443')).resolves.toBe(403);
    expect(guard.refused).toEqual(['registry.example.invalid:80', 'github.example.invalid:443']);
  });
});
