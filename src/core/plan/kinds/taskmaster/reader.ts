import type { Problem } from '../../../problem.js';
import {
  JsonSyntaxError,
  lineAt,
  lineStarts,
  member,
  parseJsonWithOffsets,
  type JsonNode,
} from '../jsonOffsets.js';

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
/** What the reader takes: Task Master's statuses and `completed`, which its `next` reads as done. */
const READ_STATUSES: readonly string[] = [...TASKMASTER_STATUSES, 'completed'];
export type TaskmasterStatus = (typeof TASKMASTER_STATUSES)[number] | 'completed';

/** What a status means to the loop: work to do, work under way, finished, or set aside. */
export type TaskmasterState = 'todo' | 'doing' | 'done' | 'set-aside';

const STATE_OF: Record<TaskmasterStatus, TaskmasterState> = {
  pending: 'todo',
  blocked: 'todo',
  'in-progress': 'doing',
  review: 'doing',
  done: 'done',
  completed: 'done',
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
  /**
   * Where the `status` string value (quotes included) sits in the source; for a task without
   * one (Task Master reads it as `pending`), the end of its `id` value, where a status is added.
   */
  statusStart: number;
  statusEnd: number;
  /** The task has no `status`: a write adds `, "status": "…"` after its id, nothing else. */
  statusMissing?: boolean;
  /** Its status is none Task Master uses (`"todo"`): an error; read as work left. */
  unknown?: boolean;
}

export interface TaskmasterPhase {
  /** The top-level task's id. */
  id: string;
  title: string;
  line: number;
  /** The top-level task's own status (`""` when it has none Task Master reads). */
  status: string;
  /** `critical`, `high`, `medium` (the default) or `low`: Task Master's `next` takes it first. */
  priority: string;
  dependencies: string[];
  /** The subtasks, or the top-level task itself when it has none. */
  tasks: TaskmasterTask[];
}

export interface TaskmasterTag {
  /** The tag's name; `master` for a legacy `{ "tasks": [...] }` file. */
  name: string;
  legacy: boolean;
  /** 1-based line of the tag's task list (where its `[` is). */
  line: number;
  phases: TaskmasterPhase[];
  /** What is wrong inside this tag: it blocks this tag only. */
  problems: Problem[];
}

export interface TaskmasterPlan {
  tags: TaskmasterTag[];
  /** Every problem: the file's own (not JSON, no task list) and each tag's. */
  problems: Problem[];
  /**
   * A legacy `tasks/tasks.json` without Task Master's shape (a VS Code task file, a config): not
   * a plan. The warning says so; `tags` and `problems` are then empty.
   */
  notTaskmaster?: Problem;
}

/**
 * Whether a path is the legacy `tasks/tasks.json`, outside Task Master's own folder
 * (`.taskmaster/`, where any tasks.json is Task Master's): other tools keep files there too.
 */
function legacyTasksPath(path: string): boolean {
  return /(?:^|\/)tasks\/tasks\.json$/.test(path) && !/(?:^|\/)\.taskmaster\//.test(path);
}

/**
 * Why a file is not of Task Master's shape, or undefined when it is. The shape: an object holding a task list (`{ "tasks": [...] }`, or tags of
 * `{ "tasks": [...] }`) whose tasks are Task Master's: some task has a whole-number `id` (Task
 * Master numbers its tasks 1, 2, 3…) and a status Task Master writes, and no task has a status
 * Task Master never writes (Huckleberry's `"TASK-001"` with `"todo"` is another tool's); or a tag
 * also carries Task Master's `metadata`.
 */
