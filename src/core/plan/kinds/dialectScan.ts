/**
 * The fast path of the markdown kinds' readers: one line scanner for the subset of markdown
 * their real tasks.md files are made of, in the mode each kind's folder gives it (`ScanMode`).
 * It reads ATX headings at column 0, paragraphs (any language), bullet and ordered lists nested
 * by spaces or on one line (`- - [x] …`), an empty item too, `---` rules, block quotes that hold
 * only paragraphs, fenced code (at the top level or in a list item), HTML comments at the top
 * level, CRLF line ends, a byte order mark and closed front matter. Anything else — and anything it cannot be sure reads the
 * same (a lazy line after a task, setext underlines, tables, indented code, markup in a heading
 * or a task, link definitions) — returns undefined, and remark reads the whole document: remark
 * stays the authority, and differential tests hold the two to the same plan.
 */

import { inlineFirstLine, inlineText, plainLineText } from '../inline.js';
import { LOCALIZED_FORMS } from '../requirementWords.js';

/** A list item's marker and the spaces after it, on a quoted line (`- `, `1. `). */
const QUOTED_ITEM = /^(?:[-*+]|\d{1,9}[.)]) {1,4}(?! )/;

/** A heading at the top level of the document, as mdast's text reads it. */
export interface ScannedHeading {
  kind: 'heading';
  depth: number;
  text: string;
  line: number;
}

/** A list item whose content opens with a bracketed mark (`[ ]`, `[x]`, `[-]`, `[P]`, `[ ]*`). */
export interface ScannedItem {
  kind: 'item';
  line: number;
  /** Offset of the mark between the brackets. */
  offset: number;
  mark: string;
  /** The rest of the box's line, its carriage return included (as remark's reading gives it). */
  after: string;
  /**
   * With `taskText`: the first line of the item's text without the box, as mdast's text reads it
   * (for GFM's boxes, `[ ]`, `[x]`, `[X]`); with `idAtStart`, where that reading is not needed for
   * the id at its start, the line as written, trimmed; else empty.
   */
  text: string;
  /**
   * With `requirements`: the item's requirements (its first `Requirements:` paragraph, nested
   * items included); else none.
   */
  requirements: () => string[];
  /** With `structure`: the nearest list item around it that opens with a box, if any. */
  parent?: ScannedItem;
  /** With `structure`: the list it is an item of, a number each list has to itself. */
  list?: number;
  /**
   * With `structure`, for a GFM box with text after a space: the first line of the item's first
   * paragraph as mdast's text reads it, nothing taken off (`text` is it without a box at its start).
   */
  plain?: string;
}

export interface DialectScan {
  events: (ScannedHeading | ScannedItem)[];
  /** Lines inside fenced code and HTML blocks (never tasks), as remark's tree would give them. */
  skip: Set<number>;
  /** With `structure`: where each paragraph at the top level starts, and its line (pairs). */
  paragraphs?: number[];
}

/**
 * What a reader needs the scan to read exactly, given by the kind's folder; a line that could
 * change it goes to remark. The rest is read only as far as the document's blocks go.
 */
export interface ScanMode {
  /**
   * Headings' text and the text of GFM's boxes as mdast's text reads them (inline markup
   * resolved), for a reader that names its phases by their headings and reads ids in a task's
   * text. A task's paragraph may then go on over several lines; without it a heading's text is
   * taken as written, and a box's text is not read.
   */
  taskText: boolean;
  /**
   * With `taskText`, for a reader that reads nothing of a box's text but an id at its start (a
   * number, `1.1`, then white space): where the line shows that mdast's text cannot open with a
   * digit, or opens with the line's first word as written (ID_DECIDED), the text is the line as
   * written, trimmed, and the rest of the line is not read (markup on it sends nothing to remark).
   */
  idAtStart?: boolean;
  /**
   * Each item's requirements (`_Requirements: 1.1, 2.3_`), for a reader of numbered top-level
   * tasks whose sub-tasks cite them: a line that names requirements and could be read otherwise
   * (markup, a paragraph going on over lines) goes to remark.
   */
  requirements: boolean;
  /**
   * For a reader that reads a document's lists as remark's tree has them (which box is nested in
   * which, which boxes share a list) and its top-level paragraphs: each box's `parent`, `list` and
   * `plain`, and the scan's `paragraphs`. Read line by line (no run of lines passed over).
   */
  structure?: boolean;
}

// Characters that make a line other than plain text outside code: controls (tabs among them),
// a byte order mark after the start. A carriage return is fine only before a line feed.
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\0-\x09\x0b-\x1f\x7f\ufeff]/;
// eslint-disable-next-line no-control-regex -- the same, but a carriage return or a byte order mark
const CONTROL_CHAR = /[\0-\x09\x0b\x0c\x0e-\x1f\x7f]/;
const LONE_CR = /\r(?!\n)/;

/** Whether a line may hold a control character, a lone carriage return or an inner byte order mark. */
function suspectSource(source: string): boolean {
  // Three plain searches: one pattern of all three (a look-behind at every position) cost more.
  // A source with no carriage return (most: LF line ends) holds no lone one, which `includes`
  // tells faster than the pattern's search.
  return (
    CONTROL_CHAR.test(source) ||
    (source.includes('\r') && LONE_CR.test(source)) ||
    source.indexOf('\ufeff', 1) !== -1
  );
}

