import type { Problem } from '../../problem.js';
import {
  JsonSyntaxError,
  lineAt,
  lineStarts,
  member,
  parseJsonWithOffsets,
  type JsonNode,
} from './jsonOffsets.js';

/** Task Master's statuses, as the tool means them. */
export const TASKMASTER_STATUSES = [
  'pending',
  'in-progress',
  'done',
  'review',
  'deferred',
  'cancelled',
  'blocked',
] as const;
export type TaskmasterStatus = (typeof TASKMASTER_STATUSES)[number];

/** What a status means to the loop: work to do, work under way, finished, or set aside. */
export type TaskmasterState = 'todo' | 'doing' | 'done' | 'set-aside';

const STATE_OF: Record<TaskmasterStatus, TaskmasterState> = {
  pending: 'todo',
  blocked: 'todo',
  'in-progress': 'doing',
  review: 'doing',
  done: 'done',
  cancelled: 'set-aside',
  deferred: 'set-aside',
};

export interface TaskmasterTask {
  /** `3` for a top-level task, `3.2` for its second subtask (Task Master's own dotted form). */
  id: string;
  title: string;
  status: string;
  state: TaskmasterState;
  details: string;
  testStrategy: string;
  /** 1-based line of the task's `status` value. */
  line: number;
  /** Where the `status` string value (quotes included) sits in the source. */
  statusStart: number;
  statusEnd: number;
}

export interface TaskmasterPhase {
  /** The top-level task's id. */
  id: string;
  title: string;
  line: number;
  dependencies: string[];
  /** The subtasks, or the top-level task itself when it has none. */
  tasks: TaskmasterTask[];
}

export interface TaskmasterTag {
  /** The tag's name; `master` for a legacy `{ "tasks": [...] }` file. */
  name: string;
  legacy: boolean;
  phases: TaskmasterPhase[];
}

export interface TaskmasterPlan {
  tags: TaskmasterTag[];
  problems: Problem[];
}

function idOf(node: JsonNode | undefined): string | undefined {
  if (node?.kind === 'number' && Number.isInteger(node.value)) return String(node.value);
  if (node?.kind === 'string' && node.value.trim() !== '') return node.value.trim();
  return undefined;
}

function text(node: JsonNode | undefined): string {
  return node?.kind === 'string' ? node.value : '';
}

/**
 * Reads `.taskmaster/tasks/tasks.json` (tagged: `{ "<tag>": { "tasks": [...], "metadata": … } }`)
 * or a legacy `tasks/tasks.json` (`{ "tasks": [...] }`, read as the tag `master`).
 */
export function readTaskmaster(source: string, path: string): TaskmasterPlan {
  const problems: Problem[] = [];
  const error = (line: number | undefined, message: string, fix: string): void => {
    problems.push({ severity: 'error', path, ...(line ? { line } : {}), message, fix });
  };
  let root: JsonNode;
  try {
    root = parseJsonWithOffsets(source);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    error(
      e.line,
      `not valid JSON: ${e.message}.`,
      'Fix the JSON, or let Task Master rewrite the file.',
    );
    return { tags: [], problems };
  }
  if (root.kind !== 'object') {
    error(
      lineAt(lineStarts(source), root.start),
      'the file is not a JSON object.',
      'Write { "master": { "tasks": [...] } }.',
    );
    return { tags: [], problems };
  }
  const tags: TaskmasterTag[] = [];
  const lines = lineStarts(source);
  const legacyTasks = member(root, 'tasks');
  if (legacyTasks?.kind === 'array') {
    tags.push(readTag('master', true, legacyTasks, lines, error));
  } else {
    for (const entry of root.entries) {
      const tasks = member(entry.value, 'tasks');
      if (tasks?.kind !== 'array') continue;
      tags.push(readTag(entry.key, false, tasks, lines, error));
    }
  }
  if (tags.length === 0) {
    error(
      1,
      'no task list found.',
      'Task Master keeps tasks under { "<tag>": { "tasks": [...] } }.',
    );
  }
  return { tags, problems };
}

