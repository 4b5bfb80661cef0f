/**
 * A paragraph's or heading's inline content as mdast's text reads it (`toString` of what remark
 * parses), for the line scanners' fast path; undefined where it may read otherwise, and remark
 * reads the block instead. remark stays the authority: differential tests hold the two to the
 * same text. What it reads, as micromark does:
 * - code spans (a run of backticks to the next run of the same length) lose their backticks,
 *   and one space each side when both are there;
 * - `*`, `_` emphasis and strong, and GFM's `~`/`~~` strikethrough, lose their delimiters:
 *   CommonMark's pairing (a closer takes the nearest opener; what lies between is text), with
 *   micromark's flanking rules (unicode whitespace and punctuation);
 * - a backslash before ASCII punctuation is dropped; `<` that opens no autolink is text, as is
 *   an inline HTML tag (mdast's text keeps it); GFM autolink literals read as written.
 * - an inline link of one shape (LINK: plain text for a label, a destination of one word, no
 *   title) reads as its label.
 * References with no definition are text as written (the scanners read no document with one).
 * It gives up on any other link, on images, entities, footnotes, a run that can both open and
 * close, a code span across lines, HTML holding other markup, and strikethrough next to emphasis.
 */

const WHITESPACE = /\s/;
const PUNCTUATION = /\p{P}|\p{S}/u;
// Images, footnotes, entities: what the fast reading leaves to remark (a link, `](`, is left to
// the reading's loop, which reads those of LINK's shape). A reference (`[AI-Review][High]`, as a
// code review's follow-ups are written; `[P][SHARED]`) is text as written: no definition is in a
// document the scanners read (markdown.ts, `mayDefine`).
const GIVES_UP = /!\[|\[\^|&(?:#\d|#[xX]|[A-Za-z][A-Za-z0-9]*;)/;
// The inline link the loop reads (`[plan.md](./plan.md)`, `[zod](https://zod.dev)`), from its
// `[`: a label (1) of text the loop would copy as written (no bracket, backslash, `<`, backtick,
// `*`, `_`, `~`, `&`, control or line separator; no white space at either end), then `](`, a
// destination of one or more characters that are no white space, control, `<`, `>`, parenthesis,
// backslash, quote, backtick or bracket, and `)`: no title. What sits inside it is no markup,
// and nothing inside reaches out of it; its text is its label's (mdast's `toString`).
/* eslint-disable no-control-regex -- control characters are what it leaves out */
const LINK =
  /\[([^\s[\]\\<`*_~&\0-\x1f\x7f\u2028\u2029](?:[^[\]\\<`*_~&\0-\x1f\x7f\u2028\u2029]*[^\s[\]\\<`*_~&\0-\x1f\x7f\u2028\u2029])?)\]\([^\s\0-\x1f\x7f<>()\\"'`[\]]+\)/y;
/* eslint-enable no-control-regex */
const AUTOLINK =
  /^<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/;
// An HTML open or closing tag, a comment, an instruction or a declaration (CommonMark's raw HTML).
const TAG =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<![A-Za-z][^>]*>)$/;
// What may start a GFM autolink literal (`http://`, `www.`, an e-mail address). A literal never
// spans white space, so it is inside one white-space-separated word: a word holding one and a
// markup character (the literal would hold it as text) goes to remark; any other reads the same
// with or without the literal (mdast's text of a literal is the literal as written).
// An e-mail address's `@` comes after one of its characters (GFM's atext: a letter, a digit, `+`,
// `-`, `.`, `_`): `@PreAuthorize` after a space, or `標註@` after a CJK character, starts none.
const LITERAL_LINK = /:\/\/|www\.|[A-Za-z0-9+\-._]@/i;
// Markup characters, a line feed, and what GIVES_UP finds: a text holding none of them is plain
// text on one line (one search where GIVES_UP's and MARKUP's were two).
const NOT_PLAIN = /[\n\\<`*_~]|!\[|\]\(|\[\^|&(?:#\d|#[xX]|[A-Za-z][A-Za-z0-9]*;)/;
const MARKUP = /[*_~`\\<]/;
// What the reading below treats other than as text: markup characters, a bracket that may open a
// link or close one (`](`), and spaces before a line break. Text between them is copied in one
// piece.
const SPECIAL = /[\\<`*_~[]|\]\(| +\n/g;
const MARKUP_IN_WORD = /[*_~`\\<\0]/;
// What on a paragraph's first line may pair with, or open, what a later line holds.
const STRETCHES = /[*_~&<\\]/;

// One line of plain text, or of plain text wrapped whole in one emphasis or strong run (`_…_`,
// `*…*`, `__…__`, `**…**`, as requirement lines are written: `_Requirements: 1.1, 2.3_`): no
// markup character, no bracket, `&`, `@` or `/` (links, entities, GFM autolink literals), no
// web address, and a character other than white space at each end of what the run wraps. Such
// a run opens (white space before it, none after) and closes (the reverse), and they pair: the
// text is what they wrap.
const PLAIN_LINE =
  /^(?!.*[Ww][Ww][Ww]\.)(\*{0,2}|_{0,2})[^\s\\<`*_~&[\]!@/](?:[^\\<`*_~&[\]!@/\n\r\u2028\u2029]*[^\s\\<`*_~&[\]!@/])?\1$/;

/**
 * `inlineText` of one line of plain text, or of plain text one emphasis or strong run wraps
 * (see PLAIN_LINE), without its reading's loop; undefined for any other text. One search, where
 * `inlineText` is a large function a first read in a process runs interpreted.
 */
export function plainLineText(written: string): string | undefined {
  const m = PLAIN_LINE.exec(written);
  if (!m) return undefined;
  const run = m[1]!.length;
  return run === 0 ? written : written.slice(run, written.length - run);
}

// One line of text whose only markup characters are the backticks of code spans of one
// backtick (a span is closed by the next lone backtick: none inside it, none right after it) and
// a `<` that opens no tag or autolink (`< 150ms`, as LIGHT_MARKUP reads it).
const CODE_SPANS_ONLY = /^(?:[^\\<`*_~\n]|`[^`\n]+`(?!`)|<(?![A-Za-z/!?]))*$/;

