import type { Heading, ListItem, Nodes, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Problem } from '../../problem.js';
import {
  boxStart,
  endsClosed,
  markdownLimitProblem,
  MAX_GROWTH,
  mayDefine,
  opensUnclosedFrontMatter,
  parseMarkdown,
  parseSegment,
  segmentCuts,
  shiftTree,
} from '../markdown.js';
import { isNarrowTab } from '../scan.js';
import { countLineBreaks } from '../text.js';
import {
  REQUIREMENTS,
  requirementIds,
  scanDialect,
  scanOrRefuse,
  type DialectScan,
  type ScannedHeading,
  type ScannedItem,
  type ScanMode,
} from './dialectScan.js';

/**
 * What the readers of the markdown plans other tools write share (each in its kind's folder,
 * `kinds/<kind>/reader.ts`): their phases and tasks, the boxes remark reads, the lines that look
 * like tasks but are not, and the writer of their marks. remark reads the structure; a
 * task's mark is the one character between its brackets, found from the list item's own
 * position, so a writer changes that byte only.
 */
export type DialectState = 'todo' | 'doing' | 'done';

export interface DialectTask {
  /** The id the task writes (`T001`, `1.1`), or one the reader gives it when it names none. */
  id: string;
  text: string;
  state: DialectState;
  mark: string;
  /** Marked optional (`[ ]*`): not required for the phase to complete. */
  optional: boolean;
  /** Requirement ids the task cites (`_Requirements: 1.1, 2.3_`, a user story's `[US1]`). */
  requirements: string[];
  line: number;
  markOffset: number;
}

export interface DialectPhase {
  /** `3`, `3.1`, `5.5`: the heading's number, or the top-level task's. */
  number: string;
  name: string;
  line: number;
  tasks: DialectTask[];
  /**
   * A phase that is a top-level task: its own box. It is one of `tasks` when the phase has no required
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
export function boxAt(
  source: string,
  item: ListItem,
): { offset: number; mark: string; after: string; line: number } | undefined {
  const at = boxStart(source, item);
  if (at === undefined) return undefined;
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

/**
 * A task's text as its file writes it: the rest of the box's line, trimmed, inline markup kept
 * (`~~struck~~`, `` `code` ``, `**T001**`); where nothing follows the box on its line, `plain`,
 * the paragraph's text. Ids and cited stories are read from `plain` (mdast's text), as the tools
 * read them.
 */
export function writtenTaskText(after: string, plain: string): string {
  return after.trim() || plain;
}

/** A first paragraph's text without the box: what the task says. */
function itemText(item: ListItem, after: string): string {
  const first = item.children[0];
  const text = first?.type === 'paragraph' ? toString(first).split('\n')[0]! : after;
  return text.replace(/^\[.\]\*?\s*/, '').trim();
}

// A line that looks like a task: from its start (a line is what ends at a line feed), quote and
// list markers, then a box-like bracket: empty, or one character that is not a letter or digit,
// or an x (`[P]` and `[US1]` are labels, not boxes); or a box in a table row. The search takes
// any one character (a surrogate pair is one) and `boxLike` leaves out letters and digits: the
// pattern with `\p{L}` and `\p{N}` in it cost a first read about half a millisecond to compile.
// It runs from a line feed (a line starts after one): a search that tries only at a line feed or a
// `|` takes about half the time of a look-behind at every position.
const LOOKS_LIKE_TASK =
  /\n[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]*)?\[(?:[\ud800-\udbff][\udc00-\udfff]|[^\]\n])?\]|\|[^\n]*\[[ xX~-]\]/g;
// The same at the start of the source, for its first line (no line feed before it: the source is
// searched as it is, not copied after one).
const LOOKS_LIKE_TASK_FIRST = new RegExp(LOOKS_LIKE_TASK.source.slice(2), 'y');
/** Whether a line opening with character `c` may match LOOKS_LIKE_TASK's list alternative. */
const mayLookLikeAtFirst = (c: number) =>
  c === 32 ||
  c === 9 ||
  c === 62 ||
  c === 45 ||
  c === 42 ||
  c === 43 ||
  c === 91 ||
  (c >= 48 && c <= 57);
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * Whether a LOOKS_LIKE_TASK match holds a box-like bracket: a table row's box, or a bracket that
 * is empty or holds one character other than a letter or digit (`x` and `X` aside). A letter or
 * digit beyond ASCII is told by LETTER_OR_DIGIT, compiled only for a file that has one.
 */
