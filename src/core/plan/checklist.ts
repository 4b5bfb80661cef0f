import type { Heading, ListItem, Nodes, Paragraph, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Problem } from '../problem.js';
import {
  endsClosed,
  markdownLimitProblem,
  opensUnclosedFrontMatter,
  parseMarkdown,
  parseSegment,
} from './markdown.js';
import { lookalikeWarnings } from './kinds/markdownDialect.js';
import { isBox, scanPlain } from './scan.js';
import { countLineBreaks, endOfLine } from './text.js';

export type TaskState = 'todo' | 'doing' | 'done';
/** The character between a task's brackets (a tab where GFM reads `[\t]` as unchecked). */
export type TaskMark = ' ' | '\t' | '~' | 'x' | 'X';

export interface Task {
  /** Written id (`1.2`, `T003`) or `<phase>.<index>`. */
  id: string;
  state: TaskState;
  mark: TaskMark;
  /** The task's first line after the checkbox, as written (the next line when that one is empty). */
  text: string;
  phase: number;
  /** 1-based position inside its phase, nested tasks included, in document order. */
  index: number;
  /** 0 for a top-level list item, 1 for one nested inside another task's list, … */
  depth: number;
  line: number;
  /** Offset (in `source`) of the character between the brackets: the only one a mark changes. */
  markOffset: number;
}

export interface Phase {
  number: number;
  name: string;
  line: number;
  tasks: Task[];
}

export interface Checklist {
  phases: Phase[];
  problems: Problem[];
}

const LEADING_SYMBOLS = /^[^\p{L}\p{N}]+/u;
const PHASE_HEADING = /^phase\s+(\d+)(?:\s*[:\-—–]\s*|\s+|$)(.*)$/i;
const NEAR_PHASE = /^phase\s+([^\s:—–-]+)/i;
const WRITTEN_ID = /^(\d+(?:\.\d+)+|[A-Z]{1,5}-?\d+(?:\.\d+)*)(?=$|[\s:.)—–-])/;
const NUMBER_WORDS =
  /^(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third)$/i;

const STATE_OF: Record<TaskMark, TaskState> = {
  ' ': 'todo',
  '\t': 'todo',
  '~': 'doing',
  x: 'done',
  X: 'done',
};
export const MARK_OF: Record<TaskState, TaskMark> = { todo: ' ', doing: '~', done: 'x' };

export function stateOfMark(mark: TaskMark): TaskState {
  return STATE_OF[mark];
}

/** `Phase 2: API`, `✅ Phase 3 — Launch` → { number, name }; anything else → undefined. */
export function readPhaseHeading(text: string): { number: number; name: string } | undefined {
  const m = PHASE_HEADING.exec(text.trim().replace(LEADING_SYMBOLS, ''));
  if (!m) return undefined;
  return { number: Number(m[1]), name: (m[2] ?? '').trim() };
}

/**
 * Why a text that almost reads as a phase (`Phase N`, `Phase I`, `Phase 1.5`, `Phase 1. Setup`)
 * is not one; undefined for a phase and for text that does not look like one (`Phase out …`).
 */
