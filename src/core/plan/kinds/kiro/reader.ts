import type { Root } from 'mdast';
import type { Problem } from '../../../problem.js';
import { isNotTasksHeading } from '../../criteriaWords.js';
import {
  scanDialect,
  type DialectScan,
  type ScanMode,
  type ScannedHeading,
  type ScannedItem,
} from '../dialectScan.js';
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
  /^(?:[Tt][Aa][Ss][Kk]|タスク)\s*(\d+[A-Za-z]?)(?:\.(?!\d)|\s*[:：\-–—]|(?=\s|$))\s*(.*)$/;
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
  const problems: Problem[] = [];
  const r: Reading = {
    path,
    all,
    phases: new Map(),
    problems,
    seen: taskIds(path, problems),
    top: undefined,
    headingAbove: undefined,
    nearest: undefined,
    boxes: 0,
    firstBox: undefined,
    sections: [],
    section: undefined,
    criteria: undefined,
  };
  // The loop a first read runs interpreted, where each function and pattern first run costs a
  // compilation: what most files need is here, a box or a heading of a rarer shape (and each
  // warning) in a function of its own, compiled only for a file that has one.
  for (const box of all) {
    if (box.kind === 'heading') {
      const text = box.text.trim();
      r.nearest = { depth: box.depth, text, line: box.line };
      const numbered = box.depth > 1 ? numberedHeading(text) : null;
      r.headingAbove = box.depth > 1 && !numbered ? { text, line: box.line } : undefined;
      if (r.criteria && r.criteria.depth >= box.depth) r.criteria = undefined;
      if (r.section && (numbered || r.section.depth >= box.depth))
        r.section = r.criteria = undefined;
      if (numbered || r.section) sectionHeading(r, box, text, numbered);
      continue;
    }
    const above = r.headingAbove;
    r.headingAbove = undefined;
    if (!(box.mark in KIRO_STATE)) continue;
    // `[ ]*` is Kiro's optional mark; `[ ]\*` is the same mark a formatter escaped.
    const star = box.after.startsWith('*') ? 1 : box.after.startsWith('\\*') ? 2 : 0;
    const after = star > 0 ? box.after.slice(star) : box.after;
    // `/^(?:[ \t]|$)/`, without a pattern run per task.
    if (after !== '' && after[0] !== ' ' && after[0] !== '\t') continue;
    r.boxes++;
    r.firstBox ??= { line: box.line, heading: r.nearest };
    const text = after.trim();
    const optional = star > 0;
    const indent = indentOf(source, box.offset - 2);
    const sub = KIRO_SUB.exec(text);
    const top = r.top;
    const nested = top !== undefined && indent > top.indent ? r.phases.get(top.number) : undefined;
    if (nested && top) {
      // A sub-task by nesting: its written id (`2.1` under `3.` too), or one given it.
      const id = sub ? `${sub[1]}${sub[2]}` : unnumberedSub(r, top.number, nested, box.line);
      r.seen(id, box.line);
      nested.subs.push(kiroTask(box, text, optional, id, nested.self?.optional));
      continue;
    }
    if (sub) {
      const id = `${sub[1]}${sub[2]}`;
      const parent = r.phases.get(sub[1]!) ?? orphanPhase(r, box.line, id, sub, above, indent);
      r.seen(id, box.line);
      // The sub-tasks of an optional task are optional with it.
      parent.subs.push(kiroTask(box, text, optional, id, parent.self?.optional));
      continue;
    }
    const topMatch = KIRO_TOP.exec(text);
    if (!topMatch) {
      if (r.section) sectionBox(r, r.section, box, text, optional);
      continue;
    }
    const number = topMatch[1]!;
    if (r.phases.has(number)) {
      headedBox(r, box, text, optional, topMatch, indent);
      continue;
    }
    r.seen(number, box.line);
    r.top = { number, indent };
    r.phases.set(number, {
      phase: { number, name: topMatch[2]!.trim(), line: box.line, tasks: [] },
      self: kiroTask(box, text, optional, number),
      subs: [],
      given: 0,
    });
  }
  return endKiro(source, skip, r);
}

