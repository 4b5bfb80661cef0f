import fc from 'fast-check';
import {
  scanOrRefuse,
  type DialectScan,
  type ScanMode,
  type ScanRefusal,
} from '../../src/core/plan/kinds/dialectScan.js';
import { KIRO_SCAN, readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { treeEvents } from '../../src/core/plan/kinds/markdownDialect.js';
import { readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { readSpeckit, SPECKIT_SCAN } from '../../src/core/plan/kinds/speckit/index.js';
import { parseMarkdown } from '../../src/core/plan/markdown.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// A document the fast path hands to remark is parsed once for both sides (see the helper).
remarkOnce();

/**
 * A list item whose content opens with another list marker (`- - [x] T010 …`, as a search and
 * replace leaves a tasks file): CommonMark reads a list nested in the item, on the same line. The
 * line scanner reads such a line (each marker an item inside the one before it); held here to
 * remark on documents made of it — bullets and numbers in chains of one to three, spacings of one
 * to five spaces, indentations, boxes and no box, rules and empty items hidden in a chain, blank
 * lines, lazy and indented continuations, siblings at each level, fences in the nested item and
 * in a plain item after it, quotes, headings, LF or CRLF, with plain tasks after them or none.
 */
const marker = fc.constantFrom(
  '-',
  '-',
  '-',
  '*',
  '+',
  '1.',
  '1)',
  '2)',
  '01.',
  '10.',
  '1234567890.',
);
const spacing = fc.oneof(
  { weight: 12, arbitrary: fc.constant(' ') },
  { weight: 2, arbitrary: fc.constantFrom('  ', '    ') },
  // Five spaces: code in the item, not a list.
  { weight: 1, arbitrary: fc.constant('     ') },
);
const chain = fc
  .array(fc.tuple(marker, spacing), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([m, s]) => m + s).join(''));
const indent = fc.constantFrom('', '', '', '', '', ' ', '  ', '  ', '    ');
const box = fc.constantFrom('[ ] ', '[ ] ', '[x] ', '[X] ', '[x] ', '[-] ', '[P] ', '');
const text = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'T010 Add `apps/api/src/mod.ts` — implement list; import DTOs',
      'T011 [P] [US1] Backend test',
      '1. Set up the project',
      '1.1 Write the code',
      '_Requirements: 1.1, 2.3_',
      'T012 **bold** and _under_',
      'T013 [link](x)',
      'plain words',
    ),
  },
  // What ends the nesting otherwise: nothing, an empty item, a rule, another block.
  { weight: 1, arbitrary: fc.constantFrom('', '-', '* *', '- -', '# heading', '> quote', '```') },
);
const nestedLine = fc.tuple(indent, chain, box, text).map((p) => p.join(''));
const otherLine = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '',
      '',
      '## Phase 1: Setup',
      '## 1. Group',
      '- [ ] T020 a plain task',
      '- [x] 2. A plain Kiro task',
      '  - [ ] 2.1 A sub-task',
      '    - _Requirements: 3.1_',
      '  - [x] T021 a sibling one level in',
      '    - [x] T022 a sibling two levels in',
      '- plain bullet',
      'a lazy line',
      '  an indented line',
      '    a line at the nested content',
      '      deeper still',
      '    ```',
      '  ```',
      '---',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '    ```ts',
      '> a quote',
      '> - a quoted item',
      '- - -',
      '* - * -',
      '- * * *',
      '1. -',
      '- -',
      '-',
    ),
  },
);
// A plain item nested on its line, and code in a plain item after it: the scanner passes over
// plain items after one it read by a search, which must not take this one's column for theirs.
const plainNested = fc.tuple(indent, chain).map(([i, c]) => `${i}${c}detail words`);
const codeInItem = fc.constant('- plain bullet\n    ```\n  - [ ] T023 in the code\n    ```');
const line = fc.oneof(
  { weight: 6, arbitrary: nestedLine },
  { weight: 4, arbitrary: otherLine },
  { weight: 2, arbitrary: plainNested },
  { weight: 2, arbitrary: codeInItem },
);
const document = fc
  .tuple(
    fc.constantFrom('## Phase 1: Setup\n\n', '# Implementation Plan\n\n', '## 1. Group\n'),
    fc.array(line, { minLength: 1, maxLength: 12 }),
    fc.constantFrom('\n', ''),
    fc.constantFrom('\n', '\n', '\r\n'),
  )
  .map(([head, lines, end, eol]) => (head + lines.join('\n') + end).replace(/\n/g, eol));