function boxLike(match: string): boolean {
  if (match.charCodeAt(0) === 124 /* | */) return true;
  const open = match.lastIndexOf('[');
  const inside = match.slice(open + 1, -1);
  if (inside === '') return true;
  const c = inside.charCodeAt(0);
  if (c < 0x80) {
    if (c === 120 || c === 88) return true; // x, X
    const lower = c | 32;
    return !((lower >= 97 && lower <= 122) || (c >= 48 && c <= 57));
  }
  return !LETTER_OR_DIGIT.test(inside);
}

// A line that opens or closes fenced code (`.` and `$` as on a line alone: no carriage return).
const FENCE_LINE = /(?<![^\n]) {0,3}(`{3,}|~{3,})([^\n\r\u2028\u2029]*)(?![^\n])/g;

/** What a dialect calls a task, for the reason a lookalike line is not one. */
export interface LookalikeDialect {
  /** The marks it reads between brackets, such as `" xX"`. */
  marks: string;
  /** What the dialect calls `[ ]*`, a box marking an optional task, when it reads one. */
  star?: string;
  /**
   * Why a box GFM reads was still not taken as a task (`it is under no "Phase N" heading`), or
   * the reason for the box on a line (1-based), with its fix when the reader knows one.
   */
  unread: string | ((line: number) => { why: string; fix?: string });
  /**
   * Lines of boxes the reader read as something other than a task and named already, in a
   * warning of their own (acceptance criteria, under their heading's line): no warning each.
   */
  named?: readonly number[];
}

const SHOWN_MARK: Record<string, string> = { ' ': 'space', '\t': 'tab' };

// A bracket that may be a box: empty, or one character.
const BRACKET_BOX = /\[[^\]\n]?\]/;

// A list marker (after quote markers and indentation), the gap, the box, and what follows it.
const LIST_BOX = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])([ \t]*)\[([^\]\n]?)\](.?)/u;

/**
 * Why a line that looks like a task is not one, and how to write it (no fix: the reader's own):
 * `line` is its text, `offset` where it starts, `number` its number (1-based).
 */
function lookalikeReason(
  line: string,
  offset: number,
  number: number,
  source: string,
  dialect: LookalikeDialect,
): { why: string; fix?: string } {
  const bar = line.indexOf('|');
  if (bar !== -1 && bar < line.search(BRACKET_BOX)) {
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
  if (mark === '' || !dialect.marks.includes(mark!)) {
    const marks = [...dialect.marks].map((c) => `[${SHOWN_MARK[c] ?? c}]`).join(', ');
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
  if (dialect.star !== undefined && next === '\\' && line[m.index + m[0].length] === '*') {
    const id = /^\*[ \t]+(\d+(?:\.\d+)*\.?)/.exec(line.slice(m.index + m[0].length))?.[1];
    return {
      why: 'the "*" after the box is escaped ("\\*"), so it is no optional mark and the box is no task',
      fix: `Write "- [${mark === '\t' ? ' ' : mark}]* ${id ? `${id} ` : ''}…": ${dialect.star}, unescaped.`,
    };
  }
  if (
    next !== '' &&
    next !== ' ' &&
    next !== '\t' &&
    next !== '\r' &&
    !(dialect.star !== undefined && next === '*')
  ) {
    return {
      why: 'the box needs a space after it',
      fix: `Write "[${mark === '\t' ? ' ' : mark}] " and then the text.`,
    };
  }
  return typeof dialect.unread === 'string' ? { why: dialect.unread } : dialect.unread(number);
}

/**
 * The lines (0-based) that look like tasks (LOOKS_LIKE_TASK) and are not in `taskLines`, with
 * the offset each starts at, leaving out those inside top-level fences — a cheap pass that keeps
 * remark out of the common case. Two searches over the whole source, not two per line, and the
 * line feeds between two candidates counted by `indexOf` (no copy of the text between them: a
 * file of lookalike lines one after another makes one candidate a line). A line read as a task
 * (`taskStarts`, by the offset it starts at) is passed over with the lines read as tasks right
 * after it, the search going on after the last: what a match inside them would find is passed
 * over anyway, and a run of tasks costs one match, not one each.
 */
function lookalikeLines(
  source: string,
  taskLines: ReadonlySet<number>,
  taskStarts?: ReadonlyMap<number, number>,
): { lines: number[]; starts: number[] } {
  const lines: number[] = [];
  const starts: number[] = [];
  let fence: string | undefined;
  // The next fence line's offset, and the line and offset counted up to.
  FENCE_LINE.lastIndex = 0;
  let fenceMatch = FENCE_LINE.exec(source);
  let line = 0;
  let counted = 0;
  const lineAt = (offset: number): number => {
    if (offset > counted) {
      // The line feeds between, found one by one: no copy of the text between.
      for (let at = source.indexOf('\n', counted); at !== -1 && at < offset;) {
        line++;
        at = source.indexOf('\n', at + 1);
      }
      counted = offset;
    }
    return line;
  };
  // The starts of the lines read as tasks, in order, and the next one a match may be at.
  const known = taskStarts ? Float64Array.from(taskStarts.keys()).sort() : new Float64Array(0);
  let next = 0;
  let last = -1;
  LOOKS_LIKE_TASK.lastIndex = 0;
  LOOKS_LIKE_TASK_FIRST.lastIndex = 0;
  // (Most files open with a heading: a first line opening with no character the list's
  // alternative may open with needs no search, its `|` found by the search from line feeds.)
  const atFirst = mayLookLikeAtFirst(source.charCodeAt(0))
    ? LOOKS_LIKE_TASK_FIRST.exec(source)
    : null;
  for (let m = atFirst ?? LOOKS_LIKE_TASK.exec(source); m; m = LOOKS_LIKE_TASK.exec(source)) {
    // A letter or digit between the brackets is a label, not a box: no other match of the search
    // starts inside this one (it holds no line feed and no `|`).
    if (!boxLike(m[0])) continue;
    // The first line's match starts it; one at a line feed starts at the line after it; one at a
    // `|`, inside its line.
    const start =
      m === atFirst
        ? 0
        : m[0].charCodeAt(0) === 10
          ? m.index + 1
          : source.lastIndexOf('\n', m.index) + 1;
    while (next < known.length && known[next]! < start) next++;
    if (next < known.length && known[next] === start) {
      // A line read as a task (most candidates), and those right after it: passed, the number of
      // the last known without a count of the lines before it, and counted from there on.
      let end = source.indexOf('\n', start);
      while (end !== -1 && known[next + 1] === end + 1) {
        next++;
        end = source.indexOf('\n', end + 1);
      }
      const at = known[next]!;
      const number = taskStarts!.get(at)!;
      if (at > counted) {
        line = number - 1;
        counted = at;
      }
      last = number - 1;
      if (end === -1) break;
      LOOKS_LIKE_TASK.lastIndex = end; // at the line feed that ends the last
      continue;
    }
    // Fence lines before this line open and close the fences around it.
    while (fenceMatch && fenceMatch.index < start) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        fenceMatch[2]!.trim() === ''
      ) {
        fence = undefined;
      }
      fenceMatch = FENCE_LINE.exec(source);
    }
    if (fenceMatch?.index === start) continue; // a fence line itself is no candidate
    if (fence !== undefined) continue;
    const l = lineAt(start);
    if (l === last) continue;
    last = l;
    if (!taskLines.has(l + 1)) {
      lines.push(l);
      starts.push(start);
    }
  }
  return { lines, starts };
}

/** Adds the lines of `root`'s code and HTML (never tasks) to `lines`. */
export function addCodeLines(root: Root, lines: Set<number>): void {
  for (const { node } of walk(root.children, 0, true)) {
    if (node.type === 'code' || node.type === 'html') {
      // Code a list item's end closes ends at the start of the next line: that line is not code.
      const end = node.position!.end;
      const last = end.column === 1 && end.line > lineOf(node) ? end.line - 1 : end.line;
      for (let l = lineOf(node); l <= last; l++) lines.add(l);
    }
  }
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
  taskStarts?: ReadonlyMap<number, number>,
): Problem[] {
  const candidates = lookalikeLines(source, taskLines, taskStarts);
  if (candidates.lines.length === 0) return [];
  // Only when a line looks like a task is the tree needed, to leave code and HTML alone.
  // (or the lines in code and HTML, as the line scanner found them).
  const tree = typeof root === 'function' ? root() : root;
  let skip: ReadonlySet<number>;
  if (tree instanceof Set) skip = tree;
  else {
    const lines = new Set<number>();
    addCodeLines(tree as Root, lines);
    skip = lines;
  }
  const out: Problem[] = [];
  for (let c = 0; c < candidates.lines.length; c++) {
    const line = candidates.lines[c]! + 1;
    if (skip.has(line)) continue;
    // The line's text, from the offset it starts at (no split of the whole source, no count of
    // the lines before it).
    const start = candidates.starts[c]!;
    const lineEnd = source.indexOf('\n', start);
    const text = source.slice(start, lineEnd === -1 ? source.length : lineEnd);
    const shown = `"${text.trim().slice(0, 60)}"`;
    const reason = dialect ? lookalikeReason(text, start, line, source, dialect) : undefined;
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
  // A phase's own line (a top-level task that is a phase) is read too.
  const taskLines = new Set<number>();
  // Where each task's line starts, and its number: the lookalike pass knows these lines by it.
  const taskStarts = new Map<number, number>();
  const read = (t: DialectTask) => {
    taskLines.add(t.line);
    taskStarts.set(source.lastIndexOf('\n', t.markOffset) + 1, t.line);
  };
  for (const p of phases) {
    taskLines.add(p.line);
    if (p.self) read(p.self);
    const tasks = p.tasks;
    for (let t = 0; t < tasks.length; t++) read(tasks[t]!);
  }
  // A line the reader named already (a sub-task with no parent) gets no second warning.
  for (const p of problems) if (p.line !== undefined) taskLines.add(p.line);
  for (const line of dialect.named ?? []) taskLines.add(line);
  return {
    phases,
    problems: [
      ...problems,
      ...lookalikeWarnings(source, path, root, taskLines, fix, dialect, taskStarts),
    ].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
  };
}

function limitProblem(source: string, path: string): DialectPlan | undefined {
  const limit = markdownLimitProblem(source, path, 'Split the plan.');
  return limit ? { phases: [], problems: [limit] } : undefined;
}

/**
 * The first `Requirements:` line of an item in remark's tree (`_Requirements: 1.1, 2.3_`: remark
 * reads the underscores as emphasis, so the text has none), in another language's word too
 * (`_Требования: 1.1_`: REQUIREMENTS, the scanner's pattern), read paragraph by paragraph: the
 * item's text as one string would run a list's next line into the numbers (`2.3` then `4 notes`
 * read as `2.34`). What the line scanner reads as an item's requirements (`ScanMode`).
 */
function itemRequirements(item: ListItem): string[] {
  const stack: Nodes[] = [item];
  while (stack.length > 0) {
    const node = stack.shift()!;
    if (node.type === 'paragraph' || node.type === 'heading') {
      const m = REQUIREMENTS.exec(toString(node));
      if (m) return requirementIds(m[1]!);
    } else if ('children' in node) stack.unshift(...(node.children as Nodes[]));
  }
  return [];
}

/**
 * A heading's text as the file writes it, markup kept (`1. \`code\``): what the line scanner
 * reads as a heading's text where `ScanMode.taskText` is off.
 */
