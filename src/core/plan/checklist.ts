import type { Heading, ListItem, Nodes, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Problem } from '../problem.js';
import { markdownLimit, parseMarkdown } from './markdown.js';
import { endOfLine } from './text.js';

export type TaskState = 'todo' | 'doing' | 'done';
/** The character between a task's brackets. */
export type TaskMark = ' ' | '~' | 'x' | 'X';

export interface Task {
  /** Written id (`1.2`, `T003`) or `<phase>.<index>`. */
  id: string;
  state: TaskState;
  mark: TaskMark;
  /** The task's first line after the checkbox, as written. */
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

const PHASE_HEADING = /^phase\s+(\d+)(?:\s*[:\-—–]\s*|\s+|$)(.*)$/i;
const WRITTEN_ID = /^(\d+(?:\.\d+)+|[A-Z]{1,5}-?\d+(?:\.\d+)*)(?=$|[\s:.)—–-])/;

const STATE_OF: Record<TaskMark, TaskState> = { ' ': 'todo', '~': 'doing', x: 'done', X: 'done' };
export const MARK_OF: Record<TaskState, TaskMark> = { todo: ' ', doing: '~', done: 'x' };

export function stateOfMark(mark: TaskMark): TaskState {
  return STATE_OF[mark];
}

/** `Phase 2: API` → { number: 2, name: 'API' }; anything else → undefined. */
export function readPhaseHeading(text: string): { number: number; name: string } | undefined {
  const m = PHASE_HEADING.exec(text.trim());
  if (!m) return undefined;
  return { number: Number(m[1]), name: (m[2] ?? '').trim() };
}

/**
 * Where a list item's checkbox sits: the offset of its `[`, or undefined when the item is no task.
 * remark-gfm moves the paragraph past `[ ]`/`[x]` and leaves `[~]` in the text, so look at the
 * source either way.
 */
function checkboxOffset(item: ListItem, source: string): number | undefined {
  const first = item.children[0];
  if (!first || first.type !== 'paragraph' || first.position?.start.offset === undefined) {
    return undefined;
  }
  let at = first.position.start.offset;
  if (item.checked !== null && item.checked !== undefined) {
    // GFM task item: step back over the whitespace after `]`.
    at -= 1;
    while (at > 0 && (source[at] === ' ' || source[at] === '\t')) at -= 1;
    at -= 2;
  }
  if (source[at] !== '[' || source[at + 2] !== ']') return undefined;
  const mark = source[at + 1];
  if (mark !== ' ' && mark !== '~' && mark !== 'x' && mark !== 'X') return undefined;
  const after = source[at + 3];
  if (after !== undefined && after !== ' ' && after !== '\t' && after !== '\r' && after !== '\n') {
    return undefined;
  }
  return at;
}

interface Found {
  kind: 'heading' | 'task';
  node: Heading | ListItem;
  depth: number;
}

/** Top-level headings and every list item, in document order (iterative: deep nesting is fine). */
function collect(root: Root): Found[] {
  const found: Found[] = [];
  const stack: { node: Nodes; depth: number; top: boolean }[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) {
    stack.push({ node: root.children[i] as Nodes, depth: 0, top: true });
  }
  while (stack.length > 0) {
    const { node, depth, top } = stack.pop()!;
    let childDepth = depth;
    if (node.type === 'heading' && top) found.push({ kind: 'heading', node, depth });
    if (node.type === 'listItem') {
      found.push({ kind: 'task', node, depth });
      childDepth = depth + 1;
    }
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push({ node: node.children[i] as Nodes, depth: childDepth, top: false });
      }
    }
  }
  return found;
}

/**
 * Reads a checklist: phases are top-level headings that read `Phase <N>` (optional `:`, `-`, `—`
 * and a name); tasks are the list items under them whose first characters are `[ ]`, `[~]`, `[x]`
 * or `[X]`. Code, HTML and front matter never hold tasks: remark gives them no list items.
 */
export function parseChecklist(source: string, path: string): Checklist {
  const limit = markdownLimit(source);
  if (limit) {
    return {
      phases: [],
      problems: [
        {
          severity: 'error',
          path,
          ...(limit.line ? { line: limit.line } : {}),
          message: limit.message,
          fix: 'Split the plan, or flatten the nesting.',
        },
      ],
    };
  }
  const root = parseMarkdown(source);
  const phases: Phase[] = [];
  const problems: Problem[] = [];
  const seenPhase = new Map<number, number>();
  const seenId = new Map<string, number>();
  let current: { phase: Phase; headingDepth: number } | undefined;

  for (const { kind, node, depth } of collect(root)) {
    // The checkbox sits on the line where the item's paragraph starts.
    const line =
      kind === 'heading'
        ? (node.position?.start.line ?? 1)
        : ((node as ListItem).children[0]?.position?.start.line ?? 1);
    if (kind === 'heading') {
      const heading = node as Heading;
      const phase = readPhaseHeading(toString(heading));
      if (phase) {
        const before = seenPhase.get(phase.number);
        if (before !== undefined) {
          problems.push({
            severity: 'error',
            path,
            line,
            message: `Phase ${phase.number} is defined twice (first on line ${before}).`,
            fix: 'Give each phase its own number.',
          });
        } else {
          seenPhase.set(phase.number, line);
        }
        current = { phase: { ...phase, line, tasks: [] }, headingDepth: heading.depth };
        phases.push(current.phase);
      } else if (current && heading.depth <= current.headingDepth) {
        current = undefined;
      }
      continue;
    }
    const at = checkboxOffset(node as ListItem, source);
    if (at === undefined) continue;
    if (!current) {
      problems.push({
        severity: 'error',
        path,
        line,
        message: 'This task is not under a "Phase <N>" heading, so the loop would never do it.',
        fix: 'Move it under a phase heading, or drop its checkbox.',
      });
      continue;
    }
    const mark = source[at + 1] as TaskMark;
    const text = source.slice(at + 3, endOfLine(source, at)).trim();
    const written = WRITTEN_ID.exec(text)?.[1];
    const index = current.phase.tasks.length + 1;
    const id = written ?? `${current.phase.number}.${index}`;
    const firstLine = seenId.get(id);
    if (firstLine !== undefined) {
      problems.push({
        severity: 'error',
        path,
        line,
        message: `Task id ${id} is used twice (first on line ${firstLine}).`,
        fix: 'Write a unique id at the start of each task, like "1.2" or "T003".',
      });
    } else {
      seenId.set(id, line);
    }
    if (text === '') {
      problems.push({
        severity: 'warning',
        path,
        line,
        message: 'This task has no text.',
        fix: 'Say what the task is after the checkbox.',
      });
    }
    current.phase.tasks.push({
      id,
      state: STATE_OF[mark],
      mark,
      text,
      phase: current.phase.number,
      index,
      depth,
      line,
      markOffset: at + 1,
    });
  }

  if (phases.length === 0) {
    problems.push({
      severity: 'error',
      path,
      line: 1,
      message: 'The checklist has no phase.',
      fix: 'Add a heading such as "## Phase 1: Setup" with tasks like "- [ ] 1.1 Do something" below it.',
    });
  }
  for (const phase of phases) {
    if (phase.tasks.length === 0) {
      problems.push({
        severity: 'warning',
        path,
        line: phase.line,
        message: `Phase ${phase.number} has no tasks; the loop skips it.`,
        fix: 'Add tasks such as "- [ ] Do something" below the heading.',
      });
    }
  }
  return { phases, problems };
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
