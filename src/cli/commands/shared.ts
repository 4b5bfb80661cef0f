import { relative, resolve } from 'node:path';
import { type ParseArgsConfig } from 'node:util';
import {
  checkPlanName,
  CONFIG_PATH,
  formatProblem,
  type NamedPhase,
  type PhasePlan,
  type PlanReading,
  type Problem,
  type ReadingPhase,
  type Refusal,
} from '../../core/index.js';
import type { AppManifest } from '../../core/index.js';
import { EXIT, InputError, packageFile, readText, UsageError, writeInPlan } from '../files.js';
import { choose, discoverNamed, type FoundPlan, type Repo } from '../repo.js';
import { openWorkingPlan } from '../workingCopy.js';

/** What the CLI's commands share: the io, the exit codes, the options, reading a plan. */

/**
 * The App's manifest this copy of coder-loop ships: the one list of its permissions. Its parser
 * (js-yaml) is loaded here: the commands that share this module but read no manifest (status,
 * lint, mark) do not load it.
 */
export async function appManifest(): Promise<AppManifest> {
  const { parseAppManifest } = await import('../../core/appRegistration.js');
  return parseAppManifest(await readText(packageFile('app.yml')));
}

export interface CliIo {
  cwd: string;
  /**
   * How the user ran the CLI (`npx github:my-org/coder-loop`, `npx coder-loop`, `coder-loop`,
   * `node lib/bundle/coder-loop.js`: invocation.ts): every command the CLI prints starts so.
   */
  cli: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now: () => Date;
  env: Record<string, string | undefined>;
}

export { EXIT, UsageError };

export const DIR_OPTION = {
  dir: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface CommandSpec {
  /** The command's forms, one a line, each without the CLI's name (usageText adds it). */
  usage: string;
  summary: string;
  options: ParseArgsConfig['options'];
  run: (args: Parsed, io: CliIo) => Promise<number>;
}

export interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  plansDir: string;
  shownPlansDir: string;
  /** The repository: its config (plansDir from --dir when given), its root. */
  repo: Repo;
  /** What is wrong with `.github/coder.yml`; the plan commands refuse to go on with any. */
  configProblems: Problem[];
}

export function planDirShown(args: Parsed, name: string): string {
  return `${args.shownPlansDir}/${name}`;
}

export function needPlanName(name: string | undefined): string {
  if (name === undefined) throw new UsageError('name a plan');
  const problem = checkPlanName(name);
  if (problem) throw new InputError(`"${name}" cannot be a plan name: ${problem}.`);
  return name;
}

/** Exit 1 with the config's problems, as the loop stops on an invalid config. */
export function needValidConfig(args: Parsed, io: CliIo): void {
  if (args.configProblems.length === 0) return;
  for (const p of args.configProblems) io.stderr(formatProblem(p, io.cli));
  throw new InputError(`${CONFIG_PATH} is invalid: fix it first (the loop stops on it too).`);
}

/**
 * The plan of any kind a user named (by name, by the path of its tasks file or folder), or the
 * only plan there is when none is named: chosen as `/coder next` chooses.
 */
export async function findPlan(
  args: Parsed,
  io: CliIo,
  wanted: string | undefined,
): Promise<FoundPlan> {
  needValidConfig(args, io);
  return choose(args.repo, await discoverNamed(args.repo, wanted), wanted);
}

/** The plan opened from the working copy, behind the one interface every kind has. */
export function openFound(args: Parsed, found: FoundPlan): Promise<PhasePlan> {
  return openWorkingPlan(args.repo, args.shownPlansDir, found);
}

/** A path as the plan names it (from the repository root, or absolute), on this machine. */
export const inRepo = (args: Parsed, path: string) => resolve(args.repo.root, path);

/** Writes one of the plan's files (its tasks file, log, report), never outside its folder. */
export function writeForPlan(
  args: Parsed,
  found: FoundPlan,
  path: string,
  content: string,
): Promise<void> {
  const folder = inRepo(args, found.folder);
  return writeInPlan(folder, relative(folder, inRepo(args, path)), content);
}

/**
 * Writes a file a kind keeps beside its tasks file (a story file) where its reader read it: in
 * the repository, not only the plan's folder (a tool's config may place it elsewhere), and never
 * through a link out of the repository.
 */
export function writeBesideForPlan(args: Parsed, path: string, content: string): Promise<void> {
  const root = args.repo.root;
  return writeInPlan(root, relative(root, inRepo(args, path)), content);
}

/** Exit 1 with what stops a command on the plan: its problems, then what to do. */
export function refuse(io: CliIo, refusal: Refusal | undefined): void {
  if (!refusal) return;
  for (const p of sortProblems(refusal.problems)) io.stderr(formatProblem(p, io.cli));
  throw new InputError(refusal.message);
}

/** The phase a user named with `--phase`, or exit with why there is none. */
export function namedPhase<P>(io: CliIo, named: NamedPhase<P>): P {
  if ('usage' in named) throw new UsageError(named.usage);
  if ('refused' in named) refuse(io, named.refused);
  if ('missing' in named) throw new InputError(named.missing);
  return (named as { phase: P }).phase;
}

export function parseCount(
  value: string | boolean | undefined,
  option: string,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) {
    throw new UsageError(`--${option} takes a whole number`);
  }
  return Number(value);
}

/**
 * Any plan as `plans` and `doctor` sum it up: its phases when they can be counted, and whether
 * the loop would start it (a plan whose phases cannot be counted never).
 */
export async function planSummary(
  args: Parsed,
  found: FoundPlan,
): Promise<{ reading: PlanReading; valid: boolean }> {
  const reading = (await openFound(args, found)).reading();
  const valid = reading.counted && !reading.problems.some((p) => p.severity === 'error');
  return { reading, valid };
}

export function countTasks(phases: readonly ReadingPhase[]): {
  done: number;
  doing: number;
  open: number;
  setAside: number;
} {
  const all = phases.flatMap((p) => p.tasks);
  return {
    done: all.filter((t) => t.state === 'done').length,
    doing: all.filter((t) => t.state === 'doing').length,
    open: all.filter((t) => t.state === 'todo').length,
    setAside: all.filter((t) => t.state === 'set-aside').length,
  };
}

export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
  );
}