// One line of text whose only markup is light, as task lines hold it, each piece read the same
// wherever it is: code spans of one backtick (as CODE_SPANS_ONLY); a `<` that opens no tag or
// autolink (`< 150ms`); a `_` between two ASCII letters or digits (`snake_case`: it can neither
// open nor close); and `**` after the start, a space or a tab and before a character other than
// white space or `*` (it can only open), or after such a character and before the end, white
// space or `.,:;?!)-` (it can only close, or pair as if it did: `**Note:**:`). Nothing GIVES_UP
// finds outside a code span: a `!` before no `[`, a `[` before no `^`, a `]` before no `(`, an
// `&` that starts no entity. Written as runs of plain characters between the pieces (one
// search of a character class per run, not a choice per character).
const LIGHT_MARKUP =
  /^[^\\<`*_~\n![\]&]*(?:(?:`[^`\n]+`(?!`)|<(?![A-Za-z/!?])|(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])|(?<![^ \t])\*\*(?=[^\s*])|(?<=[^\s*])\*\*(?=[\s.,:;?!)-]|$)|!(?!\[)|\[(?!\^)|\](?!\()|&(?!#\d|#[xX]|[A-Za-z][A-Za-z0-9]*;))[^\\<`*_~\n![\]&]*)*$/;

/**
 * `inlineText` of a line LIGHT_MARKUP matches (with no GFM autolink literal), or undefined when
 * its `**` runs do not pair: each span's backticks dropped, and one space each side of its code
 * when both are there and it holds more than spaces; each `**` that opens closed by the next,
 * which closes (strong emphasis: the runs dropped). Two that open, or one that closes with none
 * open, or one left open, are left to the reading's loop.
 */
function withoutLightMarkup(source: string): string | undefined {
  // The next code span's backtick and the next `**`, found by `indexOf` (no match object made per
  // token): every backtick of such a line opens or closes a span, and a `**` found inside a span
  // is passed with it.
  let out = '';
  let from = 0;
  let open = false;
  let tick = source.indexOf('`');
  let star = source.indexOf('**');
  while (tick !== -1 || star !== -1) {
    if (tick !== -1 && (star === -1 || tick < star)) {
      const end = source.indexOf('`', tick + 1);
      let code = source.slice(tick + 1, end);
      if (code.length >= 2 && code[0] === ' ' && code[code.length - 1] === ' ') {
        let other = false;
        for (let i = 1; i < code.length - 1 && !other; i++) other = code[i] !== ' ';
        if (other) code = code.slice(1, -1);
      }
      out += source.slice(from, tick) + code;
      from = end + 1;
      tick = source.indexOf('`', from);
      if (star !== -1 && star < from) star = source.indexOf('**', from);
      continue;
    }
    const before = source.charCodeAt(star - 1);
    const opens = star === 0 || before === 32 || before === 9;
    if (opens === open) return undefined;
    open = opens;
    out += source.slice(from, star);
    from = star + 2;
    star = source.indexOf('**', from);
  }
  return open ? undefined : out + source.slice(from);
}

/**
 * `LITERAL_LINK.test(source)`, the pattern run only where `@` or a `.` after a `w` is there
 * (no pattern run for most tasks: each pattern a read runs twice is compiled twice).
 */
function mayHoldLiteral(source: string): boolean {
  if (source.includes('://')) return true;
  if (source.includes('@') && LITERAL_LINK.test(source)) return true;
  // `www.` in any case: three `w` before a full stop.
  for (let at = source.indexOf('.', 3); at !== -1; at = source.indexOf('.', at + 1)) {
    if (
      (source.charCodeAt(at - 1) | 32) === 119 &&
      (source.charCodeAt(at - 2) | 32) === 119 &&
      (source.charCodeAt(at - 3) | 32) === 119
    ) {
      return true;
    }
  }
  return false;
}

/** Whether a word that may hold a GFM autolink literal also holds markup (see LITERAL_LINK). */
function literalMeetsMarkup(source: string, opaque: number[]): boolean {
  let masked = source;
  if (opaque.length > 0) {
    const parts: string[] = [];
    let from = 0;
    for (let k = 0; k < opaque.length; k += 2) {
      parts.push(source.slice(from, opaque[k]), '\0');
      from = opaque[k + 1]!;
    }
    parts.push(source.slice(from));
    masked = parts.join('');
  }
  return masked
    .split(/[ \t\r\n]+/)
    .some((word) => LITERAL_LINK.test(word) && MARKUP_IN_WORD.test(word));
}

/** After `<`, what may open an autolink or an HTML tag, comment or instruction (`/<[A-Za-z/!?]/`). */
function opensAngle(code: number): boolean {
  const lower = code | 32;
  return (lower >= 97 && lower <= 122) || code === 47 || code === 33 || code === 63;
}

/** Whether an ASCII character code is punctuation or a symbol (`!`–`/`, `:`–`@`, `[`–`` ` ``, `{`–`~`). */
function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 33 && code <= 47) ||
    (code >= 58 && code <= 64) ||
    (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126)
  );
}

