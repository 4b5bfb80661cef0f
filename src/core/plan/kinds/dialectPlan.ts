import type { Problem } from '../../problem.js';
import type { KindFile, KindMarkState, PlanKindModule } from './kindModule.js';
import {
  currentDialectPhase,
  dialectPhaseFinished,
  type DialectPhase,
  type DialectPlan,
  type DialectState,
  type DialectTask,
} from './markdownDialect.js';
import {
  noPhase,
  splitProblems,
  type KindContext,
  type KindPhase,
  type KindReading,
} from './view.js';

/**
 * A markdown kind (a tasks.md of boxes under headings) as the kind-neutral view: what its folder
 * gives (`MarkdownDialect`: its reader, its writer, its documents), and the `open`, `states` and
 * `setTasks` every such kind shares (`dialectKind`).
 */
export interface MarkdownDialect {
  read(source: string, path: string): DialectPlan;
  /** How to write a first task, when no phase with a task is found. */
  readonly noPhaseFix: string;
  /** The tasks file with `tasks` set to `state` in the kind's own marks, one byte each. */
  write(source: string, tasks: readonly DialectTask[], state: DialectState): string;
  /** The documents a phase's PR links and its agent is given. */
  context(
    plan: KindFile,
    phase: DialectPhase,
    present: ReadonlySet<string>,
    files: ReadonlyMap<string, string>,
  ): KindContext;
}

/**
 * The last line of a fence that wraps the whole file (an agent's answer pasted with its
 * ```` ```markdown ```` and closing fence), or undefined: the first line opens a fence and the
 * last line that is not blank closes it.
 */
function wholeFileFence(source: string): number | undefined {
  const lines = source.replace(/^\ufeff/, '').split(/\r?\n/);
  const open = /^ {0,3}(`{3,}|~{3,})[^`]*$/.exec(lines[0] ?? '');
  if (!open) return undefined;
  let last = lines.length - 1;
  while (last > 0 && lines[last]!.trim() === '') last--;
  const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[last]!);
  const marker = open[1]!;
  return last > 0 && close && close[1]![0] === marker[0] && close[1]!.length >= marker.length
    ? last + 1
    : undefined;
}

function readDialectTasks(plan: KindFile, dialect: MarkdownDialect, source: string) {
  const read = dialect.read(source, plan.path);
  const { errors, warnings } = splitProblems(read.problems);
  const tasked = read.phases.filter((p) => p.tasks.length > 0);
  if (tasked.length === 0 && errors.length === 0) {
    const fenced = wholeFileFence(source);
    errors.push(
      fenced
        ? {
            ...noPhase(plan.path, 'Remove the two fence lines: the plan is the text between them.'),
            message: `no phase with a task was found: the whole file is inside a code fence (lines 1 to ${fenced}), where no heading or task is read.`,
          }
        : noPhase(plan.path, dialect.noPhaseFix),
    );
  }
  const view = (p: DialectPhase): KindPhase => ({
    number: p.number,
    name: p.name,
    line: p.line,
    tasks: p.tasks.map((t) => ({
      id: t.id,
      text: t.text,
      state: t.state,
      line: t.line,
      optional: t.optional,
      ...(t.optional ? { note: 'optional' as const } : {}),
      requirements: t.requirements,
    })),
    finished: dialectPhaseFinished(p),
  });
  const phases = tasked.map(view);
  const current = currentDialectPhase({ phases: tasked, problems: [] });
  return {
    tasked,
    phases,
    current: current ? phases[tasked.indexOf(current)] : undefined,
    complete: errors.length === 0 && phases.length > 0 && phases.every((p) => p.finished),
    waiting: undefined,
    problems: errors,
    warnings,
  };
}

function openDialect(
  plan: KindFile,
  dialect: MarkdownDialect,
  source: string,
  contextProblems: Problem[],
  present: ReadonlySet<string>,
  files: ReadonlyMap<string, string>,
): KindReading {
  const read = readDialectTasks(plan, dialect, source);
  const byNumber = new Map(read.tasked.map((p) => [p.number, p]));
  const own = (phase: KindPhase): DialectPhase => {
    const p = byNumber.get(phase.number);
    if (!p) throw new Error(`Phase ${phase.number} is not in ${plan.path}.`);
    return p;
  };
  const mark = (phase: KindPhase, state: 'doing' | 'done'): string => {
    const p = own(phase);
    const tasks: DialectTask[] = p.tasks.filter((t) => !t.optional);
    // A phase's own box (a top-level task whose sub-tasks are the phase's tasks) is marked with
    // them; an optional one never is.
    if (p.self && !p.self.optional && !p.tasks.includes(p.self)) tasks.push(p.self);
    return dialect.write(source, tasks, state);
  };
  return {
    phases: read.phases,
    current: read.current,
    complete: read.complete && contextProblems.length === 0,
    waiting: read.waiting,
    problems: [...contextProblems, ...read.problems],
    warnings: read.warnings,
    markStart: (phase) => mark(phase, 'doing'),
    markDone: (phase) => mark(phase, 'done'),
    context: (phase) => dialect.context(plan, own(phase), present, files),
  };
}

/** A markdown kind's `open`, `states` and `setTasks`, over its dialect. */
export function dialectKind(
  dialect: MarkdownDialect,
): Pick<PlanKindModule, 'open' | 'states' | 'setTasks'> {
  return {
    open: (plan, source, context, present, files) =>
      openDialect(plan, dialect, source, context, present, files),
    states(plan, source) {
      const states = new Map<string, string>();
      for (const p of dialect.read(source, plan.path).phases) {
        // A phase's own box that is none of its tasks (a top-level task over sub-tasks).
        if (p.self && !p.tasks.includes(p.self))
          states.set(`${p.number}. (the phase's own line)`, `[${p.self.mark}]`);
        for (const t of p.tasks) states.set(t.id, t.state);
      }
      return states;
    },
    setTasks(plan, source, ids, state: KindMarkState) {
      const read = dialect.read(source, plan.path);
      const tasks = read.phases.flatMap((p) => p.tasks).filter((t) => ids.has(t.id));
      return dialect.write(source, tasks, state);
    },
  };
}

/** The documents of `names` (`[label, file]`) present in the plan's folder, as links. */
export function presentLinks(
  plan: KindFile,
  present: ReadonlySet<string>,
  names: readonly (readonly [string, string])[],
): KindContext['links'] {
  const links: KindContext['links'] = [];
  for (const [label, file] of names) {
    const path = `${plan.folder}/${file}`;
    if (present.has(path)) links.push({ label, path });
  }
  return links;
}
