import type { ListItem, Nodes, Root, RootContent } from 'mdast';
import type { Problem } from '../problem.js';
import { remarkTree } from './remark.js';

/**
 * Whether the source opens front matter that never closes (`---` as a thematic break on the
 * first line). micromark-extension-frontmatter, having tried and failed, leaves list items after
 * it unread, so such a source is parsed without the extension: it has no front matter anyway.
 */
export function opensUnclosedFrontMatter(source: string): boolean {
  const open = /^(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)/.exec(source);
  if (!open) return false;
  const fence = open[1] === '---' ? '---' : '\\+\\+\\+';
  const close = new RegExp(`(?:^|\\r\\n|\\r|\\n)${fence}[ \\t]*(?:\\r|\\n|$)`);
  return !close.test(source.slice(open[0].length));
}

/** Larger markdown is refused before parsing: about 80,000 tasks, parsed in a few seconds. */
const MAX_MARKDOWN_BYTES = 4 * 1024 * 1024;
/** More list items than this are refused: about five seconds of parsing. */
const MAX_LIST_ITEMS = 60_000;
/** Deeper nesting (quotes, lists) is refused: the parser recurses once per level. */
const MAX_NESTING = 40;

/**
 * Why a markdown source is too large or too deeply nested to parse in bounded time and stack,
 * or undefined when it is fine. A linear scan of each line's container prefix (`>`, bullets,
 * numbers, indentation), made before remark sees the text.
 */
/** `markdownLimit` as the one error a reader reports (nothing else of the file is read). */
export function markdownLimitProblem(
  source: string,
  path: string,
  fix: string,
): Problem | undefined {
  const limit = markdownLimit(source);
  if (!limit) return undefined;
  return {
    severity: 'error',
    path,
    ...(limit.line ? { line: limit.line } : {}),
    message: limit.message,
    fix,
  };
}

// A line opening with more than MAX_NESTING characters a container prefix is made of (white
// space, `>`, list markers): the only lines that can be nested or indented past the limits.
const LONG_PREFIX = new RegExp(`(?<![^\\n])[ \\t>*+\\-\\d.)]{${MAX_NESTING + 1}}`);

function markdownLimit(source: string): { line?: number; message: string } | undefined {
  if (source.length > MAX_MARKDOWN_BYTES) {
    return { message: `The file is larger than ${MAX_MARKDOWN_BYTES / 1024 / 1024} MiB.` };
  }
  // Each list item takes two characters at least (its marker and a space), and each level of
  // nesting one of its line's prefix: a short source without a long prefix is within the limits,
  // known from one search instead of a pass over every line.
  if (source.length < 2 * MAX_LIST_ITEMS - 2 && !LONG_PREFIX.test(source)) return undefined;
  let line = 1;
  let at = 0;
  let items = 0;
  while (at <= source.length) {
    let end = source.indexOf('\n', at);
    if (end === -1) end = source.length;
    let depth = 0;
    let columns = 0;
    let i = at;
    for (;;) {
      while (i < end && (source[i] === ' ' || source[i] === '\t')) {
        columns += source[i] === '\t' ? 4 : 1;
        i++;
      }
      const c = source[i];
      if (c === '>') {
        i++;
      } else if ((c === '-' || c === '*' || c === '+') && /[ \t\r]|^$/.test(source[i + 1] ?? '')) {
        i++;
      } else {
        if (!(c! >= '0' && c! <= '9')) break;
        const m = /^\d{1,9}[.)](?=[ \t\r]|$)/.exec(source.slice(i, Math.min(end, i + 11)));
        if (!m) break;
        i += m[0].length;
      }
      depth++;
      if (c !== '>' && ++items > MAX_LIST_ITEMS) {
        return {
          line,
          message: `The file has more than ${MAX_LIST_ITEMS.toLocaleString('en')} list items.`,
        };
      }
      if (depth > MAX_NESTING || columns > MAX_NESTING * 4) {
        return { line, message: `Line ${line} is nested more than ${MAX_NESTING} levels deep.` };
      }
    }
    if (columns > MAX_NESTING * 4) {
      return { line, message: `Line ${line} is indented more than ${MAX_NESTING * 4} columns.` };
    }
    line++;
    at = end + 1;
  }
  return undefined;
}

