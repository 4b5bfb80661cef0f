import fc from 'fast-check';
import { parseChecklist } from '../../src/core/index.js';
import { eventsOf, scanPlain } from '../../src/core/plan/scan.js';
import { realKiro, realSpeckit } from '../helpers/realShapes.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// A document the fast path hands to remark is parsed once for both sides (see the helper).
remarkOnce();

/**
 * The fast path (line scanner for the plain subset, remark for every other segment) against the
 * remark path alone: the same phases, tasks, offsets, lines and problems for every document.
 */
const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '     ', '      ', '\t');
const marker = fc.constantFrom('-', '-', '*', '+', '1.', '1)', '2.', '10.', '01.');
const gap = fc.constantFrom(' ', ' ', ' ', '  ', '    ', '      ', '\t', '');
const box = fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[~]', '[?]', '[]', '\\[ ]', '', '[\t]');
const after = fc.constantFrom(
  ' 1.1 task',
  ' T003 plain text',
  ' `npm test` passes',
  ' **bold** text',
  ' [link](https://x.y) text',
  ' [a](b "t") titled',
  ' ![i](u) image',
  ' <b>html</b>',
  ' [x] box in text',
  '',
  ' ',
  '\ttabbed',
  ':',
  ' # hash',
  ' > quote',
  ' | a | b |',
);
const item = fc.tuple(indent, marker, gap, box, after).map((p) => p.join(''));

const headingLine = fc
  .tuple(
    fc.constantFrom('#', '##', '##', '###', '####', '#######', '  ##', '#'),
    fc.constantFrom(
      ' Phase 1: Setup',
      ' Phase 2',
      ' Phase 2 — API',
      ' ✅ Phase 3: Launch',
      ' Phase N: Polish',
      ' Phase I',
      ' Phase 1.5',
      ' Phase 1 ##',
      ' Notes',
      ' Verification',
      ' **Phase 4**',
      ' Phase `5`',
      ' Phase 7: [Docs](./d.md)',
      ' Phase 6 &amp; more',
      'NoSpace',
      '',
    ),
  )
  .map((p) => p.join(''));

/** Lines from the plain subset only, so whole documents take the fast path. */
const plainItem = fc
  .tuple(
    fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '      '),
    fc.constantFrom('-', '-', '*', '+', '1.', '1)', '2.', '10.'),
    fc.constantFrom(' ', ' ', ' ', '  ', '    '),
    fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[~]', '[?]', ''),
    fc.constantFrom(
      ' 1.1 task',
      ' T003 text',
      ' `npm test` passes',
      ' **bold** x',
      ' [a](b) c',
      '',
    ),
  )
  .map((p) => p.join(''));
const plainLine = fc.oneof(
  { weight: 6, arbitrary: plainItem },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      '',
      '',
      '   ',
      '## Phase 1: Setup',
      '## Phase 2 — API',
      '# Phase 3',
      '### Notes',
      '## Verification',
      'Some text',
      'continuation text',
      '  indented text',
      '2. not an item after text',
      '1. one',
    ),
  },
  // Block quotes of plain text, a blank line after them (then the scanner reads them; a line
  // straight after a quote, which may continue it lazily, goes to remark).
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '> a note',
        '> A quoted line of prose',
        '>',
        '>no space',
        '   > indented quote',
        // A bracket opening the quote's text: GitHub's alerts, a box outside any item.
        '> [!NOTE]',
        '>[!WARNING]',
        '> [ ] no item, no box',
      )
      .map((quote) => `${quote}\n`),
  },
  { weight: 1, arbitrary: fc.constantFrom('```', '~~~', '```js', '- [ ] fenced?', '# fenced?') },
);

/**
 * Block quotes holding list items, a blank line after them: the markdown dialects' scanner reads
 * those of text; the checklist's leaves them all to remark, so they are drawn in the mixed
 * documents only (in the plain ones they would send most documents to remark).
 */
const quotedItemLine = fc
  .constantFrom(
    '> - Command: `git add .` → `git push`',
    '> * a quoted item',
    '> 1. a quoted step',
    '>- tight',
    '> -  two spaces',
    '> - [P] label',
    '> - [ ] quoted task',
    '> -',
    '> - - -',
    '> -     code?',
    '> 1) Run it',
    '> - T001 not a box',
  )
  .map((quote) => `${quote}\n`);

/** Everything else the fast path must hand to remark. */
const otherLine = fc.constantFrom(
  // A quote's text opening with a link, a footnote's reference, a link definition (which remark
  // reads as no text), a bracket left open.
  '> [a link](https://example.com) first',
  '> [^1] a footnote',
  '> [x]: https://example.com',
  '> [unclosed',
  '> see [a](b) inside',
  '<!--',
  '-->',
  '<!-- one line -->',
  '<div>',
  '</div>',
  '<pre>',
  '---',
  '+++',
  'title: x',
  '> - [ ] quoted',
  '> ## Phase 9: Quoted',
  '> text',
  '>',
  '===',
  '- - -',
  '***',
  '| a | b |',
  '| - | - |',
  'a | b',
  '[x]: /url',
  '[^1]: note',
  '**Phase 2:** bold',
  '*emphasis*',
  '\t- [ ] tab',
  '-\t[ ] tab',
  '    - [ ] indented code',
  '``` `inline`',
  '-',
  '1.',
  '\ufeff# bom',
);

