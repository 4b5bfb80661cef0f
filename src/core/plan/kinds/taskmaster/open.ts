import type { Problem } from '../../../problem.js';
import { member, parseJsonWithOffsets, type JsonNode } from '../jsonOffsets.js';
import {
  readTaskmaster,
  setTaskmasterStatus,
  StaleTasksJsonError,
  taskmasterPhaseFinished,
  taskmasterProgress,
  type TaskmasterPhase,
  type TaskmasterTask,
} from './reader.js';
import type { KindFile } from '../kindModule.js';
import {
  emptyReading,
  noPhase,
  QUOTE_LIMIT,
  splitProblems,
  type KindContext,
  type KindNote,
  type KindPhase,
  type KindReading,
} from '../view.js';

/** A Task Master tag as the kind-neutral view: `openTaskmaster`. */

const TASKMASTER_NOTES: Record<string, KindNote> = {
  blocked: 'blocked',
  review: 'review',
  deferred: 'deferred',
  cancelled: 'cancelled',
};

function readTaskmasterTasks(plan: KindFile, source: string) {
  const read = readTaskmaster(source, plan.path);
  const tag = read.tags.find((t) => t.name === plan.tag);
  // The file's own problems, and this tag's: an error inside another tag blocks that tag only.
  const others = new Set(read.tags.filter((t) => t !== tag).flatMap((t) => t.problems));
  const { errors, warnings } = splitProblems(read.problems.filter((p) => !others.has(p)));
  if (read.notTaskmaster) errors.push({ ...read.notTaskmaster, severity: 'error' });
  if (!tag && plan.tag !== undefined && !read.notTaskmaster) {
    errors.push({
      severity: 'error',
      path: plan.path,
      line: 1,
      message: `the tag "${plan.tag}" is not in the file.`,
      fix: 'Name a tag the file has.',
    });
  }
  const tasked = (tag?.phases ?? []).filter((p) => p.tasks.length > 0);
  if (tag && tasked.length === 0 && errors.length === 0) {
    // An empty tag is Task Master's own (`add-tag` writes one): the plan waits for its tasks.
    if (tag.phases.length === 0) {
      warnings.push({
        severity: 'warning',
        path: plan.path,
        line: tag.line,
        message: `the tag "${tag.name}" holds no task yet.`,
        fix: `Add its tasks with "task-master parse-prd --tag ${tag.name}" or "task-master add-task --tag ${tag.name}".`,
      });
    } else errors.push(noPhase(plan.path, 'Add a task with "task-master add-task".'));
  }
  const view = (p: TaskmasterPhase): KindPhase => ({
    number: p.id,
    name: p.title,
    line: p.line,
    tasks: p.tasks.map((t) => {
      const note = t.unknown ? 'unknown status' : TASKMASTER_NOTES[t.status];
      return {
        id: t.id,
        text: t.title,
        state: t.state,
        line: t.line,
        optional: false,
        ...(note ? { note } : {}),
        ...(t.details ? { details: t.details } : {}),
        ...(t.testStrategy ? { testStrategy: t.testStrategy } : {}),
      };
    }),
    finished: taskmasterPhaseFinished(p),
    ...(p.status === 'deferred' || p.status === 'cancelled' ? { note: p.status } : {}),
  });
  const phases = tasked.map(view);
  const progress = tag ? taskmasterProgress(tag) : undefined;
  const current = progress?.current ? phases[tasked.indexOf(progress.current)] : undefined;
  return {
    tasked,
    phases,
    current,
    complete: errors.length === 0 && (progress?.complete ?? false),
    waiting: errors.length === 0 ? progress?.waiting : undefined,
    problems: errors,
    warnings,
  };
}

