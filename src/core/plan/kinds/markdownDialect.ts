import type { Heading, ListItem, Nodes, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Problem } from '../../problem.js';
import { markdownLimitProblem, parseMarkdown } from '../markdown.js';
import { isNarrowTab } from '../scan.js';
import { countLineBreaks } from '../text.js';
import { scanDialect, type DialectScan } from './dialectScan.js';

/**
 * Readers and writers for the markdown plans other tools write (SPEC §2b): spec-kit's tasks.md
 * and Kiro's tasks.md. remark reads the structure; a task's mark is the one character between
 * its brackets, found from the list item's own position, so a writer changes that byte only.
 */
export type DialectState = 'todo' | 'doing' | 'done';

export interface DialectTask {
  /** `T001` (spec-kit), `1.1` (Kiro), or `<phase>.<index>` when the task names none. */
  id: string;
  text: string;
  state: DialectState;
  mark: string;
  /** Kiro's `[ ]*`: not required for the phase to complete. */
  optional: boolean;
  /** Requirement ids the task cites (`_Requirements: 1.1, 2.3_`, spec-kit's `[US1]`). */
  requirements: string[];
  line: number;
  markOffset: number;
}

export interface DialectPhase {
  /** `3`, `3.1`, `5.5` (spec-kit); the top-level task's number (Kiro). */
  number: string;
  name: string;
  line: number;
  tasks: DialectTask[];
  /**
   * Kiro: the top-level task's own box. It is one of `tasks` when the phase has no required
   * sub-task; else it is marked with them (never when it is optional).
   */
  self?: DialectTask;
}

export interface DialectPlan {
  phases: DialectPhase[];
  problems: Problem[];
}

/**
 * Where the mark of a list item's box sits, as remark-gfm reads the item: GFM's own boxes (`[ ]`,
 * `[x]`, `[X]`, `[\t]` where its tab is one column wide) from the item's `checked`, a dialect's
 * other marks (`[-]`, `[ ]*`) where the item's first paragraph starts at a bracket. `after` is the
 * rest of the box's line. The caller decides which marks and what may follow are its dialect's.
 */
function boxAt(
  source: string,
  item: ListItem,
): { offset: number; mark: string; after: string; line: number } | undefined {
  const first = item.children[0];
  if (!first || first.type !== 'paragraph') return undefined;
  const p = first.position!.start.offset!;
  let at = p;
  if (item.checked === true || item.checked === false) {
    // remark-gfm starts the paragraph after the box when text follows it: step back to its `]`.
    let i = p - 1;
    while (i >= 0) {
      const c = source[i];
      if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n' && c !== '>') break;
      i--;
    }
    if (source[i] === ']') at = i - 2;
  }
  if (source[at] !== '[' || source[at + 2] !== ']') return undefined;
  const mark = source[at + 1]!;
  if (mark === '\n' || mark === '\r' || (mark === '\t' && !isNarrowTab(source, at + 1))) {
    return undefined;
  }
  const lineEnd = source.indexOf('\n', at);
  const start = item.position!.start;
  return {
    offset: at + 1,
    mark,
    after: source.slice(at + 3, lineEnd === -1 ? source.length : lineEnd),
    line: start.line + countLineBreaks(source, start.offset!, at),
  };
}

function* walk(
  nodes: readonly RootContent[],
  depth: number,
  top: boolean,
): Generator<{ node: Nodes; depth: number; top: boolean }> {
  for (const node of nodes) {
    yield { node, depth, top };
    if (node.type === 'listItem') yield* walk(node.children, depth + 1, false);
    else if ((node.type === 'list' || node.type === 'blockquote') && 'children' in node) {
      yield* walk(node.children as RootContent[], depth, false);
    }
  }
}

const lineOf = (node: Nodes): number => node.position!.start.line;

/** A first paragraph's text without the box: what the task says. */
function itemText(item: ListItem, after: string): string {
  const first = item.children[0];
  const text = first?.type === 'paragraph' ? toString(first).split('\n')[0]! : after;
  return text.replace(/^\[.\]\*?\s*/, '').trim();
}