function notTaskmasterShape(root: JsonNode): string | undefined {
  if (root.kind !== 'object') return 'it is not a JSON object';
  const lists: JsonNode[] = [];
  let tagged = false;
  const legacy = member(root, 'tasks');
  if (legacy?.kind === 'array') lists.push(legacy);
  else
    for (const entry of root.entries) {
      const tasks = member(entry.value, 'tasks');
      if (tasks?.kind !== 'array') continue;
      lists.push(tasks);
      if (member(entry.value, 'metadata')?.kind === 'object') tagged = true;
    }
  if (tagged) return undefined;
  const items = lists.flatMap((l) => (l.kind === 'array' ? l.items : []));
  const statusOf = (n: JsonNode) => {
    const s = member(n, 'status');
    return s?.kind === 'string' ? s.value : undefined;
  };
  const numbered = (n: JsonNode) => {
    const id = member(n, 'id');
    return (
      (id?.kind === 'number' && Number.isInteger(id.value)) ||
      (id?.kind === 'string' && /^\d+$/.test(id.value.trim()))
    );
  };
  const ours = (n: JsonNode) => {
    const status = statusOf(n);
    return status !== undefined && READ_STATUSES.includes(status);
  };
  const foreign = (n: JsonNode) => {
    const status = member(n, 'status');
    return (
      status !== undefined && (status.kind !== 'string' || !READ_STATUSES.includes(status.value))
    );
  };
  if (items.some((n) => n.kind === 'object' && numbered(n) && ours(n))) {
    const other = items.find((n) => n.kind === 'object' && foreign(n));
    if (!other) return undefined;
    const status = member(other, 'status')!;
    return `a task has the status ${status.kind === 'string' ? `"${status.value}"` : 'that is not a string'}, which Task Master never writes`;
  }
  if (lists.length === 0) return 'it holds no "tasks" list';
  if (!items.some((n) => n.kind === 'object' && numbered(n))) {
    const first = items.find((n) => member(n, 'id') !== undefined);
    const id = first && member(first, 'id');
    return `no task has a whole-number "id", as Task Master numbers its tasks 1, 2, 3…${id?.kind === 'string' ? ` (the first is "${id.value}")` : ''}`;
  }
  return 'no numbered task has a status Task Master writes (pending, in-progress, done…)';
}

function idOf(node: JsonNode | undefined): string | undefined {
  if (node?.kind === 'number' && Number.isInteger(node.value)) return String(node.value);
  if (node?.kind === 'string' && node.value.trim() !== '') return node.value.trim();
  return undefined;
}

/**
 * A subtask's id, or a dependency: as `idOf`, and a number that is not whole as the file writes
 * it (`"id": 3.1` is `3.1`, `27.10` is `27.10`, not `27.1`): Task Master writes the dotted form
 * as a string, and people write it as a number too, which Task Master reads without complaint.
 */
function dottedIdOf(node: JsonNode | undefined, source: string): string | undefined {
  if (node?.kind === 'number' && !Number.isInteger(node.value) && Number.isFinite(node.value)) {
    return source.slice(node.start, node.end);
  }
  return idOf(node);
}

function text(node: JsonNode | undefined): string {
  return node?.kind === 'string' ? node.value : '';
}

// The last file read and its reading: discovery names a file's tags, then `status` (or lint, or a
// write) opens one of them and validates the file: one reading of a 300 KiB file serves them all
// while its text is the same. A reading is never changed by its users
// (test/cli/taskmasterReadOnce.test.ts freezes one and runs every command on it).
let lastRead: { source: string; path: string; read: TaskmasterPlan } | undefined;

/**
 * Reads `.taskmaster/tasks/tasks.json` (tagged: `{ "<tag>": { "tasks": [...], "metadata": … } }`)
 * or a legacy `tasks/tasks.json` (`{ "tasks": [...] }`, read as the tag `master`).
 */
export function readTaskmaster(source: string, path: string): TaskmasterPlan {
  if (lastRead?.source === source && lastRead.path === path) return lastRead.read;
  const read = readTaskmasterFile(source, path);
  lastRead = { source, path, read };
  return read;
}