export function openTaskmaster(
  plan: KindFile,
  source: string,
  contextProblems: Problem[],
): KindReading {
  if (contextProblems.length > 0) {
    return { ...emptyReading(contextProblems[0]!), problems: contextProblems };
  }
  const read = readTaskmasterTasks(plan, source);
  const byId = new Map(read.tasked.map((p) => [p.id, p]));
  const own = (phase: KindPhase): TaskmasterPhase => {
    const p = byId.get(phase.number);
    if (!p) throw new Error(`Task ${phase.number} is not in ${plan.path}.`);
    return p;
  };
  const mark = (phase: KindPhase, status: 'in-progress' | 'done'): string => {
    const p = own(phase);
    const edits: {
      task: Pick<TaskmasterTask, 'statusStart' | 'statusEnd' | 'status' | 'statusMissing'>;
    }[] = [];
    for (const t of p.tasks) {
      // A block a person set is theirs to lift: never written over.
      if (t.state === 'set-aside' || t.status === status || t.status === 'blocked') continue;
      if (status === 'in-progress' && t.state !== 'todo') continue;
      edits.push({ task: t });
    }
    // The top-level task of a phase made of subtasks carries the phase's status too; never
    // `done` over a blocked subtask: blocked is open work, and the task would read as finished.
    const parent = parentStatus(source, plan.tag, p);
    const blocked = status === 'done' && p.tasks.some((t) => t.status === 'blocked');
    if (
      !blocked &&
      parent &&
      parent.status !== status &&
      parent.status !== 'cancelled' &&
      parent.status !== 'blocked'
    ) {
      if (!(status === 'in-progress' && parent.status === 'done')) edits.push({ task: parent });
    }
    return replaceStatuses(source, plan.path, edits, status);
  };
  return {
    phases: read.phases,
    current: read.current,
    complete: read.complete,
    waiting: read.waiting,
    problems: read.problems,
    warnings: read.warnings,
    markStart: (phase) => mark(phase, 'in-progress'),
    markDone: (phase) => mark(phase, 'done'),
    context: (phase) => taskmasterContext(plan, own(phase)),
  };
}

/** The `status` value of the top-level task of a phase made of subtasks. */
function parentStatus(
  source: string,
  tag: string | undefined,
  phase: TaskmasterPhase,
): { statusStart: number; statusEnd: number; status: string } | undefined {
  if (phase.tasks.length === 1 && phase.tasks[0]!.id === phase.id) return undefined;
  const root = parseJsonWithOffsets(source);
  const legacy = member(root, 'tasks');
  const list = legacy?.kind === 'array' ? legacy : member(member(root, tag ?? '') ?? root, 'tasks');
  if (list?.kind !== 'array') return undefined;
  const idOf = (n: JsonNode | undefined) =>
    n?.kind === 'number' ? String(n.value) : n?.kind === 'string' ? n.value.trim() : undefined;
  const node = list.items.find((item) => idOf(member(item, 'id')) === phase.id);
  const status = node ? member(node, 'status') : undefined;
  if (status?.kind !== 'string') return undefined;
  return { statusStart: status.start, statusEnd: status.end, status: status.value };
}

/** Replaces status string values, last first so earlier offsets hold; each must read as read. */
function replaceStatuses(
  source: string,
  path: string,
  edits: readonly {
    task: Pick<TaskmasterTask, 'statusStart' | 'statusEnd' | 'status' | 'statusMissing'>;
  }[],
  status: string,
): string {
  let out = source;
  for (const { task } of [...edits].sort((a, b) => b.task.statusStart - a.task.statusStart)) {
    try {
      out = setTaskmasterStatus(out, task as TaskmasterTask, status as 'done');
    } catch (e) {
      if (!(e instanceof StaleTasksJsonError)) throw e;
      throw new Error(`${path}: a status no longer reads "${task.status}"; read the file again.`, {
        cause: e,
      });
    }
  }
  return out;
}

function taskmasterContext(plan: KindFile, phase: TaskmasterPhase): KindContext {
  const lines: string[] = [];
  for (const t of phase.tasks) {
    if (!t.details && !t.testStrategy) continue;
    lines.push(`**${t.id} ${t.title}**`);
    if (t.details) lines.push(`- Details: ${t.details}`);
    if (t.testStrategy) lines.push(`- Test strategy: ${t.testStrategy}`);
    lines.push('');
  }
  return {
    links: [{ label: 'Tasks', path: plan.path }],
    sections: lines.length
      ? [
          {
            title: 'Details and test strategy',
            text: lines.join('\n').trim().slice(0, QUOTE_LIMIT),
          },
        ]
      : [],
  };
}
