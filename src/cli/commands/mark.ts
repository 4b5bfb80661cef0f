import { join } from 'node:path';
import {
  findTask,
  formatProblem,
  markPhase,
  PLAN_FILES,
  setTaskStates,
  type TaskState,
} from '../../core/index.js';
import {
  isMarkdownKind,
  readMarkdownPlan,
  readTaskmaster,
  setDialectStates,
  setTaskmasterStatus,
  type NamedPlan,
} from '../../core/plan/kinds/index.js';
import { KIND_MARKS, type KindPlan } from '../../core/plan/kinds/plan.js';
import { KIND_LABELS } from '../../core/loop/startKind.js';
import { InputError, readText, withLock, writeInPlan } from '../files.js';
import { openPlan, tasksFileErrors, type Repo } from '../repo.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  loadChecklist,
  parseCount,
  checklistPath,
  findPlan,
  sortProblems,
} from './shared.js';

const STATES: readonly TaskState[] = ['todo', 'doing', 'done'];

function parseState(word: string | undefined): TaskState {
  if (word === undefined) throw new UsageError('name a state: todo, doing or done');
  const state = STATES.find((s) => s === word);
  if (!state) throw new UsageError(`"${word}" is not a state: use todo, doing or done`);
  return state;
}

async function markLocked(
  args: Parsed,
  io: CliIo,
  name: string,
  file: string,
  state: TaskState,
  phaseNumber: number | undefined,
): Promise<number> {
  const checklist = await loadChecklist(args, name, io);
  const source = await readText(file);
  let result;
  if (phaseNumber !== undefined) {
    const phase = checklist.phases.find((p) => p.number === phaseNumber);
    if (!phase) throw new InputError(`${name}: there is no Phase ${phaseNumber}.`);
    result = markPhase(source, phase, state);
  } else {
    const id = args.positionals[1]!;
    const task = findTask(checklist, id);
    if (!task) throw new InputError(`${name}: there is no task ${id}.`);
    result = setTaskStates(source, [task], state);
  }
  if (result.changed.length === 0) {
    io.stdout(`Nothing to change: already ${state}.`);
    return EXIT.ok;
  }
  await writeInPlan(join(args.plansDir, name), PLAN_FILES.checklist, result.source);
  for (const t of result.changed) io.stdout(`${t.id}: ${t.state} → ${state}`);
  return EXIT.ok;
}

const TASKMASTER_STATUS = { todo: 'pending', doing: 'in-progress', done: 'done' } as const;

/** Each task's state as the kind's own reader reads `source`. */
function statesOf(plan: NamedPlan, source: string): Map<string, string> {
  const states = new Map<string, string>();
  if (plan.kind === 'taskmaster') {
    const tag = readTaskmaster(source, plan.path).tags.find((t) => t.name === plan.tag);
    for (const t of tag?.phases.flatMap((p) => p.tasks) ?? []) states.set(t.id, t.state);
  } else if (isMarkdownKind(plan.kind)) {
    const read = readMarkdownPlan(plan.kind, source, plan.path);
    for (const t of read.phases.flatMap((p) => p.tasks)) states.set(t.id, t.state);
  }
  return states;
}

/**
 * The tasks file with tasks set to `state` in the kind's own marks (one byte, or one JSON string
 * value, each), by the writers the loop uses. Optional tasks are never part of a phase's marks.
 */
function setTasks(
  plan: NamedPlan,
  source: string,
  ids: ReadonlySet<string>,
  state: TaskState,
): string {
  if (plan.kind === 'taskmaster') {
    const tag = readTaskmaster(source, plan.path).tags.find((t) => t.name === plan.tag);
    // A task already in the state keeps its status (`review` stays `review` when marked doing).
    const tasks = (tag?.phases.flatMap((p) => p.tasks) ?? []).filter(
      (t) => ids.has(t.id) && t.state !== state,
    );
    // Last first, so that the offsets of the earlier values hold.
    let out = source;
    for (const t of tasks.sort((a, b) => b.statusStart - a.statusStart)) {
      out = setTaskmasterStatus(out, t, TASKMASTER_STATUS[state]);
    }
    return out;
  }
  if (!isMarkdownKind(plan.kind)) return source;
  const kind = plan.kind;
  const read = readMarkdownPlan(kind, source, plan.path);
  const tasks = read.phases.flatMap((p) => p.tasks).filter((t) => ids.has(t.id));
  return setDialectStates(source, kind, tasks, state);
}

