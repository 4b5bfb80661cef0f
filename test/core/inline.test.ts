import fc from 'fast-check';
import type { Paragraph } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { inlineText, plainLineText } from '../../src/core/plan/inline.js';
import { parseMarkdown } from '../../src/core/plan/markdown.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

/**
 * The fast path's inline reading against remark's: for every text it reads, the same string as
 * mdast's `toString` of the paragraph remark parses (inside a task list item, as tasks are).
 */
function remarkText(text: string): string | undefined {
  const root = parseMarkdown(`- [ ] ${text}\n`);
  const list = root.children[0];
  if (list?.type !== 'list') return undefined;
  const para = list.children[0]?.children[0];
  if (para?.type !== 'paragraph' || list.children[0]!.children.length !== 1) return undefined;
  return toString(para as Paragraph);
}

const token = fc.constantFrom(
  'T001',
  ' ',
  ' ',
  'word',
  'snake_case',
  '**',
  '*',
  '_',
  '__',
  '~',
  '~~',
  '~~~',
  '`',
  '``',
  '`code`',
  '<',
  '>',
  '<T>',
  '< 150ms',
  '<https://x.y>',
  '<a@b.co>',
  '<!-- c -->',
  '\\*',
  '\\_',
  '\\',
  '[US1]',
  '[P]',
  '(',
  ')',
  '.',
  ':',
  '—',
  '、',
  '（',
  '）**，',
  '<b>',
  '</b>',
  '<a=b>',
  '。',
  '（',
  '验证',
  'https://x.y/a_b',
  'http://x.y',
  'www.x.co',
  'WWW.x.co/a_',
  'a@b.co',
  'a_b@c.de',
  '@app.run()',
  'file:///x:',
  '(www.x.co)',
  '&amp;',
  '&',
  '!',
  '#',
  '|',
  '\n',
  '  \n',
  ' \n',
);
const text = fc
  .array(token, { minLength: 1, maxLength: 14 })
  .map((t) => t.join(''))
  .filter(
    (t) =>
      /^\S/.test(t) &&
      !/\n\s*$/.test(t) &&
      !/\n[ ]*(?:[-*+#>|<`~]|\d)/.test(t) &&
      !/\n[ _]*(?:\n|$)/.test(t),
  );

describe('inline text against remark (differential)', () => {
  it('reads 5,000 generated task texts as mdast does, or leaves them to remark', () => {
    let read = 0;
    fc.assert(
      fc.property(text, (t) => {
        const fast = inlineText(t);
        if (fast === undefined) return;
        const remark = remarkText(t);
        if (remark === undefined) return;
        read++;
        expect([t, fast]).toEqual([t, remark]);
      }),
      { numRuns: 5000 },
    );
    expect(read).toBeGreaterThan(1200);
  });

  it('reads 5,000 lines of code spans by one search as its loop and mdast do', () => {
    // Lines whose markup is mostly backticks: what the search for code spans of one backtick
    // reads without the loop (spans with spaces each side, runs of two, a backtick left open).
    const line = fc
      .array(
        fc.constantFrom(
          '`',
          '``',
          ' ',
          'T001',
          'word',
          '`x`',
          '` x `',
          '`  `',
          '` `',
          '`x `',
          '[P]',
          '.',
          '/',
          ':',
          'http://a.b',
          'a@b.co',
          'www.a.co',
          'W',
          '\t',
          '\u2028',
          '*',
          '<',
          '\\',
        ),
        { minLength: 1, maxLength: 12 },
      )
      .map((ts) => ts.join(''))
      .filter((t) => /^\S/.test(t));
    let spans = 0;
    fc.assert(
      fc.property(line, (t) => {
        const fast = inlineText(t);
        expect([t, fast]).toEqual([t, inlineText(t, false)]);
        if (fast !== undefined && t.includes('`') && !/[*<\\]/.test(t)) spans++;
        const remark = fast === undefined ? undefined : remarkText(t);
        if (remark !== undefined) expect([t, fast]).toEqual([t, remark]);
      }),
      { numRuns: 5000 },
    );
    expect(spans).toBeGreaterThan(500);
  });

  it.each([
    ['**T001** [Setup] 验证开发环境就绪', 'T001 [Setup] 验证开发环境就绪'],
    ['~~Plot output~~ — skipped', 'Plot output — skipped'],
    ['Tab switch latency < 50ms', 'Tab switch latency < 50ms'],
    ['Implement IRepository<T> interface', 'Implement IRepository<T> interface'],
    ['Run `pytest tests/unit -k "a*b"` first', 'Run pytest tests/unit -k "a*b" first'],
    [
      'Create `.gitignore` for `node_modules/`, *.log',
      'Create .gitignore for node_modules/, *.log',
    ],
    ['V2__foundation.sql の作成', 'V2__foundation.sql の作成'],
    ['``a ` b`` and ` c `', 'a ` b and c'],
    // A web address or an `@` beside markup words elsewhere: the fast reading still reads it.
    [
      'Set (dry_run, auto_pr) in root @app.callback()',
      'Set (dry_run, auto_pr) in root @app.callback()',
    ],
    [
      'url-to-text: http/https only (file:///js: blocked); TMP_DIR',
      'url-to-text: http/https only (file:///js: blocked); TMP_DIR',
    ],
    ['See `https://x.y`, **bold** www.a.co (a_b)', 'See https://x.y, bold www.a.co (a_b)'],
  ])('reads %j as %j', (written, shown) => {
    expect(inlineText(written)).toBe(shown);
    expect(remarkText(written)).toBe(shown);
  });
});

// Lines as requirement lines are written, wrapped or not, with the markup and the characters
// the shortcut must leave to the reading (white space of every kind at the ends, line breaks).
const wrapper = fc.constantFrom('', '', '_', '*', '__', '**', '***', '~', '`');
const lineToken = fc.oneof(
  { arbitrary: token, weight: 1 },
  fc.constantFrom(
    'Requirements: ',
    '_Requirements: 1.1, 2.3_',
    'Validates: Requirements',
    '1.1',
    ', ',
    '2.3',
    '\t',
    '\r',
    '\u00a0',
    '\u2028',
    '\u3000',
    '「',
    '」',
    '/',
    'N/A',
    '[',
    ']',
    'x@y',
    'word',
    ' ',
    '验证',
  ),
  {
    arbitrary: fc.constantFrom(
      'Requirements: ',
      '1.1',
      ', ',
      '2.3',
      ' ',
      'word',
      '(',
      ')',
      ':',
      '—',
    ),
    weight: 6,
  },
);
const line = fc
  .tuple(wrapper, fc.array(lineToken, { minLength: 1, maxLength: 6 }), wrapper, fc.boolean())
  .map(([open, inner, close, same]) => `${open}${inner.join('')}${same ? open : close}`);

describe('a plain line without the reading (differential)', () => {
  it('reads 5,000 generated lines as inlineText and mdast do, or leaves them to the reading', () => {
    let read = 0;
    let wrapped = 0;
    fc.assert(
      fc.property(line, (t) => {
        const fast = plainLineText(t);
        if (fast === undefined) return;
        read++;
        if (fast.length < t.length) wrapped++;
        expect([t, fast]).toEqual([t, inlineText(t)]);
        const remark = remarkText(t);
        if (remark !== undefined) expect([t, fast]).toEqual([t, remark]);
      }),
      { numRuns: 5000 },
    );
    expect(read).toBeGreaterThan(500);
    expect(wrapped).toBeGreaterThan(200);
  });

  it.each([
    ['_Requirements: 1.1, 2.3_', 'Requirements: 1.1, 2.3'],
    ['**Validates: Requirements 4.2**', 'Validates: Requirements 4.2'],
    ['Requirements: 1.1', 'Requirements: 1.1'],
    ['_Requirements: 1.1 _', undefined],
    ['_see www.x.co_', undefined],
    ['*Requirements: 1.1_', undefined],
    ['_a *b* c_', undefined],
  ])('reads %j as %j', (written, shown) => {
    expect(plainLineText(written)).toBe(shown);
    if (shown !== undefined) expect(remarkText(written)).toBe(shown);
  });
});
