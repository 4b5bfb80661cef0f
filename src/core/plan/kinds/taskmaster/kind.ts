import { JsonSyntaxError, parseJsonWithOffsets } from '../jsonOffsets.js';
import { defineKind } from '../kindModule.js';
import { openTaskmaster } from './open.js';
import { readTaskmaster, setTaskmasterStatus } from './reader.js';

const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The status a state is written as. */
const STATUS = { todo: 'pending', doing: 'in-progress', done: 'done' } as const;

/**
 * Task Master (eyaltoledano/claude-task-master): `.taskmaster/tasks/tasks.json` (`tasks/tasks.json`
 * in its legacy layout), one plan a tag, a phase a top-level task; statuses `pending`,
 * `in-progress`, `done` and the ones a person sets (`blocked`, `review`, `deferred`, `cancelled`).
 */
export const taskmasterKind = defineKind({
  id: 'taskmaster',
  label: 'Task Master',
  tasksFile: 'tasks.json',
  globs: ['.taskmaster/tasks/tasks.json', 'tasks/tasks.json'],
  test: () => 'plan',
  tasksFilesAt: (dir) => [`${dir}/tasks.json`, `${dir}/tasks/tasks.json`],
  // `.taskmaster/` (tasks, docs, reports), or `tasks/` for the legacy layout.
  documentsRoot: (folder) =>
    baseOf(folder) === 'tasks' && baseOf(dirOf(folder)) === '.taskmaster' ? dirOf(folder) : folder,
  tagged: true,
  plansIn(text, path) {
    const read = readTaskmaster(text, path);
    return {
      names: read.tags.map((t) => t.name),
      ...(read.notTaskmaster ? { notAPlan: read.notTaskmaster } : {}),
      problems: read.problems,
    };
  },
  // `.taskmaster/state.json`'s `currentTag`, which Task Master's `list` and `next` take when no
  // `--tag` is given (scripts/modules/utils.js, getCurrentTag).
  currentTag: (tasksPath) =>
    /(?:^|\/)\.taskmaster\/tasks\/tasks\.json$/.test(tasksPath)
      ? {
          path: `${dirOf(dirOf(tasksPath))}/state.json`,
          read(text) {
            try {
              const tag = (JSON.parse(text) as { currentTag?: unknown }).currentTag;
              return typeof tag === 'string' && tag !== '' ? tag : undefined;
            } catch {
              return undefined;
            }
          },
        }
      : undefined,
  required: [],
  validateTasksFile(path, source) {
    try {
      parseJsonWithOffsets(source);
      return [];
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      return [
        {
          severity: 'error',
          path,
          line: e.line,
          message: `not valid JSON: ${e.message}.`,
          fix: 'Fix the JSON, or let Task Master rewrite the file.',
        },
      ];
    }
  },
  marks: { start: '"in-progress"', done: '"done"' },
  open: (plan, source, context) => openTaskmaster(plan, source, context),
  states(plan, source) {
    const states = new Map<string, string>();
    const tag = readTaskmaster(source, plan.path).tags.find((t) => t.name === plan.tag);
    for (const p of tag?.phases ?? []) {
      // A task made of subtasks: its own status, which the loop's marks of the phase set too.
      if (!(p.tasks.length === 1 && p.tasks[0]!.id === p.id))
        states.set(`${p.id} (the task's own status)`, p.status || '(none)');
      for (const t of p.tasks) states.set(t.id, t.state);
    }
    return states;
  },
  setTasks(plan, source, ids, state) {
    const tag = readTaskmaster(source, plan.path).tags.find((t) => t.name === plan.tag);
    // A task already in the state keeps its status (`review` stays `review` when marked doing).
    const tasks = (tag?.phases.flatMap((p) => p.tasks) ?? []).filter(
      (t) => ids.has(t.id) && t.state !== state,
    );
    // Last first, so that the offsets of the earlier values hold.
    let out = source;
    for (const t of tasks.sort((a, b) => b.statusStart - a.statusStart)) {
      out = setTaskmasterStatus(out, t, STATUS[state]);
    }
    return out;
  },
  agentMayNotEdit: { path: '.taskmaster/' },
});
