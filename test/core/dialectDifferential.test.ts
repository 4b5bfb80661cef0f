import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { repoRoot } from '../paths.js';
import { readSpeckit, scanSpeckit, SPECKIT_SCAN } from '../../src/core/plan/kinds/speckit/index.js';
import { plainSpeckit, realSpeckit } from '../helpers/realShapes.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { scanSegments } from '../../src/core/plan/kinds/markdownDialect.js';
import { readInMixedPieces, TABLES_THEN_RULE } from '../helpers/pieces.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// A document the fast path hands to remark is parsed once for both sides (see the helper).
remarkOnce();

/**
 * spec-kit's fast path (a line scanner for the subset spec-kit writes) against remark alone: the
 * same phases, tasks, states, lines, mark offsets and problems for every document.
 */
const fixture = (path: string): string =>
  readFileSync(join(repoRoot, 'test', 'fixtures', path), 'utf8');

const text = fc.constantFrom(
  'T001 Create project structure',
  'T002 [P] [US1] Create model in src/models/album.ts',
  'T003 [P] Contract test in tests/contract/test_albums.ts',
  '[P] T004 label first',
  'T005 run `npm test` first',
  'T006 `` double ``',
  'T007 ` spaced code `',
  'T008 odd ` backtick',
  'T009 **bold** text',
  'T010 _under_ and snake_case',
  'T011 [link](https://x.y)',
  'T012 [ref][P] and [^1]',
  'T013 <b>html</b> & &amp; entity',
  'T014 ~strike~ !bang ![img](x)',
  'T015 a | b',
  'T016 escaped \\* star',
  'T017 trailing spaces   ',
  'T018 https://example.com/a_b www.x.y',
  // Inline links the scanner reads, and near misses it leaves to remark.
  'T023 see [plan.md](./plan.md) first',
  '[T024](#t024) linked id',
  'T025 [P] [US1] per [contracts/a.yaml](./contracts/a.yaml)',
  'T026 *[a](b)* and **[c](d)**',
  'T027 [a](b "t") titled',
  'T028 \\[a](b) escaped',
  'T031 [c](<d>) angled',
  'T032 [e]( f) spaced',
  'T033 [g](h i) spaced',
  // The same on the id, which the reader takes from mdast's text.
  '[T034](h i) spaced id',
  '[T035](<x>) angled id',
  '[T036](x "t") titled id',
  '[**T037**](x) bold id',
  '\\[T038](x) escaped id',
  '[www.T039.io](x) literal id',
  'T029 [[a](b)] [x](y)] [**z**](w) [www.x.y](z)',
  'T030 ![i](u) [P][a](b)',
  '[x] T019 box in text',
  // Ids with a suffix, and a box with no id (an acceptance criterion under its sub-heading).
  'T022-A Parser edge cases',
  'T011b Create migration',
  'T001-Create no suffix',
  'App starts',
  'Phase 9: not a heading',
  '',
  ' ',
);
const taskLine = fc
  .tuple(
    fc.constantFrom('- ', '- ', '- ', '* ', '1. ', '-  ', '  - ', '    - ', '\t- ', '-'),
    fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[-]', '[?]', '[]', '[\t]', ''),
    fc.constantFrom(' ', ' ', ' ', '  ', '\t', ''),
    text,
  )
  .map((p) => p.join(''));
const headingLine = fc
  .tuple(
    fc.constantFrom('#', '##', '##', '###', '####', '#######', '  ##', '#'),
    fc.constantFrom(
      ' Phase 1: Setup (Shared Infrastructure)',
      ' Phase 2: Foundational',
      ' Phase 2 — API',
      ' Phase 3: User Story 1 - Albums (Priority: P1) 🎯 MVP',
      ' Phase 3.1: Review fixes',
      ' Phase N: Polish & Cross-Cutting Concerns',
      ' Phase 4 &amp; more',
      ' Phase `5`',
      ' **Phase 6**',
      ' Phase 7 ##',
      ' Tests for User Story 1 ⚠️',
      ' Implementation',
      ' Format: `[ID] [P?] [Story] Description`',
      ' Phase 8: [Docs](./docs.md)',
      ' Phase 9: [Docs](./docs.md "D")',
      ' [Phase 10](./p.md): Linked',
      ' [Phase 11](x y): Spaced',
      ' [Phase 12](<x>): Angled',
      // Sub-headings whose boxes with no id are acceptance criteria, and a note that may sit
      // inside a phase (at a level above it).
      ' Acceptance criteria',
      ' 验收标准',
      ' Note: T005 and T006 belong to Phase 2 too',
      'NoSpace',
      '',
    ),
  )
  .map((p) => p.join(''));
