/**
 * The CLI's text for a terminal. The core's texts are written for GitHub (markdown: `**bold**`,
 * `` `code` ``, `[text](url)`, `#` headings); a terminal shows them plain, or with ANSI bold and
 * colour where stdout is a TTY and `NO_COLOR` is not set (https://no-color.org). Plain text keeps
 * a code span's backticks, as quotes (`quick` has unknown key `maxLine`); on a colour terminal the
 * span is cyan instead. A backslash escape shows its character, but for `\|` (a table's cell
 * holds it). JSON output is passed through untouched.
 */
export interface Style {
  color: boolean;
}

/** Colour only on a terminal, and never with `NO_COLOR` set to anything but the empty string. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return { color: Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb' };
}

const ansi = (style: Style, code: string, text: string) =>
  style.color ? `\x1b[${code}m${text}\x1b[0m` : text;

function isJson(text: string): boolean {
  // An array or an object, by its first and last characters, before JSON.parse is asked: every
  // task line `status` prints starts with "  [x]", and a parse that throws costs a stack trace.
  if (!/^\s*(?:\[[^]*\]|\{[^]*\})\s*$/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// What any markup below needs: a code span's backtick, `**`, a link's `](`, a backslash escape or
// a heading's `#`. Most lines hold none (every task line `status` prints): shown as they are.
const MARKUP = /[`\\]|\*\*|\]\(|^#/;

/** One line of markdown-ish text, rendered. */
function renderLine(line: string, style: Style): string {
  return MARKUP.test(line) ? renderMarkup(line, style) : line;
}

/** One line, every rule applied (what `renderLine` does to a line that holds any markup). */
export function renderMarkup(line: string, style: Style): string {
  const heading = /^(#{1,6}) +(.*)$/.exec(line);
  if (heading) return ansi(style, '1', renderInline(heading[2]!, style));
  return renderInline(line, style);
}

function renderInline(text: string, style: Style): string {
  // Code spans first, so that markup inside them (`**Phase 1:**`) is shown as written.
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) =>
      i % 2 === 1
        ? style.color
          ? ansi(style, '36', part.slice(1, -1))
          : part
        : part
            .replace(/\*\*([^*\n]+)\*\*/g, (_, strong: string) => ansi(style, '1', strong))
            .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
              label === url ? url : `${label} (${url})`,
            )
            // A backslash escape shows the character (`src/a\.ts`); `\|` stays, in a table.
            .replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g, (escape: string, c: string) =>
              c === '|' ? escape : c,
            ),
    )
    .join('');
}

/** What the CLI prints: each line rendered for the terminal; JSON left as it is. */
export function render(text: string, style: Style): string {
  if (isJson(text)) return text;
  return text
    .split('\n')
    .map((line) => renderLine(line, style))
    .join('\n');
}
