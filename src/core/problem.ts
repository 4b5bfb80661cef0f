import { asRun, CLI_NAME } from './cliCommand.js';

/** One thing wrong (or worth a look) in a plan or a config, located as precisely as we can. */
export interface Problem {
  severity: 'error' | 'warning';
  /** Path of the file, relative to the repository (or to the directory the CLI was given). */
  path: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  message: string;
  /** What to do about it, in one sentence. */
  fix?: string;
}

/**
 * `path:line: error: message (fix)`, the form editors and CI logs link; a CLI command the text
 * names is said as users run the CLI (`cli`, see cliCommand.ts).
 */
export function formatProblem(problem: Problem, cli: string = CLI_NAME): string {
  const where = problem.line === undefined ? problem.path : `${problem.path}:${problem.line}`;
  const fix = problem.fix ? ` ${problem.fix}` : '';
  return asRun(`${where}: ${problem.severity}: ${problem.message}${fix}`, cli);
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
