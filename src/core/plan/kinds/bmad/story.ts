import type { ListItem, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Problem } from '../../../problem.js';
import { isNotTasksHeading } from '../../criteriaWords.js';
import { inlineText } from '../../inline.js';
import { markdownLimitProblem, mayDefine, parseMarkdown } from '../../markdown.js';
import { scanOrRefuse, type DialectScan, type ScanMode, type ScannedItem } from '../dialectScan.js';
import {
  addCodeLines,
  boxAt,
  readInPieces,
  lookalikeWarnings,
  readsBox,
  taskIds,
  type DialectState,
  type DialectTask,
  writeMarkBytes,
  writtenTaskText,
} from '../markdownDialect.js';

/**
 * A BMAD-METHOD story file (`{implementation_artifacts}/<story_key>.md`), as BMAD's template
 * writes it (bmad-create-story/template.md) and bmad-dev-story works it: a `# Story N.M: Title`
 * heading, a `Status: <status>` line, and under `## Tasks / Subtasks` the checkboxes dev-story
 * ticks (`- [ ] Task 1 (AC: #1)`, nested `- [ ] Subtask 1.1`; a `### Review Follow-ups (AI)` or
 * `### Review Findings` subsection's boxes too, which dev-story and bmad-code-review add there).
 * remark reads the structure; a box's mark is the one byte between its brackets.
 */

export interface BmadTask extends DialectTask {
  /** 0 for a task, 1 for its subtasks, and so on. */
  depth: number;
  /** The id of the task this one is nested in. */
  parent: string | undefined;
}

/** The story's `Status:` line: its value and where the value's characters are. */
export interface BmadStoryStatus {
  raw: string;
  line: number;
  /** The value's characters (`ready-for-dev`), undefined when it is not one word to rewrite. */
  start: number | undefined;
  end: number | undefined;
}

export interface BmadStory {
  /** `1.2` from `# Story 1.2: Title`. */
  number: string | undefined;
  title: string | undefined;
  status: BmadStoryStatus | undefined;
  /** Every box under `## Tasks / Subtasks`, nested ones included, in the file's order. */
  tasks: BmadTask[];
  /** 1-based line of the tasks section's heading (`## Tasks / Subtasks`). */
  tasksLine: number | undefined;
  problems: Problem[];
}

/** BMAD's boxes: dev-story writes `[x]`; GFM reads `[X]` and a one-column tab too. */
const STATE: Record<string, DialectState> = { ' ': 'todo', '\t': 'todo', x: 'done', X: 'done' };
const STORY_HEADING = /^Story\s+(\d+\.\d+[a-z]?(?:\.\d+)?)\s*:?\s*(.*)$/i;
/** `## Tasks / Subtasks` (dev-story parses "Tasks/Subtasks"); `## Tasks` as some write it. */
const TASKS_HEADING = /^Tasks(?:\s*\/\s*Sub-?tasks)?$/i;
/** `Task 1`, `**Task 2: …**`, `Subtask 1.1`: the id the author wrote. */
const WRITTEN_ID = /^(?:\*\*|__)?(?:Sub-?)?Task\s+(\d+(?:\.\d+)*[a-z]?)\b/i;
/** A status word, its emphasis closed, then at most a space and marks (`done** ✅`). */
const MARKED_WORD = /^([A-Za-z][\w-]*)(?:\*\*|__)?(?:[ \t]+[^\p{L}\p{N}\s]+)?[ \t]*$/u;
/** `Status: ready-for-dev`, `**Status:** done`: the template's line, emphasis allowed. */
/** An HTML comment closing a line, and the blanks before it. */
const TRAILING_COMMENT = /[ \t]*<!--(?:(?!-->).)*-->[ \t]*$/;
const STATUS_LINE = /^ {0,3}(?:\*\*|__)?Status(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*/i;
const FIX = 'Write a task as "- [ ] Task 1 (AC: #1)" under "## Tasks / Subtasks".';

/**
 * A box BMAD reads: `- [x] Task 1`, and `- [x]Task 1` or `  - [x]1.1 …` with no space after the
 * bracket, as BMAD's own dev agent writes some (its agents read the box either way); not
 * `[x](…)` or `[x][…]`, a link.
 */
function readsStoryBox(mark: string, after: string): boolean {
  return readsBox(STATE, mark, after) || (mark in STATE && /^[^\s([:]/.test(after));
}

/** The acceptance criteria a task cites: `(AC: #1)`, `(AC: 1, 3)`, `(AC: AC2, AC5)`, `(AC: 1-3)`. */
export function acceptanceCriteria(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\(\s*ACs?\s*:?\s*([^)]*)\)/gi)) {
    for (const part of m[1]!.split(/\s*(?:,|;|&|\band\b)\s*|\s+/)) {
      const range = /^(?:#|AC)?(\d+)\s*[-–]\s*(?:#|AC)?(\d+)$/i.exec(part);
      if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])];
        if (to >= from && to - from < 100) for (let n = from; n <= to; n++) found.push(String(n));
        continue;
      }
      const one = /^(?:#|AC)?(\d+[a-z]?)$/i.exec(part);
      if (one) found.push(one[1]!);
    }
  }
  return [...new Set(found)];
}

