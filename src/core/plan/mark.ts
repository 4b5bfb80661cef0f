import {
  MARK_OF,
  stateOfMark,
  type Phase,
  type Task,
  type TaskMark,
  type TaskState,
} from './checklistModel.js';

/** The checklist changed under us: the task no longer reads as it did when it was parsed. */
class StaleChecklistError extends Error {
  constructor(readonly task: Task) {
    super(
      `Task ${task.id} on line ${task.line} no longer reads "[${task.mark}]"; read the checklist again.`,
    );
    this.name = 'StaleChecklistError';
  }
}

function assertUnchanged(source: string, task: Task): void {
  const at = task.markOffset;
  if (source[at - 1] !== '[' || source[at] !== task.mark || source[at + 1] !== ']') {
    throw new StaleChecklistError(task);
  }
}

/** The mark a task gets for a state: an `X` that is already done stays `X`. */
function markFor(task: Task, state: TaskState): TaskMark {
  return stateOfMark(task.mark) === state ? task.mark : MARK_OF[state];
}

/**
 * Sets tasks to a state by replacing the one character between each task's brackets. Every other
 * byte of `source` stays as it was. Tasks come from `parseChecklist(source)`; a task whose
 * brackets no longer read as parsed throws StaleChecklistError (optimistic concurrency).
 */
export function setTaskStates(
  source: string,
  tasks: readonly Task[],
  state: TaskState,
): { source: string; changed: Task[] } {
  const changed = tasks.filter((t) => markFor(t, state) !== t.mark);
  if (changed.length === 0) return { source, changed };
  for (const task of changed) assertUnchanged(source, task);
  const sorted = [...changed].sort((a, b) => a.markOffset - b.markOffset);
  const parts: string[] = [];
  let from = 0;
  for (const task of sorted) {
    parts.push(source.slice(from, task.markOffset), markFor(task, state));
    from = task.markOffset + 1;
  }
  parts.push(source.slice(from));
  return { source: parts.join(''), changed };
}

/**
 * Marks a phase's tasks. `from` limits which states move: MarkInProgress moves only `todo` tasks
 * to `doing`; MarkComplete moves `doing` to `done`. Without `from`, every task gets `state`.
 */
export function markPhase(
  source: string,
  phase: Phase,
  state: TaskState,
  from?: readonly TaskState[],
): { source: string; changed: Task[] } {
  const tasks = from ? phase.tasks.filter((t) => from.includes(t.state)) : phase.tasks;
  return setTaskStates(source, tasks, state);
}