function nearPhaseReason(text: string): string | undefined {
  const trimmed = text.trim().replace(LEADING_SYMBOLS, '');
  if (PHASE_HEADING.test(trimmed)) return undefined;
  const token = NEAR_PHASE.exec(trimmed)?.[1];
  if (token === undefined) return undefined;
  if (/^[NX#?]$/i.test(token)) return `"${token}" is a placeholder, not a phase number`;
  if (/^[IVXLC]+\.?$/i.test(token))
    return `"${token}" is a roman numeral; phases are numbered 1, 2, 3`;
  if (/^\d+[.,]\d+/.test(token))
    return `"${token}" is not a whole number; phases are numbered 1, 2, 3`;
  if (/^\d+\.$/.test(token) || /^\d+[^\d\s]/.test(token)) {
    return /^\d+[.)]?$/.test(token)
      ? `the number must be followed by ":", "-", "—" or a space, not "${token.slice(-1)}"`
      : `"${token}" is not a whole number; phases are numbered 1, 2, 3`;
  }
  if (NUMBER_WORDS.test(token)) return `"${token}" is a word; write the phase number in digits`;
  return undefined;
}

/**
 * Reads phases and tasks from the events of one walk over the document (remark's tree, or the
 * line scanner's plain subset): headings, list items and bold lines, in document order.
 */
class ChecklistBuilder {
  private readonly phases: { phase: Phase; level: number }[] = [];
  private readonly problems: Problem[] = [];
  private readonly seenId = new Map<string, number>();
  private current: { phase: Phase; level: number } | undefined;
  /** The heading that ended the last phase, for the message of a task after it. */
  private ended: { line: number; text: string } | undefined;

  constructor(
    private readonly source: string,
    private readonly path: string,
  ) {}

  private warn(line: number, message: string, fix?: string): void {
    this.problems.push({
      severity: 'warning',
      path: this.path,
      line,
      message,
      ...(fix ? { fix } : {}),
    });
  }

  /** A heading at the top level of the document. */
  heading(level: number, text: string, line: number): void {
    const phase = readPhaseHeading(text);
    if (phase) {
      this.current = { phase: { ...phase, line, tasks: [] }, level };
      this.phases.push(this.current);
      this.ended = undefined;
      return;
    }
    const reason = nearPhaseReason(text);
    if (reason) {
      this.warn(
        line,
        `"${text.trim()}" is not a phase: ${reason}.`,
        'Write a phase heading as "## Phase 1: Name".',
      );
    }
    if (this.current && level <= this.current.level) {
      this.ended = { line, text: text.trim() };
      this.current = undefined;
    }
  }

  /**
   * A heading inside a block quote or a list item: never a phase. When it reads as one, or would
   * end the current phase by its level, the rest of its container is not tracked (returns true).
   */
  nestedHeading(level: number, text: string, line: number): boolean {
    const phaseLike = readPhaseHeading(text) !== undefined || nearPhaseReason(text) !== undefined;
    if (phaseLike) {
      this.warn(
        line,
        `"${text.trim()}" is inside a block quote or a list item, so it is not a phase.`,
        'Move the heading out of the quote or list to make it a phase.',
      );
    }
    return phaseLike || (this.current !== undefined && level <= this.current.level);
  }

  /** A paragraph at the top level that opens with bold text, such as `**Phase 1:** Setup`. */
  boldLine(text: string, line: number): void {
    if (readPhaseHeading(text) === undefined && nearPhaseReason(text) === undefined) return;
    const where = this.current
      ? `its tasks count in Phase ${this.current.phase.number}`
      : 'its tasks are not tracked';
    this.warn(
      line,
      `"${text.trim()}" is bold text, not a heading, so it is not a phase (${where}).`,
      `Write it as a heading: "## ${text.trim().replace(/:$/, '')}".`,
    );
  }

  /**
   * A list item: `at` is the offset of its box's `[` (undefined when it is no task), `line` the
   * box's line, `depth` the list items around it, `suspendedBy` the line of a heading in a block
   * quote or list item that ended tracking for the rest of it.
   */
  item(at: number | undefined, line: number, depth: number, suspendedBy: number | undefined): void {
    if (at === undefined) return;
    if (!this.current || suspendedBy !== undefined) {
      const why =
        suspendedBy !== undefined
          ? `it follows the heading on line ${suspendedBy} inside a block quote or list item, which is not a phase`
          : this.ended
            ? `the heading "${this.ended.text}" on line ${this.ended.line} ended the phase before it`
            : this.phases.length === 0
              ? 'it comes before the first "Phase <N>" heading'
              : 'it is not under a "Phase <N>" heading';
      this.warn(
        line,
        `This task is not tracked by the loop: ${why}.`,
        'Move it under a phase heading if the loop should do it.',
      );
      return;
    }
    const phase = this.current.phase;
    const mark = this.source[at + 1] as TaskMark;
    const text = taskText(this.source, at);
    const written = WRITTEN_ID.exec(text)?.[1];
    const index = phase.tasks.length + 1;
    const id = written ?? `${phase.number}.${index}`;
    const firstLine = this.seenId.get(id);
    if (firstLine !== undefined) {
      this.problems.push({
        severity: 'error',
        path: this.path,
        line,
        message: `Task id ${id} is used twice (first on line ${firstLine}).`,
        fix: 'Write a unique id at the start of each task, like "1.2" or "T003".',
      });
    } else {
      this.seenId.set(id, line);
    }
    if (text === '')
      this.warn(line, 'This task has no text.', 'Say what the task is after the checkbox.');
    phase.tasks.push({
      id,
      state: STATE_OF[mark],
      mark,
      text,
      phase: phase.number,
      index,
      depth,
      line,
      markOffset: at + 1,
    });
  }

  finish(): Checklist {
    const { problems } = this;
    // Headings that share a number conflict only when both hold tasks: an H1 title or an appendix
    // that mentions "Phase 1" is not a second Phase 1.
    const kept: Phase[] = [];
    const byNumber = new Map<number, Phase>();
    for (const { phase } of this.phases) {
      const before = byNumber.get(phase.number);
      if (before === undefined) {
        byNumber.set(phase.number, phase);
        kept.push(phase);
      } else if (phase.tasks.length === 0) {
        continue;
      } else if (before.tasks.length === 0) {
        kept[kept.indexOf(before)] = phase;
        byNumber.set(phase.number, phase);
      } else {
        problems.push({
          severity: 'error',
          path: this.path,
          line: phase.line,
          message: `Phase ${phase.number} is defined twice, and both hold tasks (first on line ${before.line}).`,
          fix: 'Give each phase its own number.',
        });
        kept.push(phase);
      }
    }
    if (kept.length === 0) {
      problems.push({
        severity: 'error',
        path: this.path,
        line: 1,
        message: 'The checklist has no phase.',
        fix: 'Add a heading such as "## Phase 1: Setup" with tasks like "- [ ] 1.1 Do something" below it.',
      });
    } else if (kept.every((p) => p.tasks.length === 0)) {
      problems.push({
        severity: 'error',
        path: this.path,
        line: kept[0]!.line,
        message:
          'No phase holds a task, so the loop has nothing to do (the plan is not complete, it is empty).',
        fix: 'Add tasks such as "- [ ] 1.1 Do something" below the phase headings.',
      });
    } else {
      for (const phase of kept) {
        if (phase.tasks.length === 0) {
          this.warn(
            phase.line,
            `Phase ${phase.number} has no tasks; the loop skips it.`,
            'Add tasks such as "- [ ] Do something" below the heading.',
          );
        }
      }
    }
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { phases: kept, problems };
  }
}

/** The text after a task's box: the rest of its line, else the next line when the item goes on. */
function taskText(source: string, at: number): string {
  const end = endOfLine(source, at + 3);
  let from = at + 3;
  let to = end;
  while (from < to && isSpace(source.charCodeAt(from))) from++;
  while (to > from && isSpace(source.charCodeAt(to - 1))) to--;
  if (from < to) return source.slice(from, to).trim(); // one slice; trim() for other spaces
  if (end === source.length) return '';
  const next = end + (source[end] === '\r' ? 2 : 1);
  const rest = source.slice(next, endOfLine(source, next)).replace(/^[ \t>]*/, '');
  // A new item, heading or blank line is not the task's text.
  if (rest === '' || /^([-*+]|\d{1,9}[.)])([ \t]|$)|^#/.test(rest)) return '';
  return rest.trim();
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Where a list item's box sits in remark's tree. remark-gfm moves the paragraph past the box when
 * plain text follows it, and leaves it at the box when markup (`code`, **bold**, a link) or
 * nothing does, or for `[~]`; so step back over whitespace, line breaks and quote markers to a
 * `]` when there is one, else take the paragraph's start.
 */
function boxOfItem(
  item: ListItem,
  source: string,
  base: Base,
): { box: number; line: number } | undefined {
  const first = item.children[0];
  if (!first || first.type !== 'paragraph') return undefined;
  const p = base.offset + first.position!.start.offset!;
  let at = p;
  if (item.checked === true || item.checked === false) {
    let i = p - 1;
    while (i >= 0) {
      const c = source[i];
      if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n' && c !== '>') break;
      i--;
    }
    if (source[i] === ']') at = i - 2;
  }
  if (!isBox(source, at)) return undefined;
  const item0 = item.position!.start;
  return {
    box: at,
    line: base.line + item0.line + countLineBreaks(source, base.offset + item0.offset!, at),
  };
}

/** Where a tree parsed from a segment sits in the whole source: its offset, and lines before it. */
interface Base {
  offset: number;
  line: number;
}

interface Frame {
  nodes: readonly RootContent[];
  index: number;
  depth: number;
  top: boolean;
  suspendedBy: number | undefined;
}

const CONTAINERS = new Set(['list', 'listItem', 'blockquote', 'footnoteDefinition']);

/** Feeds a remark tree of `source` (or of a segment at `base`) to the builder, in document order. */
function walkTree(
  root: Root,
  source: string,
  builder: ChecklistBuilder,
  base: Base = { offset: 0, line: 0 },
): void {
  const frames: Frame[] = [
    { nodes: root.children, index: 0, depth: 0, top: true, suspendedBy: undefined },
  ];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    const node = frame.nodes[frame.index++] as Nodes | undefined;
    if (!node) {
      frames.pop();
      continue;
    }
    if (node.type === 'heading') {
      const heading = node as Heading;
      const line = base.line + heading.position!.start.line;
      if (frame.top) builder.heading(heading.depth, toString(heading), line);
      else if (builder.nestedHeading(heading.depth, toString(heading), line)) {
        frame.suspendedBy ??= line;
      }
    } else if (node.type === 'paragraph' && frame.top) {
      const lead = (node as Paragraph).children[0];
      if (lead?.type === 'strong') {
        builder.boldLine(toString(lead), base.line + node.position!.start.line);
      }
    } else if (node.type === 'listItem') {
      const found = boxOfItem(node, source, base);
      builder.item(
        found?.box,
        found?.line ?? base.line + node.position!.start.line,
        frame.depth,
        frame.suspendedBy,
      );
      frames.push({
        nodes: node.children,
        index: 0,
        depth: frame.depth + 1,
        top: false,
        suspendedBy: frame.suspendedBy,
      });
    } else if (CONTAINERS.has(node.type) && 'children' in node) {
      frames.push({
        nodes: node.children as RootContent[],
        index: 0,
        depth: frame.depth,
        top: false,
        suspendedBy: frame.suspendedBy,
      });
    }
  }
}

const ATX_AFTER_BREAK = /^#{1,6}(?:[ \t\r\n]|$)/;

/** A segment whose remark parse ends open (a fence, say) grows this many times, then takes the rest. */
const MAX_GROWTH = 16;

/** Where the fast reading cuts a source: its start (after a byte order mark), each column-0 ATX heading, its end. */
function segmentCuts(source: string): number[] {
  // A byte order mark is no text: both readers start after it (see parseMarkdown).
  const cuts = [source.charCodeAt(0) === 0xfeff ? 1 : 0];
  for (let at = source.indexOf('\n#'); at !== -1; at = source.indexOf('\n#', at + 1)) {
    if (ATX_AFTER_BREAK.test(source.slice(at + 1, at + 9))) cuts.push(at + 1);
  }
  cuts.push(source.length);
  return cuts;
}

/**
 * Whether the fast reading reads every segment of `source` with the line scanner alone (no
 * remark): what `npm run bench -- plans` counts as a checklist taking the fast path.
 */
export function scannedAlone(source: string): boolean {
  const cuts = segmentCuts(source);
  let line = 1;
  for (let i = 0; i < cuts.length - 1; i++) {
    if (!scanPlain(source, cuts[i]!, cuts[i + 1]!, line, i === 0)) return false;
    line += countLineBreaks(source, cuts[i]!, cuts[i + 1]!);
  }
  return true;
}

/**
 * The fast reading: the source is cut before column-0 ATX headings; each segment in the plain
 * subset is read by the line scanner, any other by remark, grown to the next cut until its parse
 * provably ends closed (see endsClosed), so a fence or comment spanning a cut stays whole.
 */
function readSegments(source: string, builder: ChecklistBuilder): void {
  const cuts = segmentCuts(source);
  const frontMatter = !opensUnclosedFrontMatter(source);
  let line = 1;
  for (let i = 0; i < cuts.length - 1;) {
    const from = cuts[i]!;
    let j = i + 1;
    const scan = scanPlain(source, from, cuts[j]!, line, i === 0);
    if (scan) {
      const { events, texts } = scan;
      for (let e = 0; e < events.length; e += 4) {
        const a = events[e + 1]!;
        if (events[e] === 1) builder.heading(events[e + 3]!, texts[a]!, events[e + 2]!);
        else builder.item(a < 0 ? undefined : a, events[e + 2]!, events[e + 3]!, undefined);
      }
    } else {
      for (let grown = 0; ; grown++) {
        if (grown === MAX_GROWTH) j = cuts.length - 1;
        const segment = source.slice(from, cuts[j]!);
        const root = parseSegment(segment, i === 0, frontMatter);
        if (j === cuts.length - 1 || endsClosed(root, segment, i === 0, frontMatter)) {
          walkTree(root, source, builder, { offset: from, line: line - 1 });
          break;
        }
        j++;
      }
    }
    line += countLineBreaks(source, from, cuts[j]!);
    i = j;
  }
}

/**
 * Reads a checklist (SPEC §2): phases are headings that read `Phase <N>` (leading symbols
 * allowed, then an optional `:`, `-` or `—` and a name) outside block quotes and lists; tasks are
 * the list items under them whose content begins with `[ ]`, `[~]`, `[x]` or `[X]`, whatever
 * markup follows. Code, HTML and front matter never hold tasks: remark gives them no list items.
 * `fast: false` reads the whole source with remark alone: the authority the fast path is tested
 * against.
 */
export function parseChecklist(
  source: string,
  path: string,
  { fast = true }: { fast?: boolean } = {},
): Checklist {
  const limit = markdownLimitProblem(source, path, 'Split the plan, or flatten the nesting.');
  if (limit) return { phases: [], problems: [limit] };
  const builder = new ChecklistBuilder(source, path);
  if (fast) readSegments(source, builder);
  else walkTree(parseMarkdown(source), source, builder);
  const checklist = builder.finish();
  // Lines that look like tasks and were neither read as one nor named already: never dropped
  // silently (`-[ ]`, `- [?]`, `- [ ]x`, a box in a table or a paragraph, outside every phase).
  const known = new Set<number>();
  for (const phase of checklist.phases) for (const task of phase.tasks) known.add(task.line);
  for (const problem of checklist.problems) if (problem.line !== undefined) known.add(problem.line);
  checklist.problems.push(
    ...lookalikeWarnings(
      source,
      path,
      () => parseMarkdown(source),
      known,
      'Write a task as "- [ ] 1.1 Description" under a "## Phase N: Name" heading.',
      { marks: ' \t~xX', unread: 'it is not where the checklist reads tasks' },
    ),
  );
  return checklist;
}

/** The first phase, in document order, with a task not done; undefined when the plan is complete. */
export function currentPhase(checklist: Checklist): Phase | undefined {
  return checklist.phases.find((p) => p.tasks.some((t) => t.state !== 'done'));
}

export function findTask(checklist: Checklist, id: string): Task | undefined {
  for (const phase of checklist.phases) {
    const task = phase.tasks.find((t) => t.id === id);
    if (task) return task;
  }
  return undefined;
}
