import type { Problem } from '../../../problem.js';
import { isNotTasksHeading } from '../../criteriaWords.js';
import { scanDialect, type DialectScan, type ScanMode } from '../dialectScan.js';
import {
  dialectRead,
  finish,
  givenId,
  linesNamed,
  indentOf,
  taskIds,
  treeEvents,
  type DialectMarks,
  type DialectPhase,
  type DialectPlan,
  type DialectState,
  type DialectTask,
} from '../markdownDialect.js';

/**
 * Kiro's tasks.md (`.kiro/specs/<feature>/tasks.md`): numbered top-level tasks as phases, their
 * sub-tasks as the tasks; `[-]` in progress, `[x]` done, `[ ]*` optional.
 */
// A letter may end a top-level task's number (`2A.`, a task put in between 2 and 3).
const KIRO_TOP = /^(\d+[A-Za-z]?)\.\s*(.*)$/;
// A sub-task keeps every level of its id (`7.3`, `7.3.1`, `2A.1`); its phase is the first
// number. A letter may end a level (`2.5a`, a sub-task put in between; `3.2a.1`, its own).
const KIRO_SUB = /^(\d+[A-Za-z]?)((?:\.\d+[a-z]?)+)\.?(?![\w.])\s*(.*)$/;
// A heading that names a top-level task with its word before the number (`### Task 1: Title`,
// `## Task 2 - Title`, `### タスク 3：…`), over that task's `1.1 …` boxes. Not `### Task 1.1: …`,
// a sub-task's number.
const KIRO_TASK_HEADING =
  /^(?:Task|タスク)\s*(\d+[A-Za-z]?)(?:\.(?!\d)|\s*[:：\-–—]|(?=\s|$))\s*(.*)$/i;
const KIRO_STATE: Record<string, DialectState> = {
  ' ': 'todo',
  '\t': 'todo',
  '-': 'doing',
  // Kiro's queued mark (a task waiting its turn in a "run all tasks"): not started.
  '~': 'todo',
  x: 'done',
  X: 'done',
};
/** The marks Kiro writes: `[-]` in progress, `[x]` done. */
export const KIRO_MARKS: DialectMarks = { todo: ' ', doing: '-', done: 'x' };
/**
 * How the line scanner reads Kiro: numbered top-level tasks whose items cite requirements; no
 * heading's or task's text as mdast reads it (the reader takes a task's text as written).
 */
export const KIRO_SCAN: ScanMode = { taskText: false, requirements: true };

/** Kiro's fast path: the line scanner's reading, or undefined where remark must read. */
export function scanKiro(source: string): DialectScan | undefined {
  return scanDialect(source, KIRO_SCAN);
}

/**
 * Kiro's tasks.md: each top-level numbered task (`- [ ] 1. Title`) is a phase; its sub-tasks
 * (`- [ ] 1.1 …`, nested or at column 0) are the tasks, or the top-level task itself when it has
 * none. `[-]` is in progress, `[x]` done, `[ ]*` optional. `fast: false` reads with remark alone:
 * the authority the line scanner is tested against.
 */