// A box-like bracket: empty, or one character that is not a letter or digit, or an x. `[P]` and
// `[US1]` are spec-kit labels, not boxes.
const LOOKS_LIKE_TASK =
  /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]*)?\[(?:[^\p{L}\p{N}\]\n]|[xX])?\]|\|[^\n]*\[[ xX~-]\]/u;

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** What a dialect calls a task, for the reason a lookalike line is not one. */
export interface LookalikeDialect {
  /** The marks it reads between brackets, such as `" xX"`. */
  marks: string;
  /** Whether `[ ]*` (Kiro's optional task) is a box. */
  star?: boolean;
  /** Why a box GFM reads was still not taken as a task (`it is under no "Phase N" heading`). */
  unread: string;
}

const SHOWN_MARK: Record<string, string> = { ' ': 'space', '\t': 'tab' };

// A list marker (after quote markers and indentation), the gap, the box, and what follows it.
const LIST_BOX = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])([ \t]*)\[([^\]\n]?)\](.?)/u;

/** Why a line that looks like a task is not one, and how to write it (no fix: the reader's own). */
function lookalikeReason(
  line: string,
  offset: number,
  source: string,
  dialect: LookalikeDialect,
): { why: string; fix?: string } {
  const bar = line.indexOf('|');
  const box = line.search(/\[[^\]\n]?\]/);
  if (bar !== -1 && bar < box) {
    return {
      why: 'a box in a table is not a task',
      fix: 'Write the task as a list item "- [ ] …".',
    };
  }
  const m = LIST_BOX.exec(line);
  if (!m) {
    return {
      why: 'a box that does not start a list item (inside a paragraph) is not a task',
      fix: 'Start the line with "- " to make it a list item.',
    };
  }
  const [, gap, mark, next] = m;
  if (gap === '') {
    return {
      why: 'the list marker needs a space before the box',
      fix: `Write "- [${mark === '\t' ? ' ' : mark}] …".`,
    };
  }
  const marks = [...dialect.marks].map((c) => `[${SHOWN_MARK[c] ?? c}]`).join(', ');
  if (mark === '' || !dialect.marks.includes(mark!)) {
    return {
      why: `"[${mark}]" is not a box this plan reads (it reads ${marks})`,
      fix: 'Write "[ ]" for a task to do, "[x]" for one done.',
    };
  }
  if (mark === '\t') {
    const at = offset + m[0].length - 2 - (next === '' ? 0 : 1);
    if (!isNarrowTab(source, at)) {
      return {
        why: 'the tab between the brackets spans more than one column, so GFM does not read a box',
        fix: 'Write "[ ]" with a space.',
      };
    }
  }
  if (dialect.star && next === '\\' && line[m.index + m[0].length] === '*') {
    const id = /^\*[ \t]+(\d+(?:\.\d+)*\.?)/.exec(line.slice(m.index + m[0].length))?.[1];
    return {
      why: 'the "*" after the box is escaped ("\\*"), so it is no optional mark and the box is no task',
      fix: `Write "- [${mark === '\t' ? ' ' : mark}]* ${id ? `${id} ` : ''}…": Kiro's optional mark, unescaped.`,
    };
  }
  if (
    next !== '' &&
    next !== ' ' &&
    next !== '\t' &&
    next !== '\r' &&
    !(dialect.star && next === '*')
  ) {
    return {
      why: 'the box needs a space after it',
      fix: `Write "[${mark === '\t' ? ' ' : mark}] " and then the text.`,
    };
  }
  return { why: dialect.unread };
}

/**
 * Lines that look like tasks but were not read as one (`-[ ]`, `- [?]`, `- [ ]x`, a box in a
 * table or a paragraph, a task outside every phase): one warning each, never a silent drop, with
 * why and how to write it when `dialect` says what the plan reads.
 */