async function markKind(
  repo: Repo,
  io: CliIo,
  plan: NamedPlan,
  label: string,
  target: { task: string } | { phase: string },
  state: TaskState,
): Promise<number> {
  if (state === 'doing' && KIND_MARKS[plan.kind].start === undefined) {
    const tool = KIND_LABELS[plan.kind];
    throw new InputError(
      `${label} is a ${tool} plan: ${tool} has no in-progress mark (the loop's lock branch and pull request are the record of a phase under way). Nothing was written.`,
    );
  }
  const opened = await openPlan(repo, plan);
  const blocking = tasksFileErrors(opened);
  if (opened.source === undefined || blocking.length > 0) {
    for (const p of sortProblems(blocking)) io.stderr(formatProblem(p));
    throw new InputError(`${plan.path}: fix the tasks file first.`);
  }
  const { kp, source } = opened;
  let next: string;
  if ('phase' in target) {
    const phase = kp.phases.find((p) => p.number === target.phase);
    if (!phase) {
      throw new InputError(
        `${label}: there is no Phase ${target.phase}. Phases: ${kp.phases.map((p) => p.number).join(', ')}.`,
      );
    }
    // A phase gets the marks the loop writes when it starts or completes it.
    next =
      state === 'doing'
        ? kp.markStart(phase)
        : state === 'done'
          ? kp.markDone(phase)
          : setTasks(plan, source, new Set(required(phase).map((t) => t.id)), state);
  } else {
    const all = kp.phases.flatMap((p) => p.tasks);
    if (!all.some((t) => t.id === target.task)) {
      const phase = kp.phases.some((p) => p.number === target.task);
      throw new InputError(
        `${label}: there is no task ${target.task}.${phase ? ` Phase ${target.task} is a phase: mark it with --phase ${target.task}.` : ''}`,
      );
    }
    next = setTasks(plan, source, new Set([target.task]), state);
  }
  if (next === source) {
    io.stdout(`Nothing to change: already ${state}.`);
    return EXIT.ok;
  }
  const slash = plan.path.lastIndexOf('/');
  await writeInPlan(join(repo.root, plan.folder), plan.path.slice(slash + 1), next);
  const before = statesOf(plan, source);
  for (const [id, after] of statesOf(plan, next)) {
    if (before.get(id) !== after) io.stdout(`${id}: ${before.get(id)} → ${after}`);
  }
  return EXIT.ok;
}

const required = (phase: KindPlan['phases'][number]) => phase.tasks.filter((t) => !t.optional);

export const mark: CommandSpec = {
  usage:
    'coder-loop mark <PlanName | path> <taskId> <todo|doing|done> [--dir <plansDir>]\n' +
    '       coder-loop mark <PlanName | path> --phase <N> <todo|doing|done> [--dir <plansDir>]',
  summary: "set one task, or every task of a phase, to a state in the plan's own marks",
  options: { ...DIR_OPTION, phase: { type: 'string' } },
  async run(args, io) {
    const phaseArg = args.values.phase;
    const expected = phaseArg === undefined ? 3 : 2;
    if (args.positionals.length !== expected) {
      throw new UsageError(
        args.positionals.length === 0 ? 'name a plan' : 'wrong number of arguments',
      );
    }
    const state = parseState(args.positionals[expected - 1]);
    const found = await findPlan(args, io, args.positionals[0]);
    if (found.kind === 'other') {
      if (phaseArg !== undefined && (typeof phaseArg !== 'string' || phaseArg === '')) {
        throw new UsageError('--phase takes a phase number');
      }
      const target =
        phaseArg === undefined ? { task: args.positionals[1]! } : { phase: String(phaseArg) };
      // Read, change and write under the lock: two marks at once take turns, none is lost.
      return withLock(join(args.repo.root, found.plan.path), () =>
        markKind(args.repo, io, found.plan, found.label, target, state),
      );
    }
    const { name } = found;
    const phaseNumber = parseCount(phaseArg, 'phase');
    const file = checklistPath(args, name);
    return withLock(file, () => markLocked(args, io, name, file, state, phaseNumber));
  },
};