export function readKiro(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): DialectPlan {
  const read = dialectRead(source, path, KIRO_SCAN, options);
  if ('limited' in read) return read.limited;
  const { scanned, root, skip } = read;
  const all = scanned ? scanned.events : [...treeEvents(source, root(), KIRO_SCAN)];
  // `given`: the ids given its boxes with no number so far; `orphan`: the warning of sub-tasks
  // read as a phase with no top-level task before them.
  const phases = new Map<
    string,
    {
      phase: DialectPhase;
      self: DialectTask | undefined;
      subs: DialectTask[];
      given: number;
      orphan?: Problem;
    }
  >();
  const problems: Problem[] = [];
  const seen = taskIds(path, problems);
  // The top-level task the lines below sit in, and its column: a box indented past it is one of
  // its sub-tasks, whatever number it is written with (Kiro nests them).
  let top: { number: string; indent: number } | undefined;
  // The heading right above the box at hand (no box between), which may name a phase.
  let headingAbove: { text: string; line: number } | undefined;
  // The nearest heading above, and the boxes seen with the first of them: what an error names
  // when no box is read as a task.
  let nearest: { depth: number; text: string; line: number } | undefined;
  let boxes = 0;
  let firstBox: { line: number; heading: typeof nearest } | undefined;
  // The section of a numbered heading (`### Task 21: …`) the box at hand is in, and the boxes
  // with no number read in it; and the criteria sub-heading inside it (`#### Acceptance
  // Criteria`) whose unnumbered boxes are no tasks.
  const sections: Section[] = [];
  let section: Section | undefined;
  let criteria: Section | undefined;
  for (const box of all) {
    if (box.kind === 'heading') {
      // A numbered heading (`### 1. Setup`, as cc-sdd's plans group tasks, or `### Task 1: Setup`)
      // is a top-level task with no box of its own: its `1.1 …` boxes are its sub-tasks. A box
      // `- [ ] 1. …` for the same number is the task itself, and takes the heading's place.
      const text = box.text.trim();
      nearest = { depth: box.depth, text, line: box.line };
      const numbered = box.depth > 1 ? (KIRO_TOP.exec(text) ?? KIRO_TASK_HEADING.exec(text)) : null;
      headingAbove = box.depth > 1 && !numbered ? { text, line: box.line } : undefined;
      if (criteria && criteria.depth >= box.depth) criteria = undefined;
      if (section && (numbered || section.depth >= box.depth)) section = criteria = undefined;
      const heading = `${'#'.repeat(box.depth)} ${shorten(text)}`;
      // Not a sub-task's number (`### 0.1 Create …`, which KIRO_TOP reads as `0.` and `1 Create`):
      // its boxes stay unread, as under any heading that is no top-level task's.
      if (numbered && !KIRO_SUB.test(text)) {
        section = { number: numbered[1]!, heading, line: box.line, depth: box.depth, boxes: [] };
        sections.push(section);
      } else if (section && isNotTasksHeading(text)) {
        criteria = { number: section.number, heading, line: box.line, depth: box.depth, boxes: [] };
        sections.push(criteria);
      }
      if (numbered && !phases.has(numbered[1]!)) {
        top = undefined;
        phases.set(numbered[1]!, {
          phase: { number: numbered[1]!, name: numbered[2]!.trim(), line: box.line, tasks: [] },
          self: undefined,
          subs: [],
          given: 0,
        });
      }
      continue;
    }
    const above = headingAbove;
    headingAbove = undefined;
    if (!(box.mark in KIRO_STATE)) continue;
    // `[ ]*` is Kiro's optional mark; `[ ]\*` is the same mark a formatter escaped.
    const star = box.after.startsWith('*') ? 1 : box.after.startsWith('\\*') ? 2 : 0;
    const optional = star > 0;
    const after = box.after.slice(star);
    // `/^(?:[ \t]|$)/`, without a pattern run per task.
    if (after !== '' && after[0] !== ' ' && after[0] !== '\t') continue;
    boxes++;
    firstBox ??= { line: box.line, heading: nearest };
    const text = after.trim();
    const task = (id: string, inOptional = false): DialectTask => ({
      id,
      text,
      state: KIRO_STATE[box.mark]!,
      mark: box.mark,
      optional: optional || inOptional,
      requirements: box.requirements(),
      line: box.line,
      markOffset: box.offset,
    });
    const indent = indentOf(source, box.offset - 2);
    const sub = KIRO_SUB.exec(text);
    const nested = top !== undefined && indent > top.indent ? phases.get(top.number) : undefined;
    if (nested && top) {
      // A sub-task by nesting: its written id (`2.1` under `3.` too), or one given it.
      let id: string;
      if (sub) id = `${sub[1]}${sub[2]}`;
      else {
        id = givenId(top.number, nested.given++);
        problems.push({
          severity: 'warning',
          path,
          line: box.line,
          message: `This box has no number of its own: it is read as a sub-task of task ${top.number}, called ${id} here.`,
          fix: `Number it (e.g. "${top.number}.${nested.subs.length + 1} …") so that the id is yours.`,
        });
      }
      seen(id, box.line);
      nested.subs.push(task(id, nested.self?.optional));
      continue;
    }
    if (sub) {
      const id = `${sub[1]}${sub[2]}`;
      let parent = phases.get(sub[1]!);
      if (!parent) {
        // Sub-tasks with no top-level task before them (Kiro shows and runs them all the same):
        // a phase of their own, in file order, with no box, named by a heading right above the
        // first or else by its text. A `- [ ] 3. …` box after them is the task, in its place.
        const number = sub[1]!;
        const name = above?.text ?? sub[3]!.trim();
        const orphan: Problem = {
          severity: 'warning',
          path,
          line: box.line,
          message: `Sub-task ${id} has no top-level task ${number} before it: it and the ${number}.x sub-tasks after it are read as phase ${number} ("${name}"), which has no box of its own.`,
          fix: `Add "- [ ] ${number}. Title" above it to give the phase a line of its own.`,
        };
        problems.push(orphan);
        parent = {
          phase: { number, name, line: box.line, tasks: [] },
          self: undefined,
          subs: [],
          given: 0,
          orphan,
        };
        phases.set(number, parent);
        // A box nested in it is its sub-task too.
        top = { number, indent };
      }
      seen(id, box.line);
      // The sub-tasks of an optional task are optional with it.
      parent.subs.push(task(id, parent.self?.optional));
      continue;
    }
    const topMatch = KIRO_TOP.exec(text);
    const headed = section && !topMatch ? phases.get(section.number) : undefined;
    if (headed && section) {
      // A box with no number under a numbered heading (`### Task 21: …` over `- [ ] Do X`): the
      // heading's task's sub-task, with an id no one writes (`21.a`), named once per heading;
      // under its acceptance criteria, a criterion.
      if (criteria) {
        criteria.boxes.push(box.line);
        continue;
      }
      const id = givenId(section.number, headed.given++);
      section.boxes.push(box.line);
      (section.ids ??= []).push(id);
      seen(id, box.line);
      headed.subs.push(task(id, headed.self?.optional));
      continue;
    }
    if (topMatch) {
      const headed = phases.get(topMatch[1]!);
      if (headed && !headed.self) {
        // The box of a task its heading named first: the task, in the heading's place. After
        // sub-tasks read as its phase, it takes theirs, and their warning says where it is.
        if (headed.orphan) {
          const first = headed.orphan.line!;
          Object.assign(headed.orphan, {
            message: `Sub-task ${headed.subs[0]!.id} comes before its top-level task ${topMatch[1]} (line ${box.line}).`,
            fix: `Move "- [ ] ${topMatch[1]}. …" above line ${first}.`,
          });
        }
        seen(topMatch[1]!, box.line);
        top = { number: topMatch[1]!, indent };
        headed.phase = { ...headed.phase, name: topMatch[2]!.trim(), line: box.line };
        headed.self = task(topMatch[1]!);
        continue;
      }
      if (headed) {
        const first = headed.self;
        if (
          first &&
          first.text === text &&
          first.mark === box.mark &&
          first.optional === optional
        ) {
          // The same line again (a stale copy Kiro or an edit left): read once, the copy named.
          problems.push({
            severity: 'warning',
            path,
            line: box.line,
            message: `Task ${topMatch[1]} is written again here, the same as line ${first.line}: the copy is not read.`,
            fix: 'Delete the copy.',
          });
        } else {
          problems.push(twice(path, topMatch[1]!, box.line, headed.phase, all, phases));
        }
        top = undefined;
        continue;
      }
      seen(topMatch[1]!, box.line);
      top = { number: topMatch[1]!, indent };
      phases.set(topMatch[1]!, {
        phase: { number: topMatch[1]!, name: topMatch[2]!.trim(), line: box.line, tasks: [] },
        self: task(topMatch[1]!),
        subs: [],
        given: 0,
      });
    }
  }
  // A phase's tasks are its sub-tasks; its top-level task is one of them when no sub-task is
  // required (Kiro's "implement X" with optional tests): then its own box decides.
  const list: DialectPhase[] = [];
  for (const { phase, self, subs } of phases.values()) {
    if (!self) {
      // A numbered heading with no box under it is no task (`## 1. Overview`).
      if (subs.length > 0) list.push({ ...phase, tasks: subs });
      continue;
    }
    const required = subs.filter((t) => !t.optional);
    list.push({ ...phase, tasks: required.length > 0 ? subs : [self, ...subs], self });
    // The task's own box against its sub-tasks, by which the loop reads it: said when they differ.
    const open = required.filter((t) => t.state !== 'done');
    if (required.length > 0 && (self.state === 'done') !== (open.length === 0)) {
      const ids = open.map((t) => t.id);
      problems.push({
        severity: 'warning',
        path,
        line: self.line,
        message:
          self.state === 'done'
            ? `Task ${phase.number} is checked, but its sub-tasks ${ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', ')} are not: the loop reads it by its sub-tasks, so it has work left.`
            : `Task ${phase.number} is not checked, but all its sub-tasks are: the loop reads it by its sub-tasks, as done.`,
        fix:
          self.state === 'done'
            ? `Check the sub-tasks that are done, or uncheck task ${phase.number}.`
            : `Check its box ("- [x] ${phase.number}. …").`,
      });
    }
  }
  sectionWarnings(sections, path, problems);
  if (list.length === 0 && firstBox && !problems.some((p) => p.severity === 'error')) {
    // Boxes, none of them numbered as Kiro numbers a task (`## フェーズ 1` or `### タスク 1.1` over
    // boxes with no number): said once, where the first box is, not as a plan with no task.
    const under = firstBox.heading
      ? ` (under "${'#'.repeat(firstBox.heading.depth)} ${shorten(firstBox.heading.text)}", line ${firstBox.heading.line})`
      : '';
    problems.push({
      severity: 'error',
      path,
      line: firstBox.line,
      message: `${boxes === 1 ? 'The one box of this file is' : `None of the ${boxes} boxes of this file is`} read as a task: Kiro reads a task numbered "1. Title" or a sub-task "1.1 Title", and ${boxes === 1 ? 'it' : 'the first of them'}${under} has no number.`,
      fix: 'Number the tasks: "- [ ] 1. Title" for each top-level task (or a heading "### 1. Title" over its sub-tasks), "- [ ] 1.1 Title" for each of its sub-tasks.',
    });
  }
  return finish(
    source,
    path,
    skip,
    list,
    problems,
    'Write a task as "- [ ] 1. Title" with sub-tasks "- [ ] 1.1 Title".',
    {
      marks: ' \t-~xX',
      star: "Kiro's optional mark",
      unread: 'Kiro reads a task numbered "1. Title", or a sub-task "1.1 Title"',
      named: sections.flatMap((s) => s.boxes),
    },
  );
}

