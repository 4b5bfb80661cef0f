import { join } from 'node:path';
import { type ParseArgsConfig } from 'node:util';
import {
  checkPlanName,
  CONFIG_PATH,
  formatProblem,
  PLAN_FILES,
  validateContext,
  type Checklist,
  type PlanContext,
  type Problem,
} from '../../core/index.js';
import type { KindState } from '../../core/plan/kinds/plan.js';
import { InputError, readPlan, UsageError } from '../files.js';
import { choose, discover, openPlan, type FoundPlan, type OpenedPlan, type Repo } from '../repo.js';

/** What the CLI's commands share: the io, the exit codes, the options, reading a plan. */

export interface CliIo {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now: () => Date;
  env: Record<string, string | undefined>;
}

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

export { UsageError };

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
  for (const p of args.configProblems) io.stderr(formatProblem(p));
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
  return choose(args.repo, await discover(args.repo), wanted);
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

export type ViewState = KindState;

/** One plan of any kind, as status and plans show it. */
export interface PlanView {
  phases: {
    number: string;
    name: string;
    tasks: { id: string; state: ViewState; text: string; note?: string }[];
    /** As the kind's tool counts it (the loop's reading); absent: every task done. */
    finished?: boolean;
  }[];
  current: string | undefined;
  /** Every phase finished and the plan read without an error (never for a plan with no task). */
  complete?: boolean;
  /** Work is left and no phase can start: why. */
  waiting?: string;
}

/**
 * The loop's view of a plan of another kind, with the notes status shows: Kiro's optional tasks,
 * and Task Master's statuses other than pending, in-progress and done.
 */
export function kindView({ kp }: OpenedPlan): PlanView {
  return {
    phases: kp.phases.map((p) => ({
      number: p.number,
      name: p.name,
      tasks: p.tasks.map((t) => ({
        id: t.id,
        state: t.state,
        text: t.text,
        ...(t.note ? { note: t.note } : {}),
      })),
      finished: p.finished,
    })),
    current: kp.current?.number,
    complete: kp.complete,
    ...(kp.waiting !== undefined ? { waiting: kp.waiting } : {}),
  };
}

/**
 * Any plan as `plans` and `doctor` sum it up: its phases when they can be read (a coder plan's:
 * when its checklist can be trusted), and whether the loop would start it.
 */
export async function planSummary(
  args: Parsed,
  plan: FoundPlan,
): Promise<{ view?: Pick<PlanView, 'phases'>; valid: boolean }> {
  if (plan.kind === 'other') {
    // The loop's own reading: a plan it would refuse is invalid, with what it read.
    const opened = await openPlan(args.repo, plan.plan);
    return {
      ...(opened.source !== undefined ? { view: kindView(opened) } : {}),
      valid: !opened.kp.problems.some((p) => p.severity === 'error'),
    };
  }
  const context = await loadContext(args, plan.name);
  const { checklist } = context;
  if (!checklist || checklistErrors(context).length > 0) return { valid: false };
  const phases = checklist.phases.map((p) => ({
    number: String(p.number),
    name: p.name,
    tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
  }));
  return { view: { phases }, valid: context.valid };
}

/** A phase is finished as its kind's tool counts it (a coder phase: every task done). */
export function phaseDone(phase: PlanView['phases'][number]): boolean {
  return phase.finished ?? phase.tasks.every((t) => t.state === 'done');
}

export function countTasks(view: Pick<PlanView, 'phases'>): {
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

export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
  );
}