export function lookalikeWarnings(
  source: string,
  path: string,
  root: Root | (() => Root | ReadonlySet<number>),
  taskLines: ReadonlySet<number>,
  fix: string,
  dialect?: LookalikeDialect,
): Problem[] {
  const lines = source.split('\n');
  const candidates: number[] = [];
  // Lines inside top-level fences are code: a cheap pass keeps remark out of the common case.
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_LINE.exec(lines[i]!);
    if (open) {
      const marker = open[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && open[2]!.trim() === '') {
        fence = undefined;
      }
      continue;
    }
    if (fence !== undefined) continue;
    if (!taskLines.has(i + 1) && LOOKS_LIKE_TASK.test(lines[i]!)) candidates.push(i);
  }
  if (candidates.length === 0) return [];
  // Only when a line looks like a task is the tree needed, to leave code and HTML alone.
  // (or the lines in code and HTML, as the line scanner found them).
  const tree = typeof root === 'function' ? root() : root;
  const skip = new Set<number>();
  if (tree instanceof Set) for (const l of tree) skip.add(l);
  else
    for (const { node } of walk((tree as Root).children, 0, true)) {
      if (node.type === 'code' || node.type === 'html') {
        for (let l = lineOf(node); l <= node.position!.end.line; l++) skip.add(l);
      }
    }
  const starts: number[] = [];
  if (dialect)
    for (let i = 0, at = 0; i < lines.length; at += lines[i]!.length + 1, i++) starts.push(at);
  const out: Problem[] = [];
  for (const i of candidates) {
    const line = i + 1;
    if (skip.has(line)) continue;
    const shown = `"${lines[i]!.trim().slice(0, 60)}"`;
    const reason = dialect ? lookalikeReason(lines[i]!, starts[i]!, source, dialect) : undefined;
    out.push({
      severity: 'warning',
      path,
      line,
      message: reason
        ? `${shown} looks like a task but is not read as one: ${reason.why}.`
        : `${shown} looks like a task but is not read as one.`,
      fix: reason?.fix ?? fix,
    });
  }
  return out;
}

export function finish(
  source: string,
  path: string,
  root: Root | (() => Root | ReadonlySet<number>),
  phases: DialectPhase[],
  problems: Problem[],
  fix: string,
  dialect: LookalikeDialect,
): DialectPlan {
  // A phase's own line (Kiro's top-level task) is read too.
  const taskLines = new Set<number>();
  for (const p of phases) {
    taskLines.add(p.line);
    for (const t of p.tasks) taskLines.add(t.line);
  }
  // A line the reader named already (a sub-task with no parent) gets no second warning.
  for (const p of problems) if (p.line !== undefined) taskLines.add(p.line);
  return {
    phases,
    problems: [...problems, ...lookalikeWarnings(source, path, root, taskLines, fix, dialect)].sort(
      (a, b) => (a.line ?? 0) - (b.line ?? 0),
    ),
  };
}

export function limitProblem(source: string, path: string): DialectPlan | undefined {
  const limit = markdownLimitProblem(source, path, 'Split the plan.');
  return limit ? { phases: [], problems: [limit] } : undefined;
}

// ---------------------------------------------------------------- spec-kit

const SPECKIT_PHASE = /^phase\s+(\d+(?:\.\d+)?)\s*(?:[:\-—–]\s*|\s+|$)(.*)$/i;
const SPECKIT_STATE: Record<string, DialectState> = {
  ' ': 'todo',
  x: 'done',
  X: 'done',
  '\t': 'todo',
};

/** A task's own id, `T` and three digits or more, then no word character (`/^T\d{3,}\b/`). */
function speckitId(text: string): string | undefined {
  if (text[0] !== 'T') return undefined;
  let end = 1;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  if (end < 4 || /\w/.test(text[end] ?? '')) return undefined;
  return text.slice(0, end);
}

/** The user stories a task cites (`[US1]`), in order. */
function storiesOf(text: string): string[] {
  const out: string[] = [];
  // `/\[(US\d+)\]/g`, without a match array per task.
  for (let at = text.indexOf('[US'); at !== -1; at = text.indexOf('[US', at + 1)) {
    let end = at + 3;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end > at + 3 && text[end] === ']') out.push(text.slice(at + 1, end));
  }
  return out;
}

/** Compares `3.1` and `5.5` as numbers: major, then minor (3 < 3.1 < 3.2 < 3.10 < 4). */
export function comparePhaseNumbers(a: string, b: string): number {
  const [a1, a2 = -1] = a.split('.').map(Number);
  const [b1, b2 = -1] = b.split('.').map(Number);
  return a1! - b1! || a2 - b2;
}