function writtenHeadingText(source: string, heading: Heading): string {
  const first = heading.children[0];
  const last = heading.children.at(-1);
  if (!first || !last) return '';
  return source.slice(first.position!.start.offset, last.position!.end.offset);
}

/**
 * What the line scanner reads in `mode` (`DialectScan`'s events), read from remark's tree instead:
 * the top-level headings (their mdast text) and every list item that opens with a box.
 */
export function* treeEvents(
  source: string,
  root: Root,
  mode: ScanMode,
): Generator<ScannedHeading | ScannedItem> {
  for (const { node, top } of walk(root.children, 0, true)) {
    if (node.type === 'heading' && top) {
      const heading = node as Heading;
      const text = mode.taskText ? toString(heading) : writtenHeadingText(source, heading);
      yield { kind: 'heading', depth: heading.depth, text, line: lineOf(node) };
      continue;
    }
    if (node.type !== 'listItem') continue;
    const box = boxAt(source, node);
    if (!box) continue;
    yield {
      kind: 'item',
      ...box,
      text: mode.taskText ? itemText(node, box.after) : '',
      requirements: mode.requirements ? () => itemRequirements(node) : () => [],
    };
  }
}

/** A document read in pieces: the scanner's reading and what remark read of it. */
export interface SegmentedScan {
  scan: DialectScan;
  /** The pieces, and those remark read, with the line each starts on and why the scanner left it. */
  segments: number;
  byRemark: { line: number; refused: string }[];
}

