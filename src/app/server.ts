import { createPrivateKey } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verify } from '@octokit/webhooks-methods';
import { getPrivateKey } from '@probot/get-private-key';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { Probot, ProbotOctokit, Server } from 'probot';

/** GitHub caps webhook payloads at 25 MB; a larger body is not GitHub's, and is not read. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;
export const WEBHOOK_PATH = '/api/github/webhooks';
/** The bytes of unverified bodies held at once, across all connections (SPEC §6). */
export const UNVERIFIED_BYTES = 64 * 1024 * 1024;
const UNVERIFIED_BYTES_ENV = 'CODER_LOOP_UNVERIFIED_BYTES';
/** How long a webhook body may take to arrive, from the request's headers to its last byte. */
export const BODY_TIMEOUT_MS = 15_000;
const BODY_TIMEOUT_ENV = 'CODER_LOOP_BODY_TIMEOUT_MS';
/** Bytes of each body that may use the whole budget; beyond them only the large share. */
export const SMALL_BODY_BYTES = 1024 * 1024;
/** The least budget whose large share (three quarters) still takes a 25 MB body. */
const MIN_UNVERIFIED_BYTES = Math.ceil((MAX_WEBHOOK_BYTES * 4) / 3);

type Handler = (
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  next?: () => void,
) => boolean | Promise<boolean>;

/**
 * The bytes of unverified webhook bodies held at once, shared by every connection of a server.
 * A body's first `SMALL_BODY_BYTES` may use the whole budget; the rest of a larger body only the
 * first three quarters of it. So stalled large uploads never take the last quarter, which ordinary
 * deliveries (a few KB; GitHub's are rarely over a megabyte) keep using.
 */
export class UnverifiedBudget {
  held = 0;
  constructor(readonly limit: number = UNVERIFIED_BYTES) {}

  /** Takes `bytes` more for a body that already holds `size`; false (nothing taken) if over. */
  take(size: number, bytes: number): boolean {
    const ceiling = size + bytes <= SMALL_BODY_BYTES ? this.limit : Math.floor(this.limit * 0.75);
    if (this.held + bytes > ceiling) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held -= bytes;
  }
}

interface GuardOptions {
  secret: string;
  path?: string;
  maxBytes?: number;
  /** Shared by every request this guard sees (one per server); a new one of `UNVERIFIED_BYTES`. */
  budget?: UnverifiedBudget;
  /** The time a body may take, from the request's headers to its last byte. */
  bodyTimeoutMs?: number;
  log: Pick<Logger, 'warn'>;
}

function refuse(
  res: ServerResponse,
  status: number,
  error: string,
  headers: Record<string, string> = {},
): true {
  if (!res.headersSent) {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
    res.end(JSON.stringify({ error }));
  }
  return true;
}

type Refusal = 'too-large' | 'budget' | 'timeout' | 'aborted';

/**
 * In front of Probot's webhook middleware: a body over `maxBytes` is refused before it is buffered
 * (by its Content-Length, or as soon as the stream passes the limit), and a body whose signature
 * does not verify is refused with 400 — logged as one line (event, delivery, size), never with its
 * payload. Unverified bodies are bounded in total and in time: a body that would take the shared
 * `budget` past its limit gets 503 (`Retry-After`), one that has not arrived `bodyTimeoutMs` after
 * its headers gets 408; either way its socket is closed and its bytes are released at once. Only a
 * verified body reaches the middleware (as `req.body`, which it reads instead of the stream).
 */
