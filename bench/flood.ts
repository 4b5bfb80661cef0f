import { connect, type Socket } from 'node:net';

/**
 * The attacker of the webhook-server flood benchmark, in its own process (its buffers are not the
 * server's RSS): `count` connections each declare a body of `declared` bytes, send `bytes` of it
 * unsigned and stall. It reports when every upload has been either read whole by the server or
 * closed by it, and closes them all when told to. Run by `bench/server.ts` through `fork`.
 */

export interface FloodRequest {
  port: number;
  count: number;
  bytes: number;
  declared: number;
}
export interface FloodResult {
  /** Uploads whose bytes the server read whole, and still holds open. */
  held: number;
  /** Uploads the server answered or closed. */
  refused: number;
}

const sockets: Socket[] = [];

function upload(request: FloodRequest, body: Buffer): Promise<'held' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect(request.port, '127.0.0.1');
    sockets.push(socket);
    let done = false;
    const settle = (how: 'held' | 'refused') => {
      if (!done) resolve(how);
      done = true;
    };
    socket.on('error', () => settle('refused'));
    socket.on('close', () => settle('refused'));
    socket.on('data', () => settle('refused')); // any answer before the body is whole: refused
    socket.write(
      `POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `x-github-event: push\r\nx-github-delivery: flood\r\nx-hub-signature-256: sha256=00\r\n` +
        `content-length: ${request.declared}\r\n\r\n`,
    );
    // The callback runs once the kernel took the last byte: the server has read nearly all of it.
    socket.write(body, (error) => settle(error ? 'refused' : 'held'));
  });
}

export async function flood(request: FloodRequest): Promise<FloodResult> {
  const body = Buffer.alloc(request.bytes, 120);
  const outcomes = await Promise.all(
    Array.from({ length: request.count }, () => upload(request, body)),
  );
  return {
    held: outcomes.filter((o) => o === 'held').length,
    refused: outcomes.filter((o) => o === 'refused').length,
  };
}

if (process.send) {
  process.on('message', (message: FloodRequest | 'close') => {
    if (message === 'close') {
      for (const socket of sockets.splice(0)) socket.destroy();
      process.send!({ closed: true });
      return;
    }
    flood(message).then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
}