/**
 * A document the line scanner refused as a whole, read in pieces: cut before column-0 ATX
 * headings (`segmentCuts`), each piece the scanner reads is read by it, any other by remark,
 * grown to the next cut until its tree provably ends closed (`endsClosed`), so that every
 * piece starts afresh in the whole document too. One table or HTML block sends its own
 * phase to remark, not the plan. Undefined for a document that may define a link (`mayDefine`):
 * a definition counts for the whole document, so remark reads it whole.
 */
export function scanSegments(source: string, mode: ScanMode): SegmentedScan | undefined {
  if (mayDefine(source)) return undefined;
  const events: (ScannedHeading | ScannedItem)[] = [];
  const skip = new Set<number>();
  const byRemark: SegmentedScan['byRemark'] = [];
  const segments = readInPieces(source, mode, {
    scanned(scan, from, before) {
      for (const event of scan.events) {
        event.line += before;
        if (event.kind === 'item') event.offset += from;
        events.push(event);
      }
      for (const line of scan.skip) skip.add(line + before);
      return true;
    },
    refused: (line, refused) => byRemark.push({ line, refused }),
    tree(root) {
      for (const event of treeEvents(source, root, mode)) events.push(event);
      addCodeLines(root, skip);
      return true;
    },
  }).length;
  return { scan: { events, skip }, segments, byRemark };
}