function readTag(
  name: string,
  legacy: boolean,
  list: Extract<JsonNode, { kind: 'array' }>,
  lines: readonly number[],
  error: (line: number | undefined, message: string, fix: string) => void,
): TaskmasterTag {
  const phases: TaskmasterPhase[] = [];
  const seen = new Set<string>();
  const readTask = (node: JsonNode, id: string): TaskmasterTask | undefined => {
    const status = member(node, 'status');
    const line = lineAt(lines, node.start);
    if (status?.kind !== 'string') {
      error(line, `task ${id} has no "status" string.`, 'Give it "status": "pending".');
      return undefined;
    }
    const known = (TASKMASTER_STATUSES as readonly string[]).includes(status.value);
    if (!known) {
      error(
        lineAt(lines, status.start),
        `task ${id} has status "${status.value}", which Task Master does not use.`,
        `Use one of ${TASKMASTER_STATUSES.join(', ')}.`,
      );
      return undefined;
    }
    return {
      id,
      title: text(member(node, 'title')),
      status: status.value,
      state: STATE_OF[status.value as TaskmasterStatus],
      details: text(member(node, 'details')),
      testStrategy: text(member(node, 'testStrategy')),
      line: lineAt(lines, status.start),
      statusStart: status.start,
      statusEnd: status.end,
    };
  };
  for (const node of list.items) {
    const id = idOf(member(node, 'id'));
    if (id === undefined) {
      error(
        lineAt(lines, node.start),
        `a task in tag "${name}" has no id.`,
        'Give every task a number "id".',
      );
      continue;
    }
    if (seen.has(id)) {
      error(
        lineAt(lines, node.start),
        `tag "${name}" has two tasks with id ${id}.`,
        'Give each task its own id.',
      );
      continue;
    }
    seen.add(id);
    const deps = member(node, 'dependencies');
    const dependencies =
      deps?.kind === 'array'
        ? deps.items.map(idOf).filter((d): d is string => d !== undefined)
        : [];
    const subs = member(node, 'subtasks');
    const tasks: TaskmasterTask[] = [];
    if (subs?.kind === 'array' && subs.items.length > 0) {
      for (const sub of subs.items) {
        const subId = idOf(member(sub, 'id'));
        if (subId === undefined) {
          error(
            lineAt(lines, sub.start),
            `a subtask of task ${id} has no id.`,
            'Give every subtask an "id".',
          );
          continue;
        }
        const task = readTask(sub, `${id}.${subId}`);
        if (task) tasks.push(task);
      }
    } else {
      const task = readTask(node, id);
      if (task) tasks.push(task);
    }
    phases.push({
      id,
      title: text(member(node, 'title')),
      line: lineAt(lines, node.start),
      dependencies,
      tasks,
    });
  }
  for (const phase of phases) {
    for (const dep of phase.dependencies) {
      if (!seen.has(dep) && !dep.includes('.')) {
        error(
          phase.line,
          `task ${phase.id} depends on task ${dep}, which tag "${name}" does not have.`,
          `Remove ${dep} from its dependencies.`,
        );
      }
    }
  }
  return { name, legacy, phases };
}

/** Whether a phase is finished: every task done or set aside. */
function phaseFinished(phase: TaskmasterPhase): boolean {
  return phase.tasks.every((t) => t.state === 'done' || t.state === 'set-aside');
}

/**
 * The current phase: the first top-level task with work left whose dependencies are done
 * (a dependency that is cancelled or deferred does not count as done, as in Task Master's `next`).
 */
export function currentTaskmasterPhase(tag: TaskmasterTag): TaskmasterPhase | undefined {
  const byId = new Map(tag.phases.map((p) => [p.id, p]));
  const done = (id: string): boolean => {
    const p = byId.get(id);
    return p !== undefined && p.tasks.every((t) => t.state === 'done');
  };
  return tag.phases.find((p) => !phaseFinished(p) && p.dependencies.every(done));
}

/** The task's status value no longer reads as it did when the file was read. */
export class StaleTasksJsonError extends Error {
  constructor(readonly task: TaskmasterTask) {
    super(
      `Task ${task.id} on line ${task.line} no longer reads "status": "${task.status}"; read tasks.json again.`,
    );
    this.name = 'StaleTasksJsonError';
  }
}

/**
 * Writes one task's status: the one JSON string value is replaced, every other byte of the file
 * stays. A task whose value changed since it was read throws StaleTasksJsonError.
 */
export function setTaskmasterStatus(
  source: string,
  task: TaskmasterTask,
  status: 'pending' | 'in-progress' | 'done',
): string {
  if (!readsAs(source.slice(task.statusStart, task.statusEnd), task.status)) {
    throw new StaleTasksJsonError(task);
  }
  if (task.status === status) return source;
  return source.slice(0, task.statusStart) + JSON.stringify(status) + source.slice(task.statusEnd);
}

/** Whether a JSON string literal (escapes allowed) still reads as `value`. */
function readsAs(literal: string, value: string): boolean {
  if (!literal.startsWith('"') || !literal.endsWith('"')) return false;
  try {
    return JSON.parse(literal) === value;
  } catch {
    return false;
  }
}