/** What `readKiro` knows as it goes through a file's headings and boxes. */
interface Reading {
  path: string;
  all: readonly (ScannedHeading | ScannedItem)[];
  // `given`: the ids given its boxes with no number so far; `orphan`: the warning of sub-tasks
  // read as a phase with no top-level task before them.
  phases: Map<string, KiroPhase>;
  problems: Problem[];
  seen: (id: string, line: number) => void;
  // The top-level task the lines below sit in, and its column: a box indented past it is one of
  // its sub-tasks, whatever number it is written with (Kiro nests them).
  top: { number: string; indent: number } | undefined;
  // The heading right above the box at hand (no box between), which may name a phase.
  headingAbove: { text: string; line: number } | undefined;
  // The nearest heading above, and the boxes seen with the first of them: what an error names
  // when no box is read as a task.
  nearest: { depth: number; text: string; line: number } | undefined;
  boxes: number;
  firstBox: { line: number; heading: Reading['nearest'] } | undefined;
  // The section of a numbered heading (`### Task 21: …`) the box at hand is in, and the boxes
  // with no number read in it; and the criteria sub-heading inside it (`#### Acceptance
  // Criteria`) whose unnumbered boxes are no tasks.
  sections: Section[];
  section: Section | undefined;
  criteria: Section | undefined;
}

interface KiroPhase {
  phase: DialectPhase;
  self: DialectTask | undefined;
  subs: DialectTask[];
  given: number;
  orphan?: Problem;
}

/** A box's task, with the id it is read by. */
function kiroTask(
  box: ScannedItem,
  text: string,
  optional: boolean,
  id: string,
  inOptional = false,
): DialectTask {
  return {
    id,
    text,
    state: KIRO_STATE[box.mark]!,
    mark: box.mark,
    optional: optional || inOptional,
    requirements: box.requirements(),
    line: box.line,
    markOffset: box.offset,
  };
}

/**
 * A numbered heading (`### 1. Setup`, as cc-sdd's plans group tasks, or `### Task 1: Setup`): a
 * top-level task with no box of its own, whose `1.1 …` boxes are its sub-tasks. A box `- [ ] 1. …`
 * for the same number is the task itself, and takes the heading's place. Its patterns are run
 * only on a heading that opens as one may (a digit; `Task` or `タスク`, then a digit after white
 * space).
 */
function numberedHeading(text: string): RegExpExecArray | null {
  const c = text.charCodeAt(0);
  if (c >= 48 && c <= 57) return KIRO_TOP.exec(text);
  let at: number;
  if ((c | 32) === 116 /* t */ && text.slice(0, 4).toLowerCase() === 'task') at = 4;
  else if (text.startsWith('タスク')) at = 3;
  else return null;
  // ASCII's white space passed over; a character beyond ASCII may be white space to `\s` too.
  let d = text.charCodeAt(at);
  while (d === 32 || (d >= 9 && d <= 13)) d = text.charCodeAt(++at);
  return (d >= 48 && d <= 57) || d >= 128 ? KIRO_TASK_HEADING.exec(text) : null;
}

/**
 * A numbered heading's section (its phase, and the boxes with no number under it), or a criteria
 * sub-heading inside such a section.
 */
function sectionHeading(
  r: Reading,
  box: ScannedHeading,
  text: string,
  numbered: RegExpExecArray | null,
): void {
  // Not a sub-task's number (`### 0.1 Create …`, which KIRO_TOP reads as `0.` and `1 Create`):
  // its boxes stay unread, as under any heading that is no top-level task's.
  if (numbered && !KIRO_SUB.test(text)) {
    r.section = {
      number: numbered[1]!,
      heading: quoted(box.depth, text),
      line: box.line,
      depth: box.depth,
      boxes: [],
    };
    r.sections.push(r.section);
  } else if (r.section && isNotTasksHeading(text)) {
    r.criteria = {
      number: r.section.number,
      heading: quoted(box.depth, text),
      line: box.line,
      depth: box.depth,
      boxes: [],
    };
    r.sections.push(r.criteria);
  }
  if (numbered && !r.phases.has(numbered[1]!)) {
    r.top = undefined;
    r.phases.set(numbered[1]!, {
      phase: { number: numbered[1]!, name: numbered[2]!.trim(), line: box.line, tasks: [] },
      self: undefined,
      subs: [],
      given: 0,
    });
  }
}