/**
 * The remark parse of one segment of `source` starting at `from` (positions relative to it):
 * front matter is read only on the first line of a source whose front matter closes.
 */
export function parseSegment(segment: string, first: boolean, frontMatter: boolean): Root {
  return remarkTree(segment, !first || frontMatter);
}

// What may stand before a definition's `[` on its line: indentation, quote and list markers.
const DEFINITION_PREFIX = /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+[ \t>]*)*$/;

/** Whether the character at `at` is escaped: an odd run of backslashes before it. */
function escapedAt(source: string, at: number): boolean {
  let n = 0;
  while (at - n - 1 >= 0 && source.charCodeAt(at - n - 1) === 92) n++;
  return n % 2 === 1;
}

/**
 * Whether `source` may hold a link reference or footnote definition (`[label]: …`, `[^1]: …`):
 * one counts for the whole document (a `[label]` anywhere before or after it is a link), so such
 * a source is never read in pieces. A label holds no unescaped bracket and no blank line, so the
 * only `[` that can open the label a `]:` closes is the nearest unescaped one before it with no
 * unescaped `]` between; true when that `[` starts a line (after indentation and container
 * markers): more than the definitions there are (a definition also opens its paragraph).
 */
export function mayDefine(source: string): boolean {
  for (let at = source.indexOf(']:'); at !== -1; at = source.indexOf(']:', at + 2)) {
    let i = source.lastIndexOf('[', at);
    while (i > 0 && escapedAt(source, i)) i = source.lastIndexOf('[', i - 1);
    if (i === -1 || at - i > 1001) continue;
    let closed = false;
    for (let k = source.indexOf(']', i + 1); k !== -1 && k < at; k = source.indexOf(']', k + 1)) {
      if (!escapedAt(source, k)) {
        closed = true;
        break;
      }
    }
    if (closed || /\n[ \t]*\r?\n/.test(source.slice(i, at))) continue;
    const lineStart = source.lastIndexOf('\n', i - 1) + 1;
    if (DEFINITION_PREFIX.test(source.slice(lineStart, i))) return true;
  }
  return false;
}

const ATX_AFTER_BREAK = /^#{1,6}(?:[ \t\r\n]|$)/;

/** A segment whose remark parse ends open (a fence, say) grows this many times, then takes the rest. */
export const MAX_GROWTH = 16;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Where the fast reading cuts a source: its start (after a byte order mark), each column-0 ATX
 * heading outside what looks like top-level fenced code (a `#` comment in a code block is no cut:
 * a cut there would only be grown again, parsing the same text over), its end. The cuts need not
 * be right: each is proven by endsClosed before it is taken.
 */
export function segmentCuts(source: string): number[] {
  // A byte order mark is no text: both readers start after it (see parseMarkdown).
  const cuts = [source.charCodeAt(0) === 0xfeff ? 1 : 0];
  let fence: string | undefined;
  for (let at = 0; at < source.length;) {
    let end = source.indexOf('\n', at);
    if (end === -1) end = source.length;
    const c = source[at];
    if (c === '#' || c === ' ' || c === '`' || c === '~') {
      // The line without its carriage return (FENCE's `.` stops at one).
      const line = source.slice(at, end > at && source.charCodeAt(end - 1) === 13 ? end - 1 : end);
      const m = FENCE.exec(line);
      if (fence !== undefined) {
        if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && !m[2]!.trim()) {
          fence = undefined;
        }
      } else if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) fence = m[1];
      else if (at > 0 && ATX_AFTER_BREAK.test(line.slice(0, 8))) cuts.push(at);
    }
    at = end + 1;
  }
  cuts.push(source.length);
  return cuts;
}

/** Segments smaller than this are not split further: fewer boundary checks, same result. */
const DEFAULT_SEGMENT = 16 * 1024;

// A line that starts, at column 0, an ATX heading.
const HEADING_LINE = /(?<=\n)#{1,6}(?=[ \t\r\n]|$)/g;
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * Whether a column-0 ATX heading right after `segment` starts afresh in the whole document too.
 * Such a line closes every container (it is never a lazy continuation); only a top-level fenced
 * code block, HTML block or front matter still open at the end of the segment would swallow it.
 */