/**
 * The pieces of a document, cut before column-0 ATX headings (`segmentCuts`), each read by
 * `read.scanned` where the line scanner reads it and gives a piece (`undefined`: remark's), else
 * by `read.tree` from remark's tree of it, grown to the next cut until the tree provably ends
 * closed (`endsClosed`), its positions those of the whole document. `refused` hears where and
 * why the scanner left a piece. Only for a document that cannot define a link (`mayDefine`): a
 * definition counts for the whole document, so remark reads such a one whole.
 */
export function readInPieces<P>(
  source: string,
  mode: ScanMode,
  read: {
    scanned(scan: DialectScan, from: number, before: number): P | undefined;
    refused?(line: number, refused: string): void;
    tree(root: Root): P;
  },
): P[] {
  const cuts = segmentCuts(source);
  const frontMatter = !opensUnclosedFrontMatter(source);
  const pieces: P[] = [];
  // The lines before the piece.
  let before = 0;
  for (let i = 0; i < cuts.length - 1;) {
    const from = cuts[i]!;
    let j = i + 1;
    const scan = scanOrRefuse(source.slice(from, cuts[j]), mode, { segment: true });
    let piece = 'refused' in scan ? undefined : read.scanned(scan, from, before);
    if ('refused' in scan) read.refused?.(before + scan.line, scan.refused);
    for (let grown = 0; piece === undefined; grown++) {
      if (grown === MAX_GROWTH) j = cuts.length - 1;
      const segment = source.slice(from, cuts[j]);
      const root = parseSegment(segment, i === 0, frontMatter);
      if (j === cuts.length - 1 || endsClosed(root, segment, i === 0, frontMatter)) {
        for (const child of root.children) shiftTree(child, from, before);
        piece = read.tree(root);
      } else j++;
    }
    pieces.push(piece);
    before += countLineBreaks(source, from, cuts[j]!);
    i = j;
  }
  return pieces;
}

