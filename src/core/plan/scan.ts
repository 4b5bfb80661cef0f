/**
 * A line scanner for the plain subset of markdown that checklists are mostly made of: ATX
 * headings at column 0, paragraphs, bullet and ordered list items (nested), blank lines, fenced
 * code and block quotes of plain text at the top level. Anything else — block quotes holding
 * lists, headings or code, a line continuing a quote lazily, HTML, tables, setext headings,
 * thematic breaks, indented code, tabs, lazy continuations, front matter, definitions, emphasis
 * or links in a heading — makes it give up on the segment, which then goes to remark. remark
 * stays the authority: a differential test holds the two to the same checklist.
 */

/** What the checklist reader needs from one segment, in document order. */
export type PlainEvent =
  | { kind: 'heading'; level: number; text: string; line: number }
  | { kind: 'item'; box: number | undefined; line: number; depth: number };

/**
 * The events of a scanned segment, packed: four numbers each (kind 0 item: box or -1, line,
 * depth; kind 1 heading: index in `texts`, line, level). No object per line: the scanner's only
 * garbage is what the checklist keeps.
 */
export interface PlainScan {
  events: number[];
  texts: string[];
}

/** The events of a scan, unpacked (for tests and readers that want objects). */
export function eventsOf(scan: PlainScan): PlainEvent[] {
  const out: PlainEvent[] = [];
  const e = scan.events;
  for (let i = 0; i < e.length; i += 4) {
    out.push(
      e[i] === 1
        ? { kind: 'heading', level: e[i + 3]!, text: scan.texts[e[i + 1]!]!, line: e[i + 2]! }
        : {
            kind: 'item',
            box: e[i + 1]! < 0 ? undefined : e[i + 1]!,
            line: e[i + 2]!,
            depth: e[i + 3]!,
          },
    );
  }
  return out;
}

/**
 * Whether the tab at `source[at]` is one column wide: tabs stop every four columns from the start
 * of the line. micromark reads a wider tab as a tab and virtual spaces, so GFM takes `[\t]` for an
 * unchecked box only where its tab is one column wide (`- [\t]` yes, `-   [\t]` no).
 */
export function isNarrowTab(source: string, at: number): boolean {
  let from = at;
  while (from > 0 && source[from - 1] !== '\n' && source[from - 1] !== '\r') from--;
  let column = 0;
  for (let i = from; i < at; i++)
    column = source[i] === '\t' ? column + 4 - (column % 4) : column + 1;
  return column % 4 === 3;
}

/**
 * Whether `source[at]` starts a box: `[ ]`, `[~]`, `[x]`, `[X]`, or `[\t]` where GFM reads it (a
 * tab one column wide), followed by whitespace or the end.
 */
export function isBox(source: string, at: number): boolean {
  if (source[at] !== '[' || source[at + 2] !== ']') return false;
  const mark = source[at + 1];
  if (mark === '\t') {
    if (!isNarrowTab(source, at + 1)) return false;
  } else if (mark !== ' ' && mark !== '~' && mark !== 'x' && mark !== 'X') return false;
  const after = source[at + 3];
  return after === undefined || after === ' ' || after === '\t' || after === '\r' || after === '\n';
}

