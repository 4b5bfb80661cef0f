import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { worker } from './openapi.js';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** An App private key (PEM), as GitHub hands one out: one per Jest worker. */
export function appPrivateKey(): string {
  return worker().appPrivateKey();
}

export interface NodeProcess {
  /** The port it listens on (loopback). */
  port: number;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when `pattern` appears in its output. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `node <args>` as a child process with only the environment given (no inherited NODE_ENV or
 * `.env` from the repository: it runs in `cwd`), listening on a free loopback port; resolves once
 * Probot logs "Listening on".
 */
export async function startNode(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<NodeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      ...options.env,
      PORT: String(port),
    },
  });
  let text = '';
  let exited: string | undefined;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const closed = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = `exited (${code ?? signal})`;
      for (const listener of listeners) listener();
      resolve();
    }),
  );
  const waitFor = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(text)) done(resolve);
        else if (exited) done(() => reject(new Error(`${args.join(' ')} ${exited}:\n${text}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${pattern} in ${timeoutMs} ms:\n${text}`))),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  const started: NodeProcess = {
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => text,
    waitFor,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      await closed;
    },
  };
  try {
    await waitFor(/Listening on http/);
  } catch (error) {
    await started.stop();
    throw error;
  }
  return started;
}

/** Live (not zombie) processes of this machine whose command line holds `needle`. */
export function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!;
      if (cmdline.includes(needle) && !state.startsWith('Z')) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Cleanup: SIGKILL to every process `processesWith(needle)` finds. */
export function killProcessesWith(needle: string): void {
  if (!needle) return;
  for (const pid of processesWith(needle))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
}

/**
 * Delivers a webhook to a running App as GitHub does (its event, delivery id and signature);
 * resolves to the HTTP status the App answered.
 */
export async function deliverWebhook(
  app: NodeProcess,
  secret: string,
  delivery: { id: string; name: string; payload: unknown },
): Promise<number> {
  const body = JSON.stringify(delivery.payload);
  const response = await fetch(`${app.url}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': delivery.name,
      'x-github-delivery': delivery.id,
      'x-hub-signature-256': await sign(secret, body),
    },
    body,
  });
  return response.status;
}

/**
 * Waits until `done` holds and the in-memory GitHub then hears nothing for `quietMs`: no App
 * process still acting (a replica with a write queued, a job running). Throws `failure()` past
 * `timeoutMs`.
 */
export async function settleQuiet(
  requests: () => number,
  done: () => boolean,
  options: { quietMs: number; timeoutMs: number; pollMs: number; failure: () => string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last = requests();
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, options.pollMs));
    if (requests() !== last) {
      last = requests();
      quietSince = Date.now();
    } else if (done() && Date.now() - quietSince >= options.quietMs) return;
  }
  throw new Error(options.failure());
}