/** What the task says: its first paragraph's first line (mdast's text), without a box at its start. */
function withoutBox(plain: string): string {
  return plain.replace(/^\[.\]\s*/, '').trim();
}

/** The first line of the item's first paragraph, without its box: what the task says. */
function itemText(item: ListItem, after: string): string {
  const first = item.children[0];
  return withoutBox(first?.type === 'paragraph' ? toString(first).split('\n')[0]! : after);
}

/** The `Status:` line a top-level paragraph starting at `start` (on `line`) opens with, if any. */
function statusAt(source: string, start: number, line: number): BmadStoryStatus | undefined {
  let end = source.indexOf('\n', start);
  if (end === -1) end = source.length;
  const text = source.slice(start, end).replace(/\r$/, '');
  const m = STATUS_LINE.exec(text);
  if (!m) return undefined;
  // An HTML comment at the end of the line (`Status: **done**  <!-- 282/305 passing -->`) is
  // no part of the status: it stays as written.
  const rest = text.slice(m[0].length).replace(TRAILING_COMMENT, '');
  // One word, its emphasis closed, and after a space only marks such as an emoji (`**done** ✅`):
  // the status is the word, rewritten alone.
  const marked = MARKED_WORD.exec(rest)?.[1];
  const raw =
    marked ??
    rest
      .replace(/(?:\*\*|__)?[ \t]*$/, '')
      .replace(/[ \t]+$/, '')
      .trim();
  const word = /^[A-Za-z][\w-]*$/.test(raw) && rest.startsWith(raw);
  return {
    raw,
    line,
    start: word ? start + m[0].length : undefined,
    end: word ? start + m[0].length + raw.length : undefined,
  };
}

/** A list item that opens with a box, wherever it is (the tasks section is chosen after). */
interface StoryBox {
  line: number;
  offset: number;
  mark: string;
  after: string;
  /** The list it is an item of: a number each list of the document has to itself. */
  list: number;
  /** The nearest list item around it that opens with a box. */
  parent: StoryBox | undefined;
  /** What it says, as `itemText` reads it (a box that is no task's may have none). */
  text: string | undefined;
}

/**
 * What the story's reading takes from a document, remark's tree or the line scanner's: the
 * top-level headings (their mdast text), where each top-level paragraph starts (a `Status:` line
 * opens one), and every list item that opens with a box.
 */
interface StoryParts {
  headings: { depth: number; text: string; line: number }[];
  /** Offset and line of each top-level paragraph, in pairs. */
  paragraphs: number[];
  boxes: StoryBox[];
  /** The lines of code and HTML (never tasks), or the tree to find them in. */
  skip: Root | (() => ReadonlySet<number>);
  /** How many lists `boxes` number (0 to this, less one). */
  lists: number;
}