// Characters that put a segment outside the plain subset wherever they stand (tables, tabs,
// NUL, a carriage return that ends no line).
const NOT_PLAIN_CHARS = /[\t|\0]|\r(?!\n)/;
// Sticky patterns, tried at a line's first non-space character (no slice per line).
const ATX = /(#{1,6})(?: |(?=\r?\n|$))/y;
const FENCE = /(`{3,}|~{3,})([^\n]*)/y;
// Thematic breaks and setext underlines (a lone `-` is an empty list item): all left to remark.
const RULE = /(?:([-*_])(?: *\1){2,}|=+|-+) *(?:\r?\n|$)/y;
const CLOSING_FENCE = / {0,3}(`{3,}|~{3,}) *(?:\r?\n|$)/y;
// Item content that is not plain paragraph text.
const NOT_PLAIN_CONTENT = /(?:[#><|`~*_]|[-+](?: |\r?\n|$)|\d{1,9}[.)](?: |\r?\n|$)|\[)/y;
// Heading text whose mdast text could differ from the source (inline markup, entities, escapes).
const NOT_PLAIN_HEADING = /[\\`*_[\]<>!&~]/;

function at(pattern: RegExp, source: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(source);
}

/**
 * Scans `source[from, to)` (whole lines; `firstLine` is the line number of `from`;
 * `documentStart` when `from` starts the document, after any byte order mark). Returns the
 * events when every line is in the plain subset and no fence is left open, else undefined.
 */
export function scanPlain(
  source: string,
  from: number,
  to: number,
  firstLine: number,
  documentStart = from === 0,
): PlainScan | undefined {
  if (NOT_PLAIN_CHARS.test(source.slice(from, to))) return undefined;
  const events: number[] = [];
  const texts: string[] = [];
  const stack: number[] = []; // content column of each open list item
  let para = false;
  let fence: { char: string; length: number } | undefined;
  // In a top-level block quote: 'text' after a line holding a paragraph, 'empty' after a bare `>`.
  let quote: 'text' | 'empty' | undefined;
  let line = firstLine - 1;
  for (let pos = from; pos < to;) {
    line++;
    const start = pos;
    let next = source.indexOf('\n', pos);
    if (next === -1 || next >= to) next = to;
    const end = next > start && source.charCodeAt(next - 1) === 13 ? next - 1 : next;
    pos = next + 1;

    if (fence) {
      const close = at(CLOSING_FENCE, source, start);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        fence = undefined;
      }
      continue;
    }
    if (start === from && documentStart) {
      const head = source.slice(start, start + 3);
      if (head === '---' || head === '+++') return undefined; // front matter, or what might be
    }
    let first = start;
    while (first < end && source.charCodeAt(first) === 32) first++;
    if (first === end) {
      para = false;
      quote = undefined;
      continue;
    }
    const indent = first - start;
    let k = 0;
    while (k < stack.length && stack[k]! <= indent) k++;
    const rel = indent - (k > 0 ? stack[k - 1]! : 0);
    const lazy = para && k < stack.length;

    if (rel >= 4) {
      // Paragraph continuation in the same item; anything else is indented code or lazy.
      if (para && !lazy) continue;
      return undefined;
    }
    const c = source.charCodeAt(first);
    if (quote) {
      // After a quote, only another quote line is read here: a line continuing the quote's
      // paragraph lazily, or a block that may or may not interrupt it, is left to remark.
      if (c !== 62 || indent > 3) return undefined;
    }
    if (c === 62 && k === 0 && indent <= 3) {
      // A block quote at the top level (it interrupts a paragraph and closes every list): it holds
      // no phase and no task, so it is read only far enough to know it is plain text.
      let content = first + 1;
      if (source.charCodeAt(content) === 32) content++;
      if (content === end) quote = 'empty';
      else {
        const d = source.charCodeAt(content);
        if (d === 32 || at(NOT_PLAIN_CONTENT, source, content)) return undefined;
        if ((d === 45 || d === 61) && at(RULE, source, content)) return undefined;
        quote = 'text';
      }
      stack.length = 0;
      para = false;
      continue;
    }
    // Only `-`, `*`, `_`, `=` start a rule or an underline; only `#`, `` ` ``, `~` and bullets or
    // digits start anything but a paragraph line: try the patterns that can match.
    if ((c === 45 || c === 42 || c === 95 || c === 61) && at(RULE, source, first)) return undefined;
    const heading = c === 35 ? at(ATX, source, first) : null;
    if (heading) {
      if (indent > 0) return undefined;
      const content = source
        .slice(first + heading[1]!.length, end)
        .trim()
        .replace(/(?:^| +)#+$/, '')
        .trim();
      if (NOT_PLAIN_HEADING.test(content)) return undefined;
      events.push(1, texts.push(content) - 1, line, heading[1]!.length);
      stack.length = 0;
      para = false;
      continue;
    }
    const open = c === 96 || c === 126 ? at(FENCE, source, first) : null;
    if (open) {
      if (k > 0) return undefined; // a fence inside a list item
      if (open[1]![0] === '`' && open[2]!.includes('`')) return undefined; // inline code
      fence = { char: open[1]![0]!, length: open[1]!.length };
      stack.length = 0;
      para = false;
      continue;
    }
    // A list marker: a bullet, or one to nine digits and `.` or `)`.
    let markerEnd = -1;
    let one = false;
    if (c === 45 || c === 42 || c === 43) markerEnd = first + 1;
    else if (c >= 48 && c <= 57) {
      let d = first + 1;
      while (d < end && d - first < 10 && isDigit(source.charCodeAt(d))) d++;
      const after = source.charCodeAt(d);
      if (d - first <= 9 && (after === 46 || after === 41)) {
        markerEnd = d + 1;
        one = d - first === 1 && c === 49;
      }
    }
    if (markerEnd !== -1) {
      let content = markerEnd;
      while (content < end && source.charCodeAt(content) === 32) content++;
      const spaces = content - markerEnd;
      // A marker needs a space after it; else the line is text (`-x`, `1.5`).
      if (spaces > 0 || content === end) {
        // An ordered item other than 1 cannot interrupt a paragraph: in the same item the line
        // is text; below a closed item, remark's rule is subtler, so leave it to remark.
        if (c >= 48 && c <= 57 && para && !one) {
          if (lazy) return undefined;
          continue;
        }
        if (spaces === 0 || spaces > 4 || content >= end) return undefined; // empty, or code
        const box = isBox(source, content);
        if (!box && at(NOT_PLAIN_CONTENT, source, content)) return undefined;
        stack.length = k;
        events.push(0, box ? content : -1, line, k);
        stack.push(content - start);
        para = true;
        continue;
      }
    }
    // Paragraph text.
    if (lazy) return undefined;
    if (c === 62 || c === 60 || c === 91 || c === 35) return undefined; // > < [ #
    if (!para && (c === 42 || c === 95)) return undefined; // * _ (bold lines: remark reads them)
    stack.length = k;
    para = true;
  }
  return fence ? undefined : { events, texts };
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