/** What the spec-kit reader takes from a document, in order: phase headings and task lines. */
export type SpeckitEvent =
  | { kind: 'heading'; depth: number; text: string; line: number }
  | { kind: 'item'; line: number; offset: number; mark: string; after: string; text: string };

export function* speckitEventsOfTree(source: string, root: Root): Generator<SpeckitEvent> {
  for (const { node, top } of walk(root.children, 0, true)) {
    if (node.type === 'heading' && top) {
      const heading = node as Heading;
      yield { kind: 'heading', depth: heading.depth, text: toString(heading), line: lineOf(node) };
      continue;
    }
    if (node.type !== 'listItem') continue;
    const box = boxAt(source, node);
    if (!box) continue;
    yield {
      kind: 'item',
      line: box.line,
      offset: box.offset,
      mark: box.mark,
      after: box.after,
      text: itemText(node, box.after),
    };
  }
}

/** spec-kit's fast path: the line scanner's reading, or undefined where remark must read. */
export function scanSpeckit(source: string): DialectScan | undefined {
  return scanDialect(source, 'speckit');
}

/** spec-kit's tasks.md: `## Phase N: …` headings, `- [ ] T001 [P] [US1] …` tasks. */
export function readSpeckit(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): DialectPlan {
  const limited = limitProblem(source, path);
  if (limited) return limited;
  const scanned = options.fast === false ? undefined : scanSpeckit(source);
  let tree: Root | undefined;
  const root = (): Root => (tree ??= parseMarkdown(source));
  const events = scanned?.events ?? speckitEventsOfTree(source, root());
  const phases: DialectPhase[] = [];
  const problems: Problem[] = [];
  // The phases open at this point, outermost first: a heading ends those of its level or deeper,
  // so the tasks after a nested `### Phase 3.1` and its `### Notes` are `## Phase 3`'s again.
  const open: { phase: DialectPhase; level: number }[] = [];
  const ids = new Map<string, number>();
  for (const event of events) {
    if (event.kind === 'heading') {
      while (open.length > 0 && open[open.length - 1]!.level >= event.depth) open.pop();
      const m = SPECKIT_PHASE.exec(event.text.trim());
      if (m) {
        const phase = { number: m[1]!, name: m[2]!.trim(), line: event.line, tasks: [] };
        open.push({ phase, level: event.depth });
        phases.push(phase);
      }
      continue;
    }
    const current = open[open.length - 1];
    if (!current) continue;
    const next = event.after[0];
    if (
      !(event.mark in SPECKIT_STATE) ||
      (next !== undefined && next !== ' ' && next !== '\t' && next !== '\r')
    ) {
      continue;
    }
    const { text } = event;
    const phase = current.phase;
    const own = speckitId(text);
    if (own !== undefined) {
      const before = ids.get(own);
      if (before !== undefined) {
        problems.push({
          severity: 'warning',
          path,
          line: event.line,
          message: `Task id ${own} is also on line ${before}.`,
          fix: 'Give each task its own id: `coder-loop mark` names a task by it.',
        });
      } else ids.set(own, event.line);
    }
    phase.tasks.push({
      id: own ?? `${phase.number}.${phase.tasks.length + 1}`,
      text,
      state: SPECKIT_STATE[event.mark]!,
      mark: event.mark,
      optional: false,
      requirements: storiesOf(text),
      line: event.line,
      markOffset: event.offset,
    });
  }
  // One phase number, several headings: the one with tasks is the phase; one without any is a
  // reference (a summary, "Dependencies & Execution Order"); two with tasks conflict.
  const byNumber = new Map<string, DialectPhase[]>();
  for (const phase of phases)
    byNumber.set(phase.number, [...(byNumber.get(phase.number) ?? []), phase]);
  const kept: DialectPhase[] = [];
  for (const [number, same] of byNumber) {
    const tasked = same.filter((p) => p.tasks.length > 0);
    const first = tasked[0] ?? same[0]!;
    for (const phase of same) {
      if (phase.tasks.length === 0 && same.length > 1) {
        problems.push({
          severity: 'warning',
          path,
          line: phase.line,
          message: `Phase ${number} is also on line ${(phase === first ? same.find((p) => p !== phase)! : first).line}; this heading holds no task, so it is read as a reference.`,
          fix: 'Leave it as it is, or name it without "Phase N" if it is no phase.',
        });
        continue;
      }
      if (phase.tasks.length > 0 && phase !== first) {
        problems.push({
          severity: 'error',
          path,
          line: phase.line,
          message: `Phase ${number} is also on line ${first.line}.`,
          fix: 'Number each phase once.',
        });
        continue;
      }
      kept.push(phase);
    }
  }
  phases.length = 0;
  phases.push(...kept);
  phases.sort((a, b) => comparePhaseNumbers(a.number, b.number));
  return finish(
    source,
    path,
    scanned ? () => scanned.skip : root,
    phases,
    problems,
    'Write a task as "- [ ] T001 Description" under a "## Phase N: Name" heading.',
    { marks: ' \txX', unread: 'it is under no "## Phase N" heading' },
  );
}