/**
 * A scan's events with each item's requirements read (they are a function of the scan), and the
 * text of GFM's boxes only (the scanner reads no other: no reader takes it).
 */
function eventsOf(scan: DialectScan | ScanRefusal): unknown {
  if ('refused' in scan) return scan;
  return scan.events.map((e) =>
    e.kind === 'item'
      ? { ...e, text: ' xX'.includes(e.mark) ? e.text : '', requirements: e.requirements() }
      : e,
  );
}

const MODES: [string, ScanMode][] = [
  ['spec-kit', SPECKIT_SCAN],
  ['Kiro', KIRO_SCAN],
];

describe('a list item opening with a list marker, on one line (`- - [x] T010 …`)', () => {
  it.each(MODES)(
    'the scanner reads its events as remark does, in %s mode (750 documents)',
    (_name, mode) => {
      let scanned = 0;
      let nested = 0;
      fc.assert(
        fc.property(document, (source) => {
          const scan = scanOrRefuse(source, mode);
          if ('refused' in scan) return;
          scanned++;
          if (/^ *(?:[-*+]|\d+[.)]) +(?:[-*+]|\d+[.)]) +\[/m.test(source)) nested++;
          const tree = [...treeEvents(source, parseMarkdown(source), mode)];
          expect(eventsOf(scan)).toEqual(eventsOf({ events: tree, skip: new Set() }));
          // The loop over every line reads them as the searches that pass over lines do.
          expect(eventsOf(scanOrRefuse(source, mode, { passOver: false }))).toEqual(eventsOf(scan));
        }),
        runs(750),
      );
      // Many documents are read by the scanner (about 225), many with a box on a nested line
      // (about 100); the others hold a line it leaves to remark.
      expect(scanned).toBeGreaterThan(150);
      expect(nested).toBeGreaterThan(60);
    },
  );

  it("agrees with remark on spec-kit's, Kiro's and OpenSpec's plans made of it (500 documents)", () => {
    fc.assert(
      fc.property(document, (source) => {
        expect(readSpeckit(source, 'tasks.md')).toEqual(
          readSpeckit(source, 'tasks.md', { fast: false }),
        );
        expect(readKiro(source, 'tasks.md')).toEqual(readKiro(source, 'tasks.md', { fast: false }));
        expect(readOpenspec(source, 'tasks.md')).toEqual(
          readOpenspec(source, 'tasks.md', { fast: false }),
        );
      }),
      runs(500),
    );
  });

  it('reads every plan of the common shape with the scanner alone (250), as remark does', () => {
    // Tasks one to three lists deep on their line, plain tasks, lazy and indented lines, phases.
    const task = fc
      .tuple(
        fc.constantFrom('', '', '  '),
        fc
          .array(fc.constantFrom('- ', '- ', '* ', '+ ', '1. ', '-  '), {
            minLength: 0,
            maxLength: 3,
          })
          .map((m) => m.join('')),
        fc.constantFrom('[ ]', '[x]', '[X]'),
        fc.constantFrom('T001 Add `src/a.ts` — export `A`.', 'T002 [P] [US1] Test', 'T003 plain'),
        fc.constantFrom('', '', '\ncontinued lazily', '\n    continued'),
      )
      .map(([i, chain, b, t, more]) => `${i}${chain}- ${b} ${t}${more}`);
    const other = fc.constantFrom('', '## Phase 2: API');
    const plan = fc
      .array(fc.oneof({ weight: 4, arbitrary: task }, { weight: 1, arbitrary: other }), {
        minLength: 1,
        maxLength: 20,
      })
      .map((lines) => `## Phase 1: Setup\n\n${lines.join('\n')}\n`);
    fc.assert(
      fc.property(plan, (source) => {
        expect(scanOrRefuse(source, SPECKIT_SCAN)).not.toHaveProperty('refused');
        expect(readSpeckit(source, 'tasks.md')).toEqual(
          readSpeckit(source, 'tasks.md', { fast: false }),
        );
      }),
      runs(250),
    );
  });

  // A tasks file as a search and replace left it (made up here, byte for byte): every task one
  // list deeper, on its own line, a lazy line and a sibling after them, a phase after it.
  const excerpt = [
    '# Tasks: Categories',
    '',
    '## Phase 1: Setup',
    '',
    '- - [x] T001 Add `src/categories/types.ts` — export `Category`.',
    "- - [ ] T002 [P] Add `src/categories/schemas.ts`.Value -replace '\\[ \\]', '[X]'",
    '* - [x] T003 Add the barrel',
    'continued lazily',
    '  - [ ] T004 [P] A sibling in the same outer item',
    '1. - [x] T005 Numbered outside',
    '',
    '**Checkpoint**: types compile.',
    '',
    '## Phase 2: API',
    '',
    '- - [X] T006 [US1] Add the routes',
    '- [ ] T007 A plain task after them',
    '',
  ].join('\n');

  it('reads a tasks file of such lines with the scanner alone, as remark does', () => {
    const scan = scanOrRefuse(excerpt, SPECKIT_SCAN);
    expect(scan).not.toHaveProperty('refused');
    const plan = readSpeckit(excerpt, 'tasks.md');
    expect(plan).toEqual(readSpeckit(excerpt, 'tasks.md', { fast: false }));
    expect(plan.phases.map((p) => p.tasks.map((t) => [t.id, t.state, t.line]))).toEqual([
      [
        ['T001', 'done', 5],
        ['T002', 'todo', 6],
        ['T003', 'done', 7],
        ['T004', 'todo', 9],
        ['T005', 'done', 10],
      ],
      [
        ['T006', 'done', 16],
        ['T007', 'todo', 17],
      ],
    ]);
    expect(plan.phases[0]!.tasks[2]!.text).toBe('T003 Add the barrel');
    expect(excerpt.slice(plan.phases[1]!.tasks[0]!.markOffset - 1).startsWith('[X] T006')).toBe(
      true,
    );
  });

  it.each([
    [
      'a plain bullet after a nested one, then code in it',
      '## Phase 1\n- - plain words\n- plain bullet\n    ```\n  - [ ] T001 in the code\n    ```\n',
    ],
    ['a numbered list at 1 after a paragraph', '## Phase 1\nText\n- 1. [ ] T001 a\n'],
    ['a nested line after a quote', '## Phase 1\n> note\n- 2. [ ] T001 a\n'],
    ['a lazy line, then a sibling', '## Phase 1\n* - [x] T001 a\nlazy\n  + [ ] T002 b\n'],
  ])('reads %s with the scanner, as remark does', (_name, source) => {
    expect(scanOrRefuse(source, SPECKIT_SCAN)).not.toHaveProperty('refused');
    expect(readSpeckit(source, 'tasks.md')).toEqual(
      readSpeckit(source, 'tasks.md', { fast: false }),
    );
  });

  it.each([
    ['a numbered list other than 1 after a paragraph', '## Phase 1\nText\n- 2. [ ] T001 a\n'],
    ['a rule in the item', '## Phase 1\n- * * *\n- [ ] T001 a\n'],
    ['an empty nested item', '## Phase 1\n1. -\n- [ ] T001 a\n'],
    ['code in the nested item', '## Phase 1\n- -     [ ] T001 a\n'],
    ['a heading in the nested item', '## Phase 1\n- - # T001\n- [ ] T002 a\n'],
  ])('leaves %s to remark', (_name, source) => {
    expect(scanOrRefuse(source, SPECKIT_SCAN)).toHaveProperty('refused');
    expect(readSpeckit(source, 'tasks.md')).toEqual(
      readSpeckit(source, 'tasks.md', { fast: false }),
    );
  });
});