/** A numbered heading's section (or a criteria sub-heading in it) and its boxes with no number. */
interface Section {
  number: string;
  /** The heading as a message quotes it, its line and level. */
  heading: string;
  line: number;
  depth: number;
  boxes: number[];
  /** The ids given the boxes (none for criteria). */
  ids?: string[];
}

/**
 * One warning for each numbered heading whose boxes with no number were read as its sub-tasks,
 * with the ids given them, and one for each criteria sub-heading in it whose boxes were not.
 */
function sectionWarnings(sections: readonly Section[], path: string, problems: Problem[]): void {
  for (const s of sections) {
    const n = s.boxes.length;
    if (n === 0) continue;
    const lines = linesNamed(s.boxes);
    const ids = s.ids;
    problems.push(
      ids
        ? {
            severity: 'warning',
            path,
            line: s.line,
            message:
              n === 1
                ? `The box under "${s.heading}" with no number of its own (${lines}) is read as a sub-task of task ${s.number}, called ${ids[0]} here.`
                : `The ${n} boxes under "${s.heading}" with no number of their own (${lines}) are read as sub-tasks of task ${s.number}, called ${ids[0]} to ${ids[n - 1]} here.`,
            fix: `Number ${n === 1 ? 'it' : 'them'} ("- [ ] ${s.number}.1 …") so that the ids are yours.`,
          }
        : {
            severity: 'warning',
            path,
            line: s.line,
            message:
              n === 1
                ? `The box under "${s.heading}" (${lines}) has no number: it is read as an acceptance criterion, not as a task of task ${s.number}.`
                : `The ${n} boxes under "${s.heading}" (${lines}) have no number: they are read as acceptance criteria, not as tasks of task ${s.number}.`,
            fix:
              n === 1
                ? `Leave it so, or number it ("- [ ] ${s.number}.1 …") if it is a task.`
                : `Leave them so, or number a box ("- [ ] ${s.number}.1 …") if it is a task.`,
          },
    );
  }
}

