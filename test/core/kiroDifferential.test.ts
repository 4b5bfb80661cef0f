import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { repoRoot } from '../paths.js';
import { KIRO_SCAN, readKiro, scanKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { plainKiro, realKiro } from '../helpers/realShapes.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { scanSegments } from '../../src/core/plan/kinds/markdownDialect.js';
import { readInMixedPieces, TABLES_THEN_RULE } from '../helpers/pieces.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// A document the fast path hands to remark is parsed once for both sides (see the helper).
remarkOnce();

/**
 * Kiro's fast path (a line scanner for the subset Kiro writes) against remark alone: the same
 * phases, tasks, states, optional flags, requirements, lines, mark offsets and problems for every
 * document. 3,000+ generated documents and every Kiro fixture.
 */
const fixtures = join(repoRoot, 'test', 'fixtures');

const indent = fc.constantFrom('', '', '', '  ', '  ', '    ', ' ', '   ', '      ', '\t');
const box = fc.constantFrom(
  '[ ]',
  '[ ]',
  '[x]',
  '[-]',
  '[ ]*',
  '[x]*',
  '[X]',
  '[?]',
  '[~]',
  '[]',
  '[\t]',
  '[a]',
  '',
);
const gap = fc.constantFrom(' ', ' ', ' ', '', '  ', '\t');
const taskText = fc.constantFrom(
  '1. Set up project structure',
  '2. Implement data models',
  '2.1 Create core data model interfaces',
  '2.2. Implement User model',
  '3.1 Implement database connection utilities',
  '10. Late phase',
  'No number',
  '1. `code` in **bold**',
  '2.3 Write tests _Requirements: 1.2_',
  '4. Requirements: 5.1 in the title',
  '5. Add [zod](https://zod.dev) schema',
  '5.1 Cite Require[ments](r.md): 6.1',
  '[5.2](#t52) Linked id',
  '5.3 See [it](x "t") titled',
  '(url)',
  ': definition',
  '',
);
const bulletText = fc.constantFrom(
  '_Requirements: 1.1_',
  '_Requirements: 2.1, 3.3, 1.2_',
  'Requirements: 4.3',
  '_Requirement: 7_',
  '_Requirements: 1.1_, more',
  // Ranges, as plans write them: each id they span, the same both ways.
  '_Requirements: 6.1-6.11_',
  '_Requirements: 1.1–1.7, 4.1–4.8_',
  '_Requirements: 2.1 - 2.3, 5_',
  '_Requirements: 1.3—2.2_',
  '_Requirements: 1.1 - see design_',
  '_Requirements: 3-_',
  '_要件: 1.1〜1.3, 2.1-2.2_',
  '**Requirements:** 9.9',
  '_Requirements: 1.1 *x*_',
  '_Требования: 1.1, 2.2_',
  '_要件: 2.3_',
  '_需求：1.1_',
  '_요구사항: 6.1_',
  '_Exigences : 1.4_',
  '**Anforderungen:** 3.1',
  'Требования: 4.2',
  '_Priority: 1_',
  // A character reference in the word, which mdast's text decodes, or in other text (`R&D`: none).
  'Requir&#101;ments: 1.2',
  '_&#x52;equirements: 2.1_',
  'Т&#1088;ебования: 3.2',
  'R&amp;D &copy; notes, R&D',
  'Write connection management code',
  'Define interfaces that establish system boundaries',
  '`code` bullet',
  '[link](x) bullet',
  // Links: around ids, splitting the word (mdast's text joins it), near misses remark reads.
  '_Requirements: [1.1](./requirements.md#r11), 2.3_',
  '[Requirements](./requirements.md): 3.1',
  '_Require[ments](r.md): 4.4_',
  'Require![ments](r.png): 4.5',
  '_要[件](r.md): 2.3_',
  '_Требов[ания](r.md): 2.4_',
  '_Requirements: [1.1](r.md "R"), 2.3_',
  '_Requirements: 1.1_ [design](<./design.md>)',
  'See [design.md](./design.md) and [x]( y)',
  '> quoted',
  '# heading in an item',
  '- nested on one line',
  '1. ordered',
  '',
);
const marker = fc.constantFrom('- ', '- ', '- ', '* ', '+ ', '1. ', '-');
const taskLine = fc
  .tuple(indent, marker, box, gap, taskText)
  .map(([i, m, b, g, t]) => `${i}${m}${b}${g}${t}`);
const bulletLine = fc.tuple(indent, marker, bulletText).map(([i, m, t]) => `${i}${m}${t}`);
const otherLine = fc.constantFrom(
  '',
  '',
  '',
  '  ',
  '# Implementation Plan',
  '## Notes',
  '#NoSpace',
  'Convert the feature design into a series of prompts.',
  'Requirements: 8.1',
  '  Indented paragraph text',
  '    indented code or a paragraph inside an item',
  '---',
  '===',
  '```',
  '```md',
  '  ```',
  '  ```ts',
  '    ```',
  '   ~~~',
  '      ```',
  '-',
  '  -',
  '<!-- - [ ] 9. commented -->',
  '| 9. task | [ ] |',
  ...TABLES_THEN_RULE,
  '> - [ ] 9. quoted',
  '[ref]: /x',
  '\ufeff# bom',
  '### Task 1: Setup',
  '## Task 2 - Data',
  '### Task 3.1: A sub-task',
  '### タスク 2：型定義',
  '### 3. `Storage` *layer*',
  '### Analysis',
);
const line = fc.oneof(
  { weight: 4, arbitrary: taskLine },
  { weight: 3, arbitrary: bulletLine },
  { weight: 2, arbitrary: otherLine },
);

/** Kiro's own shapes only, so most documents take the fast path. */
const kiroLine = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', '  ', '    '),
        fc.constantFrom('[ ]', '[ ]', '[x]', '[-]', '[ ]*'),
        fc.constantFrom(
          '1. Set up project structure',
          '2. Implement data models',
          '2.1 Create interfaces',
          '2.2 Implement the User model',
          '3. Create storage',
          '3.1 Implement the connection',
          'Unnumbered task',
        ),
      )
      .map(([i, b, t]) => `${i}- ${b} ${t}`),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('  ', '  ', '    ', '      '),
        fc.constantFrom(
          '_Requirements: 1.1_',
          '_Requirements: 2.1, 3.3_',
          '_Требования: 1.1, 2.2_',
          '_需求: 2.1_',
          '_要件：3.3_',
          'Write the validation functions',
        ),
      )
      .map(([i, t]) => `${i}- ${t}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '',
      '# Implementation Plan',
      'Some intro text.',
      '### Task 1: Set up',
      '### Task 3: Storage',
      '## Analysis',
    ),
  },
);

const eol = fc.constantFrom('\n', '\n', '\n', '\r\n');

function document(l: fc.Arbitrary<string>, ends = eol) {
  return fc
    .tuple(fc.array(fc.tuple(l, ends), { minLength: 1, maxLength: 20 }), fc.boolean())
    .map(([lines, final]) => {
      const t = lines.map(([x, e]) => x + e).join('');
      return final ? t : t.replace(/\r?\n$/, '');
    });
}

function agree(source: string): void {
  expect(readKiro(source, 'tasks.md')).toEqual(readKiro(source, 'tasks.md', { fast: false }));
}

describe('Kiro fast path against remark (differential)', () => {
  it('agrees on 1,000 mixed documents: nesting, markup, fences, HTML, quotes, tables, tabs, CRLF…', () => {
    // Those the scanner refuses as a whole are read in pieces: count those read by both readers.
    let mixed = 0;
    fc.assert(
      fc.property(document(line), (source) => {
        if (readInMixedPieces(source, KIRO_SCAN)) mixed++;
        agree(source);
      }),
      runs(1000),
    );
    // Read in pieces, both ways, often enough to mean something (373–393 of 2,000 for spec-kit and
    // 47–67 for Kiro over seeds 1–3: about a fifth, and 2–3 %).
    expect(mixed).toBeGreaterThan(12);
  });

  it('agrees on 750 documents of the common case, most of them read by the scanner alone', () => {
    let scanned = 0;
    fc.assert(
      fc.property(document(kiroLine, fc.constant('\n')), (source) => {
        if (scanKiro(source)) scanned++;
        agree(source);
      }),
      runs(750),
    );
    // The scanner must really run: it gives up only on what it leaves to remark.
    expect(scanned).toBeGreaterThan(250);
  });

  const kiroFixtures = [
    ...readdirSync(join(fixtures, 'kiro')).map((f) => join(fixtures, 'kiro', f, 'tasks.md')),
    ...readdirSync(join(fixtures, 'edits'))
      .filter((d) => d.startsWith('kiro-'))
      .flatMap((d) => ['input.md', 'expected.md'].map((f) => join(fixtures, 'edits', d, f))),
    join(repoRoot, 'examples', 'plans', '.kiro', 'specs', 'password-reset', 'tasks.md'),
  ];
  it.each(kiroFixtures.map((f) => [relative(repoRoot, f)]))('agrees on %s', (path) => {
    const source = readFileSync(join(repoRoot, path), 'utf8');
    agree(source);
    if (!source.includes('\r') && !source.includes('\t')) expect(scanKiro(source)).toBeDefined();
  });

  it.each([
    ['a lazy line', '- [ ] 1. a\nlazy\n- [ ] 2. b\n'],
    ['a continuation line', '- [ ] 1. a\n  more text\n  - _Requirements: 1.1_\n'],
    ['a setext underline', 'Title\n---\n- [ ] 1. a\n'],
    ['indented code', '- [ ] 1. a\n\n      - [ ] 1.1 code?\n'],
    ['a paragraph inside an item', '- [ ] 1. a\n\n  Requirements: 3.1\n- [ ] 2. b\n'],
    ['requirements in a sub-task', '- [ ] 1. a\n  - [ ] 1.1 b\n    - _Requirements: 2.2_\n'],
    ['a sibling at another indentation', '- [ ] 1. a\n  - [ ] 1.1 b\n   - [ ] 1.2 c\n'],
    ['a heading that closes the list', '- [ ] 1. a\n# Notes\n  - _Requirements: 9_\n'],
    ['markup in a numbered heading', '### 1. `code` *x*\n- [ ] 1.1 a\n'],
    ['a "Task N:" heading', '## Phase 1\n### Task 1: `Setup`\n- [ ] 1.1 a\n'],
    ['sub-tasks with no top-level task', '## Analysis\n- [ ] 3.1 a\n  - [ ] b\n- [ ] 3. c\n'],
  ])('agrees on %s', (_name, source) => {
    agree(source);
  });

  it.each([
    ['a detail', '- [ ] 1. a\n  - Require[ments](r.md): 1.1\n', ['1.1']],
    ['a detail after another', '- [ ] 1. a\n  - x\n  - Require[ments](r.md): 1.1\n', ['1.1']],
    ['the task line', '- [ ] 1. a Require[ments](r.md): 1.2\n', ['1.2']],
    ['a word in another language', '- [ ] 1. a\n  - _要[件](r.md): 1.3_\n', ['1.3']],
    ['ids', '- [ ] 1. a\n  - _Requirements: [1.1](r.md#a), 2.3_\n', ['1.1', '2.3']],
  ])('reads requirements a link splits in %s, as mdast does', (_name, source, ids) => {
    // mdast's text of `Require[ments](r.md)` is the word: the scanner reads the line (its link
    // syntax dropped, the word shows), as remark does.
    expect(scanKiro(source)).toBeDefined();
    agree(source);
    expect(readKiro(source, 'tasks.md').phases[0]!.tasks[0]!.requirements).toEqual(ids);
  });

  it('reads a plan in pieces when one section holds a setext heading, as remark reads the whole', () => {
    const source = [
      '# Implementation Plan',
      '',
      '- [x] 1. Set up',
      '  - [x] 1.1 Create the project',
      '    - _Requirements: 1.1_',
      '',
      '## Data',
      '',
      'The model',
      '---------',
      '',
      '- [ ] 2. Build the model',
      '  - [-] 2.1 Write the schema',
      '    - _Requirements: 2.1, 2.2_',
      '  - [ ]* 2.2 Test it',
      '',
      '## Later',
      '',
      '- [ ] 3. Ship',
      '',
    ].join('\n');
    expect(scanKiro(source)).toBeUndefined();
    const pieces = scanSegments(source, KIRO_SCAN)!;
    expect(pieces.segments).toBe(3);
    expect(pieces.byRemark).toEqual([{ line: 10, refused: expect.stringContaining('setext') }]);
    const plan = readKiro(source, 'tasks.md');
    expect(plan).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    expect(plan.phases.map((p) => [p.number, p.tasks.map((t) => [t.id, t.requirements])])).toEqual([
      ['1', [['1.1', ['1.1']]]],
      [
        '2',
        [
          ['2.1', ['2.1', '2.2']],
          ['2.2', []],
        ],
      ],
      ['3', [['3', []]]],
    ]);
  });

  it('reads prose above the tasks that mentions requirements and goes on, by the scanner and as remark does', () => {
    // A paragraph outside every item cites nothing (Kiro reads a task's requirements from inside
    // its item): the scanner reads it. A continued requirements line inside an item still goes to
    // remark.
    const prose =
      '# Implementation Plan\n\nEach task references the requirements it satisfies (see\n`requirements.md`). Requirements: 1.1\n\n- [ ] 1. a\n  - [ ] 1.1 b\n    - _Requirements: 2.2_\n';
    agree(prose);
    expect(scanKiro(prose)).toBeDefined();
    const inItem = '- [ ] 1. a\n  - [ ] 1.1 b\n    _Requirements: 2.2,\n    3.1_\n';
    agree(inItem);
    expect(scanKiro(inItem)).toBeUndefined();
  });

  it('warns of a lookalike right after code that the end of its list item closes, either way', () => {
    // remark's position of such code ends at the start of the next line: that line is no code.
    const source = '- [ ] 1. Set up\n    ```\n- [] 1.1 Not a box\n';
    for (const fast of [true, false]) {
      expect(readKiro(source, 'tasks.md', { fast }).problems.map((p) => p.line)).toEqual([3]);
    }
  });

  it('agrees on 500 real-shaped documents: property bullets, CJK and Cyrillic text, CRLF, BOM, front matter, quotes, fences', () => {
    fc.assert(fc.property(realKiro, agree), runs(500));
  });

  it('reads every real-shaped document of its subset with the scanner alone (250), agreeing with remark', () => {
    fc.assert(
      fc.property(plainKiro, (source) => {
        expect(scanKiro(source)).toBeDefined();
        agree(source);
      }),
      runs(250),
    );
  });

  const plan = [
    '- [ ] 1. Set up the project',
    '  - Create `src/index.ts` with the entry point',
    '  - **Property 1: Round trip**',
    '  - **Validates: Requirements 1.1, 1.2**',
    '  - _Requirements: 1.1_',
    '',
    '- [ ]* 1.1 Write property tests',
    '  - 클래스 초기화 메서드 구현',
    '  - _Requirements: 2.3_',
  ];
  it.each([
    ['CRLF line ends', `${plan.join('\r\n')}\r\n`],
    ['a byte order mark', `\ufeff${plan.join('\n')}\n`],
    ['front matter', `---\ntitle: plan\n---\n${plan.join('\n')}\n`],
    [
      'a paragraph in Japanese',
      `# 実装計画\n\nこの計画は段階的に進めます。\n次の行。\n\n${plan.join('\n')}\n`,
    ],
    ['a paragraph in Russian', `Этот план разбивает работу на шаги.\n\n${plan.join('\n')}\n`],
    [
      'fenced code',
      `${plan.join('\n')}\n\n\u0060\u0060\u0060\n- [ ] 9. code\n\u0060\u0060\u0060\n`,
    ],
    ['a block quote', `> Note: optional tasks are marked\n\n${plan.join('\n')}\n`],
    [
      'a lone "-" after a task\'s details',
      `${plan.join('\n')}\n  - _需求: 8.1, 8.2_\n-\n\n- [x] 1.2 事件模板\n`,
    ],
    [
      "code in a task's detail bullet",
      `${plan.join('\n')}\n  - Add:\n    \u0060\u0060\u0060ts\n    - [ ] 1.9 code\n\n    \u0060\u0060\u0060\n  - [ ] 1.2 after\n`,
    ],
  ])('reads %s with the scanner, as remark does', (_name, source) => {
    expect(scanKiro(source)).toBeDefined();
    agree(source);
    expect(readKiro(source, 'tasks.md').phases).toHaveLength(1);
  });
});