/**
 * micromark's character groups: 1 whitespace (or the start or end), 2 punctuation, 0 other.
 * ASCII is told by its code, without the unicode patterns: compiling `PUNCTUATION` on a first
 * read costs more than a task's whole reading.
 */
function group(c: string | undefined): 0 | 1 | 2 {
  if (c === undefined) return 1;
  const code = c.charCodeAt(0);
  if (code < 128) {
    if (code === 32 || (code >= 9 && code <= 13)) return 1;
    return isAsciiPunctuation(code) ? 2 : 0;
  }
  if (WHITESPACE.test(c)) return 1;
  return PUNCTUATION.test(c) ? 2 : 0;
}

interface Run {
  char: string;
  /** Where the run's characters go in `out`. */
  slot: number;
  size: number;
  left: number;
  open: boolean;
  close: boolean;
  active: boolean;
}

/**
 * The text of `source` (a paragraph's lines joined by `\n`, each after its indentation, or a
 * heading's content) as mdast's `toString` reads it, or undefined when remark must read it.
 */
export function inlineText(written: string, codeSpans = true): string | undefined {
  return readInline(written, codeSpans, false);
}

/**
 * The first line of `inlineText`'s reading of a paragraph (a task's text, as a dialect reads it),
 * also where a code span goes on past a line's end: mdast keeps that line ending in the span's
 * text, and the indentation after it, which `written` no longer holds; neither is on the first
 * line. A span opening or closing with a line ending is left to remark.
 */