function readTaskmasterFile(source: string, path: string): TaskmasterPlan {
  const problems: Problem[] = [];
  const error = (line: number | undefined, message: string, fix: string): void => {
    problems.push({ severity: 'error', path, ...(line ? { line } : {}), message, fix });
  };
  const notTaskmaster = (why: string): TaskmasterPlan => ({
    tags: [],
    problems: [],
    notTaskmaster: {
      severity: 'warning',
      path,
      message: `not read as a Task Master plan: ${why}.`,
      fix: "Move Task Master's tasks to .taskmaster/tasks/tasks.json, or leave this file be.",
    },
  });
  const legacyPath = legacyTasksPath(path);
  let root: JsonNode;
  try {
    root = parseJsonWithOffsets(source);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    if (legacyPath) return notTaskmaster(`it is not JSON (line ${e.line}: ${e.message})`);
    error(
      e.line,
      `not valid JSON: ${e.message}.`,
      'Fix the JSON, or let Task Master rewrite the file.',
    );
    return { tags: [], problems };
  }
  const otherShape = legacyPath ? notTaskmasterShape(root) : undefined;
  if (otherShape !== undefined) {
    return notTaskmaster(
      root.kind === 'array'
        ? 'it is a JSON list, where Task Master keeps an object ({ "tasks": [...] }, or tags of them)'
        : otherShape,
    );
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
    tags.push(readTag('master', true, legacyTasks, source, lines, path));
  } else {
    for (const entry of root.entries) {
      const tasks = member(entry.value, 'tasks');
      if (tasks?.kind !== 'array') continue;
      tags.push(readTag(entry.key, false, tasks, source, lines, path));
    }
  }
  for (const tag of tags) problems.push(...tag.problems);
  if (tags.length === 0) {
    // A tag whose value is the list itself (`"master": [ … ]`): Task Master reads no task there.
    const bare = root.entries.find((entry) => entry.value.kind === 'array');
    if (bare) {
      error(
        lineAt(lines, bare.value.start),
        `no task list found: the tag "${bare.key}" is a list of tasks, where Task Master keeps { "tasks": [...] } under a tag, so it reads none there.`,
        `Write "${bare.key}": { "tasks": [ … ] }.`,
      );
    } else {
      error(
        1,
        'no task list found.',
        'Task Master keeps tasks under { "<tag>": { "tasks": [...] } }.',
      );
    }
  }
  return { tags, problems };
}

