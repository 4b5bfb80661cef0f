import fc from 'fast-check';
import { scanDialect } from '../../src/core/plan/kinds/dialectScan.js';
import { OPENSPEC_SCAN, readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// A document the fast path hands to remark is parsed once for both sides (see the helper).
remarkOnce();

/**
 * OpenSpec's fast path against remark alone: the same groups, tasks, ids, states, lines, mark
 * offsets and problems for every document. The scanner reads a task's text only as far as the id
 * at its start (`idAtStart`): the texts below open with ids written plain, in markup, as an
 * entity or an escape, and with words and markup that open no id, and go on with markup that
 * remark must read.
 */
const text = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '1.1 Create the project',
      '1.2 Add `--lane` flag to `scripts/workflow.py`',
      '2.1 Link [docs](https://x.y) and ![img](p)',
      '2.2 An &amp; entity and a \\* escape',
      '2.3a Letter after the id',
      '2.4\u00a0No-break space after the id',
      '2.5 Trailing spaces  ',
      '2.6',
      '3.1.2 Deep id <b>html</b>',
      'Add tests',
      'Add [link](x) later',
      '**IMPL-1**: Add `--lane` flag ✅',
      '`code` first',
      '~~Plot output~~ — skipped',
      '_Note_: 1.1 is later',
      '✅ 1.1 after a symbol',
      'Настроить 1.2',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '**1.3** Bold id',
      '`1.4` Code id',
      '_1.5_ Emphasised id',
      '~~1.6~~ Struck id',
      '&#49;.7 Entity digit',
      '\\1.8 Escaped digit',
      '[1.9](x) Linked id',
      '[1.9](x "t") Titled link id',
      '[1.9]( x) Spaced link id',
      '[1.9](x y) Spaced destination id',
      '[1.9](<x>) Angled destination id',
      '\\[1.9](x) Escaped link',
      '[**1.9**](x) Bold link id',
      '[1.9](x)[P] Then a label',
      '[1.9](x)1.10 Glued',
      '![1.9](x) Image id',
      '<b>1.10</b> Tagged id',
      '** 1.11 Spaced stars',
      '` 1.12` Spaced code',
      '1.13* Star after',
      '1.14\\',
      '1.15  ',
      '*a*1.16',
      '',
      ' ',
    ),
  },
);
const taskLine = fc
  .tuple(
    fc.constantFrom('- ', '- ', '- ', '  - ', '    - ', '* ', '1. ', '-  '),
    fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[-]', '[]'),
    fc.constantFrom(' ', ' ', ' ', '  ', ''),
    text,
  )
  .map((p) => p.join(''));
const otherLine = fc.constantFrom(
  '## 1. Setup',
  '## 2. Core work',
  '## 2. Core work (again)',
  '## 3. `Code` group',
  '### Notes',
  '# Tasks',
  '',
  '',
  'Some text',
  'a continuation',
  '  more of a task',
  '](x) a link closed',
  '    - **Priority**: P0',
  '---',
  '| a | b |',
  '```',
);
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n');
const documents = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.oneof({ weight: 3, arbitrary: taskLine }, { weight: 2, arbitrary: otherLine }),
        eol,
      ),
      { minLength: 1, maxLength: 30 },
    ),
    fc.boolean(),
  )
  .map(([lines, final]) => {
    const t = lines.map(([x, e]) => x + e).join('');
    return final ? t : t.replace(/\r?\n$/, '');
  });

describe('OpenSpec fast path against remark (differential)', () => {
  it('agrees on 750 documents whose tasks open with ids in and out of markup', () => {
    let scanned = 0;
    fc.assert(
      fc.property(documents, (source) => {
        if (scanDialect(source, OPENSPEC_SCAN)) scanned++;
        expect(readOpenspec(source, 'tasks.md')).toEqual(
          readOpenspec(source, 'tasks.md', { fast: false }),
        );
      }),
      runs(750),
    );
    // The scanner must really run: it leaves to remark only what it cannot read.
    expect(scanned).toBeGreaterThan(75);
  });
});