describe("requirement trailers in the plan's language", () => {
  /** The requirements of each task, by the scanner and by remark (which must agree). */
  function cited(source: string): string[][] {
    agree(source);
    return readKiro(source, 'tasks.md').phases.flatMap((p) => p.tasks.map((t) => t.requirements));
  }
  const task = (trailer: string) =>
    `# Plan\n\n- [ ] 1. Set up\n  - [ ] 1.1 Create the model\n    - Add the fields\n    - ${trailer}\n`;

  it.each([
    ['Russian', '_Требования: 1.1, 2.2_', ['1.1', '2.2']],
    ['Russian, one', '_Требование: 3.4_', ['3.4']],
    ['Ukrainian', '_Вимоги: 1.2_', ['1.2']],
    ['Japanese', '_要件: 2.3_', ['2.3']],
    ['Chinese', '_需求: 1.1, 1.2_', ['1.1', '1.2']],
    ['Chinese, a full-width colon', '_需求：1.1_', ['1.1']],
    ['Chinese, a full-width colon and a space', '_需求： 4.2_', ['4.2']],
    ['Korean', '_요구사항: 6.1, 6.3_', ['6.1', '6.3']],
    ['Korean, spaced', '_요구 사항: 6.2_', ['6.2']],
    ['Spanish or Portuguese', '_Requisitos: 5.1_', ['5.1']],
    ['Italian', '_Requisiti: 5.2_', ['5.2']],
    ['French', '_Exigences: 1.4, 11.1_', ['1.4', '11.1']],
    ['French, a space before the colon', '_Exigences : 1.5_', ['1.5']],
    ['German', '_Anforderungen: 7.1_', ['7.1']],
    ['Polish', '_Wymagania: 8.1_', ['8.1']],
    ['Turkish', '_Gereksinimler: 9.1_', ['9.1']],
    ['Vietnamese', '_Yêu cầu: 9.2_', ['9.2']],
    ['no emphasis', 'Требования: 1.3', ['1.3']],
  ])('reads a trailer in %s, by the scanner and as remark does', (_language, trailer, ids) => {
    const source = task(trailer);
    expect(scanKiro(source)).toBeDefined();
    expect(cited(source)).toEqual([ids]);
  });

  it('reads every form of every word, by the scanner and as remark does', () => {
    const forms = [
      'Требования',
      'Требование',
      'Вимоги',
      'Вимога',
      '要件',
      '需求',
      '요구사항',
      '요구 사항',
      'Requisitos',
      'Requisito',
      'Requisiti',
      'Exigences',
      'Exigence',
      'Anforderungen',
      'Anforderung',
      'Wymagania',
      'Wymaganie',
      'Gereksinimler',
      'Gereksinim',
      'Yêu cầu',
      'requirement',
      'REQUIREMENTS',
    ];
    for (const form of forms) {
      for (const trailer of [`_${form}: 2.1_`, `${form}: 2.1`, `**${form}:** 2.1`]) {
        expect([form, cited(task(trailer))]).toEqual([form, [['2.1']]]);
      }
    }
  });

  it.each([
    ['a priority', '_Priority: 1_'],
    ['a dependency', '_Depends on: 2.3_'],
    ['a word that only holds one', '_Prerrequisitos: 1.1_'],
    ['a property that validates one (no colon after the word)', '**验证: 需求 1.2**'],
    ['upper case in another language', '_ТРЕБОВАНИЯ: 1.1_'],
  ])('reads no requirement from %s', (_name, trailer) => {
    expect(cited(task(trailer))).toEqual([[]]);
  });

  it('reads the trailer that ends a run of detail bullets, and each task keeps its own', () => {
    const source = [
      '- [ ] 1. Настройка',
      '  - Настроить Sanctum',
      '  - Создать миграции',
      '  - _Требования: 1.1, 2.2, 8.1_',
      '',
      '- [ ] 2. Модель',
      '  - _Требования: 5.4_',
      '',
      '- [ ] 2.1 Создать модель',
      '  - Реализовать модель',
      '  - _Требования: 1.1, 7.1_',
      '',
      '- [ ] 3. 実装',
      '  - [ ] 3.1 接続',
      '    - 実装する',
      '    - _要件: 2.3_',
      '',
    ].join('\n');
    expect(scanKiro(source)).toBeDefined();
    expect(cited(source)).toEqual([['1.1', '2.2', '8.1'], ['1.1', '7.1'], ['2.3']]);
  });
});