/** The story's parts from remark's tree. */
function treeParts(source: string, root: Root): StoryParts {
  const parts: StoryParts = { headings: [], paragraphs: [], boxes: [], skip: root, lists: 0 };
  const visit = (nodes: readonly RootContent[], parent: StoryBox | undefined, list: number) => {
    for (const node of nodes) {
      if (node.type === 'list') visit(node.children, parent, parts.lists++);
      else if (node.type === 'blockquote') visit(node.children, parent, list);
      else if (node.type === 'listItem') {
        const box = boxAt(source, node);
        let own: StoryBox | undefined;
        if (box) {
          const text = readsStoryBox(box.mark, box.after) ? itemText(node, box.after) : undefined;
          own = { ...box, list, parent, text };
          parts.boxes.push(own);
        }
        visit(node.children, own ?? parent, list);
      }
    }
  };
  for (const node of root.children) {
    if (node.type === 'heading') {
      const { depth, position } = node;
      parts.headings.push({ depth, text: toString(node), line: position!.start.line });
    } else if (node.type === 'paragraph') {
      parts.paragraphs.push(node.position!.start.offset!, node.position!.start.line);
    } else visit([node], undefined, -1);
  }
  return parts;
}

/** The line scanner's reading of a story: its lists as remark's tree has them. */
const STORY_SCAN: ScanMode = { taskText: true, requirements: false, structure: true };

/**
 * The story's parts from the line scanner's reading of it, or of a piece of it starting at
 * `from` after `before` lines (positions moved to the whole document's); undefined where a box's
 * text holds markup the inline reading leaves to remark.
 */
function scannedParts(scan: DialectScan, from: number, before: number): StoryParts | undefined {
  const paragraphs = scan.paragraphs!;
  for (let i = 0; i < paragraphs.length; i += 2) {
    paragraphs[i]! += from;
    paragraphs[i + 1]! += before;
  }
  const parts: StoryParts = {
    headings: [],
    paragraphs,
    boxes: [],
    skip: () => (before === 0 ? scan.skip : new Set([...scan.skip].map((l) => l + before))),
    lists: 0,
  };
  const boxOf = new Map<ScannedItem, StoryBox>();
  for (const event of scan.events) {
    if (event.kind === 'heading') {
      parts.headings.push({ depth: event.depth, text: event.text, line: event.line + before });
      continue;
    }
    let text: string | undefined;
    if (readsStoryBox(event.mark, event.after)) {
      // A GFM box's first line as the scanner read it; a box with no space after it
      // (`[x]Task 1`) is no GFM box, so its bracket is the paragraph's text, read here.
      const plain = event.plain ?? inlineText(`[${event.mark}]${event.after.replace(/\r$/, '')}`);
      if (plain === undefined) return undefined;
      text = withoutBox(plain);
    }
    const box: StoryBox = {
      line: event.line + before,
      offset: event.offset + from,
      mark: event.mark,
      after: event.after,
      list: event.list!,
      parent: event.parent && boxOf.get(event.parent),
      text,
    };
    parts.lists = Math.max(parts.lists, box.list + 1);
    boxOf.set(event, box);
    parts.boxes.push(box);
  }
  return parts;
}

/**
 * The story's parts, read by the line scanner where it can: the whole story, else its pieces cut
 * before column-0 headings, remark reading each piece the scanner leaves, grown to the next cut
 * until its tree provably ends closed (as the other markdown kinds read theirs). A story that may
 * define a link (a definition counts for the whole document) is remark's whole.
 */
function fastParts(source: string): StoryParts {
  const whole = scanOrRefuse(source, STORY_SCAN);
  const parts = 'refused' in whole ? undefined : scannedParts(whole, 0, 0);
  if (parts) return parts;
  if (mayDefine(source)) return treeParts(source, parseMarkdown(source));
  const skips: (Root | (() => ReadonlySet<number>))[] = [];
  let skip: Set<number> | undefined;
  // The lines of code and HTML of every piece, found when a lookalike line asks for them.
  const skipped = (): ReadonlySet<number> => {
    if (skip) return skip;
    skip = new Set();
    for (const s of skips) {
      if (typeof s === 'function') for (const line of s()) skip.add(line);
      else addCodeLines(s, skip);
    }
    return skip;
  };
  const all: StoryParts = { headings: [], paragraphs: [], boxes: [], skip: skipped, lists: 0 };
  const pieces = readInPieces(source, STORY_SCAN, {
    scanned: (scan, from, before) => scannedParts(scan, from, before),
    tree: (root) => treeParts(source, root),
  });
  for (const piece of pieces) {
    all.headings.push(...piece.headings);
    all.paragraphs.push(...piece.paragraphs);
    // Each piece numbers its lists from 0: the whole story's numbers go on from the last piece's.
    for (const box of piece.boxes) {
      box.list += all.lists;
      all.boxes.push(box);
    }
    all.lists += piece.lists;
    skips.push(piece.skip);
  }
  return all;
}