/** A heading's text as a message quotes it: 60 characters at most. */
const shorten = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/**
 * The error for a top-level task number written twice: when the second is under another heading
 * than the first (a new round of tasks after `## Notes` that starts its numbers again), it says
 * so; either way, the number to go on from, or that a stale copy of the line may go.
 */
function twice(
  path: string,
  number: string,
  line: number,
  first: DialectPhase,
  events: readonly { kind: string; line: number; depth?: number; text?: string }[],
  phases: ReadonlyMap<string, { phase: DialectPhase }>,
): Problem {
  const headingAbove = (at: number) => {
    let found: (typeof events)[number] | undefined;
    for (const e of events) {
      if (e.line >= at) break;
      if (e.kind === 'heading') found = e;
    }
    return found;
  };
  const mine = headingAbove(line);
  const last = Math.max(0, ...[...phases.keys()].map((n) => parseInt(n, 10) || 0));
  const again =
    mine && mine !== headingAbove(first.line)
      ? `: the tasks under "${'#'.repeat(mine.depth ?? 2)} ${(mine.text ?? '').trim()}" (line ${mine.line}) start their numbers again`
      : '';
  return {
    severity: 'error',
    path,
    line,
    message: `Task ${number} is also on line ${first.line}${again}.`,
    fix: `Number each top-level task once: go on from task ${last + 1}, or delete the line if it is a stale copy.`,
  };
}
