import { join, relative } from 'node:path';
import { type ParseArgsConfig } from 'node:util';
import {
  checkPlanName,
  formatProblem,
  PLAN_FILES,
  validateContext,
  type Checklist,
  type PlanContext,
  type Problem,
} from '../../core/index.js';
import { InputError, listPlans, readPlan } from '../files.js';
import { discoverPlans, KIND_NAMES, type PlanView } from '../kinds.js';
import { resolvePlan, type NamedPlan } from '../../core/plan/kinds/index.js';

/** What the CLI's commands share: the io, the exit codes, the options, reading a plan. */

export interface CliIo {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now: () => Date;
  env: Record<string, string | undefined>;
}

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

export class UsageError extends Error {
  override name = 'UsageError';
}

export const DIR_OPTION = {
  dir: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface CommandSpec {
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

/** The named plan, else the only plan under the plans directory. */
export async function pickPlan(args: Parsed, name: string | undefined): Promise<string> {
  if (name !== undefined) return needPlanName(name);
  const plans = await listPlans(args.plansDir);
  if (plans.length === 1) return plans[0]!;
  if (plans.length === 0) throw new InputError(`${args.shownPlansDir}: no plans here.`);
  throw new UsageError(`name a plan: ${plans.join(', ')}`);
}

export async function loadContext(args: Parsed, name: string): Promise<PlanContext> {
  return validateContext(await readPlan(args.plansDir, name, planDirShown(args, name)));
}

/** The errors that make a checklist untrustworthy for edits (all errors when it has none). */
export function checklistErrors(context: PlanContext): Problem[] {
  return (context.checklist?.problems ?? context.problems).filter((p) => p.severity === 'error');
}

/** The checklist, or exit 1 with its problems when it cannot be trusted for edits. */
export async function loadChecklist(args: Parsed, name: string, io: CliIo): Promise<Checklist> {
  const context = await loadContext(args, name);
  const blocking = checklistErrors(context);
  if (!context.checklist || blocking.length > 0) {
    for (const p of blocking) io.stderr(formatProblem(p));
    throw new InputError(`${planDirShown(args, name)}: fix the checklist first.`);
  }
  return context.checklist;
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

export const checklistPath = (args: Parsed, name: string) =>
  join(args.plansDir, name, PLAN_FILES.checklist);

/** The plans directory as the kinds' globs name it: relative to the current directory. */
export function plansDirFromRoot(args: Parsed, io: CliIo): string {
  return relative(io.cwd, args.plansDir).split('\\').join('/') || '.';
}

/**
 * The plan of another kind (spec-kit, Kiro, Task Master) a user named, by name or by the path of
 * its tasks file; undefined for a coder plan or a name no plan has (the coder reader answers).
 */
export async function otherKindPlan(
  args: Parsed,
  io: CliIo,
  wanted: string | undefined,
): Promise<NamedPlan | undefined> {
  if (wanted === undefined) return undefined;
  const { plans, unnamed } = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
  const path = wanted.split('\\').join('/').replace(/^\.\//, '');
  const found = resolvePlan(plans, path);
  if ('error' in found) {
    const broken = unnamed.find((p) => p.path === path);
    if (broken) return broken;
    // Two plans of one name: say so, whatever their kinds.
    if (found.error.startsWith('Two plans') || found.error.includes(' holds the tags ')) {
      throw new InputError(found.error);
    }
    return undefined;
  }
  return found.plan.kind === 'coder' ? undefined : found.plan;
}

/** Commands that write handle coder plans only, for now: refuse another kind by name. */
export async function refuseOtherKinds(
  args: Parsed,
  io: CliIo,
  command: string,
  wanted: string | undefined,
): Promise<void> {
  const plan = await otherKindPlan(args, io, wanted);
  if (!plan) return;
  throw new InputError(
    `"${wanted}" is a ${KIND_NAMES[plan.kind]} plan (${plan.path}); coder-loop ${command} writes coder plans only. Nothing was written.`,
  );
}

export function countTasks(view: PlanView): {
  done: number;
  doing: number;
  open: number;
  setAside: number;
} {
  const all = view.phases.flatMap((p) => p.tasks);
  return {
    done: all.filter((t) => t.state === 'done').length,
    doing: all.filter((t) => t.state === 'doing').length,
    open: all.filter((t) => t.state === 'todo').length,
    setAside: all.filter((t) => t.state === 'set-aside').length,
  };
}

/** How people name a plan on the command line: its tasks file, with the tag for Task Master. */
export function planRef(plan: NamedPlan): string {
  return plan.tag === undefined ? plan.path : `${plan.path}#${plan.tag}`;
}

export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
  );
}
