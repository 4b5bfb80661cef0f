import { run } from 'probot';
import coderLoop from './app.js';
import { LoopOctokit } from './octokit.js';
import { startServer } from './server.js';

// `npm start`. With the App's credentials (APP_ID and PRIVATE_KEY or PRIVATE_KEY_PATH): the App,
// its webhook path guarded (src/app/server.ts). Without them: Probot's setup page, which
// registers the App from app.yml and writes the credentials to .env.
const env = process.env;
if (env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH)) {
  await startServer(coderLoop, LoopOctokit);
} else {
  await run(coderLoop, { Octokit: LoopOctokit });
}
