import type { TaskState } from '../../plan/checklistModel.js';
import { kindModule, validateKindContext, type NamedPlan } from '../../plan/kinds/index.js';
import { openKindPlan, planRef, type KindPhase, type KindPlan } from '../../plan/kinds/plan.js';
import type { KindFileEdit } from '../../plan/kinds/view.js';
import type { PhasePlan } from './phasePlan.js';
import type { Refusal } from './planReading.js';
import { KIND_LABELS } from '../../plan/kinds/discovery.js';

type Local = Pick<
  PhasePlan<KindPhase>,
  'reading' | 'refusal' | 'phaseNamed' | 'workPhase' | 'mark'
>;

/** Each task's state as the kind's own reader reads `source`. */
function statesOf(plan: NamedPlan, source: string): Map<string, string> {
  return plan.kind === 'coder' ? new Map() : kindModule(plan.kind).states(plan, source);
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
  return plan.kind === 'coder' ? source : kindModule(plan.kind).setTasks(plan, source, ids, state);
}

const required = (phase: KindPhase) => phase.tasks.filter((t) => !t.optional);

/**
 * Another kind's answers to the CLI (`kindPlan`'s part for a working copy), over its kind-neutral
 * view: the phases as its reader reads them, with their notes; the reader's and Context valid?'s
 * problems; the kind's own marks, by the loop's writers. `paths` is every path the plan's files
 * were looked for among, `texts` the texts read.
 */
export function kindPlanLocal(
  kp: KindPlan,
  label: string,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
): Local {
  const { plan } = kp;
  const source = texts.get(plan.path);
  const phases = () => kp.phases.map((p) => p.number).join(', ');
  return {
    reading: () => ({
      title: `${plan.name} (${KIND_LABELS[plan.kind]}, ${planRef(plan)})`,
      names: {
        plan: plan.name,
        kind: plan.kind,
        path: plan.path,
        ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
      },
      subject: plan.path,
      phases: kp.phases.map((p) => ({
        number: p.number,
        name: p.name,
        tasks: p.tasks.map((t) => ({
          id: t.id,
          state: t.state,
          text: t.text,
          ...(t.note ? { note: t.note } : {}),
          depth: t.depth ?? 0,
        })),
        finished: p.finished,
        ...(p.note ? { note: p.note } : {}),
      })),
      counted: source !== undefined,
      current: kp.current?.number,
      complete: kp.complete,
      waiting: kp.waiting,
      problems: [...kp.problems, ...kp.warnings],
      warnings: kp.warnings,
      tally: true,
      stop: undefined,
    }),
    refusal(): Refusal | undefined {
      // The errors of the tasks file itself, not of its context: those stop an edit.
      const has = new Set(paths);
      const context = new Set(validateKindContext(plan, (p) => has.has(p)).map((p) => p.message));
      const blocking = kp.problems.filter((p) => p.severity === 'error' && !context.has(p.message));
      if (source !== undefined && blocking.length === 0) return undefined;
      return { problems: blocking, message: `${plan.path}: fix the tasks file first.` };
    },
    phaseNamed(number) {
      if (number === '') return { usage: '--phase takes a phase number' };
      const phase = kp.phases.find((p) => p.number === number);
      return phase
        ? { phase }
        : { missing: `${label}: there is no Phase ${number}. Phases: ${phases()}.` };
    },
    workPhase: () =>
      kp.current ? { phase: kp.current } : { missing: `${label}: no phase with work left.` },
    mark(target, state) {
      // A phase its kind says may not take that mark (a story with no file yet): nothing written.
      const markedPhase =
        'phase' in target
          ? target.phase
          : kp.phases.find((p) => p.tasks.some((t) => t.id === target.task));
      const refused = markedPhase && kp.refuseMark?.(markedPhase, state);
      if (refused) return { missing: refused };
      let next: string;
      let beside: KindFileEdit[];
      if ('phase' in target) {
        // A phase gets the marks the loop writes when it starts or completes it.
        const { phase } = target;
        const ids = new Set(required(phase).map((t) => t.id));
        next =
          state === 'doing'
            ? kp.markStart(phase)
            : state === 'done'
              ? kp.markDone(phase)
              : setTasks(plan, source!, ids, state);
        beside =
          (state === 'doing'
            ? kp.beside?.start(phase)
            : state === 'done'
              ? kp.beside?.done(phase)
              : kp.beside?.tasks(ids, state)) ?? [];
      } else {
        const named = kp.phases.flatMap((p) =>
          p.tasks
            .filter((t) => t.id === target.task)
            .map((t) => ({ phase: p.number, line: t.line })),
        );
        if (named.length === 0) {
          const phase = kp.phases.some((p) => p.number === target.task);
          // A token the writer put at the start of a task that the kind reads as no id (`T01`,
          // `**T-01**`): the id the task has.
          const written = phase ? [] : tasksWritten(kp.phases, target.task);
          const hint = phase
            ? ` Phase ${target.task} is a phase: mark it with --phase ${target.task}.`
            : written.length === 1
              ? ` The task that starts "${target.task}" has the id ${written[0]!.id} (line ${written[0]!.line}): mark it by that id.`
              : written.length > 1
                ? ` ${written.length} tasks start "${target.task}" (ids ${written.map((t) => t.id).join(', ')}): mark one by its id.`
                : '';
          return { missing: `${label}: there is no task ${target.task}.${hint}` };
        }
        // One id written on two tasks: a mark by the id would write both.
        if (named.length > 1) {
          return {
            missing: `${label}: ${named.length} tasks have the id ${target.task} (lines ${named.map((n) => n.line).join(', ')}); nothing written. Mark their phase with --phase ${named[0]!.phase}, or give each task its own id.`,
          };
        }
        next = setTasks(plan, source!, new Set([target.task]), state);
        beside = kp.beside?.tasks(new Set([target.task]), state) ?? [];
      }
      const before = statesOf(plan, source!);
      const changes = [...statesOf(plan, next)].flatMap(([id, after]) =>
        before.get(id) !== after ? [`${id}: ${before.get(id)} → ${after}`] : [],
      );
      // Tasks in the files beside the tasks file: their states as the plan reads them after.
      if (beside.length > 0) {
        const was = new Map(kp.phases.flatMap((p) => p.tasks.map((t) => [t.id, t.state])));
        const edited = new Map([...texts, ...beside.map((e) => [e.path, e.text] as const)]);
        const after = openKindPlan(plan, paths, edited.set(plan.path, next));
        for (const t of after.phases.flatMap((p) => p.tasks))
          if (was.has(t.id) && was.get(t.id) !== t.state)
            changes.push(`${t.id}: ${was.get(t.id)} → ${t.state}`);
      }
      return { text: next, changes, ...(beside.length ? { beside } : {}) };
    },
  };
}

/**
 * The tasks whose text starts with `token` as a word of its own, bold or not (`T01 …`,
 * `**T-01** …`): the id a user may try for a task the kind gave another id.
 */
function tasksWritten(phases: readonly KindPhase[], token: string): KindPhase['tasks'] {
  const plain = (text: string) => text.replace(/^[*_`]+/, '');
  return phases.flatMap((p) =>
    p.tasks.filter((t) => {
      const text = plain(t.text);
      return text.startsWith(token) && !/[\p{L}\p{N}]/u.test(text.charAt(token.length));
    }),
  );
}
