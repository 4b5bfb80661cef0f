import { run } from 'probot';
import coderLoop from './app.js';
import { LoopOctokit } from './octokit.js';
import { setupWithoutProxy } from './setup.js';

// `npm start`: Probot reads APP_ID, PRIVATE_KEY(_PATH), WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL,
// PORT and LOG_LEVEL; without credentials it serves the setup page that registers app.yml.
await run(coderLoop, { Octokit: LoopOctokit });
const setupWarning = setupWithoutProxy(process.env);
if (setupWarning) console.warn(setupWarning);
