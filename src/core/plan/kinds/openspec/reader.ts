import type { Problem } from '../../../problem.js';
import type { ScanMode } from '../dialectScan.js';
import {
  comparePhaseNumbers,
  finish,
  givenId,
  indentOf,
  readHeadingBoxes,
  readsBox,
  taskIds,
  type DialectMarks,
  type DialectPhase,
  type DialectPlan,
  type DialectState,
  writtenTaskText,
} from '../markdownDialect.js';

/**
 * OpenSpec's tasks.md (`openspec/changes/<change>/tasks.md`), as OpenSpec's own template and
 * `apply` read it: a phase is a `## N. Group` heading (level 2, a number and a dot), a task a
 * checkbox item under it, `- [ ] 1.1 Description` (nested items count too, as OpenSpec's own
 * progress counts every box: src/utils/task-progress.ts), `[x]` or `[X]` done. A group number
 * written twice is one group, as OpenSpec's parser reads it (src/core/validation/
 * task-numbering.ts: a `## N.` heading only sets the current group), with a warning. A box with no
 * id of its own gets one no one writes: nested, a letter after its parent's id (`1.1.a`); else
 * its place in the group (`2.3`) unless a written id has it. A tasks.md with no `## N.` group at
 * all is one group, `1`, named by its title: OpenSpec counts every box wherever it sits and leaves
 * tasks outside a group alone on purpose ("both forms already exist in real projects":
 * task-numbering.ts). In a file that has groups, a box outside them is named, not tracked.
 * A task id written twice is named (OpenSpec reads no ids; `coder-loop mark` names a task by it).
 * OpenSpec has no in-progress mark: the loop's lock branch and pull request are the record.
 */
const GROUP = /^(\d+)\.(?:\s+([\s\S]*))?$/;
/** OpenSpec's task id: `1.1`, `2.3.1`, `4.2a`, at the start of the task's text. */
const TASK_ID = /^(\d+(?:\.\d+)+(?:[A-Za-z]+)?)(?=\s|$)/;
const STATE: Record<string, DialectState> = { ' ': 'todo', '\t': 'todo', x: 'done', X: 'done' };
/** The marks OpenSpec writes: `[x]` done, no in-progress mark. */
export const OPENSPEC_MARKS: DialectMarks = { todo: ' ', doing: undefined, done: 'x' };
/**
 * How the line scanner reads OpenSpec: groups named by their headings' text, an id at the start of
 * a task's text (TASK_ID), nothing else of it (the task's text is shown as written).
 */
export const OPENSPEC_SCAN: ScanMode = { taskText: true, idAtStart: true, requirements: false };

/**
 * OpenSpec's tasks.md, as headings and boxes (the line scanner's fast path, else remark's tree);
 * `fast: false` reads with remark alone, the authority the scanner is tested against.
 */
export function readOpenspec(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): DialectPlan {
  const read = readHeadingBoxes(source, path, OPENSPEC_SCAN, options);
  if ('limited' in read) return read.limited;
  const { skip } = read;
  const { events } = read;
  const phases: DialectPhase[] = [];
  const problems: Problem[] = [];
  let current: DialectPhase | undefined;
  const byNumber = new Map<string, DialectPhase>();
  // The last numbered task and its column: a box indented past it, with no id, is part of it.
  let parent: { id: string; indent: number; given: number } | undefined;
  const pending: { phase: DialectPhase; task: DialectPhase['tasks'][number] }[] = [];
  const written = new Set<string>();
  // An id written twice (a group numbered by mistake as the next one) is named: `mark` would
  // refuse it, as it cannot tell the two tasks apart.
  const seen = taskIds(path, problems);
  // No `## N.` group anywhere: the whole file is group 1, named by its first heading's text.
  const grouped = events.some(
    (e) => e.kind === 'heading' && e.depth === 2 && GROUP.test(e.text.trim()),
  );
  const title = events.find((e) => e.kind === 'heading')?.text.trim() ?? '';
  for (let e = 0; e < events.length; e++) {
    const event = events[e]!;
    if (event.kind === 'heading') {
      if (!grouped) {
        parent = undefined;
        continue;
      }
      if (event.depth > 2) continue;
      const m = event.depth === 2 ? GROUP.exec(event.text.trim()) : null;
      parent = undefined;
      if (!m) {
        current = undefined;
        continue;
      }
      const again = byNumber.get(m[1]!);
      if (again) {
        problems.push({
          severity: 'warning',
          path,
          line: event.line,
          message: `Group ${m[1]} is also on line ${again.line}: its tasks are read as group ${m[1]}'s, as OpenSpec reads them.`,
          fix: 'Number each "## N." group once.',
        });
        current = again;
        continue;
      }
      current = { number: m[1]!, name: (m[2] ?? '').trim(), line: event.line, tasks: [] };
      byNumber.set(m[1]!, current);
      phases.push(current);
      continue;
    }
    if (!readsBox(STATE, event.mark, event.after)) continue;
    if (!current && !grouped) {
      current = { number: '1', name: title, line: event.line, tasks: [] };
      phases.push(current);
    }
    if (!current) continue;
    const indent = indentOf(source, event.offset);
    const own = TASK_ID.exec(event.text)?.[1];
    const task = {
      id: own ?? '',
      text: writtenTaskText(event.after, event.text),
      state: STATE[event.mark]!,
      mark: event.mark,
      optional: false,
      requirements: [],
      line: event.line,
      markOffset: event.offset,
    };
    if (own) {
      seen(own, event.line);
      written.add(own);
      parent = { id: own, indent, given: 0 };
    } else if (parent && indent > parent.indent) {
      task.id = givenId(parent.id, parent.given++);
      problems.push({
        severity: 'warning',
        path,
        line: event.line,
        message: `This box has no id of its own: it is read as part of task ${parent.id}, called ${task.id} here.`,
        fix: `Number it (e.g. "${parent.id}.1 …") so that the id is yours.`,
      });
    } else {
      parent = undefined;
      pending.push({ phase: current, task });
    }
    current.tasks.push(task);
  }
  // A box with no id and no parent: its place in the group, where no written id has it.
  for (const { phase, task } of pending) {
    let n = phase.tasks.indexOf(task) + 1;
    while (written.has(`${phase.number}.${n}`)) n++;
    task.id = `${phase.number}.${n}`;
    written.add(task.id);
  }
  phases.sort((a, b) => comparePhaseNumbers(a.number, b.number));
  return finish(
    source,
    path,
    skip,
    phases,
    problems,
    'Write a task as "- [ ] 1.1 Description" under a "## 1. Group" heading.',
    { marks: ' \txX', unread: 'it is under no "## N. Group" heading' },
  );
}
