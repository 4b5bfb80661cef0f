import { execFile } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { render, renderMarkup, styleFor } from '../../src/cli/render.js';
import { repoRoot } from '../paths.js';
import { freshBuild } from '../helpers/build.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

// Runs the built CLI (lib/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

const plain = { color: false };
const color = { color: true };

describe('render: the core’s markdown as terminal text', () => {
  it('plain: no bold, heading or link markup left; code spans keep their backticks as quotes', () => {
    expect(render('Assessment: **quick mode**.', plain)).toBe('Assessment: quick mode.');
    expect(render('label `coder:quick` on [the issue](https://x/1)', plain)).toBe(
      'label `coder:quick` on the issue (https://x/1)',
    );
    expect(render('## Phase 1\n- **done**', plain)).toBe('Phase 1\n- done');
  });

  it('keeps what a code span shows, and file names with underscores', () => {
    expect(render('write `**Phase 1:**` as a heading', plain)).toBe(
      'write `**Phase 1:**` as a heading',
    );
    expect(render('write `**Phase 1:**` as a heading', color)).toBe(
      'write \x1b[36m**Phase 1:**\x1b[0m as a heading',
    );
    expect(render('Reports/01_Master_Log.md:3: a_b', plain)).toBe(
      'Reports/01_Master_Log.md:3: a_b',
    );
  });

  it('shows a backslash escape as its character, outside code spans; a table keeps `\\|`', () => {
    expect(render('in src/parse\\.ts \\*not bold\\* and C:\\dir', plain)).toBe(
      'in src/parse.ts *not bold* and C:\\dir',
    );
    expect(render('| a\\|b | `x\\.y` |', plain)).toBe('| a\\|b | `x\\.y` |');
  });

  it('colour: bold and cyan codes', () => {
    expect(render('**quick mode** `x`', color)).toBe('\x1b[1mquick mode\x1b[0m \x1b[36mx\x1b[0m');
  });

  it('leaves JSON untouched', () => {
    const json = JSON.stringify({ text: '**bold** `code`' });
    expect(render(json, color)).toBe(json);
  });

  it('JSON is what JSON.parse takes and starts with [ or {: task lines starting "[x]" are rendered', () => {
    // The oracle: the definition before the cheap first-and-last-character test went in front.
    const parses = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    const text = fc.oneof(
      fc.json().map((j) => `${j}`),
      fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
      fc
        .tuple(
          fc.constantFrom('', ' ', '\n', '  '),
          fc.json(),
          fc.constantFrom('', ' ', '\n', ']', '}', 'x'),
        )
        .map(([a, j, b]) => `${a}${j}${b}`),
      fc
        .tuple(
          fc.constantFrom('[x] ', '  [ ] ', '{', '[', '- [~] '),
          fc.string(),
          fc.constantFrom('', ']', '}'),
        )
        .map(([a, t, b]) => `${a}${t}${b}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const json = /^\s*[[{]/.test(t) && parses(t);
        if (json) expect(render(t, color)).toBe(t);
        else
          expect(render(t, plain)).toBe(
            t
              .split('\n')
              .map((line) => render(line, plain))
              .join('\n'),
          );
      }),
      { numRuns: 2000 },
    );
    expect(render('  [x] **T001** `a` [P] ]', plain)).toBe('  [x] T001 `a` [P] ]');
  });

  it('a line with no markup character is shown as it is: the same as every rule applied', () => {
    const line = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            '#',
            '# ',
            '**',
            '*',
            '`',
            '\\',
            '[',
            ']',
            '(',
            ')',
            '](',
            '|',
            ' ',
            '_',
            '[a](b)',
            '**b**',
            '\\.',
          ),
          fc.string({ maxLength: 4 }),
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join('').replace(/\n/g, ' '));
    fc.assert(
      fc.property(line, fc.boolean(), (text, colour) => {
        const style = { color: colour };
        expect(render(text, style)).toBe(renderMarkup(text, style));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('styleFor', () => {
  it('colour only on a TTY, never with NO_COLOR or TERM=dumb', () => {
    expect(styleFor({ isTTY: true }, {})).toEqual({ color: true });
    expect(styleFor({ isTTY: false }, {})).toEqual({ color: false });
    expect(styleFor({}, {})).toEqual({ color: false });
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' })).toEqual({ color: false });
    expect(styleFor({ isTTY: true }, { TERM: 'dumb' })).toEqual({ color: false });
  });
});

it('the built CLI prints the assessment without markdown or colour codes to a pipe', async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [join(repoRoot, 'lib', 'bundle', 'coder-loop.js'), 'assess', '--title', 'fix a typo'],
      { env: { PATH: process.env.PATH } },
      (error, out) => (error ? reject(error) : resolve(out)),
    ),
  );
  expect(stdout.split('\n')[0]).toBe('Assessment: quick mode.');
  expect(stdout).not.toContain('**');
  expect(stdout).not.toContain('\x1b[');
});
