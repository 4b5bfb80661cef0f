import type { IncomingMessage, ServerResponse } from 'node:http';
import { verify } from '@octokit/webhooks-methods';
import { getPrivateKey } from '@probot/get-private-key';
import { pino, type Logger } from 'pino';
import { Probot, ProbotOctokit, Server } from 'probot';

/** GitHub caps webhook payloads at 25 MB; a larger body is not GitHub's, and is not read. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;
export const WEBHOOK_PATH = '/api/github/webhooks';

type Handler = (
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  next?: () => void,
) => boolean | Promise<boolean>;

interface GuardOptions {
  secret: string;
  path?: string;
  maxBytes?: number;
  log: Pick<Logger, 'warn'>;
}

function refuse(res: ServerResponse, status: number, error: string): true {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error }));
  return true;
}

/**
 * In front of Probot's webhook middleware: a body over `maxBytes` is refused before it is buffered
 * (by its Content-Length, or as soon as the stream passes the limit), and a body whose signature
 * does not verify is refused with 400 — logged as one line (event, delivery, size), never with its
 * payload. Only a verified body reaches the middleware (as `req.body`, which it reads instead of
 * the stream).
 */
export function guardWebhooks(inner: Handler, options: GuardOptions): Handler {
  const path = options.path ?? WEBHOOK_PATH;
  const max = options.maxBytes ?? MAX_WEBHOOK_BYTES;
  return async (req, res, next) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (req.method !== 'POST' || pathname !== path) return inner(req, res, next);
    const event = String(req.headers['x-github-event'] ?? '?');
    const delivery = String(req.headers['x-github-delivery'] ?? '?');
    const declared = Number(req.headers['content-length']);
    const tooLarge = () => {
      options.log.warn(`webhook ${event} (${delivery}) refused: body over ${max} bytes`);
      refuse(res, 413, `Payload too large: GitHub's webhook bodies are at most ${max} bytes.`);
      req.destroy();
      return true;
    };
    if (declared > max) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    const complete = await new Promise<boolean>((resolve) => {
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          resolve(false);
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => resolve(true));
      req.on('error', () => resolve(false));
    });
    if (!complete) return size > max ? tooLarge() : true;
    const body = Buffer.concat(chunks).toString('utf8');
    chunks.length = 0;
    const signature = req.headers['x-hub-signature-256'];
    const valid =
      typeof signature === 'string' &&
      (await verify(options.secret, body, signature).catch(() => false));
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

/** A Probot whose webhook middleware is guarded (see `guardWebhooks`). */
export function guardedProbot(Base: ProbotClass, options: GuardOptions): ProbotClass {
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

/**
 * The App's server from the standard Probot variables (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
 * WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL, PORT, HOST, WEBHOOK_PATH, WEBHOOK_PROXY_URL,
 * REDIS_URL, LOG_LEVEL), with the guarded webhook path. `/ping` answers `PONG` (health). The smee.io
 * channel (WEBHOOK_PROXY_URL) is started after the server listens, and never stops it.
 */
export async function startServer(
  appFn: (app: Probot) => void,
  Octokit: typeof ProbotOctokit,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Server> {
  const log = pino({ level: env.LOG_LEVEL ?? 'info', name: 'coder-loop' });
  const secret = env.WEBHOOK_SECRET;
  if (!secret) throw new Error('WEBHOOK_SECRET is not set: the App cannot verify deliveries.');
  const privateKey = getPrivateKey({ env }) ?? undefined;
  const webhookPath = env.WEBHOOK_PATH || WEBHOOK_PATH;
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
    Probot: guardedProbot(Base, { secret, path: webhookPath, log }),
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
export async function startWebhookProxy(
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
