import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './process.js';

/**
 * A real redis-server on a free loopback port, nothing saved: what the App's replicas share
 * (`REDIS_URL`). Resolves once it accepts connections.
 */
export async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  if (spawnSync('redis-server', ['--version']).error)
    throw new Error(
      'redis-server is not installed: this test needs it (Debian/Ubuntu: apt-get install -y redis-server; .ci/run installs it).',
    );
  const port = await freePort();
  const child = spawn('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('Ready to accept connections')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${text}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, process: child };
}
