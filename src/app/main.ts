import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Probot, Server } from 'probot';
import coderLoop from './app.js';
import { LoopOctokit } from './octokit.js';
import { appLog, StartProblem, startServer } from './server.js';
import { envFileProblems, missingCredentials, productionRefusal, setupHandler } from './setup.js';

// `npm start`. `.env` first (what the setup page wrote; the environment wins over it). With the
// App's credentials (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET): the App, its webhook
// path guarded (src/app/server.ts). Without them: coder-loop's setup page (src/app/setup.ts), or in
// production one line naming what is missing, and exit code 1.
const env = process.env;
const dotenv = join(process.cwd(), '.env');
if (existsSync(dotenv)) {
  const problems = envFileProblems(readFileSync(dotenv, 'utf8'));
  if (problems.length > 0) {
    for (const problem of problems) console.error(`coder-loop: ${problem}`);
    process.exit(1);
  }
  process.loadEnvFile(dotenv);
}
const missing = missingCredentials(env);
const log = appLog(env);

if (missing.length === 0) {
  const server = await startServer(coderLoop, LoopOctokit).catch((error: unknown) => {
    // A start refused for a reason the user can fix: one line, not a stack trace.
    if (!(error instanceof StartProblem)) throw error;
    console.error(`coder-loop: ${error.message}`);
    process.exit(1);
  });
  // A container stops with SIGINT (Dockerfile STOPSIGNAL) or SIGTERM: stop serving, then exit.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      void server.stop().finally(() => process.exit(0));
    });
} else if (env.NODE_ENV === 'production') {
  console.error(productionRefusal(missing));
  process.exit(1);
} else {
  // A smee.io channel for the App's webhooks, unless one is set or NO_SMEE_SETUP=true.
  let proxyUrl = env.WEBHOOK_PROXY_URL || undefined;
  if (!proxyUrl && env.NO_SMEE_SETUP !== 'true') {
    try {
      const { SmeeClient } = await import('smee-client');
      proxyUrl = await SmeeClient.createChannel();
    } catch (error) {
      log.warn(
        `coder-loop: no smee.io channel (${(error as Error).message}); the page names the webhook URL to use instead.`,
      );
    }
  }
  // Probot's server for its logging and /ping; the Probot inside only satisfies its constructor.
  const server = new Server({
    Probot: Probot.defaults({ appId: 1, privateKey: 'setup mode', log }),
    host: env.HOST || 'localhost',
    port: Number(env.PORT) || 3000,
    log,
  });
  await server.loadHandlerFactory(() => setupHandler({ env, cwd: process.cwd(), log, proxyUrl }));
  await server.start();
  log.info(
    `coder-loop setup: open http://${env.HOST || 'localhost'}:${server.port} to register the GitHub App (missing: ${missing.join(', ')}).`,
  );
}