/**
 * A tasks file as a markdown kind's reader takes it: the plan a file over the size limits reads
 * as (`limited`); else the line scanner's reading when it has one (`scanned`; never with
 * `fast: false`, which reads with remark alone): of the whole document, or of its pieces, remark
 * reading those the scanner does not (`scanSegments`); else remark's tree, parsed once and only
 * when asked for (`root`); `skip` is what `finish` needs to leave code and HTML alone.
 */
export function dialectRead(
  source: string,
  path: string,
  mode: ScanMode,
  options: { fast?: boolean },
):
  | { limited: DialectPlan }
  | { scanned: DialectScan | undefined; root: () => Root; skip: () => Root | ReadonlySet<number> } {
  const limited = limitProblem(source, path);
  if (limited) return { limited };
  const scanned =
    options.fast === false
      ? undefined
      : (scanDialect(source, mode) ?? scanSegments(source, mode)?.scan);
  let tree: Root | undefined;
  const root = (): Root => (tree ??= parseMarkdown(source));
  return { scanned, root, skip: scanned ? () => scanned.skip : root };
}

/** Whether a box is a task of a dialect: one of its marks, then white space or the line's end. */
export function readsBox(
  states: Readonly<Record<string, DialectState>>,
  mark: string,
  after: string,
) {
  const next = after[0];
  return mark in states && (next === undefined || next === ' ' || next === '\t' || next === '\r');
}

/**
 * Compares `3.1` and `5.5` as numbers: major, then minor, then a letter after them
 * (3 < 3.1 < 3.2 < 3.10 < 4 < 4a < 4b < 5).
 */
export function comparePhaseNumbers(a: string, b: string): number {
  const [a1, a2, aLetter] = phaseNumberParts(a);
  const [b1, b2, bLetter] = phaseNumberParts(b);
  return a1 - b1 || a2 - b2 || (aLetter < bLetter ? -1 : aLetter > bLetter ? 1 : 0);
}

// (A pattern made once, not at each comparison of a sort.)
const PHASE_NUMBER = /^(\d+)(?:\.(\d+))?([a-zA-Z]?)$/;

function phaseNumberParts(n: string): [number, number, string] {
  const m = PHASE_NUMBER.exec(n);
  return m
    ? [Number(m[1]), m[2] === undefined ? -1 : Number(m[2]), m[3]!.toLowerCase()]
    : [NaN, -1, ''];
}

/**
 * What a reader of phases under headings takes from a document, in order: top-level headings and
 * the list items that open with a box (the line scanner's events, or these from remark's tree).
 */
export type HeadingBoxEvent =
  | { kind: 'heading'; depth: number; text: string; line: number }
  | { kind: 'item'; line: number; offset: number; mark: string; after: string; text: string };

/**
 * A tasks file as a reader of phases under headings takes it: the plan a file over the size
 * limits reads as (`limited`), or its headings and boxes — the line scanner's in `mode`, else
 * remark's — and what `finish` needs to leave code and HTML alone (`skip`).
 */
export function readHeadingBoxes(
  source: string,
  path: string,
  mode: ScanMode,
  options: { fast?: boolean },
):
  | { limited: DialectPlan }
  | { events: readonly HeadingBoxEvent[]; skip: () => Root | ReadonlySet<number> } {
  const read = dialectRead(source, path, mode, options);
  if ('limited' in read) return read;
  const { scanned, root, skip } = read;
  return { events: scanned?.events ?? [...treeEvents(source, root(), mode)], skip };
}

/**
 * Task ids seen so far in a tasks file: a task whose id another task has already is named, with
 * that task's line (`coder-loop mark` names a task by its id). Returns the id's recorder.
 */
