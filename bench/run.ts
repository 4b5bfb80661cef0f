import { benchAction } from './action.js';
import { benchApp, benchNextCold } from './app.js';
import { benchChecklist } from './checklist.js';
import { benchCli } from './cli.js';
import { benchCorpusCli } from './corpusCli.js';
import { benchInstructions } from './instructions.js';
import { benchLatency } from './latency.js';
import { benchLimits } from './limits.js';
import { benchLoop } from './loop.js';
import { benchPlans } from './plans.js';
import { benchServer } from './server.js';
import { benchSpec } from './spec.js';

// `npm run bench`: figures and ratios, printed; never asserted (see docs/benchmarks.md).
// `npm run bench -- server` (or checklist, plans, plans-cli, plans-instructions, app, next-cold, loop, latency, action, server, limits, spec, cli) runs only the named parts.
const parts: [string, () => string | Promise<string>][] = [
  ['checklist', benchChecklist],
  ['plans', benchPlans],
  ['plans-cli', () => benchCorpusCli()],
  ['plans-instructions', benchInstructions],
  ['app', benchApp],
  ['next-cold', benchNextCold],
  ['loop', benchLoop],
  ['latency', benchLatency],
  ['action', benchAction],
  ['server', benchServer],
  ['limits', benchLimits],
  ['spec', benchSpec],
  ['cli', benchCli],
];
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !parts.some(([name]) => name === w));
if (unknown.length > 0) {
  console.error(`Unknown part: ${unknown.join(', ')}. Parts: ${parts.map(([n]) => n).join(', ')}.`);
  process.exit(2);
}
console.log(`node ${process.version}, ${new Date().toISOString()}\n`);
// Counted under valgrind (minutes, and valgrind to install): run only when named.
const named = new Set(['plans-instructions']);
for (const [name, run] of parts) {
  if (wanted.length > 0 ? !wanted.includes(name) : named.has(name)) continue;
  console.log(await run());
  console.log();
}
