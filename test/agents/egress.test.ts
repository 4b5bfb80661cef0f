import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A plain-HTTP request through the proxy, which names its target in full. */
function viaProxy(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: proxy().hostname, port: proxy().port, method: 'GET', path: target },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy (HTTPS, WebSockets): the status line it answers. */
function connectVia(authority: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: proxy().hostname,
      port: proxy().port,
      method: 'CONNECT',
      path: authority,
    });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

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