export function taskIds(path: string, problems: Problem[]): (id: string, line: number) => void {
  const ids = new Map<string, number>();
  return (id, line) => {
    const before = ids.get(id);
    if (before === undefined) {
      ids.set(id, line);
      return;
    }
    problems.push({
      severity: 'warning',
      path,
      line,
      message: `Task id ${id} is also on line ${before}.`,
      fix: 'Give each task its own id: `coder-loop mark` names a task by it.',
    });
  };
}

/** Whether a phase is finished: every required task done (optional tasks may stay open). */
export function dialectPhaseFinished(phase: DialectPhase): boolean {
  return phase.tasks.every((t) => t.state === 'done' || t.optional);
}

export function currentDialectPhase(plan: DialectPlan): DialectPhase | undefined {
  return plan.phases.find((p) => !dialectPhaseFinished(p));
}

/**
 * The mark a tool writes itself for each state, given by the kind's folder (`[ ]` reopens a
 * task); `doing` is undefined where the tool has no in-progress mark.
 */
export interface DialectMarks {
  todo: string;
  doing: string | undefined;
  done: string;
}

export class StaleDialectError extends Error {
  constructor(readonly task: DialectTask) {
    super(
      `Task ${task.id} on line ${task.line} no longer reads "[${task.mark}]"; read tasks.md again.`,
    );
    this.name = 'StaleDialectError';
  }
}

/** Writes tasks' marks in the kind's own `marks`: one byte per task, every other byte kept. */
export function setDialectStates(
  source: string,
  marks: Readonly<DialectMarks>,
  tasks: readonly DialectTask[],
  state: DialectState,
): string {
  const mark = marks[state];
  if (mark === undefined) return source;
  const changed = tasks.filter(
    (t) => t.state !== state && !(t.state === 'done' && state === 'doing'),
  );
  return writeMarkBytes(source, changed, mark, (t) => new StaleDialectError(t));
}

/**
 * `source` with each task's mark byte set to `mark`: one byte a task, every other byte kept.
 * Throws `stale(task)` when a task's box no longer reads `[<its mark>]` where it was read.
 */
export function writeMarkBytes<T extends { markOffset: number; mark: string }>(
  source: string,
  tasks: readonly T[],
  mark: string,
  stale: (task: T) => Error,
): string {
  for (const t of tasks) {
    if (
      source[t.markOffset - 1] !== '[' ||
      source[t.markOffset] !== t.mark ||
      source[t.markOffset + 1] !== ']'
    )
      throw stale(t);
  }
  const sorted = [...new Set(tasks)].sort((a, b) => a.markOffset - b.markOffset);
  const parts: string[] = [];
  let from = 0;
  for (const t of sorted) {
    parts.push(source.slice(from, t.markOffset), mark);
    from = t.markOffset + 1;
  }
  parts.push(source.slice(from));
  return parts.join('');
}

/** The column a line's list marker stands at (a tab to the next multiple of 4), from a box's offset. */
export function indentOf(source: string, offset: number): number {
  let column = 0;
  for (let i = source.lastIndexOf('\n', offset - 1) + 1; i < offset; i++) {
    const c = source[i];
    if (c === ' ') column++;
    else if (c === '\t') column += 4 - (column % 4);
    else break;
  }
  return column;
}

/**
 * Lines as a message names them: `line 9`, or `lines 328–331, 335` in ranges (the first five
 * ranges of more, then `…`).
 */
export function linesNamed(lines: readonly number[]): string {
  return lines.length === 1 ? `line ${lines[0]}` : `lines ${lineRanges(lines)}`;
}

/** `lines` in ranges (`328–331, 335`); the first five ranges of more, then `…`. */
function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    if (out.length === 5) {
      out.push('…');
      break;
    }
    out.push(j === i ? String(lines[i]) : `${lines[i]}–${lines[j]}`);
    i = j;
  }
  return out.join(', ');
}

/** The id coder-loop gives an unnumbered box: a letter after its parent's number, never written. */
export function givenId(parent: string, index: number): string {
  let letters = '';
  for (let n = index; n >= 0; n = Math.floor(n / 26) - 1)
    letters = String.fromCharCode(97 + (n % 26)) + letters;
  return `${parent}.${letters}`;
}
