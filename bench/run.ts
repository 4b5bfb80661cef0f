import { benchAction } from './action.js';
import { benchApp } from './app.js';
import { benchChecklist } from './checklist.js';
import { benchLoop } from './loop.js';
import { benchServer } from './server.js';

// `npm run bench`: figures and ratios, printed; never asserted (see docs/benchmarks.md).
console.log(`node ${process.version}, ${new Date().toISOString()}\n`);
console.log(benchChecklist());
console.log();
console.log(await benchApp());
console.log();
console.log(await benchLoop());
console.log();
console.log(benchAction());
console.log();
console.log(await benchServer());