function guardWebhooks(inner: Handler, options: GuardOptions): Handler {
  const path = options.path ?? WEBHOOK_PATH;
  const max = options.maxBytes ?? MAX_WEBHOOK_BYTES;
  const budget = options.budget ?? new UnverifiedBudget();
  const timeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const retryAfter = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  return async (req, res, next) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (req.method !== 'POST' || pathname !== path) return inner(req, res, next);
    const event = String(req.headers['x-github-event'] ?? '?');
    const delivery = String(req.headers['x-github-delivery'] ?? '?');
    const declared = Number(req.headers['content-length']);
    const refused = (why: Refusal, size: number) => {
      if (why === 'too-large') {
        options.log.warn(`webhook ${event} (${delivery}) refused: body over ${max} bytes`);
        refuse(res, 413, `Payload too large: GitHub's webhook bodies are at most ${max} bytes.`);
      } else if (why === 'budget') {
        options.log.warn(
          `webhook ${event} (${delivery}) refused: unverified bodies in flight over ${budget.limit} bytes (${UNVERIFIED_BYTES_ENV}) at ${size} bytes`,
        );
        refuse(res, 503, 'Too many webhook bodies in flight; retry later.', {
          'retry-after': retryAfter,
        });
      } else if (why === 'timeout') {
        options.log.warn(
          `webhook ${event} (${delivery}) refused: body not received within ${timeoutMs} ms (${BODY_TIMEOUT_ENV}), ${size} bytes so far`,
        );
        refuse(res, 408, `The body did not arrive within ${timeoutMs} ms.`);
      }
      // Closed once the answer is out (at once when it cannot be written): no more bytes are read.
      if (res.writableFinished || why === 'aborted') req.destroy();
      else res.once('finish', () => req.destroy()).once('close', () => req.destroy());
      return true;
    };
    if (declared > max) return refused('too-large', 0);
    // A declared length that cannot fit is refused before a byte of it is read.
    if (declared > 0 && !budget.take(0, declared)) return refused('budget', 0);
    if (declared > 0) budget.release(declared);

    const chunks: Buffer[] = [];
    let size = 0;
    const outcome = await new Promise<Refusal | undefined>((resolve) => {
      let settled = false;
      const settle = (result: Refusal | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.removeListener('data', onData);
        resolve(result);
      };
      const timer = setTimeout(() => settle('timeout'), timeoutMs);
      const onData = (chunk: Buffer) => {
        if (size + chunk.length > max) return settle('too-large');
        if (!budget.take(size, chunk.length)) return settle('budget');
        size += chunk.length;
        chunks.push(chunk);
      };
      req.on('data', onData);
      req.on('end', () => settle(undefined));
      req.on('error', () => settle('aborted'));
      req.on('close', () => settle('aborted'));
    });
    if (outcome) {
      chunks.length = 0;
      budget.release(size);
      return refused(outcome, size);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    chunks.length = 0;
    const signature = req.headers['x-hub-signature-256'];
    const valid =
      typeof signature === 'string' &&
      (await verify(options.secret, body, signature).catch(() => false));
    // Verified or refused, this body's bytes are no longer held as unverified.
    budget.release(size);
    if (!valid) {
      options.log.warn(
        `webhook ${event} (${delivery}) refused: ${signature ? 'the signature does not match' : 'no signature'} (${size} bytes, payload not logged)`,
      );
      return refuse(res, 400, 'The signature does not match the payload.');
    }
    req.body = body;
    return inner(req, res, next);
  };
}

type ProbotClass = typeof Probot;

/** A Probot whose webhook middleware is guarded (see `guardWebhooks`); one budget per class. */
export function guardedProbot(Base: ProbotClass, guard: GuardOptions): ProbotClass {
  const options = { ...guard, budget: guard.budget ?? new UnverifiedBudget() };
  return class GuardedProbot extends Base {
    override async getNodeMiddleware(
      ...args: Parameters<Probot['getNodeMiddleware']>
    ): ReturnType<Probot['getNodeMiddleware']> {
      const inner = (await super.getNodeMiddleware(...args)) as Handler;
      return guardWebhooks(inner, {
        ...options,
        ...(args[0]?.path ? { path: args[0].path } : {}),
      }) as Awaited<ReturnType<Probot['getNodeMiddleware']>>;
    }
  };
}

/** An integer setting from the environment (its default when unset); below `min` stops the start. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new StartProblem(`${name}=${raw} is not valid: write a whole number, at least ${min}.`);
  return value;
}

/**
 * One line per HTTP request: method, path, status and time. pino-http logs every header of the
 * request and the response (about 1.5 KB a delivery), and Probot 14's Server passes it no options:
 * the logger itself leaves them out.
 */
const HTTP_QUIET = {
  paths: ['req.headers', 'req.remoteAddress', 'req.remotePort', 'res.headers'],
  remove: true,
};

/**
 * How the App logs: `LOG_FORMAT` when set (`json` or `pretty`); else readable lines for a person
 * at a terminal (`npm start` there: the setup page's address stands out), JSON lines for a log
 * collector (a pipe, a container's output).
 */
export function logFormat(env: NodeJS.ProcessEnv, terminal: boolean): 'json' | 'pretty' {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return terminal ? 'pretty' : 'json';
}

/** The App's logger, in the format `logFormat` says; levels by `LOG_LEVEL`. */
export function appLog(env: NodeJS.ProcessEnv, terminal = process.stdout.isTTY === true): Logger {
  const options = {
    level: env.LOG_LEVEL ?? 'info',
    name: 'coder-loop',
    redact: HTTP_QUIET,
  };
  if (logFormat(env, terminal) === 'json') return pino(options);
  return pino(options, pretty({ ignore: 'pid,hostname', colorize: terminal }));
}

/** What stops the App's start, said in one line: what is wrong and the fix (no stack trace). */
export class StartProblem extends Error {
  override name = 'StartProblem';
}

