import type { Heading, ListItem, Nodes, Paragraph, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
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
} from './markdown.js';
import { lookalikeWarnings } from './kinds/markdownDialect.js';
import { isBox, scanPlain } from './scan.js';
import { countLineBreaks } from './text.js';
import { ChecklistBuilder } from './checklistBuilder.js';
import type { Checklist } from './checklistModel.js';

/** Where a list item's box sits in remark's tree (`boxStart`), and its line; undefined: no box. */
function boxOfItem(
  item: ListItem,
  source: string,
  base: Base,
): { box: number; line: number } | undefined {
  const at = boxStart(source, item, base.offset);
  if (at === undefined) return undefined;
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
  // A link definition counts for the whole document: such a source is read in one piece.
  if (fast && !mayDefine(source)) readSegments(source, builder);
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