interface Found {
  task: BmadTask;
  written: string | undefined;
  parent: Found | undefined;
  index: number;
}

/**
 * Reads a story file: its number, title, status line and the tasks under Tasks / Subtasks. The
 * line scanner reads it where it can (`fast`, the default), remark where it cannot: the two give
 * the same story (a differential property holds them to it).
 */
export function readStory(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): BmadStory {
  const limit = markdownLimitProblem(source, path, 'Split the story.');
  if (limit) {
    return {
      number: undefined,
      title: undefined,
      status: undefined,
      tasks: [],
      tasksLine: undefined,
      problems: [limit],
    };
  }
  const parts =
    options.fast === false ? treeParts(source, parseMarkdown(source)) : fastParts(source);
  return storyOf(source, path, parts);
}

function storyOf(source: string, path: string, parts: StoryParts): BmadStory {
  const problems: Problem[] = [];
  let number: string | undefined;
  let title: string | undefined;
  let status: BmadStoryStatus | undefined;
  /** The line ranges of the Tasks / Subtasks sections: where lookalike boxes are named. */
  const sections: [number, number][] = [];
  /** The level-two sections, each with its heading's text and line and the last line under it. */
  const level2: { text: string; line: number; end: number }[] = [];
  let open: (typeof level2)[number] | undefined;
  /** The status line is looked for before the first section (`## Story`), where the template has it. */
  let preamble = Infinity;
  for (const heading of parts.headings) {
    const text = heading.text.trim();
    if (heading.depth === 1 && number === undefined) {
      const m = STORY_HEADING.exec(text);
      if (m) [number, title] = [m[1]!, m[2]!.trim()];
    }
    if (heading.depth === 2 && preamble === Infinity) preamble = heading.line;
    if (heading.depth <= 2) {
      if (open) open.end = heading.line - 1;
      open = heading.depth === 2 ? { text, line: heading.line, end: Infinity } : undefined;
      if (open) level2.push(open);
    }
  }
  const paragraphs = parts.paragraphs;
  for (let i = 0; i < paragraphs.length && paragraphs[i + 1]! < preamble; i += 2) {
    status = statusAt(source, paragraphs[i]!, paragraphs[i + 1]!);
    if (status) break;
  }
  // The boxes of the tasks section, their nesting and their places among their lists' tasks.
  const found: Found[] = [];
  const visit = (section: { line: number; end: number }) => {
    const foundOf = new Map<StoryBox, Found>();
    const tasksIn = new Map<number, number>();
    for (const box of parts.boxes) {
      if (box.line <= section.line || box.line > section.end || box.text === undefined) continue;
      let up = box.parent;
      while (up && !foundOf.has(up)) up = up.parent;
      const parent = up && foundOf.get(up);
      const index = tasksIn.get(box.list) ?? 0;
      tasksIn.set(box.list, index + 1);
      // What the task says as written (code spans, emphasis kept); its id and the acceptance
      // criteria it cites read from the plain text, as BMAD's agents read them.
      const plain = box.text;
      const own: Found = {
        task: {
          id: '',
          text: writtenTaskText(box.after, plain),
          state: STATE[box.mark]!,
          mark: box.mark,
          optional: false,
          requirements: acceptanceCriteria(plain),
          line: box.line,
          markOffset: box.offset,
          depth: parent ? parent.task.depth + 1 : 0,
          parent: undefined,
        },
        written: WRITTEN_ID.exec(plain)?.[1],
        parent,
        index,
      };
      foundOf.set(box, own);
      found.push(own);
    }
  };
  // The tasks section: `## Tasks / Subtasks`; else a heading that says "Tasks" among other words
  // (`## 任务 / 子任务 (Tasks / Subtasks)`); else — a story written in another language, as BMAD
  // writes it in `document_output_language` — the first level-two section that holds a box.
  // That section is never the acceptance criteria's or the definition of done's, whose boxes
  // dev-story never ticks as tasks: a story without a tasks section has no task.
  let chosen = level2.filter((x) => TASKS_HEADING.test(x.text));
  if (chosen.length === 0) chosen = level2.filter((x) => /tasks/i.test(x.text));
  for (const section of chosen) visit(section);
  if (chosen.length === 0) {
    for (const section of level2) {
      if (isNotTasksHeading(section.text)) continue;
      visit(section);
      if (found.length === 0) continue;
      chosen = [section];
      problems.push({
        severity: 'warning',
        path,
        line: section.line,
        message: `no heading says "Tasks / Subtasks", so the boxes under "## ${section.text}", the first section that has any, are read as the story's tasks.`,
        fix: 'Head the section "## Tasks / Subtasks" (a translation may follow it).',
      });
      break;
    }
  }
  const tasksLine = chosen[0]?.line;
  for (const section of chosen) sections.push([section.line, section.end]);
  // Ids: the one the author wrote (`Task 2`, `Subtask 2.1`); else the place among its siblings
  // under its parent's id (`2.3`), or among the top-level tasks, where no written id has it.
  const record = taskIds(path, problems);
  const taken = new Set(found.flatMap((f) => (f.written ? [f.written] : [])));
  for (const f of found) {
    const base = f.parent ? `${f.parent.task.id}.` : '';
    if (f.written) f.task.id = f.written;
    else {
      let n = f.index + 1;
      while (taken.has(`${base}${n}`)) n++;
      f.task.id = `${base}${n}`;
      taken.add(f.task.id);
    }
    f.task.parent = f.parent?.task.id;
    record(f.task.id, f.task.line);
  }
  const tasks = found.map((f) => f.task);
  if (tasksLine === undefined) {
    problems.push({
      severity: 'error',
      path,
      line: 1,
      message: 'the story has no "## Tasks / Subtasks" section.',
      fix: FIX,
    });
  } else if (tasks.length === 0) {
    problems.push({
      severity: 'error',
      path,
      line: tasksLine,
      message: 'no task was found under "## Tasks / Subtasks".',
      fix: FIX,
    });
  }
  const taskLines = new Set(tasks.map((t) => t.line));
  const inSection = (line: number | undefined) =>
    line !== undefined && sections.some(([from, to]) => line > from && line <= to);
  const lookalikes = lookalikeWarnings(source, path, parts.skip, taskLines, FIX, {
    marks: ' \txX',
    unread: 'it is not a list item of "## Tasks / Subtasks"',
  }).filter((p) => inSection(p.line));
  return {
    number,
    title,
    status,
    tasks,
    tasksLine,
    problems: [...problems, ...lookalikes].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
  };
}

