import type { CommandSpec } from './shared.js';

/**
 * The CLI's commands, in the order `coder-loop --help` lists them; one file each, loaded when the
 * command runs: a command pays for the modules it uses and no other (the CLI's start-up, see
 * docs/benchmarks.md).
 */
export const COMMANDS: Record<string, () => Promise<CommandSpec>> = {
  plans: async () => (await import('./plans.js')).plans,
  init: async () => (await import('./init.js')).init,
  lint: async () => (await import('./lint.js')).lint,
  status: async () => (await import('./status.js')).status,
  mark: async () => (await import('./mark.js')).mark,
  log: async () => (await import('./log.js')).log,
  report: async () => (await import('./report.js')).report,
  assess: async () => (await import('./assess.js')).assess,
  spec: async () => (await import('./spec.js')).spec,
  doctor: async () => (await import('./doctor.js')).doctor,
  app: async () => (await import('./app.js')).app,
};
