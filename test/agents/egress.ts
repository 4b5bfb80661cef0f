import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A tripwire for the agent CLIs' own traffic: an HTTP proxy on 127.0.0.1, named to the CLI by
 * the proxy variables every HTTP stack it uses reads (Node's and Bun's `fetch` through the CLIs'
 * own agents, Rust's reqwest, git's libcurl, npm's fetcher). A request to the loopback (the
 * scripted model, the in-memory GitHub) is carried through; one to any other host is refused with
 * 403 and recorded, so a test can require that a CLI reached nothing but 127.0.0.1. A stack that
 * honours `NO_PROXY` goes to the loopback directly; one that ignores it still works through here.
 *
 * It catches what goes through a proxy: a client that ignores the variables and resolves a name
 * itself is not seen (docs/agent.md says how every CLI was also watched at the system-call level).
 */
export interface EgressGuard {
  /** `host:port` of every request to a host other than the loopback, in order. */
  refused: string[];
  /** The proxy variables to hand to the agent (and the names to list in `agent.env`). */
  env: Record<string, string>;
  close: () => Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function hostOf(authority: string): { host: string; port: number } {
  const url = new URL(`http://${authority}`);
  return { host: url.hostname, port: Number(url.port || 80) };
}

export async function startEgressGuard(): Promise<EgressGuard> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // A plain-HTTP request through a proxy names its target in full.
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!LOOPBACK.has(target.hostname)) {
      refused.push(`${target.hostname}:${target.port || 80}`);
      res.writeHead(403).end('coder-loop test: no host but 127.0.0.1');
      return;
    }
    const upstream = request(
      target,
      { method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  // HTTPS (and WebSockets) through a proxy: CONNECT host:port, then a tunnel.
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const { host, port } = hostOf(req.url ?? '');
    if (!LOOPBACK.has(host)) {
      refused.push(`${host}:${port}`);
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, host.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const noProxy = '127.0.0.1,localhost,::1';
  const env: Record<string, string> = {};
  for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY']) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  env.NO_PROXY = noProxy;
  env.no_proxy = noProxy;
  return {
    refused,
    env,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