export class StaleStoryError extends Error {
  constructor(readonly task: BmadTask) {
    super(
      `Task ${task.id} on line ${task.line} no longer reads "[${task.mark}]"; read the story again.`,
    );
    this.name = 'StaleStoryError';
  }
}

/**
 * The story with `tasks` ticked (`[x]`, as dev-story writes it) or reopened (`[ ]`): one byte a
 * task whose state changes, every other byte kept. Throws when a task's box is no longer where
 * and what it was read as.
 */
export function setStoryTasks(
  source: string,
  tasks: readonly BmadTask[],
  state: 'todo' | 'done',
): string {
  const mark = state === 'done' ? 'x' : ' ';
  const changed = tasks.filter((t) => t.state !== state);
  return writeMarkBytes(source, changed, mark, (t) => new StaleStoryError(t));
}

/**
 * The story with its `Status:` value set to `status` (as dev-story's step 9 and code-review's
 * step 4 write it): that word alone changes. Undefined when the story has no one-word status to
 * rewrite.
 */
export function setStoryStatus(
  source: string,
  story: Pick<BmadStory, 'status'>,
  status: string,
): string | undefined {
  const s = story.status;
  if (!s || s.start === undefined || s.end === undefined) return undefined;
  if (source.slice(s.start, s.end) !== s.raw) return undefined;
  return `${source.slice(0, s.start)}${status}${source.slice(s.end)}`;
}
