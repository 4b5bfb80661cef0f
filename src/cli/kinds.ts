import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Problem } from '../core/index.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  namePlans,
  readTaskmaster,
  validateKindContext,
  type NamedPlan,
  type PlanKind,
} from '../core/plan/kinds/index.js';
import { readKindTasks } from '../core/plan/kinds/plan.js';
import { InputError, readText } from './files.js';

/** How the CLI names a kind to people. */
export const KIND_NAMES: Record<PlanKind, string> = {
  coder: 'coder',
  speckit: 'spec-kit',
  kiro: 'Kiro',
  taskmaster: 'Task Master',
};

export type ViewState = 'todo' | 'doing' | 'done' | 'set-aside';

/** One plan of any kind, as status shows it. */
export interface PlanView {
  phases: {
    number: string;
    name: string;
    tasks: { id: string; state: ViewState; text: string; note?: string }[];
    /** As the kind's tool counts it (the core's reading); absent: every task done. */
    finished?: boolean;
  }[];
  current: string | undefined;
  /** Every phase finished and the plan read without an error (never for a plan with no task). */
  complete: boolean;
  /** Work is left and no phase can start: why. */
  waiting?: string;
  problems: Problem[];
  /** The whole tasks file's problems: a Task Master file's, every tag's (lint of the file). */
  fileProblems: Problem[];
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).map((e) => e.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * The files the default `plans` globs can match under `root`: each glob has at most one `*`,
 * a folder name, so listing that folder finds every candidate without walking the repository.
 */
async function candidates(root: string, globs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const glob of globs) {
    const star = glob.indexOf('/*/');
    if (star === -1) {
      const slash = glob.lastIndexOf('/');
      const names = await entries(join(root, glob.slice(0, Math.max(slash, 0))));
      if (names.includes(glob.slice(slash + 1))) out.push(glob);
      continue;
    }
    const parent = glob.slice(0, star);
    const rest = glob.slice(star + 3);
    for (const name of await entries(join(root, parent))) {
      const path = `${parent}/${name}/${rest}`;
      const slash = path.lastIndexOf('/');
      if ((await entries(join(root, path.slice(0, slash)))).includes(path.slice(slash + 1))) {
        out.push(path);
      }
    }
  }
  return out;
}

/**
 * Every plan of every kind under `root` (the current directory) at the default locations, named;
 * a Task Master file's tags are read to name its plans. `plansDir` is relative to `root`.
 */
export async function discoverPlans(
  root: string,
  plansDir: string,
): Promise<{ plans: NamedPlan[]; problems: Problem[]; unnamed: NamedPlan[] }> {
  const globs = defaultPlanGlobs(plansDir);
  const files = findPlanFiles(await candidates(root, globs), globs);
  const tags = new Map<string, string[]>();
  const notPlans = new Set<string>();
  const problems: Problem[] = [];
  for (const file of files) {
    if (file.kind !== 'taskmaster') continue;
    let source: string;
    try {
      source = await readText(join(root, file.path));
    } catch (error) {
      // A file that is not UTF-8 names no plan; it must not stop the commands on other plans.
      if (!(error instanceof InputError)) throw error;
      problems.push({
        severity: 'error',
        path: file.path,
        message: 'not valid UTF-8.',
        fix: 'Save the file as UTF-8.',
      });
      continue;
    }
    const read = readTaskmaster(source, file.path);
    // A legacy tasks/tasks.json that is not Task Master's (VS Code's, a config) is no plan.
    if (read.notTaskmaster) {
      problems.push(read.notTaskmaster);
      notPlans.add(file.path);
      continue;
    }
    tags.set(
      file.path,
      read.tags.map((t) => t.name),
    );
    if (read.tags.length === 0) problems.push(...read.problems);
  }
  const named = namePlans(files, tags);
  // A tasks.json with no tag to read (not JSON, no task list) names no plan; its path still
  // reaches it, so that lint and status can say what is wrong with it.
  const unnamed = files
    .filter(
      (f) =>
        f.kind === 'taskmaster' && !notPlans.has(f.path) && (tags.get(f.path) ?? []).length === 0,
    )
    .map((f) => ({ ...f, name: f.path }));
  return { plans: named.plans, problems: [...problems, ...named.problems], unnamed };
}

/**
 * Reads a spec-kit, Kiro or Task Master plan for status and lint, through the loop's own reading
 * (readKindTasks): the CLI and the loop agree on the current phase and on completeness.
 */
export async function viewPlan(root: string, plan: NamedPlan): Promise<PlanView> {
  const source = await readText(join(root, plan.path));
  if (plan.kind === 'coder') throw new Error('coder plans are read by the plan directory reader');
  const read = readKindTasks(plan, source);
  return {
    phases: read.phases.map((p) => ({
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
    current: read.current?.number,
    complete: read.complete,
    ...(read.waiting !== undefined ? { waiting: read.waiting } : {}),
    problems: [...read.problems, ...read.warnings],
    fileProblems:
      plan.kind === 'taskmaster'
        ? readTaskmaster(source, plan.path).problems
        : [...read.problems, ...read.warnings],
  };
}

/** The kind's "Context valid?" check: the files beside the tasks file (SPEC §2b). */
export async function kindContextProblems(root: string, plan: NamedPlan): Promise<Problem[]> {
  const present = new Set(
    (await entries(join(root, plan.folder))).map((n) => `${plan.folder}/${n}`),
  );
  // Task Master's JSON is checked by its reader, which the view already ran.
  return validateKindContext(plan, (path) => present.has(path));
}

/** A phase is finished as its kind's tool counts it (a coder phase: every task done). */
export function phaseDone(phase: PlanView['phases'][number]): boolean {
  return phase.finished ?? phase.tasks.every((t) => t.state === 'done');
}