// Lines that are no paragraph text: thematic breaks, setext underlines, table delimiter rows.
const NOT_TEXT_LINE = /^(?:[-:|=][-:|= ]*|(?:\* *){3,}|(?:_ *){3,})$/;
const ORDERED = /^(\d{1,9})[.)](?= |$)/;
const ATX = /^(#{1,6})(?: (.*))?$/;
// A bracket that opens no link definition: closed on its line, not followed by `:`.
const NOT_DEFINITION = /^\[[^\]\\[]*\](?!:)/;
/** English's word for requirements, in any case (a pattern's text, for the patterns made of it). */
const ENGLISH_WORD = '[Rr][Ee][Qq][Uu][Ii][Rr][Ee][Mm][Ee][Nn][Tt]';
/**
 * What each word another language cites requirements with (LOCALIZED_FORMS) opens with (a form
 * holds its stem as written, no longer than six characters): a line or a source that holds none
 * of them names no requirement in another language.
 */
const LOCALIZED_STEMS = [
  'Требов',
  'Вимог',
  '要件',
  '需求',
  '요구',
  'Requis',
  'Exigen',
  'Anford',
  'Wymag',
  'Gereks',
  'Yêu c',
];
/**
 * Whether a source may name requirements in another language (LOCALIZED_STEMS): one `includes`
 * per stem, which V8 runs at about memchr's speed for patterns this short (longer ones, or one
 * pattern of them all, cost several times as much). A plan in English pays that, about 0.6 µs a
 * KiB, and nothing more per line.
 */
function mayNameLocalized(source: string): boolean {
  for (let i = 0; i < LOCALIZED_STEMS.length; i++) {
    if (source.includes(LOCALIZED_STEMS[i]!)) return true;
  }
  return false;
}
/** The word for requirements, English's in any case or another language's (a pattern's text). */
export const REQUIREMENT_WORD = `(?:${ENGLISH_WORD}[Ss]?|${LOCALIZED_FORMS})`;
/**
 * The requirements a line cites, in mdast's text: the word (REQUIREMENT_WORD), a colon (`:` or
 * CJK's full-width `：`, after a space or a no-break space or none, as French writes one), then
 * the ids. The remark reading runs the same pattern on a paragraph's text.
 */
export const REQUIREMENTS = new RegExp(
  String.raw`${REQUIREMENT_WORD}[ \u00a0\u202f]?[:\uff1a]\s*(\d[\d.,\s\-\u2013\u2014\u301c\uff5e]*)`,
);
// REQUIREMENTS for a line of a source that holds no other language's word (mayNameLocalized):
// the same reading there, by a pattern V8 searches faster (it opens with one word).
const ENGLISH_REQUIREMENTS =
  /Requirements?[ \u00a0\u202f]?[:\uff1a]\s*(\d[\d.,\s\-\u2013\u2014\u301c\uff5e]*)/i;
// The patterns the loop over lines tests, made once: a literal in the loop is a new object each
// time it is reached. Each costs a compilation on a first read (about 0.1 ms, twice: V8 tiers a
// pattern up after its first run), so what every code block reaches is written out instead.
/**
 * English's word for requirements, in any case, as a line may write it with markup inside too
 * (`_Require*ments*:_`, ``Require`ments` ``), which mdast's text reads as the word: a line that
 * holds it is read as one that names a requirement (`requirementsOfLine`, or remark where its
 * markup is not plain). One pattern for both: a first read compiles each pattern it runs.
 */
const MARKED_WORD =
  '[Rr][*_`]*[Ee][*_`]*[Qq][*_`]*[Uu][*_`]*[Ii][*_`]*[Rr][*_`]*[Ee][*_`]*[Mm][*_`]*[Ee][*_`]*[Nn][*_`]*[Tt]';
/**
 * What may start a character reference (`&#101;`, `&#x65;`, `&acy;`: CommonMark's numeric and
 * named ones), which mdast's text decodes, so that any letter of a word (`_Requir&#101;ments:_`,
 * `_Требов&#1072;ния:_`) or the colon may be written as one: a line that holds one is read as one
 * that may name a requirement (whose reading, `inlineText`, leaves it to remark).
 */
const CHARACTER_REFERENCE = '&(?:#|[A-Za-z][A-Za-z0-9]*;)';
// The word or a character reference: one pattern, not a second run on every line.
const REQUIREMENT = new RegExp(`${MARKED_WORD}|${CHARACTER_REFERENCE}`);
// A line that may name a requirement in another language (one search of the whole source tells
// whether any line does: where none does, the loop tests REQUIREMENT alone).
const LOCALIZED_REQUIREMENT = new RegExp(LOCALIZED_STEMS.join('|'));
// What a link or an image is written with around its text (`[`, `![`, `](…)`), which mdast's text
// drops: a word may be split by it (`Require[ments](r.md)`, `要[件](r.md)`), so a line holding `](`
// is searched for a word with it dropped, in every language (the source's search for another
// language's word, `mayNameLocalized`, does not see a split one).
const LINK_SYNTAX = /!?\[|\]\([^)]*\)?/g;

/** Whether a line holding `](` may name a requirement once its links' syntax is dropped. */
function linkedRequirement(text: string): boolean {
  const bare = text.replace(LINK_SYNTAX, '');
  return REQUIREMENT.test(bare) || LOCALIZED_REQUIREMENT.test(bare);
}
const ATX_OPEN = /^#{1,6}(?: |$)/;
const CLOSING_HASHES = /(?:^| +)#+$/;
const EMPTY_COMMENT = /^<!---?>/;