/** A box with no number nested in top-level task `number`: the id given it, and a warning. */
function unnumberedSub(r: Reading, number: string, nested: KiroPhase, line: number): string {
  const id = givenId(number, nested.given++);
  r.problems.push({
    severity: 'warning',
    path: r.path,
    line,
    message: `This box has no number of its own: it is read as a sub-task of task ${number}, called ${id} here.`,
    fix: `Number it (e.g. "${number}.${nested.subs.length + 1} …") so that the id is yours.`,
  });
  return id;
}

/**
 * Sub-tasks with no top-level task before them (Kiro shows and runs them all the same): a phase
 * of their own, in file order, with no box, named by a heading right above the first or else by
 * its text. A `- [ ] 3. …` box after them is the task, in its place.
 */
function orphanPhase(
  r: Reading,
  line: number,
  id: string,
  sub: RegExpExecArray,
  above: Reading['headingAbove'],
  indent: number,
): KiroPhase {
  const number = sub[1]!;
  const name = above?.text ?? sub[3]!.trim();
  const orphan: Problem = {
    severity: 'warning',
    path: r.path,
    line,
    message: `Sub-task ${id} has no top-level task ${number} before it: it and the ${number}.x sub-tasks after it are read as phase ${number} ("${name}"), which has no box of its own.`,
    fix: `Add "- [ ] ${number}. Title" above it to give the phase a line of its own.`,
  };
  r.problems.push(orphan);
  const parent: KiroPhase = {
    phase: { number, name, line, tasks: [] },
    self: undefined,
    subs: [],
    given: 0,
    orphan,
  };
  r.phases.set(number, parent);
  // A box nested in it is its sub-task too.
  r.top = { number, indent };
  return parent;
}

/**
 * A box with no number under a numbered heading (`### Task 21: …` over `- [ ] Do X`): the
 * heading's task's sub-task, with an id no one writes (`21.a`), named once per heading; under its
 * acceptance criteria, a criterion.
 */
function sectionBox(
  r: Reading,
  section: Section,
  box: ScannedItem,
  text: string,
  optional: boolean,
): void {
  const headed = r.phases.get(section.number);
  if (!headed) return;
  if (r.criteria) {
    r.criteria.boxes.push(box.line);
    return;
  }
  const id = givenId(section.number, headed.given++);
  section.boxes.push(box.line);
  (section.ids ??= []).push(id);
  r.seen(id, box.line);
  headed.subs.push(kiroTask(box, text, optional, id, headed.self?.optional));
}

/** A top-level task's box (`- [ ] 1. Title`) whose number has a phase already. */
function headedBox(
  r: Reading,
  box: ScannedItem,
  text: string,
  optional: boolean,
  topMatch: RegExpExecArray,
  indent: number,
): void {
  const number = topMatch[1]!;
  const headed = r.phases.get(number)!;
  if (!headed.self) {
    // The box of a task its heading named first: the task, in the heading's place. After
    // sub-tasks read as its phase, it takes theirs, and their warning says where it is.
    if (headed.orphan) {
      const first = headed.orphan.line!;
      Object.assign(headed.orphan, {
        message: `Sub-task ${headed.subs[0]!.id} comes before its top-level task ${number} (line ${box.line}).`,
        fix: `Move "- [ ] ${number}. …" above line ${first}.`,
      });
    }
    r.seen(number, box.line);
    r.top = { number, indent };
    headed.phase = { ...headed.phase, name: topMatch[2]!.trim(), line: box.line };
    headed.self = kiroTask(box, text, optional, number);
    return;
  }
  const first = headed.self;
  if (first.text === text && first.mark === box.mark && first.optional === optional) {
    // The same line again (a stale copy Kiro or an edit left): read once, the copy named.
    r.problems.push({
      severity: 'warning',
      path: r.path,
      line: box.line,
      message: `Task ${number} is written again here, the same as line ${first.line}: the copy is not read.`,
      fix: 'Delete the copy.',
    });
  } else {
    r.problems.push(twice(r.path, number, box.line, headed.phase, r.all, r.phases));
  }
  r.top = undefined;
}