const otherLine = fc.constantFrom(
  '',
  '',
  '',
  '   ',
  '---',
  '---',
  '***',
  '===',
  '**Goal**: Users group photos',
  '**Checkpoint**: Foundation ready',
  'Some text',
  '- **[P]**: Can run in parallel',
  '- plain bullet',
  '- [P]: /definition',
  '[P]: /definition',
  '> - [ ] T099 quoted',
  // A quote's text opening with a bracket: GitHub's alerts are text; a link definition in a
  // quote turns the `[P]` of every task into a link (remark reads those).
  '> [!NOTE]',
  '> [P] tasks run in parallel',
  '> [P]: /definition',
  '> See [the contract](./c.md) first',
  '**Spec**: [spec.md](./spec.md) | **Plan**: [plan.md](./plan.md)',
  '[a](b) opens a paragraph',
  '- [a](b) a bullet opening with a link',
  '- [x](b) a link whose label is a mark',
  '<!-- - [ ] T098 comment -->',
  '```',
  '```md',
  '~~~',
  // Fences and lone bullets inside list items, as real tasks files hold them.
  '  ```',
  '  ```ts',
  '    ```',
  '   ~~~',
  '  ~~~~',
  '-',
  '  -',
  '*',
  '| a | b |',
  '|---|---|',
  ...TABLES_THEN_RULE,
  '  indented text',
  '    indented code',
  'description: front matter?',
  '\ufeff# bom',
);
const line = fc.oneof(
  { weight: 4, arbitrary: taskLine },
  { weight: 2, arbitrary: headingLine },
  { weight: 3, arbitrary: otherLine },
);
/** The common case: spec-kit's own shapes only, so most documents take the fast path. */
const plainLine = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom('[ ]', '[ ]', '[x]', '[X]'), fc.constantFrom(...text_plain()))
      .map(([b, t]) => `- ${b} ${t}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '## Phase 1: Setup (Shared Infrastructure)',
      '## Phase 2: Foundational',
      '## Phase 3.1: Review fixes',
      '## Phase N: Polish & Cross-Cutting Concerns',
      '### Implementation for User Story 1',
      '# Tasks: Photo Albums',
      '### Acceptance criteria',
      '### 验收标准',
      '# Note: T005 and T006 belong to Phase 2 too',
    ),
  },
  { weight: 3, arbitrary: fc.constantFrom('', '', '---', '**Goal**: Work.', 'Some text') },
);
function text_plain(): string[] {
  return [
    'T001 Create project structure',
    'T002 [P] [US1] Create model in src/models/album.ts',
    'T003 [P] Contract test in tests/contract/test_albums.ts',
    '[P] T004 label first',
    'T005 run `npm test` first',
    'T007 ` spaced code `',
    'T017 trailing spaces   ',
    'T022-A Parser edge cases',
    'T011b Create migration',
    'App starts',
    'T023 see [plan.md](./plan.md) first',
    '[T024](#t024) linked id',
  ];
}
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n');

function document(l: fc.Arbitrary<string>, ends = eol) {
  return fc
    .tuple(fc.array(fc.tuple(l, ends), { minLength: 1, maxLength: 40 }), fc.boolean())
    .map(([lines, final]) => {
      const t = lines.map(([x, e]) => x + e).join('');
      return final ? t : t.replace(/\r?\n$/, '');
    });
}

function agree(source: string): void {
  expect(readSpeckit(source, 'tasks.md')).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
}

describe('spec-kit fast path against remark (differential)', () => {
  it('agrees on 1,000 mixed documents: nesting, markup, fences, HTML, quotes, tables, CRLF…', () => {
    // Those the scanner refuses as a whole are read in pieces: count those read by both readers.
    let mixed = 0;
    fc.assert(
      fc.property(document(line), (source) => {
        if (readInMixedPieces(source, SPECKIT_SCAN)) mixed++;
        agree(source);
      }),
      runs(1000),
    );
    // Read in pieces, both ways, often enough to mean something (373–393 of 2,000 for spec-kit and
    // 47–67 for Kiro over seeds 1–3: about a fifth, and 2–3 %).
    expect(mixed).toBeGreaterThan(125);
  });

  it('agrees on 500 documents of the common case, most of them read by the scanner alone', () => {
    let scanned = 0;
    fc.assert(
      fc.property(document(plainLine, fc.constant('\n')), (source) => {
        if (scanSpeckit(source)) scanned++;
        agree(source);
      }),
      runs(500),
    );
    // The scanner must really run: it gives up only on what it leaves to remark.
    expect(scanned).toBeGreaterThan(150);
  });

  it('reads a plan in pieces when one phase holds HTML: that phase by remark, the rest by the scanner', () => {
    const source = [
      '# Tasks: Search',
      '',
      '## Phase 1: Setup',
      '',
      '- [ ] T001 Create the project',
      '- [x] T002 [P] Configure lint',
      '',
      '## Phase 2: Core',
      '',
      '<details><summary>Notes</summary>',
      '- [ ] not a task: HTML holds it',
      '</details>',
      '',
      '- [ ] T003 [US1] Build `api` in src/api.ts',
      '',
      '<!-- a comment over a heading',
      '## Phase 9: not a phase',
      '-->',
      '',
      '## Phase 3: Polish',
      '',
      '- [ ] T004 Write the docs',
      '',
    ].join('\r\n');
    expect(scanSpeckit(source)).toBeUndefined();
    const pieces = scanSegments(source, SPECKIT_SCAN)!;
    // Four pieces: the title, Phase 1, Phase 2 grown over the comment to Phase 3, Phase 3.
    expect(pieces.segments).toBe(4);
    expect(pieces.byRemark).toEqual([{ line: 10, refused: expect.stringContaining('HTML') }]);
    const plan = readSpeckit(source, 'tasks.md');
    expect(plan).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(plan.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['T001', 'T002']],
      ['2', ['T003']],
      ['3', ['T004']],
    ]);
    // HTML holds no task, and the phase a comment holds is no phase: nothing to name.
    expect(plan.problems).toEqual([]);
  });

  it('agrees on 500 plans with a table, then a rule or a line, before the next phase', () => {
    // A rule ends a table GFM reads (a header, then a delimiter row of as many cells); under a
    // paragraph of `|` lines it underlines a heading, which ends the phase above it.
    const row = fc.constantFrom(
      '| a | b |',
      '| a |',
      '|a|b|',
      '| `a|b` | c |',
      '| a \\| b |',
      '|',
      '||',
      '| a | b',
      '| a | - |',
    );
    const delimiter = fc.constantFrom(
      '|---|---|',
      '|-|',
      '| --- |',
      '|:-:|--:|',
      '|---|',
      '| - | - | - |',
      '---',
      '|-|-',
      '| a |',
      '|---|---|---|',
    );
    const after = fc.constantFrom(
      '---',
      '***',
      '___',
      '- - -',
      '| 1 | 2 |',
      'text',
      '  ---',
      '----',
    );
    let ruled = 0;
    fc.assert(
      fc.property(row, delimiter, fc.array(row, { maxLength: 2 }), after, (h, d, body, a) => {
        const source = [
          '## Phase 1: A',
          '',
          '- [ ] T001 a',
          '',
          h,
          d,
          ...body,
          a,
          '',
          // Phase 1's task, unless a heading above it ended Phase 1.
          '- [ ] T003 c',
          '',
          '## Phase 2: B',
          '',
          '- [ ] T002 b',
          '',
        ].join('\n');
        if (scanSpeckit(source) && /^[-*_]{3,}$/.test(a)) ruled++;
        agree(source);
      }),
      runs(500),
    );
    // 43–48 over seeds 1–3.
    expect(ruled).toBeGreaterThan(25);
  });

  it('agrees on a second bracket after a box and two spaces (found by a random seed in CI)', () => {
    const source =
      '# Phase 1: Setup (Shared Infrastructure)\n- [ ]  [x] T019 box in text\n# Phase 1: Setup (Shared Infrastructure)';
    agree(source);
    expect(readSpeckit(source, 'tasks.md').phases[0]!.tasks[0]!.text).toBe('[x] T019 box in text');
  });

  it('reads a reference as a link when its definition is far below it, either way', () => {
    // Long enough for remark to be read in pieces: the definition still counts for the task, as it
    // does when it sits right below it (a [US1] that is a link names no story), and the task's text
    // stays as written.
    const filler = Array.from({ length: 800 }, (_, i) => `Filler text line ${i}.`).join('\n');
    const task = '- [ ] T001 [US1] see [foo] now';
    const definitions = '[foo]: https://x.y\n[US1]: https://x.y\n';
    const far = `## Phase 1: A\n\n${task}\n\n${filler}\n\n## Notes\n\n${definitions}`;
    const near = `## Phase 1: A\n\n${task}\n\n${definitions}\n${filler}\n\n## Notes\n`;
    for (const fast of [true, false]) {
      const read = (source: string) =>
        readSpeckit(source, 'tasks.md', { fast }).phases[0]!.tasks[0]!;
      expect(read(far)).toEqual(read(near));
      expect(read(far).requirements).toEqual([]);
      expect(read(far).text).toBe('T001 [US1] see [foo] now');
    }
  });

  it('agrees on the spec-kit fixture, with and without its front matter', () => {
    const source = fixture('speckit/001-photo-albums/tasks.md');
    agree(source);
    const body = source.slice(source.indexOf('# Tasks'));
    agree(body);
    expect(readSpeckit(body, 'tasks.md').phases.flatMap((p) => p.tasks)).toHaveLength(9);
  });

  it("scans spec-kit's template shape", () => {
    const source = [
      '# Tasks: Photo Albums',
      '',
      '**Input**: Design documents from `/specs/001-photo-albums/`',
      '',
      '## Phase 1: Setup (Shared Infrastructure)',
      '',
      '- [X] T001 Create project structure per implementation plan',
      '- [ ] T002 [P] [US1] Contract test in tests/contract/test_albums.ts',
      '',
      '---',
      '',
      '## Phase 2: Polish & Cross-Cutting Concerns',
      '',
      '- [ ] T003 [P] Documentation updates in docs/',
      '',
    ].join('\n');
    expect(scanSpeckit(source)).toBeDefined();
    agree(source);
    expect(
      readSpeckit(source, 'tasks.md').phases.map((p) => p.tasks.map((t) => [t.id, t.markOffset])),
    ).toEqual([
      [
        ['T001', source.indexOf('[X]') + 1],
        ['T002', source.indexOf('[ ] T002') + 1],
      ],
      [['T003', source.indexOf('[ ] T003') + 1]],
    ]);
  });

  it.each([
    ['a setext heading', '## Phase 1\n- [ ] T001 a\n\nPhase 2\n---\n- [ ] T002 b\n'],
    ['a lazy line', '## Phase 1\n- [ ] T001 a\nlazy\n- [ ] T002 b\n'],
    ['a fence that hides a heading', '## Phase 1\n```\n## Phase 2\n- [ ] T001 no\n```\n'],
    ['front matter', '---\ntitle: x\n---\n## Phase 1\n- [ ] T001 a\n'],
    ['a nested task', '## Phase 1\n- [ ] T001 a\n  - [ ] T002 b\n'],
    ['a label as the first text', '## Phase 1\n- [ ] [P] T001 a\n'],
  ])('agrees on %s', (_name, source) => {
    agree(source);
  });

  it('agrees on 500 real-shaped documents: template headings, CJK and Cyrillic prose, CRLF, BOM, front matter, quotes, fences, comments', () => {
    fc.assert(fc.property(realSpeckit, agree), runs(500));
  });

  it('reads every real-shaped document of its subset with the scanner alone (250), agreeing with remark', () => {
    fc.assert(
      fc.property(plainSpeckit, (source) => {
        expect(scanSpeckit(source)).toBeDefined();
        agree(source);
      }),
      runs(250),
    );
  });

  const lf = (lines: string[]) => `${lines.join('\n')}\n`;
  const phase = [
    '## Phase 1: Setup',
    '',
    '- [ ] T001 Create the project',
    '- [x] T002 [P] Add CI',
    '',
  ];
  it.each([
    [
      "the template's Format heading",
      lf(['## Format: `[ID] [P?] [Story] Description`', '', ...phase]),
    ],
    ['a paragraph in Chinese', lf(['本阶段完成后，用户可以创建相册。', '', ...phase])],
    ['a paragraph in Russian', lf(['Эта фаза добавляет хранение.', '', ...phase])],
    ['CRLF line ends', `${phase.join('\r\n')}\r\n`],
    ['a byte order mark', `\ufeff${lf(phase)}`],
    ['front matter', lf(['---', '', 'description: "Task list"', '---', '', ...phase])],
    [
      'a block quote',
      lf(['> **NOTE: Write the tests first**', '> и убедитесь, что они падают', '', ...phase]),
    ],
    ['fenced code', lf([...phase, '```bash', '- [ ] T099 not a task', '# not a heading', '```'])],
    ['an HTML comment', lf(['<!-- generated:', '  - [ ] T098 not a task -->', '', ...phase])],
    ['a ~ in a task', lf(['## Phase 1: Setup', '', '- [ ] T001 Expand `~/.config` and ~ alone'])],
    ['two ~ that strike through', lf(['## Phase 1: Setup', '', '- [ ] T001 ~a~ b'])],
    ['a bold id', lf(['## Phase 1: Setup', '', '- [x] **T001** [Setup] 验证开发环境就绪'])],
    ['a struck task', lf(['## Phase 1: Setup', '', '- [x] T002 ~~Plot output~~ — skipped'])],
    ['a < in prose', lf(['## Phase 1: Setup', '', '- [ ] T003 Verify p99 latency < 150ms'])],
    ['a * in a code span', lf(['## Phase 1: Setup', '', '- [ ] T004 Read `agents/*.md` files'])],
    ['a table after the phases', lf([...phase, '| Phase | Tasks |', '|---|---|', '| 1 | 2 |'])],
    [
      'a line continuing a task',
      lf(['## Phase 1: Setup', '', '- [x] T005 Verify the models  ', '  _Required: exact names_']),
    ],
    [
      'nested and ordered lists',
      lf([...phase, '  - detail', '1. Complete Phase 1', '2. Then Phase 2', '   - Developer A']),
    ],
    [
      "code in a task's detail bullet",
      lf([
        ...phase,
        '  - 添加前端过滤逻辑（使用 useMemo）：',
        '    ```typescript',
        '    - [ ] T096 not a task',
        '',
        '    ```',
        '- [ ] T004 after the code',
      ]),
    ],
    [
      'a web address and snake_case in a task',
      lf([
        ...phase,
        '- [x] T017 Create GlobalState with (dry_run, auto_pr) in root @app.callback()',
        '- [x] T105 url-to-text: http/https only (file:///javascript: blocked); TMP_DIR guard',
      ]),
    ],
    [
      'a code span going on over a lazy line and an indented one',
      lf([
        '## Phase 1',
        '- [ ] T001 a `b',
        'c` d',
        '- [x] T002 Define `Mode { Off, Prose }`, `Config`',
        '      (`enabled, mode,',
        '      max_bytes`) with serde',
      ]),
    ],
    [
      'a quoted note holding list items, above the tasks',
      lf([
        '# Tasks',
        '',
        '> **Note:** after each task, commit and push.',
        '> - Command: `git add .` → `git commit -m "Task X: [description]"`',
        '> 1. then `git push`',
        'a lazy line of the note',
        '',
        ...phase,
      ]),
    ],
    [
      'a struck task with a bold note',
      lf([...phase, '- [x] T002 ~~Run `nx g convert`~~ → **does not apply**: no target']),
    ],
    [
      'a task outside every phase, next to code',
      lf(['- [ ] T000 early', '', '```', '- [ ] T097 code', '```', '', ...phase]),
    ],
    [
      // micromark lets a numbered item interrupt a paragraph at `1` only: `01.` is its text.
      'a box numbered 01 after a paragraph',
      lf([...phase, 'Some text', '01. [ ] T003 text']),
    ],
  ])('reads %s with the scanner, as remark does', (_name, source) => {
    expect(scanSpeckit(source)).toBeDefined();
    agree(source);
    expect(readSpeckit(source, 'tasks.md').phases.flatMap((p) => p.tasks).length).toBeGreaterThan(
      0,
    );
  });

  it.each([
    ['a table', '## Phase 1\n\n| a | b |\n|---|---|\n- [ ] T001 a\n'],
    ['a quoted task', '## Phase 1\n\n> - [ ] T001 quoted\n'],
    ['a quoted item holding a box after a label', '## Phase 1\n\n> - [P] [ ] T001 quoted\n'],
    ['a quoted item nested in a quoted item', '## Phase 1\n\n> - note\n>   - [ ] T001 quoted\n'],
    ["a code span closing at a lazy line's start", '## Phase 1\n- [ ] T001 a `b\n` d\n'],
    ['an unclosed front matter', '---\ntitle: x\n## Phase 1\n- [ ] T001 a\n'],
    ['a lone carriage return', '## Phase 1\r- [ ] T001 a\n'],
    ['a link definition', '## Phase 1\n- [ ] T001 [P] a\n\n[P]: /url\n'],
  ])('leaves %s to remark', (_name, source) => {
    expect(scanSpeckit(source)).toBeUndefined();
    agree(source);
  });
});