// The list items after a plain one (what `startsText` reads as text, no box, nothing REQUIREMENT
// finds: no requirement's word, no character reference; no `](`, whose link may split one) that the loop over lines would read the
// same way (3): at its indentation, with its marker's spacing, each after blank lines or none.
// Each closes the one before it and opens an item at the same column, so the state after them is
// the state after the first, its item a fresh one. Then the blank lines after them (4), which
// close the paragraph. The first line (the item the loop read) gives the indentation (1) and the
// spacing (2); a line holds no control character (a carriage return only before its line feed: a
// lone one was refused).
/* eslint-disable no-control-regex -- a line of such an item holds no control character */
const SIBLING_ITEMS =
  /( *)[-*+]( {1,4})[^ \n][^\n]*\n((?:(?: *\r?\n)*\1[-*+]\2(?![^\n]*(?:[Rr][*_`]*[Ee][*_`]*[Qq][*_`]*[Uu][*_`]*[Ii][*_`]*[Rr][*_`]*[Ee][*_`]*[Mm][*_`]*[Ee][*_`]*[Nn][*_`]*[Tt]|&(?:#|[A-Za-z][A-Za-z0-9]*;)|\]\())(?:[A-Za-z\u0080-\ufefe\uff00-\uffff("'./@$%^{}&\\!;?,)]|`(?!``)|\*\*(?=[A-Za-z\u0080-\ufefe\uff00-\uffff`]))[^\n\0-\x1f\x7f\ufeff]*\r?\n)*)((?: *\r?\n)*)/y;
/* eslint-enable no-control-regex */
// The same for a source that may name requirements in another language (LOCALIZED_REQUIREMENT):
// a line naming one ends the run too.
const SIBLING_ITEMS_LOCALIZED = new RegExp(
  SIBLING_ITEMS.source.replace(MARKED_WORD, `(?:${MARKED_WORD}|${LOCALIZED_STEMS.join('|')})`),
  'y',
);

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * `NOT_TEXT_LINE.test(s)`: such a line is made of `-`, `:`, `|`, `=`, `*`, `_` and spaces only, so
 * the pattern runs only on one (a line of text is told by its first other character, without a
 * run of the pattern: each pattern a read runs twice is compiled twice, about 0.1 ms each).
 */
export function isNotTextLine(s: string): boolean {
  for (let i = 0, n = s.length; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c !== 45 && c !== 58 && c !== 124 && c !== 61 && c !== 42 && c !== 95 && c !== 32) {
      return false;
    }
  }
  return NOT_TEXT_LINE.test(s);
}

/**
 * The length of the list marker `s` opens with (a bullet, or one to nine digits and `.` or `)`,
 * then a space or the end), or 0.
 */
function listMarker(s: string): number {
  const c = s.charCodeAt(0);
  let end = 1;
  if (c >= 48 && c <= 57) {
    while (end < 10 && s.charCodeAt(end) >= 48 && s.charCodeAt(end) <= 57) end++;
    const after = s.charCodeAt(end);
    if (end > 9 || (after !== 46 && after !== 41)) return 0;
    end++;
  } else if (c !== 45 && c !== 42 && c !== 43) return 0;
  return end === s.length || s.charCodeAt(end) === 32 ? end : 0;
}

/** Whether `s` (from its first character, not a space) is paragraph text, not a block's start. */
function startsText(s: string): boolean {
  const c = s.charCodeAt(0);
  if (isLetter(c) || c >= 0x80) return true;
  if (isNotTextLine(s)) return false;
  switch (s[0]) {
    case '*':
    case '-':
    case '+':
      return s.length > 1 && s[1] !== ' '; // a bullet, or an empty item
    case '_':
    case '!':
    case '"':
    case "'":
    case '(':
    case ')':
    case ',':
    case '.':
    case '/':
    case ';':
    case '?':
    case '@':
    case '$':
    case '%':
    case '^':
    case '{':
    case '}':
    case '&':
    case '\\':
      return true;
    case '`':
      return !s.startsWith('```');
    case '~':
      return !s.startsWith('~~~');
    case '#':
      return !ATX_OPEN.test(s);
    case '[':
      return NOT_DEFINITION.test(s);
    default:
      return c >= 48 && c <= 57 && !ORDERED.test(s);
  }
}

/** What `itemText` keeps of the text after the box: a leading `[.]` or `[.]*` and spaces dropped. */
function withoutBox(text: string): string {
  const mark = text.charCodeAt(1);
  if (
    text[0] !== '[' ||
    text[2] !== ']' ||
    mark === 10 ||
    mark === 13 ||
    mark === 0x2028 ||
    mark === 0x2029 ||
    Number.isNaN(mark)
  ) {
    return text.trim();
  }
  return text.slice(text[3] === '*' ? 4 : 3).trim();
}

/** A task's text from its first line's reading (`withoutBox`, called only where a bracket opens it). */
function taskTextOf(plain: string): string {
  return plain.charCodeAt(0) === 91 ? withoutBox(plain) : plain.trim();
}

/**
 * Requirements as mdast's text reads them from one line (`inlineText`) that names a requirement
 * (REQUIREMENT), by `cited` (REQUIREMENTS, or ENGLISH_REQUIREMENTS where it reads the same),
 * undefined when it cites none, 'not plain' when remark must read the line.
 */
function requirementsOfLine(text: string, cited: RegExp): string[] | 'not plain' | undefined {
  // A `_Requirements: 1.1, 2.3_` line without the reading's loop (held to it by a property).
  const plain = plainLineText(text) ?? inlineText(text);
  if (plain === undefined) return 'not plain';
  const m = cited.exec(plain);
  return m ? requirementIds(m[1]!) : undefined;
}

/**
 * The requirements what REQUIREMENTS captures cites (digits, dots, commas, white space and
 * dashes): each id (`1.2`, numbers joined by dots) between commas and white space, and each range
 * of two (`6.1-6.11`, `1.1–1.7`, `3 - 5`, `1.1〜1.3`) as every id it spans where the two differ only in their
 * last number, up to a hundred (`6.1` … `6.11`), else as its two ends (`1.3–2.2`). A token that
 * is neither (`1..2`, `.5`) cites nothing; a dash with no id after it (`1.1 - see design`)
 * leaves the id before it.
 */
export function requirementIds(cited: string): string[] {
  return plainIds(cited) ?? rangeIds(cited);
}

/** `requirementIds` of a capture with a dash in it: ranges (a function compiled only for them). */
function rangeIds(cited: string): string[] {
  const out: string[] = [];
  for (const token of cited.replace(DASH_RUN, '-').split(/[,\s]+/)) {
    const [from, to, ...more] = token.split('-');
    if (more.length > 0 || !isId(from!)) continue;
    if (to === undefined || to === '' || !isId(to)) out.push(from!);
    else out.push(...idRange(from!, to));
  }
  return out;
}

/**
 * What a range's two ids are joined by, with the white space around it: a hyphen, an en or em
 * dash, CJK's wave dashes (`1.1〜1.3`).
 */
const DASH_RUN = /\s*[-\u2013\u2014\u301c\uff5e]\s*/g;

/** Numbers joined by dots (`/^\d+(?:\.\d+)*$/`). */
function isId(token: string): boolean {
  const ids = plainIds(token);
  return ids !== undefined && ids.length === 1 && ids[0] === token;
}

/** The ids a range spans: `6.1`–`6.11` each, where only the last number differs; else its ends. */
function idRange(from: string, to: string): string[] {
  const a = from.split('.');
  const b = to.split('.');
  const first = Number(a.at(-1));
  const last = Number(b.at(-1));
  // A number written with a leading zero (`6.01`) is no number to count from: ids are as written.
  const padded = (n: string) => n.length > 1 && n.startsWith('0');
  if (
    !padded(a.at(-1)!) &&
    !padded(b.at(-1)!) &&
    a.length === b.length &&
    a.slice(0, -1).join('.') === b.slice(0, -1).join('.') &&
    first < last &&
    last - first < 100
  ) {
    const prefix = a
      .slice(0, -1)
      .map((n) => `${n}.`)
      .join('');
    return Array.from({ length: last - first + 1 }, (_, i) => `${prefix}${first + i}`);
  }
  return from === to ? [from] : [from, to];
}

/**
 * `cited.split(/[,\s]+/).filter((r) => /^\d+(?:\.\d+)*$/.test(r))` for a capture with no dash
 * (digits, dots, commas and white space): the numbers between the other characters, those that
 * neither open nor close with a dot nor hold two together; undefined at a dash (DASH_RUN's). Two
 * patterns fewer run per requirement line.
 */
function plainIds(cited: string): string[] | undefined {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i <= cited.length; i++) {
    const c = i < cited.length ? cited.charCodeAt(i) : -1;
    if ((c >= 48 && c <= 57) || c === 46) continue;
    if (c === 45 || c === 0x2013 || c === 0x2014 || c === 0x301c || c === 0xff5e) return undefined;
    if (i > from) {
      const id = cited.slice(from, i);
      if (id.charCodeAt(0) !== 46 && id.charCodeAt(id.length - 1) !== 46 && !id.includes('..')) {
        out.push(id);
      }
    }
    from = i + 1;
  }
  return out;
}

// A task line as the loop reads one after a task at the same indentation (`- [ ] T002 …`): a
// bullet and one space, a box GFM reads, one space and then a character other than white space
// (a line the loop refuses has none, or two spaces and a bracket); no carriage return (the
// line's text and what follows its box are then the same). Its text after the space is captured
// again (4) when it is plain (no character of markup, `&` or `!` before `[`, `[` before `^`, `]`
// before `(`): the reading of inline markup gives it as written.
const TASK_LINE =
  /( *)- \[([ xX])\]( (?!\s)(?:([^\n\r\\<`*_~&![\]]*(?:(?:!(?!\[)|\[(?!\^)|\](?!\())[^\n\r\\<`*_~&![\]]*)*)(?=\n)|[^\n\r]*))\n/y;

// A box's first line whose mdast text a reader of an id at its start reads as the line as written
// (`ScanMode.idAtStart`): after spaces and tabs, a run of `*`, `_`, `~` or backticks (emphasis,
// strikethrough or code, or the characters themselves) and then a character that is no digit,
// no white space and opens no other markup (the text opens with that run or that character:
// markup only drops characters before it, and nothing moves one ahead of it); or a first word
// opening with a digit, holding no markup character, then white space and more on the line (the
// text opens with that word and that white space: nothing after it joins it, as a hard break at
// the line's end would).
const ID_DECIDED = /[ \t]*(?:[*_~`]*[^\s\d\\<`*_~&![\]]|\d[^\s\\<`*_~&![\]]*\s+\S)/y;

// A requirement line as a plan writes one under a task's details, at their column and spacing
// (`  - _Requirements: 1.1, 2.3_`): its cited ids (3) are digits, dots, commas, spaces and a
// range's dashes (DASH_RUN's), the first a digit. The loop reads its text as what the `_` run
// wraps (PLAIN_LINE), or, with a space before the closing `_` (which then closes nothing), as
// written; either way REQUIREMENTS takes the same ids (`requirementIds`). No control character: the same in a source with one. In a
// source that may name requirements in another language, the word may be one of theirs, and the
// colon a full-width one, or followed by no space (`  - _需求：1.1_`).
const REQUIREMENT_ITEM =
  /( *)[-*+]( {1,4})_Requirements?: (\d[\d., \-\u2013\u2014\u301c\uff5e]*)_\r?\n/y;
const REQUIREMENT_ITEM_LOCALIZED = new RegExp(
  String.raw`( *)[-*+]( {1,4})_(?:Requirements?|${LOCALIZED_FORMS})[:\uff1a] ?(\d[\d., \-\u2013\u2014\u301c\uff5e]*)_\r?\n`,
  'y',
);

/** A task's requirements where the mode reads none. */
const noRequirements = (): string[] => [];

interface OpenItem {
  /** The column its content starts at. */
  content: number;
  requirements: string[] | undefined;
  /** With `structure`: its box's event, when it opens with one. */
  event?: ScannedItem;
}

/**
 * Whether `body` closes a fence of `char` (a character code) and `length`: up to three spaces,
 * a run of `char` at least that long, then only spaces and tabs (`/^ {0,3}(`{3,}|~{3,})[ \t]*$/`).
 */
function closesFence(body: string, char: number, length: number): boolean {
  let i = 0;
  while (i < 3 && body.charCodeAt(i) === 32) i++;
  const run = i;
  while (body.charCodeAt(i) === char) i++;
  if (i - run < 3 || i - run < length) return false;
  for (; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** Whether `s` is a thematic break of one character, three or more, then spaces (`/^(?:-{3,}|\*{3,}|_{3,}) *$/`). */
function isRule(s: string): boolean {
  const c = s.charCodeAt(0);
  if (c !== 45 && c !== 42 && c !== 95) return false;
  let i = 1;
  while (s.charCodeAt(i) === c) i++;
  if (i < 3) return false;
  for (; i < s.length; i++) if (s.charCodeAt(i) !== 32) return false;
  return true;
}

/** A table row's cells, as GFM splits a row with no backslash in it: at every `|`, the outer ones dropped. */
function tableCells(row: string): string[] {
  let s = row.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  return s.split('|');
}

const DELIMITER_CELL = /^ *:?-+:? *$/;

/**
 * Whether `row`, under `header`, is the delimiter row of a table GFM reads: opening with `|`, a
 * cell of `-` (a `:` at either end) for each of the header's; no backslash in either (an escaped
 * `|` splits no cell), which is left to the reading that refuses.
 */
function isDelimiterRow(row: string, header: string): boolean {
  if (row.charCodeAt(0) !== 124 || row.includes('\\') || header.includes('\\')) return false;
  const cells = tableCells(row);
  return (
    cells.every((cell) => DELIMITER_CELL.test(cell)) && cells.length === tableCells(header).length
  );
}

/** Why the scanner left a document to remark, and on which line. */
export interface ScanRefusal {
  refused: string;
  line: number;
}

/** The scan of a whole document, or undefined when remark must read it (see the file's note). */
/**
 * Front matter from `pos`, read as remark-frontmatter does: `---` (or `+++`) alone on the first
 * line, up to the same alone on a later line. Where the document goes on after it and the lines
 * read; not closed, the line the reading stopped at (remark reads such a document).
 */
function frontMatterEnd(
  source: string,
  from: number,
): { closed: boolean; pos: number; line: number } {
  const length = source.length;
  let pos = from;
  let line = 0;
  // The next line, counting the lines read.
  const nextLine = (): string | undefined => {
    if (pos > length) return undefined;
    let end = source.indexOf('\n', pos);
    if (end === -1) end = length;
    const start = pos;
    pos = end + 1;
    line++;
    if (end === length && start === end) return undefined;
    return source.slice(start, end > start && source.charCodeAt(end - 1) === 13 ? end - 1 : end);
  };
  const first = nextLine()!;
  const fenceText = first.slice(0, 3);
  if (!/^(?:---|\+\+\+)[ \t]*$/.test(first)) return { closed: false, pos, line };
  for (;;) {
    const l = nextLine();
    if (l === undefined) return { closed: false, pos, line };
    if (l.startsWith(fenceText) && /^[ \t]*$/.test(l.slice(3))) return { closed: true, pos, line };
  }
}

/**
 * A block quote's line (`rest`, opening with `>`, at `indent`): the paragraph it opens (0, or -1
 * for a `>` alone), or why remark must read it. The scanner reads a quote at the top level that
 * holds paragraphs (GitHub's alerts too: `> [!NOTE]`), and list items of text (`> - Run `git push`
 * after each task`: a note above the tasks), no box among them: nothing in a quote is a task or a
 * phase.
 */
function quoteLine(rest: string, indent: number): number | string {
  if (indent > 0) return 'an indented block quote';
  let q = 1;
  if (rest[q] === ' ') q++;
  if (q >= rest.length) return -1;
  let body = rest.slice(q);
  const item = QUOTED_ITEM.exec(body);
  if (item) body = body.slice(item[0].length);
  // A bracket after a quoted item's marker may be a box; one that opens the quote's paragraph is
  // text unless it opens a link definition (`startsText`): GitHub's alerts, `> [!NOTE]`.
  if (rest[q] === ' ' || body === '' || (item && body[0] === '[') || !startsText(body))
    return 'a block quote holding more than text';
  return 0;
}

/** A fence line's run of backticks or tildes (`c`), or why it is no fence the scanner reads. */
function fenceRun(rest: string, c: number): number | string {
  let run = 3;
  while (rest.charCodeAt(run) === c) run++;
  const info = rest.slice(run);
  if (info.includes('\u2028') || info.includes('\u2029')) return 'a line separator in a fence line';
  if (c === 96 && info.includes('`')) return 'inline code opening a line'; // inline code, not a fence
  return run;
}

/**
 * An item whose content opens with a list marker (`m` long) holds a list (`- - [x] T010 …`, left
 * by a search and replace): each marker opens an item inside the one before it, at its content's
 * column, as remark reads it (pushed to `open`). The last one's content and its column from the
 * line's content (`at`), or why remark must read the line.
 */
function nestedItems(
  content: string,
  m: number,
  at: number,
  indent: number,
  interrupting: boolean,
  open: OpenItem[],
): { content: string; at: number } | string {
  for (; m > 0; m = listMarker(content)) {
    // `- * * *`, `1. - - -`: a thematic break in the item, not a list.
    if (isNotTextLine(content)) return 'a rule or an underline in a list item';
    // `- 2. [ ] …` after a paragraph: micromark reads `2.` as the item's text, not a list.
    if (interrupting && m > 1 && (m !== 2 || content.charCodeAt(0) !== 49))
      return 'a numbered list other than 1 opening an item that interrupts a paragraph';
    let a = m;
    while (content.charCodeAt(a) === 32) a++;
    if (a >= content.length || a - m > 4) return 'an empty list item, or code in one';
    at += a;
    content = content.slice(a);
    open.push({ content: indent + at, requirements: undefined });
  }
  return { content, at };
}

export function scanDialect(source: string, mode: ScanMode): DialectScan | undefined {
  const scan = scanOrRefuse(source, mode);
  return 'refused' in scan ? undefined : scan;
}

/**
 * The scan of a whole document, or why remark must read it (what `npm run bench` shows). With
 * `segment`, `source` is a piece of a document cut before a column-0 ATX heading: a fence or an
 * HTML block still open at its end would hold that heading, so the piece is refused.
 */
export function scanOrRefuse(
  source: string,
  mode: ScanMode,
  options: { passOver?: boolean; segment?: boolean } = {},
): DialectScan | ScanRefusal {
  // Lines the loop would read without changing what it has read are passed over by one search
  // (`passOver: false`, the loop over every line, is what a property holds the searches to).
  const structure = mode.structure === true;
  const passOver = options.passOver !== false && !structure;
  // Read once: a first read in a process runs the loop below interpreted, where each property
  // read is a lookup.
  const { taskText, requirements } = mode;
  const idAtStart = mode.idAtStart === true;
  const length = source.length;
  // Whether a line may cite requirements in another language: one search of the source, so that
  // a plan citing them in English only tests REQUIREMENT on its lines, as it did.
  const localized = requirements && mayNameLocalized(source);
  const siblingItems = localized ? SIBLING_ITEMS_LOCALIZED : SIBLING_ITEMS;
  const requirementItem = localized ? REQUIREMENT_ITEM_LOCALIZED : REQUIREMENT_ITEM;
  const citedBy = localized ? REQUIREMENTS : ENGLISH_REQUIREMENTS;
  /**
   * Whether a line may name a requirement (REQUIREMENT: the word or a character reference, or
   * another language's word; in a line holding a link, with its syntax dropped).
   */
  const namesRequirement = (text: string): boolean =>
    REQUIREMENT.test(text) ||
    (localized && LOCALIZED_REQUIREMENT.test(text)) ||
    (text.includes('](') && linkedRequirement(text));
  let line = 0;
  const no = (refused: string): ScanRefusal => ({ refused, line });
  const suspect = suspectSource(source);
  if (suspect && (LONE_CR.test(source) || source.indexOf('\ufeff', 1) !== -1))
    return no('a lone carriage return or a byte order mark inside');
  const events: (ScannedHeading | ScannedItem)[] = [];
  const skip = new Set<number>();
  const open: OpenItem[] = [];
  // The open paragraph: the number of list items around it (-1: none), whether it is a box's
  // first paragraph, whether it is inside the block quote, whether it names requirements.
  let para = -1;
  let paraBox = false;
  // With `taskText`: the lines of the open task's paragraph (its text is read when the scan ends).
  // Each such task, and its paragraph's lines: the line alone for most, an array for one that
  // goes on (no array and no record made per task).
  let taskOpen = false;
  const tasks: ScannedItem[] = [];
  const paragraphs: (string | string[])[] = [];
  const goOn = (rest: string) => {
    const last = paragraphs.length - 1;
    const lines = paragraphs[last]!;
    if (typeof lines === 'string') paragraphs[last] = [lines, rest];
    else lines.push(rest);
  };
  // After an empty list item (`-` alone): the column its content would start at.
  let emptyItem = -1;
  let paraReq = false;
  let quote = false;
  let fence: { char: number; length: number; column: number } | undefined;
  let html = false;
  // In a table (or a paragraph of `|` lines) at the top level: it holds no task. Its first line,
  // until the next tells whether GFM reads a table (a delimiter row), and whether it does.
  let table = false;
  let tableHeader: string | undefined;
  let tableRead = false;
  let pos = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  // With `structure`: the list open at each level of nesting (its number and its marker: the
  // bullet, or an ordered item's delimiter), which a block other than a list item closes, and
  // whether the last line was an empty item (whose list stays open though no item of it is).
  const lists: { id: number; key: string }[] = [];
  let listCount = 0;
  let listKept = false;
  const listOf = (level: number, key: string): number => {
    const same = lists.length > level && lists[level]!.key === key;
    if (!same) lists[level] = { id: listCount++, key };
    lists.length = level + 1;
    return lists[level]!.id;
  };
  const topParagraphs: number[] = [];

  // The line the loop below read last starts at `start`; no object per line.
  let start: number;

  // Front matter, read as remark-frontmatter does (`frontMatterEnd`).
  if (source.startsWith('---', pos) || source.startsWith('+++', pos)) {
    const end = frontMatterEnd(source, pos);
    line = end.line;
    if (!end.closed) return no('front matter that does not close');
    pos = end.pos;
  }

  // Where a line names a requirement (REQUIREMENT): what it cites goes to the open items.
  const cite = (text: string): boolean => {
    // A link may split another language's word, which the source's search did not see.
    const r = requirementsOfLine(text, text.includes('](') ? REQUIREMENTS : citedBy);
    if (r === 'not plain') return false;
    if (r) for (let i = 0; i < open.length; i++) open[i]!.requirements ??= r;
    return true;
  };

  for (;;) {
    // The next line, read in place: a call per line costs a first read more than the body.
    if (pos > length) break;
    let end = source.indexOf('\n', pos);
    if (end === -1) end = length;
    start = pos;
    pos = end + 1;
    line++;
    if (end === length && start === end) break;
    if (end === start && fence === undefined && !html) {
      // An empty line (most blank lines), outside code and HTML: what the blank line below does.
      emptyItem = -1;
      para = -1;
      quote = false;
      table = false;
      continue;
    }
    const text = source.slice(
      start,
      end > start && source.charCodeAt(end - 1) === 13 ? end - 1 : end,
    );
    if (fence) {
      // In a list item, code goes on while lines are blank or indented to the item's content;
      // a line less indented closes the item and the code with it, and is read afresh.
      let inside = true;
      let body = text;
      if (fence.column > 0) {
        let f = 0;
        while (text.charCodeAt(f) === 32) f++;
        if (suspect && text.charCodeAt(f) === 9) return no('a tab indenting code in a list item');
        if (f < text.length && f < fence.column) inside = false;
        else body = text.slice(Math.min(f, fence.column));
      }
      if (inside) {
        skip.add(line);
        if (closesFence(body, fence.char, fence.length)) fence = undefined;
        continue;
      }
      fence = undefined;
    }
    if (html) {
      skip.add(line);
      if (text.includes('-->')) html = false;
      continue;
    }
    if (suspect && CONTROL.test(text)) return no('a tab or control character');
    let first = 0;
    while (text.charCodeAt(first) === 32) first++;
    if (emptyItem >= 0) {
      const column = emptyItem;
      emptyItem = -1;
      if (first < text.length && first >= column) return no('a line inside an empty list item');
    }
    if (first === text.length) {
      para = -1;
      quote = false;
      table = false;
      continue;
    }
    // The lists a block of the last line closed (every `open.length = …` that is no list item's).
    if (structure) {
      if (listKept) listKept = false;
      else if (lists.length > open.length) lists.length = open.length;
    }
    if (table) {
      if (tableHeader !== undefined) {
        tableRead = first === 0 && isDelimiterRow(text, tableHeader);
        tableHeader = undefined;
      }
      // A thematic break ends a table GFM reads (under a paragraph of `|` lines, `---` would make
      // it a heading): a summary table, then `---` before the next phase.
      if (tableRead && first === 0 && isRule(text)) {
        table = false;
        open.length = 0;
        quote = false;
        continue;
      }
      if (first > 3 || text.charCodeAt(first) !== 124)
        return no('a table row not opening with "|"');
      continue;
    }
    const indent = first;
    const rest = first === 0 ? text : text.slice(first);
    // The open items this line is inside: those whose content starts at or before its indent.
    let k = open.length;
    while (k > 0 && open[k - 1]!.content > indent) k--;
    const rel = indent - (k > 0 ? open[k - 1]!.content : 0);
    const c = rest.charCodeAt(0);
    // `- [`, a box in a bullet (most lines of a tasks file): none of the blocks below opens so,
    // and no line of `-`, `:`, `|`, `=`, `*`, `_` and spaces is one; to the list marker at once.
    const dashBox = c === 45 && rel < 4 && rest.charCodeAt(1) === 32 && rest.charCodeAt(2) === 91;
    if (!dashBox) {
      if (c === 62 /* > */) {
        // A block quote at the top level holding text (`quoteLine`): nothing in it is a task.
        const quoted = quoteLine(rest, indent);
        if (typeof quoted === 'string') return no(quoted);
        para = quoted;
        open.length = 0;
        quote = true;
        paraBox = false;
        paraReq = false;
        continue;
      }
      if (rel >= 4) {
        // Indented: the continuation of an open paragraph, or indented code.
        if (para < 0) return no('indented code');
        if (paraBox) {
          if (!taskOpen) return no('a line continuing a task');
          goOn(rest);
          continue;
        }
        if (requirements && (paraReq || namesRequirement(rest)))
          return no('a requirements line continued');
        continue;
      }
      if (c === 35 /* # */) {
        const m = ATX.exec(rest);
        if (m) {
          if (indent > 0) return no('an indented heading');
          let content = (m[2] ?? '').trim();
          if (content.endsWith('#')) content = content.replace(CLOSING_HASHES, '').trim();
          // A reader of task text names phases by their headings' text.
          const plain = taskText ? inlineText(content) : content;
          if (plain === undefined) return no('markup in a heading remark must read');
          events.push({ kind: 'heading', depth: m[1]!.length, text: plain, line });
          open.length = 0;
          para = -1;
          quote = false;
          continue;
        }
      }
      if ((c === 96 /* ` */ && rest.startsWith('```')) || (c === 126 && rest.startsWith('~~~'))) {
        // The fence's run of backticks or tildes (`fenceRun`).
        const run = fenceRun(rest, c);
        if (typeof run === 'string') return no(run);
        // At the top level, or in the list item whose content it is indented to (its column).
        fence = { char: c, length: run, column: k > 0 ? open[k - 1]!.content : 0 };
        skip.add(line);
        open.length = k;
        para = -1;
        quote = false;
        continue;
      }
      if (c === 60 /* < */) {
        if (indent > 0 || !rest.startsWith('<!--') || EMPTY_COMMENT.test(rest))
          return no('HTML other than a comment at the top level');
        html = !rest.includes('-->', 4);
        skip.add(line);
        open.length = 0;
        para = -1;
        quote = false;
        continue;
      }
      if ((c === 45 || c === 42 || c === 43) && rest.length === 1 && (para < 0 || k < para)) {
        // An empty list item: it closes the items it is not inside, and holds nothing. After a
        // paragraph it is one only outside the paragraph's item (a lone "-" after a task's
        // details, as some tasks files write); inside it, "-" would underline the paragraph as a heading.
        open.length = k;
        quote = false;
        para = -1;
        paraBox = false;
        paraReq = false;
        emptyItem = indent + 2;
        if (structure) {
          listOf(k, rest[0]!);
          listKept = true;
        }
        continue;
      }
      // (Such a line opens with `-`, `:`, `|`, `=`, `*` or `_`: no call for any other.)
      if (
        (c === 45 || c === 58 || c === 124 || c === 61 || c === 42 || c === 95) &&
        isNotTextLine(rest)
      ) {
        // A thematic break between blocks; after text it could underline a setext heading.
        if (indent > 0 || para >= 0 || !isRule(rest))
          return no('a setext underline or an indented rule');
        open.length = 0;
        quote = false;
        continue;
      }
    }
    // A list marker: a bullet, or one to nine digits and `.` or `)`, then a space.
    let marker = dashBox ? 1 : 0;
    if (!dashBox && (c === 45 || c === 42 || c === 43) && (rest.length === 1 || rest[1] === ' '))
      marker = 1;
    const ordered = marker === 0 && c >= 48 && c <= 57 ? ORDERED.exec(rest) : null;
    if (ordered) {
      marker = ordered[0].length;
      // An ordered item other than 1 (`01.` too: micromark takes a lone `1`) does not interrupt a
      // paragraph: on the paragraph's own level the line is its text; a list item only where it
      // closes the paragraph's item.
      if (para >= 0 && ordered[1] !== '1') {
        if (quote) return no('a numbered line after a block quote');
        if (k >= para) {
          if (paraBox || (requirements && (paraReq || namesRequirement(rest)))) {
            return no('a numbered line continuing a task');
          }
          continue;
        }
      }
    }
    if (marker > 0) {
      // Whether the line interrupts the open paragraph (it goes on in every item around it, and
      // no quote is open): micromark's `interrupt`, under which a numbered item opens only at 1.
      const interrupting = para >= 0 && k >= para && !quote;
      let at = marker;
      while (rest.charCodeAt(at) === 32) at++;
      const spaces = at - marker;
      if (at >= rest.length || spaces > 4) return no('an empty list item, or code in one'); // an empty item, or code in it
      let content = rest.slice(at);
      open.length = k;
      let item: OpenItem = { content: indent + at, requirements: undefined };
      open.push(item);
      // Bullets of another character, or numbers with another delimiter, start another list.
      const list = structure ? listOf(k, ordered ? ordered[0].slice(-1) : rest[0]!) : 0;
      // An item whose content opens with a list marker holds a list (`- - [x] T010 …`, left by a
      // search and replace): each marker opens an item inside the one before it, at its content's
      // column, as remark reads it; the last one's content is read below.
      // (`listMarker` is called only for content opening as a marker does: most open with a box.)
      const c1 = content.charCodeAt(0);
      const m =
        c1 === 45 || c1 === 42 || c1 === 43 || (c1 >= 48 && c1 <= 57) ? listMarker(content) : 0;
      const nested = m > 0;
      if (nested) {
        // A story's structure (which list each item is in) is remark's to give for such a line.
        if (structure) return no('a list item that opens with a list marker');
        const inner = nestedItems(content, m, at, indent, interrupting, open);
        if (typeof inner === 'string') return no(inner);
        ({ content, at } = inner);
        item = open[open.length - 1]!;
      }
      quote = false;
      para = open.length;
      paraBox = false;
      paraReq = false;
      if (content[0] === '[' && content[2] === ']') {
        // A mark between brackets: GFM's box, or a dialect's own (`[-]`, `[ ]*`), or a label.
        const mark = content[1]!;
        const afterText = content.slice(3);
        // `BOX_THEN_LINK` and `startsText(content)` (NOT_DEFINITION) for a box, told by
        // character codes: no pattern run per task.
        const next = afterText.charCodeAt(0);
        // The spaces and tabs after the box, and the character after them.
        let b = 0;
        while (afterText.charCodeAt(b) === 32 || afterText.charCodeAt(b) === 9) b++;
        const first = afterText.charCodeAt(b);
        // Nothing but white space after the box (`trim` only where the character after the
        // spaces and tabs may be other white space: no string made per task).
        const blank =
          b === afterText.length || ((first < 33 || first >= 0x80) && afterText.trim() === '');
        if (
          next === 58 /* : */ ||
          next === 40 /* ( */ ||
          next === 91 /* [ */ ||
          blank ||
          mark === '\\' ||
          mark === '['
        ) {
          return no('a box followed by a link, a colon or nothing');
        }
        // `- [ ]  [x] …`: mdast's text keeps the space before the second bracket, so no box of it
        // is dropped from the task's text; remark reads such a line (BOX_THEN_BRACKET).
        if (b >= 2 && first === 91) return no('a bracket after a box and spaces');
        const lineEnd = source.indexOf('\n', start);
        const after = source.slice(start + indent + at + 3, lineEnd === -1 ? length : lineEnd);
        paraBox = true;
        taskOpen = false;
        const read = taskText && (mark === ' ' || mark === 'x' || mark === 'X');
        if (read && afterText[0] === ' ') taskOpen = true;
        if (requirements) {
          paraReq = namesRequirement(afterText);
          if (paraReq && !cite(afterText)) return no('markup in a requirements line');
        }
        const event: ScannedItem = {
          kind: 'item',
          line,
          offset: start + indent + at + 1,
          mark,
          after,
          text: '',
          // (One function for every task of a mode that reads no requirements: no closure each.)
          requirements: requirements ? () => item.requirements ?? [] : noRequirements,
        };
        events.push(event);
        if (structure) {
          event.list = list;
          for (let j = k - 1; j >= 0; j--) {
            if (open[j]!.event) {
              event.parent = open[j]!.event;
              break;
            }
          }
          item.event = event;
        }
        if (taskOpen) {
          tasks.push(event);
          paragraphs.push(afterText);
          if (passOver && dashBox && !requirements && !suspect) {
            // The task lines right after it at its indentation, as the loop reads them: each
            // closes the item before it and opens one at the same column (this one, kept: no
            // requirement is read in this mode), its text the line after the box. A plain one
            // followed by another task (so no line goes on with its paragraph) has its text at
            // once, as the reading after the loop would give it: no reading of markup.
            let plainTask: ScannedItem | undefined;
            let plainText = '';
            for (;;) {
              TASK_LINE.lastIndex = pos;
              const run = TASK_LINE.exec(source);
              if (run === null || run[1]!.length !== indent) break;
              if (plainTask) plainTask.text = taskTextOf(plainText);
              line++;
              start = pos;
              pos += run[0].length;
              const afterBox = run[3]!;
              const task: ScannedItem = {
                kind: 'item',
                line,
                offset: start + indent + 3,
                mark: run[2]!,
                after: afterBox,
                text: '',
                requirements: noRequirements,
              };
              events.push(task);
              plainTask = undefined;
              if (run[4] !== undefined) {
                plainTask = task;
                plainText = run[4];
              } else {
                tasks.push(task);
                paragraphs.push(afterBox);
              }
            }
            if (plainTask) {
              tasks.push(plainTask);
              paragraphs.push(plainTask.after);
            }
          }
        }
        continue;
      }
      if (!startsText(content)) return no('a list item opening with a block');
      if (requirements) {
        paraReq = namesRequirement(content);
        if (paraReq && !cite(content)) return no('markup in a requirements line');
      }
      if (passOver && !nested) {
        // The plain items after it at its column, passed over by one search: a run of detail
        // bullets leaves what this one left, with a fresh item (no requirement cited).
        siblingItems.lastIndex = start;
        const run = siblingItems.exec(source);
        if (run && (run[3] || run[4])) {
          // The lines after this one up to the run's end, counted in place (no array of them).
          const runEnd = siblingItems.lastIndex;
          for (
            let n = source.indexOf('\n', pos);
            n !== -1 && n < runEnd;
            n = source.indexOf('\n', n + 1)
          )
            line++;
          pos = runEnd;
          if (run[3]) {
            open[open.length - 1] = { content: item.content, requirements: undefined };
            paraReq = false;
          }
          if (run[4]) para = -1;
        }
        if (run && requirements && !run[4]) {
          // The requirement line that ends the run (a search stops before one), read as the loop
          // reads it: it closes the item before it and opens one at the same column, and what it
          // cites goes to the open items that cite nothing yet.
          requirementItem.lastIndex = pos;
          const cited = requirementItem.exec(source);
          if (cited !== null && cited[1]!.length === run[1]!.length && cited[2] === run[2]) {
            line++;
            pos = requirementItem.lastIndex;
            const r = requirementIds(cited[3]!);
            open[open.length - 1] = { content: item.content, requirements: undefined };
            for (let i = 0; i < open.length; i++) open[i]!.requirements ??= r;
            paraReq = true;
          }
        }
      }
      continue;
    }
    if (c === 124 /* | */ && indent === 0 && para < 0) {
      // A table (or a paragraph of `|` lines: the same to the plan) up to the next blank line.
      table = true;
      tableHeader = rest;
      tableRead = false;
      open.length = 0;
      quote = false;
      continue;
    }
    // Paragraph text.
    if (!startsText(rest))
      return no('a line opening a block the scanner does not read (table, HTML, definition…)');
    if (para >= 0) {
      if (quote) continue; // a lazy line of the quote's paragraph
      // The paragraph goes on (lazily when the line is less indented than its item).
      if (paraBox && taskOpen) {
        goOn(rest);
        continue;
      }
      if (paraBox && taskText) return no('a line continuing a task');
      // A paragraph outside every item (prose above the tasks) cites nothing: a task's
      // requirements are read from inside its item only.
      if (requirements && para > 0 && (paraReq || namesRequirement(rest)))
        return no('a requirements line continued');
      continue;
    }
    quote = false;
    open.length = k;
    para = k;
    paraBox = false;
    paraReq = false;
    if (structure && k === 0) topParagraphs.push(start + first, line);
    if (requirements && k > 0) {
      paraReq = namesRequirement(rest);
      if (paraReq && !cite(rest)) return no('markup in a requirements line');
    }
  }
  // A task's text: the first line of its paragraph, as mdast's text reads the whole paragraph.
  for (let t = 0; t < tasks.length; t++) {
    const event = tasks[t]!;
    const lines = paragraphs[t]!;
    if (idAtStart) {
      const first = typeof lines === 'string' ? lines : lines[0]!;
      ID_DECIDED.lastIndex = 0;
      if (ID_DECIDED.test(first)) {
        event.text = first.trim();
        continue;
      }
    }
    // One line (most tasks) reads as it does alone: no join, no search for a line's end.
    const plain = typeof lines === 'string' ? inlineText(lines) : inlineFirstLine(lines.join('\n'));
    if (plain === undefined) {
      line = event.line;
      return no('markup in a task remark must read');
    }
    if (structure) event.plain = plain;
    event.text = taskTextOf(plain);
  }
  if (options.segment && (fence || html)) return no('a fence or HTML block open at a heading');
  return structure ? { events, skip, paragraphs: topParagraphs } : { events, skip };
}
