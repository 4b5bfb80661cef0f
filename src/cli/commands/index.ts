import { app } from './app.js';
import { assess } from './assess.js';
import { doctor } from './doctor.js';
import { init } from './init.js';
import { lint } from './lint.js';
import { log } from './log.js';
import { mark } from './mark.js';
import { plans } from './plans.js';
import { report } from './report.js';
import type { CommandSpec } from './shared.js';
import { spec } from './spec.js';
import { status } from './status.js';

/** The CLI's commands, in the order `coder-loop --help` lists them; one file each. */
export const COMMANDS: Record<string, CommandSpec> = {
  plans,
  init,
  lint,
  status,
  mark,
  log,
  report,
  assess,
  spec,
  doctor,
  app,
};