// ---------------------------------------------------------------- Kiro

const KIRO_TOP = /^(\d+)\.\s*(.*)$/;
// A sub-task keeps every level of its id (`7.3`, `7.3.1`); its phase is the first number.
const KIRO_SUB = /^(\d+)((?:\.\d+)+)\.?\s*(.*)$/;
const KIRO_STATE: Record<string, DialectState> = {
  ' ': 'todo',
  '\t': 'todo',
  '-': 'doing',
  x: 'done',
  X: 'done',
};
// `_Requirements: 1.1, 2.3_`: remark reads the underscores as emphasis, so the text has none.
const REQUIREMENTS = /Requirements?:\s*(\d[\d.,\s]*)/i;

/**
 * The first `Requirements:` line of an item, read paragraph by paragraph: the item's text as one
 * string would run a list's next line into the numbers (`2.3` then `4 notes` read as `2.34`).
 */
function requirementsOf(item: ListItem): string[] {
  const stack: Nodes[] = [item];
  while (stack.length > 0) {
    const node = stack.shift()!;
    if (node.type === 'paragraph' || node.type === 'heading') {
      const m = REQUIREMENTS.exec(toString(node));
      if (m) return m[1]!.split(/[,\s]+/).filter((r) => /^\d+(?:\.\d+)*$/.test(r));
    } else if ('children' in node) stack.unshift(...(node.children as Nodes[]));
  }
  return [];
}

/** What the Kiro reader takes from a document, in order: each list item that opens with a box. */
interface KiroEvent {
  line: number;
  offset: number;
  mark: string;
  after: string;
  /** The item's requirements (its first `Requirements:` paragraph, nested items included). */
  requirements: () => string[];
}

function* kiroEventsOfTree(source: string, root: Root): Generator<KiroEvent> {
  for (const { node } of walk(root.children, 0, true)) {
    if (node.type !== 'listItem') continue;
    const box = boxAt(source, node);
    if (!box) continue;
    yield { ...box, requirements: () => requirementsOf(node) };
  }
}