/**
 * The phases in file order: a phase's tasks are its sub-tasks; its top-level task is one of them
 * when no sub-task is required (Kiro's "implement X" with optional tests): then its own box
 * decides.
 */
function endKiro(source: string, skip: () => Root | ReadonlySet<number>, r: Reading): DialectPlan {
  const { path, problems } = r;
  const list: DialectPhase[] = [];
  for (const { phase, self, subs } of r.phases.values()) {
    if (!self) {
      // A numbered heading with no box under it is no task (`## 1. Overview`).
      if (subs.length > 0) list.push({ ...phase, tasks: subs });
      continue;
    }
    const required = subs.filter((t) => !t.optional);
    list.push({ ...phase, tasks: required.length > 0 ? subs : [self, ...subs], self });
    // The task's own box against its sub-tasks, by which the loop reads it: said when they differ.
    const open = required.filter((t) => t.state !== 'done');
    if (required.length > 0 && (self.state === 'done') !== (open.length === 0))
      problems.push(selfAgainstSubs(path, phase.number, self, open));
  }
  sectionWarnings(r.sections, path, problems);
  if (list.length === 0 && r.firstBox && !problems.some((p) => p.severity === 'error'))
    problems.push(noNumberedBox(path, r.firstBox, r.boxes));
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
      named: r.sections.flatMap((s) => s.boxes),
    },
  );
}

/** The warning for a task's own box against its required sub-tasks', where the two differ. */
function selfAgainstSubs(
  path: string,
  number: string,
  self: DialectTask,
  open: readonly DialectTask[],
): Problem {
  const ids = open.map((t) => t.id);
  return {
    severity: 'warning',
    path,
    line: self.line,
    message:
      self.state === 'done'
        ? `Task ${number} is checked, but its sub-tasks ${ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', ')} are not: the loop reads it by its sub-tasks, so it has work left.`
        : `Task ${number} is not checked, but all its sub-tasks are: the loop reads it by its sub-tasks, as done.`,
    fix:
      self.state === 'done'
        ? `Check the sub-tasks that are done, or uncheck task ${number}.`
        : `Check its box ("- [x] ${number}. …").`,
  };
}

/**
 * Boxes, none of them numbered as Kiro numbers a task (`## フェーズ 1` or `### タスク 1.1` over
 * boxes with no number): said once, where the first box is, not as a plan with no task.
 */
function noNumberedBox(
  path: string,
  firstBox: NonNullable<Reading['firstBox']>,
  boxes: number,
): Problem {
  const heading = firstBox.heading;
  const under = heading
    ? ` (under "${quoted(heading.depth, heading.text)}", line ${heading.line})`
    : '';
  return {
    severity: 'error',
    path,
    line: firstBox.line,
    message: `${boxes === 1 ? 'The one box of this file is' : `None of the ${boxes} boxes of this file is`} read as a task: Kiro reads a task numbered "1. Title" or a sub-task "1.1 Title", and ${boxes === 1 ? 'it' : 'the first of them'}${under} has no number.`,
    fix: 'Number the tasks: "- [ ] 1. Title" for each top-level task (or a heading "### 1. Title" over its sub-tasks), "- [ ] 1.1 Title" for each of its sub-tasks.',
  };
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

/** A heading as a message quotes it: its level and text, 60 characters of text at most. */
const quoted = (depth: number, text: string) =>
  `${'#'.repeat(depth)} ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`;

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