function readTag(
  name: string,
  legacy: boolean,
  list: Extract<JsonNode, { kind: 'array' }>,
  source: string,
  lines: readonly number[],
  path: string,
): TaskmasterTag {
  const problems: Problem[] = [];
  const error = (line: number | undefined, message: string, fix: string): void => {
    problems.push({ severity: 'error', path, ...(line ? { line } : {}), message, fix });
  };
  const phases: TaskmasterPhase[] = [];
  const seen = new Set<string>();
  const readTask = (node: JsonNode, id: string): TaskmasterTask | undefined => {
    const status = member(node, 'status');
    const line = lineAt(lines, node.start);
    const idNode = member(node, 'id')!;
    if (status === undefined) {
      // Task Master's own reading (`next`, `list`): a task without a status is pending.
      return {
        id,
        title: text(member(node, 'title')),
        status: 'pending',
        state: 'todo',
        details: text(member(node, 'details')),
        testStrategy: text(member(node, 'testStrategy')),
        line,
        statusStart: idNode.end,
        statusEnd: idNode.end,
        statusMissing: true,
      };
    }
    if (status.kind !== 'string') {
      error(line, `task ${id} has no "status" string.`, 'Give it "status": "pending".');
      return undefined;
    }
    const known = READ_STATUSES.includes(status.value);
    if (!known) {
      error(
        lineAt(lines, status.start),
        `task ${id} has status "${status.value}", which Task Master does not use.`,
        `Use one of ${TASKMASTER_STATUSES.join(', ')}.`,
      );
    }
    // A status Task Master does not use makes the tag invalid (the error above); the task is
    // still read, as work left, so that the tag's counts are its own and no task is dropped.
    return {
      id,
      title: text(member(node, 'title')),
      status: status.value,
      state: known ? STATE_OF[status.value as TaskmasterStatus] : 'todo',
      ...(known ? {} : { unknown: true }),
      details: text(member(node, 'details')),
      testStrategy: text(member(node, 'testStrategy')),
      line: lineAt(lines, status.start),
      statusStart: status.start,
      statusEnd: status.end,
    };
  };
  for (const node of list.items) {
    const idNode = member(node, 'id');
    const id = idOf(idNode);
    if (id === undefined) {
      const written = dottedIdOf(idNode, source);
      error(
        lineAt(lines, node.start),
        written === undefined
          ? `a task in tag "${name}" has no id.`
          : `a task in tag "${name}" has the id ${written}, which is not a whole number.`,
        written === undefined
          ? 'Give every task a number "id".'
          : "Number the top-level tasks 1, 2, 3…; a dotted id is a subtask's.",
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
        ? deps.items.map((d) => dottedIdOf(d, source)).filter((d): d is string => d !== undefined)
        : [];
    const subs = member(node, 'subtasks');
    const tasks: TaskmasterTask[] = [];
    if (subs?.kind === 'array' && subs.items.length > 0) {
      const subSeen = new Map<string, number>();
      for (const sub of subs.items) {
        const subId = dottedIdOf(member(sub, 'id'), source);
        if (subId === undefined) {
          error(
            lineAt(lines, sub.start),
            `a subtask of task ${id} has no id.`,
            'Give every subtask an "id".',
          );
          continue;
        }
        // Task Master's own form: a subtask id written `"2.1"` is already the full id.
        const full = subId.startsWith(`${id}.`) ? subId : `${id}.${subId}`;
        // One id on two subtasks: both are read (the phase marks each by its place), and a
        // mark by that id is refused (it would write both).
        const first = subSeen.get(full);
        if (first !== undefined) {
          problems.push({
            severity: 'warning',
            path,
            line: lineAt(lines, sub.start),
            message: `task ${id} has two subtasks with id ${full} (the first on line ${first}): a mark by that id is refused.`,
            fix: "Give each subtask its own id (Task Master numbers a task's subtasks 1, 2, 3…).",
          });
        } else subSeen.set(full, lineAt(lines, sub.start));
        const task = readTask(sub, full);
        if (task) tasks.push(task);
      }
    } else {
      const task = readTask(node, id);
      if (task) tasks.push(task);
    }
    // The task's own status: Task Master reads a parent without one as `pending`.
    const own = member(node, 'status');
    let status = own === undefined && tasks.length > 0 ? 'pending' : '';
    if (own?.kind === 'string' && READ_STATUSES.includes(own.value)) status = own.value;
    else if (own?.kind === 'string' && subs?.kind === 'array' && subs.items.length > 0)
      error(
        lineAt(lines, own.start),
        `task ${id} has status "${own.value}", which Task Master does not use.`,
        `Use one of ${TASKMASTER_STATUSES.join(', ')}.`,
      );
    // Done by its own status with subtasks still open: Task Master's `set-status` sets a task's
    // subtasks done with it, so only a hand edit leaves them so. The task counts as done (its
    // dependents may start), and its open subtasks are never run: said, once.
    // (A subtask with no status at all, as older files have under a done task, is left alone.)
    const open = DONE.has(status)
      ? tasks.filter((t) => !t.statusMissing && (t.state === 'todo' || t.state === 'doing'))
      : [];
    if (open.length > 0 && own !== undefined) {
      problems.push({
        severity: 'warning',
        path,
        line: lineAt(lines, own.start),
        message: `task ${id} is done, but ${open.length === 1 ? `its subtask ${open[0]!.id} is` : `its subtasks ${open.map((t) => t.id).join(', ')} are`} not: the task is read as done, and the loop will not run ${open.length === 1 ? 'it' : 'them'}.`,
        fix: `Set them done ("task-master set-status --id=${id} --status=done" sets a task and its subtasks), or set task ${id} back to "in-progress".`,
      });
    }
    const priority = member(node, 'priority');
    phases.push({
      id,
      title: text(member(node, 'title')),
      line: lineAt(lines, node.start),
      status,
      priority: priority?.kind === 'string' ? priority.value : 'medium',
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
  return { name, legacy, line: lineAt(lines, list.start), phases, problems };
}

const DONE = new Set(['done', 'completed']);
const SET_ASIDE = new Set(['cancelled', 'deferred']);

/**
 * Whether a top-level task is finished, by its own status as Task Master counts it: `done` (or
 * `completed`), or set aside (`cancelled`, `deferred`). Its subtasks do not decide.
 */
export function taskmasterPhaseFinished(phase: TaskmasterPhase): boolean {
  return DONE.has(phase.status) || SET_ASIDE.has(phase.status);
}

/** Where a tag stands: the task to start next, whether it is complete, or why nothing can start. */
export interface TaskmasterProgress {
  current: TaskmasterPhase | undefined;
  /** Every top-level task finished (done or set aside). */
  complete: boolean;
  /** Work remains and none of it can start: why (blocked, in review, waiting for a dependency). */
  waiting: string | undefined;
}

/**
 * The task the loop starts next, as Task Master's `next` orders its two rules:
 * - first, work under way: the first top-level task in the file whose own status is
 *   `in-progress` and one of whose subtasks is still `pending` or `in-progress` (Task Master
 *   goes on with such a task before it starts another, its dependencies already passed when it
 *   was started);
 * - else the first top-level task in the file with work left (its own status `pending` or
 *   `in-progress`) whose every dependency is done by its own status (`done`, `completed`; a
 *   cancelled or deferred one is not done).
 * The file's order, as every kind's phases are taken, where Task Master's `next` would rank by
 * priority and dependency count. The loop runs a task with all its subtasks, so the dependencies
 * between them are met inside it. A blocked subtask holds its whole task (the loop would
 * otherwise mark over a block a person set).
 */
export function taskmasterProgress(tag: TaskmasterTag): TaskmasterProgress {
  const byId = new Map(tag.phases.map((p) => [p.id, p]));
  const done = (id: string): boolean => {
    const p = byId.get(id);
    if (p) return DONE.has(p.status);
    const dot = id.indexOf('.');
    if (dot === -1) return false;
    const sub = byId.get(id.slice(0, dot))?.tasks.find((t) => t.id === id);
    return sub !== undefined && DONE.has(sub.status);
  };
  const blockedSubtask = (p: TaskmasterPhase) =>
    p.tasks.find((t) => t.id !== p.id && t.status === 'blocked');
  const underWay = tag.phases.find(
    (p) =>
      p.status === 'in-progress' &&
      !blockedSubtask(p) &&
      p.tasks.some((t) => t.id !== p.id && (t.status === 'pending' || t.status === 'in-progress')),
  );
  const eligible = tag.phases.filter(
    (p) =>
      (p.status === 'pending' || p.status === 'in-progress') &&
      p.dependencies.every(done) &&
      !blockedSubtask(p),
  );
  const current = underWay ?? eligible[0];
  const open = tag.phases.filter((p) => !taskmasterPhaseFinished(p));
  const complete = tag.phases.length > 0 && open.length === 0;
  let waiting: string | undefined;
  if (!current && !complete) {
    const why: string[] = [];
    for (const p of open) {
      const sub = blockedSubtask(p);
      if (p.status === 'blocked') why.push(`task ${p.id} is blocked`);
      else if (p.status === 'review') why.push(`task ${p.id} is in review`);
      else if (sub) why.push(`task ${sub.id} is blocked`);
      const unmet = p.dependencies.filter((d) => !done(d));
      if (unmet.length > 0)
        why.push(`task ${p.id} waits for ${unmet.map((d) => `task ${d}`).join(' and ')}`);
    }
    waiting =
      why.length > 0
        ? `${why.join('; ')}.`
        : tag.phases.length === 0 && tag.problems.length === 0
          ? `the tag "${tag.name}" holds no task yet.`
          : 'no task can start.';
  }
  return { current, complete, waiting };
}

/** The task the loop starts next (see taskmasterProgress); undefined when none can start. */
export function currentTaskmasterPhase(tag: TaskmasterTag): TaskmasterPhase | undefined {
  return taskmasterProgress(tag).current;
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
  if (task.statusMissing) {
    // No status to replace: one member added after the task's id, every other byte kept.
    if (task.statusStart !== task.statusEnd) throw new StaleTasksJsonError(task);
    return `${source.slice(0, task.statusStart)}, "status": ${JSON.stringify(status)}${source.slice(task.statusEnd)}`;
  }
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
