/** The line ending a file already uses: CRLF when its first line break is CRLF, else LF. */
export function detectEol(source: string): '\n' | '\r\n' {
  const lf = source.indexOf('\n');
  return lf > 0 && source[lf - 1] === '\r' ? '\r\n' : '\n';
}

/** How many line breaks (LF, so CRLF counts once) lie in `source[from, to)`. */
export function countLineBreaks(source: string, from: number, to: number): number {
  let count = 0;
  for (let i = source.indexOf('\n', from); i !== -1 && i < to; i = source.indexOf('\n', i + 1)) {
    count++;
  }
  return count;
}

/** Offset just past the end of the line holding `offset` (before its line break). */
export function endOfLine(source: string, offset: number): number {
  const lf = source.indexOf('\n', offset);
  const end = lf === -1 ? source.length : lf;
  return end > offset && source[end - 1] === '\r' ? end - 1 : end;
}

/** Text that is safe on one line of markdown: line breaks and control characters become spaces. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

/**
 * Whether a task's text, as written, opens with its id: inline markup before it aside
 * (`**T001** …`, `` `1.1` …``), as the tools read the id from the text without it.
 */
export function opensWithId(text: string, id: string): boolean {
  return text
    .trimStart()
    .replace(/^[*_~`]+/, '')
    .startsWith(id);
}

const LEADING_SYMBOLS = /^[^\p{L}\p{N}]+/u;

/**
 * `text` without what stands before its first letter or digit (`✅ Phase 3: Launch` → `Phase 3:
 * Launch`), as a phase heading is read. Text that opens with an ASCII letter or digit is returned
 * as it is, without the pattern: most headings, whose first read need not compile it.
 */
export function withoutLeadingSymbols(text: string): string {
  const c = text.charCodeAt(0);
  if ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122)) return text;
  return text.replace(LEADING_SYMBOLS, '');
}