/** The App's private key, refused at the start when Node cannot read it as one. */
function checkedPrivateKey(env: NodeJS.ProcessEnv): string | undefined {
  let key: string | undefined;
  try {
    key = getPrivateKey({ env }) ?? undefined;
    if (key !== undefined) createPrivateKey(key);
  } catch (error) {
    const source =
      !env.PRIVATE_KEY && env.PRIVATE_KEY_PATH
        ? `PRIVATE_KEY_PATH (${env.PRIVATE_KEY_PATH})`
        : 'PRIVATE_KEY';
    throw new StartProblem(
      `${source} is not a private key (${(error as Error).message}). Use the .pem file GitHub gives on the App's page (General → Private keys → Generate a private key), whole, from "-----BEGIN RSA PRIVATE KEY-----" to "-----END RSA PRIVATE KEY-----": in .env as PRIVATE_KEY in double quotes with its line breaks, or its path as PRIVATE_KEY_PATH.`,
    );
  }
  return key;
}

/**
 * The App's server from the standard Probot variables (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
 * WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL, PORT, HOST, WEBHOOK_PATH, WEBHOOK_PROXY_URL,
 * REDIS_URL, LOG_LEVEL), with the guarded webhook path (CODER_LOOP_UNVERIFIED_BYTES and
 * CODER_LOOP_BODY_TIMEOUT_MS bound the unverified bodies). `/ping` answers `PONG` (health). The
 * smee.io channel (WEBHOOK_PROXY_URL) is started after the server listens, and never stops it.
 */
export async function startServer(
  appFn: (app: Probot) => void,
  Octokit: typeof ProbotOctokit,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Server> {
  const log = appLog(env);
  const secret = env.WEBHOOK_SECRET;
  if (!secret)
    throw new StartProblem('WEBHOOK_SECRET is not set: the App cannot verify deliveries.');
  const privateKey = checkedPrivateKey(env);
  const webhookPath = env.WEBHOOK_PATH || WEBHOOK_PATH;
  const budget = new UnverifiedBudget(
    positiveInteger(env, UNVERIFIED_BYTES_ENV, UNVERIFIED_BYTES, MIN_UNVERIFIED_BYTES),
  );
  const bodyTimeoutMs = positiveInteger(env, BODY_TIMEOUT_ENV, BODY_TIMEOUT_MS, 1000);
  const Base = Probot.defaults({
    appId: Number(env.APP_ID),
    ...(privateKey ? { privateKey } : {}),
    secret,
    baseUrl: env.GHE_HOST
      ? `${env.GHE_PROTOCOL || 'https'}://${env.GHE_HOST}/api/v3`
      : 'https://api.github.com',
    ...(env.REDIS_URL ? { redisConfig: env.REDIS_URL } : {}),
    log,
    Octokit,
  });
  const server = new Server({
    Probot: guardedProbot(Base, { secret, path: webhookPath, log, budget, bodyTimeoutMs }),
    host: env.HOST || undefined,
    port: Number(env.PORT) || 3000,
    webhookPath,
    log,
  } as ConstructorParameters<typeof Server>[0]);
  await server.load(appFn);
  await server.start();
  if (env.WEBHOOK_PROXY_URL) {
    const proxy = await startWebhookProxy(env.WEBHOOK_PROXY_URL, {
      target: `http://${server.host}:${server.port}${webhookPath}`,
      log,
    });
    if (proxy) {
      const stop = server.stop.bind(server);
      server.stop = async () => {
        await proxy.stop();
        await stop();
      };
    }
  }
  return server;
}

/**
 * Development: forwards a smee.io channel's deliveries to the webhook path. A channel that cannot
 * be reached (no network, a wrong URL) is one warning line, and the server goes on serving.
 */
async function startWebhookProxy(
  source: string,
  options: { target: string; log: Pick<Logger, 'info' | 'warn' | 'error'> },
): Promise<{ stop(): Promise<void> } | undefined> {
  const { log } = options;
  let SmeeClient: typeof import('smee-client').SmeeClient;
  try {
    ({ SmeeClient } = await import('smee-client'));
  } catch {
    log.warn(
      `coder-loop: WEBHOOK_PROXY_URL is set but smee-client is not installed (npm install --save-dev smee-client); serving without it.`,
    );
    return undefined;
  }
  let connected = false;
  const client = new SmeeClient({
    source,
    target: options.target,
    // smee-client logs every failed reconnection with the whole error: only the first, in a line.
    logger: {
      info: (message: string) => {
        if (connected || !message.startsWith('Connection closed')) log.info(message);
      },
      error: (message: string) => {
        if (connected) log.warn(`coder-loop: webhook proxy ${source}: ${message}`);
      },
    } as unknown as Console,
  });
  try {
    await client.start();
    connected = true;
    return client;
  } catch (error) {
    await client.stop().catch(() => undefined);
    const reason = (error as { message?: string }).message || String(error);
    log.warn(
      `coder-loop: the webhook proxy channel ${source} cannot be reached (${reason.split('\n')[0]}); serving without it on ${options.target}. Check WEBHOOK_PROXY_URL and restart.`,
    );
    return undefined;
  }
}