/** Kiro's fast path: the line scanner's reading, or undefined where remark must read. */
export function scanKiro(source: string): DialectScan | undefined {
  return scanDialect(source, 'kiro');
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
  const limited = limitProblem(source, path);
  if (limited) return limited;
  const scanned = options.fast === false ? undefined : scanKiro(source);
  let tree: Root | undefined;
  const root = (): Root => (tree ??= parseMarkdown(source));
  const events = scanned
    ? scanned.events.filter((e) => e.kind === 'item')
    : kiroEventsOfTree(source, root());
  const phases = new Map<string, { phase: DialectPhase; self: DialectTask; subs: DialectTask[] }>();
  const problems: Problem[] = [];
  const ids = new Map<string, number>();
  for (const box of events) {
    if (!(box.mark in KIRO_STATE)) continue;
    const optional = box.after.startsWith('*');
    const after = optional ? box.after.slice(1) : box.after;
    if (!/^(?:[ \t]|$)/.test(after)) continue;
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
    const sub = KIRO_SUB.exec(text);
    if (sub) {
      const id = `${sub[1]}${sub[2]}`;
      const parent = phases.get(sub[1]!);
      if (!parent) {
        problems.push({
          severity: 'warning',
          path,
          line: box.line,
          message: `Sub-task ${id} has no top-level task ${sub[1]} before it.`,
          fix: `Add "- [ ] ${sub[1]}. Title" above it.`,
        });
        continue;
      }
      const before = ids.get(id);
      if (before !== undefined) {
        problems.push({
          severity: 'warning',
          path,
          line: box.line,
          message: `Task id ${id} is also on line ${before}.`,
          fix: 'Give each task its own id: `coder-loop mark` names a task by it.',
        });
      } else ids.set(id, box.line);
      // The sub-tasks of an optional task are optional with it.
      parent.subs.push(task(id, parent.self.optional));
      continue;
    }
    const top = KIRO_TOP.exec(text);
    if (top) {
      if (phases.has(top[1]!)) {
        problems.push({
          severity: 'error',
          path,
          line: box.line,
          message: `Task ${top[1]} is also on line ${phases.get(top[1]!)!.phase.line}.`,
          fix: 'Number each top-level task once.',
        });
        continue;
      }
      ids.set(top[1]!, box.line);
      phases.set(top[1]!, {
        phase: { number: top[1]!, name: top[2]!.trim(), line: box.line, tasks: [] },
        self: task(top[1]!),
        subs: [],
      });
    }
  }
  // A phase's tasks are its sub-tasks; its top-level task is one of them when no sub-task is
  // required (Kiro's "implement X" with optional tests): then its own box decides.
  const list = [...phases.values()].map(({ phase, self, subs }) => ({
    ...phase,
    tasks: subs.some((t) => !t.optional) ? subs : [self, ...subs],
    self,
  }));
  return finish(
    source,
    path,
    scanned ? () => scanned.skip : root,
    list,
    problems,
    'Write a task as "- [ ] 1. Title" with sub-tasks "- [ ] 1.1 Title".',
    {
      marks: ' \t-xX',
      star: true,
      unread: 'Kiro reads a task numbered "1. Title", or a sub-task "1.1 Title"',
    },
  );
}

// ---------------------------------------------------------------- both

/** Whether a phase is finished: every required task done (Kiro's optional tasks may stay open). */
export function dialectPhaseFinished(phase: DialectPhase): boolean {
  return phase.tasks.every((t) => t.state === 'done' || t.optional);
}

export function currentDialectPhase(plan: DialectPlan): DialectPhase | undefined {
  return plan.phases.find((p) => !dialectPhaseFinished(p));
}

/** The marks each tool writes itself (`[ ]` reopens a task): spec-kit has no in-progress mark. */
const DIALECT_MARKS = {
  speckit: { todo: ' ', doing: undefined, done: 'X' },
  kiro: { todo: ' ', doing: '-', done: 'x' },
  openspec: { todo: ' ', doing: undefined, done: 'x' },
} as const;

export class StaleDialectError extends Error {
  constructor(readonly task: DialectTask) {
    super(
      `Task ${task.id} on line ${task.line} no longer reads "[${task.mark}]"; read tasks.md again.`,
    );
    this.name = 'StaleDialectError';
  }
}

/** Writes tasks' marks in the kind's own dialect: one byte per task, every other byte kept. */
export function setDialectStates(
  source: string,
  kind: keyof typeof DIALECT_MARKS,
  tasks: readonly DialectTask[],
  state: DialectState,
): string {
  const mark = DIALECT_MARKS[kind][state];
  if (mark === undefined) return source;
  const changed = tasks.filter(
    (t) => t.state !== state && !(t.state === 'done' && state === 'doing'),
  );
  for (const t of changed) {
    if (
      source[t.markOffset - 1] !== '[' ||
      source[t.markOffset] !== t.mark ||
      source[t.markOffset + 1] !== ']'
    ) {
      throw new StaleDialectError(t);
    }
  }
  const sorted = [...changed].sort((a, b) => a.markOffset - b.markOffset);
  const parts: string[] = [];
  let from = 0;
  for (const t of sorted) {
    parts.push(source.slice(from, t.markOffset), mark);
    from = t.markOffset + 1;
  }
  parts.push(source.slice(from));
  return parts.join('');
}
