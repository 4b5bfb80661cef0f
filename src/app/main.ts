import { run } from 'probot';
import coderLoop from './app.js';
import { LoopOctokit } from './octokit.js';
import { startServer } from './server.js';
import { setupWithoutProxy } from './setup.js';

// `npm start`. With the App's credentials (APP_ID and PRIVATE_KEY or PRIVATE_KEY_PATH): the App,
// its webhook path guarded (src/app/server.ts). Without them: Probot's setup page, which
// registers the App from app.yml and writes the credentials to .env.
const env = process.env;
if (env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH)) {
  const server = await startServer(coderLoop, LoopOctokit);
  // A container stops with SIGINT (Dockerfile STOPSIGNAL) or SIGTERM: stop serving, then exit.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      void server.stop().finally(() => process.exit(0));
    });
} else {
  await run(coderLoop, { Octokit: LoopOctokit });
  const setupWarning = setupWithoutProxy(env);
  if (setupWarning) console.warn(setupWarning);
}