const eol = fc.constantFrom('\n', '\n', '\r\n');

function document(line: fc.Arbitrary<string>) {
  return fc
    .tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 40 }), fc.boolean())
    .map(([lines, final]) => {
      const text = lines.map(([l, e]) => l + e).join('');
      return final ? text : text.replace(/\r?\n$/, '');
    });
}

const mixed = document(
  fc.oneof(
    { weight: 3, arbitrary: plainLine },
    { weight: 2, arbitrary: fc.oneof(item, headingLine) },
    { weight: 1, arbitrary: otherLine },
    { weight: 1, arbitrary: quotedItemLine },
  ),
);
const plain = document(plainLine);

function agree(source: string): void {
  const fast = parseChecklist(source, 'c.md');
  const remark = parseChecklist(source, 'c.md', { fast: false });
  expect(fast).toEqual(remark);
}

describe('fast path against remark (differential)', () => {
  it('agrees on 1,000 mixed documents: fences, HTML, front matter, quotes, tables, CRLF, tabs…', () => {
    fc.assert(fc.property(mixed, agree), runs(1000));
  });

  it('agrees on 500 documents of the plain subset, 75 or more of them read by the scanner alone', () => {
    let scanned = 0;
    fc.assert(
      fc.property(plain, (source) => {
        if (scanPlain(source, 0, source.length, 1)) scanned++;
        agree(source);
      }),
      runs(500),
    );
    // The scanner must really run: it gives up only on what it leaves to remark.
    expect(scanned).toBeGreaterThanOrEqual(75);
  });

  it.each([
    ['a task after an ordered item other than 1', '## Phase 1\n- a\n2. [ ] b\n'],
    ['a lazy line', '## Phase 1\n- [ ] a\nlazy\n- [ ] b\n'],
    [
      'a fence that hides a heading',
      '## Phase 1\n```\n# not a heading\n- [ ] no\n```\n- [ ] yes\n',
    ],
    ['an unclosed fence', '## Phase 1\n- [ ] a\n```\n## Phase 2\n- [ ] hidden\n'],
    ['a comment across a heading', '## Phase 1\n<!--\n## Phase 2\n- [ ] hidden\n-->\n- [ ] a\n'],
    ['front matter', '---\ntitle: x\n# in front matter\n---\n## Phase 1\n- [ ] a\n'],
    ['a setext heading', '## Phase 1\n- [ ] a\n\nPhase 2\n---\n- [ ] b\n'],
    [
      'a paragraph continued by a deep item',
      '## Phase 1\n- [ ] a\n      - [ ] text, not an item\n',
    ],
  ])('agrees on %s', (_name, source) => {
    agree(source);
  });

  it('reads the plain subset with the scanner and leaves the rest to remark', () => {
    expect(eventsOf(scanPlain('## Phase 1\n- [ ] a\n  - [x] b\n', 0, 27, 1)!)).toEqual([
      { kind: 'heading', level: 2, text: 'Phase 1', line: 1 },
      { kind: 'item', box: 13, line: 2, depth: 0 },
      { kind: 'item', box: 23, line: 3, depth: 1 },
    ]);
    for (const other of [
      '> - [ ] q\n',
      '<!-- x -->\n',
      '| a |\n',
      'a\n===\n',
      '\t- [ ] t\n',
      '> ## Phase 2\n',
      '> note\nlazy continuation\n',
      '> note\n- [ ] after a quote, no blank line\n',
      '- [ ] a\n  > a quote in an item\n',
    ]) {
      expect(scanPlain(other, 0, other.length, 1)).toBeUndefined();
    }
    // A quote of plain text at the top level holds no task and closes the list before it.
    const quoted = '## Phase 1\n- [ ] a\n> note, **bold**\n>\n> more\n\n- [x] b\n';
    expect(eventsOf(scanPlain(quoted, 0, quoted.length, 1)!)).toEqual([
      { kind: 'heading', level: 2, text: 'Phase 1', line: 1 },
      { kind: 'item', box: 13, line: 2, depth: 0 },
      { kind: 'item', box: quoted.indexOf('[x]'), line: 7, depth: 0 },
    ]);
    agree(quoted);
  });

  it('agrees on 300 real-shaped spec-kit and Kiro files read as checklists (CRLF, BOM, front matter, CJK…)', () => {
    fc.assert(fc.property(fc.oneof(realSpeckit, realKiro), agree), runs(300));
  });
});