export function endsClosed(
  root: Root,
  segment: string,
  first: boolean,
  frontMatter: boolean,
): boolean {
  if (first && frontMatter && /^(---|\+\+\+)[ \t]*\r?\n/.test(segment)) {
    const head = root.children[0];
    if (!head || (head.type !== 'yaml' && (head.type as string) !== 'toml')) return false;
  }
  const last = root.children[root.children.length - 1];
  if (!last) return true;
  if (last.type === 'html') {
    const value = last.value.trim();
    return value.startsWith('<!--') && /-->[^\n]*$/.test(value);
  }
  if (last.type !== 'code') return true;
  const start = last.position!.start.offset!;
  const end = last.position!.end.offset!;
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(segment.slice(start, end));
  if (!open) return true; // indented code: a column-0 line ends it
  const lines = segment.slice(start, end).split(/\r?\n/);
  const close = lines.length > 1 ? CLOSING_FENCE.exec(lines[lines.length - 1]!) : null;
  return !!close && close[1]![0] === open[1]![0] && close[1]!.length >= open[1]!.length;
}

/** Moves a node parsed from a segment (and its descendants) to where the segment sits: `offset`
 * characters and `lines` lines on. */
export function shiftTree(node: Nodes, offset: number, lines: number): void {
  const stack: Nodes[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const p = n.position;
    if (p) {
      p.start = { ...p.start, line: p.start.line + lines, offset: (p.start.offset ?? 0) + offset };
      p.end = { ...p.end, line: p.end.line + lines, offset: (p.end.offset ?? 0) + offset };
    }
    if ('children' in n) for (const c of n.children) stack.push(c as Nodes);
  }
}

/**
 * The mdast of a markdown source, with positions (offsets index into `source`).
 *
 * micromark's cost grows faster than linearly on long documents with nested lists, so a long
 * source is parsed in segments cut before column-0 headings where the previous segment is
 * provably closed (see endsClosed), and the trees are joined with shifted positions; a source
 * that may hold a link definition (see mayDefine) is parsed whole. A cut that
 * cannot be proven falls back to parsing the rest in one piece: the result is always the tree
 * remark gives for the whole source (a property test holds it to that).
 */
export function parseMarkdown(source: string, segmentSize: number = DEFAULT_SEGMENT): Root {
  if (source.charCodeAt(0) === 0xfeff) {
    // micromark drops a byte order mark and counts offsets after it: count them in `source`.
    const root = parseMarkdown(source.slice(1), segmentSize);
    for (const child of root.children) shiftTree(child, 1, 0);
    return root;
  }
  const frontMatter = !opensUnclosedFrontMatter(source);
  if (source.length <= segmentSize || mayDefine(source)) return remarkTree(source, frontMatter);
  const children: RootContent[] = [];
  let start = 0;
  let line = 0;
  const take = (root: Root, from: number, firstLine: number) => {
    for (const child of root.children) {
      shiftTree(child, from, firstLine);
      children.push(child);
    }
  };
  for (const m of source.matchAll(HEADING_LINE)) {
    const at = m.index;
    if (at - start < segmentSize) continue;
    const segment = source.slice(start, at);
    const root = remarkTree(segment, start !== 0 || frontMatter);
    if (!endsClosed(root, segment, start === 0, frontMatter)) break;
    take(root, start, line);
    line += countBreaks(segment);
    start = at;
  }
  take(remarkTree(source.slice(start), start !== 0 || frontMatter), start, line);
  const root: Root = { type: 'root', children };
  root.position = {
    start: { line: 1, column: 1, offset: 0 },
    end: children.length
      ? children[children.length - 1]!.position!.end
      : { line: 1, column: 1, offset: 0 },
  };
  return root;
}

function countBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Where a list item's box would start (its `[`) in `source`, the item parsed from the part of it
 * at `offset`; undefined for an item that does not begin with a paragraph. remark-gfm moves the
 * paragraph past the box when plain text follows it, and leaves it at the box when markup
 * (`code`, **bold**, a link) or nothing does, or for a mark GFM does not know; so, for an item
 * remark read as checked or unchecked, step back over whitespace, line breaks and quote markers
 * to a `]` when there is one, else take the paragraph's start. The caller checks the bracket.
 */
export function boxStart(source: string, item: ListItem, offset = 0): number | undefined {
  const first = item.children[0];
  if (!first || first.type !== 'paragraph') return undefined;
  const p = offset + first.position!.start.offset!;
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
  return at;
}