export function inlineFirstLine(written: string): string | undefined {
  const text = readInline(written, true, true);
  if (text === undefined) {
    // A link or markup the reading leaves to remark on a later line changes nothing on the first
    // when nothing there reaches past its end: no bracket left open, no emphasis, strikethrough,
    // entity, tag or escape, and each code span closed on it. Then it reads as it does alone.
    const end = written.indexOf('\n');
    if (end === -1) return undefined;
    const first = written.slice(0, end);
    return standsAlone(first) ? readInline(first, true, false) : undefined;
  }
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/**
 * Whether a paragraph's first line reads the same alone as in the paragraph: it holds no `*`,
 * `_`, `~`, `&`, `<` or `\\`, does not end in a hard break, each `[` on it is closed on it by a
 * `]` that opens no link, and each run of backticks on it closes on it.
 */
function standsAlone(line: string): boolean {
  // Two spaces at its end make a hard break, which joins the next line's text to it.
  if (STRETCHES.test(line) || line.endsWith('  ')) return false;
  // Brackets each closed on the line by a `]` that opens no link (`[US1]`, `[P]`: no definition
  // is in a document the scanner reads), none a footnote's: a `[` left open could take a later
  // line's `](…)` as its link.
  let open = 0;
  for (let at = line.search(/[[\]]/); at !== -1 && at < line.length; at++) {
    const c = line[at];
    if (c === '[') {
      if (line[at + 1] === '^') return false;
      open++;
    } else if (c === ']' && open > 0) {
      const next = line[at + 1];
      if (next === '(') return false;
      open--;
    }
  }
  if (open > 0) return false;
  for (let at = line.indexOf('`'); at !== -1;) {
    let end = at;
    while (line.charCodeAt(end) === 96) end++;
    // The next run of the same length closes the span.
    let close = line.indexOf('`', end);
    for (;;) {
      if (close === -1) return false;
      let k = close;
      while (line.charCodeAt(k) === 96) k++;
      if (k - close === end - at) {
        close = k;
        break;
      }
      close = line.indexOf('`', k);
    }
    at = line.indexOf('`', close);
  }
  return true;
}

/**
 * Whether the reading leaves `written` to remark for a link, an image, a footnote or an entity
 * (GIVES_UP). On a line whose only markup is code spans (CODE_SPANS_ONLY), what is inside a
 * span is code, not markup (`` `<p>&ldquo;Hi&rdquo;</p>` ``): only the text outside them counts.
 */
function givesUp(written: string): boolean {
  if (!GIVES_UP.test(written)) return false;
  if (!written.includes('`') || !CODE_SPANS_ONLY.test(written)) return true;
  let outside = '';
  let from = 0;
  for (let open = written.indexOf('`'); open !== -1; open = written.indexOf('`', from)) {
    // A span is one character here, none of those GIVES_UP looks for.
    outside += `${written.slice(from, open)}\0`;
    from = written.indexOf('`', open + 1) + 1;
  }
  return GIVES_UP.test(outside + written.slice(from));
}

function readInline(written: string, codeSpans: boolean, firstLine: boolean): string | undefined {
  // One search for what the reading below looks for (most tasks hold none of it), where two
  // searches of the whole text were run before.
  const plain = !NOT_PLAIN.test(written);
  // Light markup (LIGHT_MARKUP, which holds nothing GIVES_UP finds), else what gives up.
  const light = !plain && codeSpans && LIGHT_MARKUP.test(written);
  if (!plain && !light && givesUp(written)) return undefined;
  // A paragraph's text starts and ends at a non-space; a line's trailing spaces end no text.
  // (`written.replace(/^[ \t]+|[ \t]+$/g, '')`, by character codes: no pattern run per task.)
  let from = 0;
  let to = written.length;
  while (from < to && (written.charCodeAt(from) === 32 || written.charCodeAt(from) === 9)) from++;
  while (to > from && (written.charCodeAt(to - 1) === 32 || written.charCodeAt(to - 1) === 9)) to--;
  const trimmed = from === 0 && to === written.length ? written : written.slice(from, to);
  // Plain text on one line reads as written.
  if (plain) return trimmed;
  // One line whose only markup is light (LIGHT_MARKUP: code spans, a task's `**T001**` or
  // `**Note**:`, `< 150ms`, `snake_case`): one search, and the spans' backticks and the strong
  // runs dropped, without the reading's loop below.
  // (`codeSpans: false`, the loop alone, is what a property holds it to.)
  if (light) {
    const read = mayHoldLiteral(trimmed) ? undefined : withoutLightMarkup(trimmed);
    if (read !== undefined) return read;
    // Runs that do not pair: the loop reads it, after the search for what gives up (a code
    // span's content counts only on a line of code spans alone).
    if (givesUp(written)) return undefined;
  }
  return readMarkup(trimmed, firstLine);
}

/**
 * The reading's loop, for text `readInline` found markup in that its searches do not read
 * (emphasis, strikethrough, escapes, tags, a paragraph over lines), trimmed. A function of its
 * own: compiled the first time a file holds such a task, not on every first read of a plan.
 */
function readMarkup(trimmed: string, firstLine: boolean): string | undefined {
  if (trimmed.includes('\n')) {
    if (/\n[ \t]*\n/.test(trimmed)) return undefined; // two paragraphs
    trimmed = trimmed.replace(/\n[ \t]+/g, '\n');
  }
  const source = trimmed;
  // (Text with no markup is plain, returned above, unless it runs over lines.)
  const markup = MARKUP.test(source);
  // Code spans, tags and links, where no GFM autolink literal starts: [start, end) pairs.
  const opaque: number[] = [];
  // Whether a link was read (LINK): a word holding one and a literal goes to remark.
  let linked = false;
  const out: string[] = [];
  const runs: Run[] = [];
  let text = '';
  // Each pair's opener and closer, as indexes of `runs`.
  const pairs: number[] = [];
  const flush = () => {
    if (text) out.push(text);
    text = '';
  };
  const n = source.length;
  for (let i = 0; i < n;) {
    SPECIAL.lastIndex = i;
    const next = SPECIAL.exec(source)?.index ?? n;
    if (next > i) {
      text += source.slice(i, next);
      i = next;
      continue;
    }
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === '\n') {
        i += 2; // a hard break: no text, and the line ending is its own
        continue;
      }
      if (next === '`') return undefined;
      if (next !== undefined && isAsciiPunctuation(next.charCodeAt(0))) {
        text += next;
        i += 2;
        continue;
      }
      text += c;
      i++;
      continue;
    }
    if (c === ' ') {
      let end = i;
      while (source[end] === ' ') end++;
      if (source[end] === '\n') {
        // Trailing spaces end no text; two or more make a hard break, which takes the line end.
        if (end - i >= 2) end++;
        i = end;
        continue;
      }
      text += source.slice(i, end);
      i = end;
      continue;
    }
    if (c === '<' && opensAngle(source.charCodeAt(i + 1))) {
      // An HTML tag is text to mdast, as written (escapes and backticks too); an autolink drops
      // its brackets: leave those, and tags holding what the reading would change, to remark.
      if (AUTOLINK.test(source.slice(i, i + 300))) return undefined;
      const close = source.indexOf('>', i);
      if (close !== -1) {
        const tag = source.slice(i, close + 1);
        if (TAG.test(tag)) {
          if (/[`\\\n]/.test(tag)) return undefined;
          text += tag;
          opaque.push(i, close + 1);
          i = close + 1;
          continue;
        }
        if (/[`*_~\\\n]/.test(tag)) return undefined;
      }
    }
    if (c === '`') {
      let end = i;
      while (source[end] === '`') end++;
      const size = end - i;
      // The next run of exactly `size` backticks closes the span; none: the run is text.
      let close = -1;
      for (let j = source.indexOf('`', end); j !== -1;) {
        let k = j;
        while (source[k] === '`') k++;
        if (k - j === size) {
          close = j;
          break;
        }
        j = source.indexOf('`', k);
      }
      if (close === -1) {
        text += source.slice(i, end);
        i = end;
        continue;
      }
      let code = source.slice(end, close);
      const lines = code.includes('\n');
      // A span opening or closing at a line's end is left to remark: whether that line ending is
      // the span's padding (and the next line's text joins the first) turns on the indentation.
      if (lines && (!firstLine || code[0] === '\n' || code[code.length - 1] === '\n')) {
        return undefined;
      }
      // One space each side is padding when the span holds more than spaces and line endings.
      if (
        code.length >= 2 &&
        code[0] === ' ' &&
        code[code.length - 1] === ' ' &&
        (lines ? /[^ \n]/ : /[^ ]/).test(code)
      ) {
        code = code.slice(1, -1);
      }
      text += code;
      opaque.push(i, close + size);
      i = close + size;
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      let end = i;
      while (source[end] === c) end++;
      const size = end - i;
      const before = group(source[i - 1]);
      const after = group(source[end]);
      let open: boolean;
      let close: boolean;
      if (c === '~') {
        if (size > 2) {
          text += source.slice(i, end);
          i = end;
          continue;
        }
        open = after === 0 || (after === 2 && before !== 0);
        close = before === 0 || (before === 2 && after !== 0);
      } else {
        // A `~` beside the run loosens it, as GFM's strikethrough registers `~` with micromark.
        const o = after === 0 || (after === 2 && before !== 0) || source[end] === '~';
        const cl = before === 0 || (before === 2 && after !== 0) || source[i - 1] === '~';
        open = c === '*' ? o : o && (before !== 0 || !cl);
        close = c === '*' ? cl : cl && (after !== 0 || !o);
      }
      if (!open && !close) {
        text += source.slice(i, end);
        i = end;
        continue;
      }
      flush();
      runs.push({ char: c, slot: out.length, size, left: size, open, close, active: true });
      out.push('');
      i = end;
      continue;
    }
    if (c === '[') {
      // A link of LINK's shape reads as its label: its `[` is the nearest one its `]` closes (the
      // label holds no bracket), and no link formed before it reached into it (every `](` is a
      // link's, the next test); a run of `*`, `_` or `~` beside it is told by the brackets, as
      // micromark tells it. After `!` (an image: GIVES_UP) or `]` (a reference's label) it is left
      // to remark; so is a label that may hold a GFM autolink literal, which GFM does not link
      // inside a link.
      LINK.lastIndex = i;
      const link = LINK.exec(source);
      if (link === null) {
        text += c;
        i++;
        continue;
      }
      const before = source.charCodeAt(i - 1);
      if (before === 33 || before === 93) return undefined;
      const label = link[1]!;
      if (mayHoldLiteral(label)) return undefined;
      text += label;
      opaque.push(i, LINK.lastIndex);
      linked = true;
      i = LINK.lastIndex;
      continue;
    }
    // `](` that ends no link LINK reads: a link of another shape, or a `]` closing an earlier `[`.
    if (c === ']') return undefined;
    text += c;
    i++;
  }
  flush();
  if ((markup || linked) && mayHoldLiteral(source) && literalMeetsMarkup(source, opaque)) {
    return undefined;
  }
  if (runs.length === 0) return out.join('');
  // Pairing: each closer takes the nearest active opener of its kind (strikethrough: of its
  // size); the runs between them are text from then on.
  for (let r = 0; r < runs.length; r++) {
    const closer = runs[r]!;
    if (!closer.close) continue;
    while (closer.left > 0) {
      let o = r - 1;
      for (; o >= 0; o--) {
        const opener = runs[o]!;
        if (!opener.active || !opener.open || opener.char !== closer.char || opener.left === 0) {
          continue;
        }
        if (closer.char === '~' && (opener.size !== closer.size || opener.left !== opener.size)) {
          continue;
        }
        // The rule of three, as micromark applies it (to what is left of each run).
        if (
          closer.char !== '~' &&
          (opener.close || closer.open) &&
          closer.left % 3 &&
          !((opener.left + closer.left) % 3)
        ) {
          continue;
        }
        break;
      }
      if (o < 0) break;
      // micromark resolves the runs between the two again, with what is left of them: a run
      // that could open before one of its kind that could close, kept apart by the rule of three
      // with sizes that have changed since, may pair then (`_***→*******.**__`). Left to remark.
      let canOpen = 0;
      for (let between = o + 1; between < r; between++) {
        const run = runs[between]!;
        if (run.left === 0) continue;
        const bit = run.char === '*' ? 1 : run.char === '_' ? 2 : 4;
        if (run.close && canOpen & bit) return undefined;
        if (run.open) canOpen |= bit;
      }
      const opener = runs[o]!;
      const use = closer.char === '~' ? closer.size : opener.left >= 2 && closer.left >= 2 ? 2 : 1;
      opener.left -= use;
      closer.left -= use;
      pairs.push(o, r);
      for (let between = o + 1; between < r; between++) runs[between]!.active = false;
    }
  }
  // Strikethrough and emphasis side by side (`~~Plot output~~ — **skipped**`) read as each alone;
  // a run of one inside a pair of the other is left to remark, which resolves the first kind in
  // the text first and the other inside each of its pairs.
  // A run that no other run could pair with (the only `*` or `_` run of its character, the only
  // `~` run of its size) is text to both, in either order.
  const lone = (run: Run) =>
    runs.every(
      (other) =>
        other === run || other.char !== run.char || (run.char === '~' && other.size !== run.size),
    );
  if (runs.some((run) => run.char === '~') && runs.some((run) => run.char !== '~')) {
    for (let k = 0; k < pairs.length; k += 2) {
      const tilde = runs[pairs[k]!]!.char === '~';
      for (let between = pairs[k]! + 1; between < pairs[k + 1]!; between++) {
        const run = runs[between]!;
        if ((run.char === '~') !== tilde && !lone(run)) return undefined;
      }
    }
  }
  for (const run of runs) out[run.slot] = run.char.repeat(run.left);
  return out.join('');
}
