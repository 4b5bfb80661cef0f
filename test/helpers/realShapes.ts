import fc from 'fast-check';

/**
 * Documents shaped like real spec-kit and Kiro tasks.md files, for the differential tests: the
 * blocks the tools' templates and their users write (spec-kit's own headings and prose, Kiro's
 * `_Requirements:_` lines and property bullets, CJK and Cyrillic prose, block quotes, fenced code,
 * HTML comments, nested and ordered lists), joined with LF or CRLF, after an optional byte order
 * mark and front matter. Most of them are in the line scanner's subset; some blocks are not
 * (a lazy line, a table, a quoted task), so the fallback is exercised too.
 */
export type Block = string[];

const prose = fc.constantFrom(
  'Examples of foundational tasks (adjust based on your project):',
  '**Purpose**: Project initialization and basic structure',
  '**⚠️ CRITICAL**: No user story work can begin until this phase is complete',
  '**Checkpoint**: Foundation ready - user story implementation can now begin',
  '⚠️ Tests must fail before implementation.',
  '本阶段完成后，用户可以创建相册并按日期排序。',
  'ユーザーはアルバムを作成できます。',
  'Эта фаза добавляет хранение фотографий — T010 и T011 можно делать параллельно.',
  'Ölçüm: 100 ms altında.',
  '«Готово», когда все тесты проходят.',
  '[Add more user story phases as needed, following the same pattern]',
  '(Optional) see `docs/setup.md` first',
  '2024 roadmap: ship it',
  '#hashtag is text',
  '~10 ms per request',
  'Text with a | pipe',
  '**Input**: Design documents from `/specs/001-photo-albums/`',
  // Links to the feature's other documents, as spec-kit plans write them above the phases.
  '**Spec**: [spec.md](./spec.md) | **Plan**: [plan.md](./plan.md)',
  '**Related Issue**: [#105](https://github.com/acme/albums/issues/105)',
  '**前置条件**: [spec.md](./spec.md) ✅ · [contracts/](./contracts/) ✅',
  'See the [data model](./data-model.md#album "Album") first.',
);

const taskText = fc.constantFrom(
  'T001 Create project structure per implementation plan',
  'T002 [P] [US1] Create model in src/models/album.ts',
  'T003 [P] Contract test in tests/contract/test_albums.ts',
  'T004 [US2] Implement `AlbumService` in src/services/album_service.py (depends on T002)',
  'T005 Add ~ home expansion for `~/.config/app`',
  'T006 [P] Parse `**/*.md` globs and `<Component>` props',
  'T007 创建数据库迁移 in db/migrations/001_init.sql',
  'T008 [US3] Реализовать сервис альбомов в src/services/albums.ts',
  'T009 Handle A -> B transitions and R&D flags',
  'T010 Deploy! Then run quickstart.md validation',
  'T011 Support `a | b` in the query',
  // Ids with a suffix, for a task put in beside another (`T022-A`, `T011b`).
  'T022-A [US1] Parser edge cases',
  'T011b Create migration in db/migrations/',
  // A box with no id: an acceptance criterion under its sub-heading, else a task.
  'Django app is registered',
  // Links the scanner reads: a label of plain text, a destination of one word, no title.
  'T023 [P] [US1] Write the parser, see [plan.md](./plan.md)',
  'T024 [US2] 按 [contracts/kb-version.yaml](./contracts/kb-version.yaml) 验证响应 schema',
  'T025 Run [quickstart.md](./quickstart.md) § 4 by hand',
  '[T026](#t026) Link on the id',
);
// Task text with markup the scanner leaves to remark.
const markedTaskText = fc.constantFrom(
  'T012 Approx ~5% faster with ~two caches',
  'T013 Link [docs](https://example.com) here',
  'T014 **bold** claim',
  'T015 escaped \\* star',
  'T016 an &amp; entity',
  // Links of other shapes: a title, an image, an escaped bracket, markup or a web address in
  // the label, a destination in angle brackets or with a space, a reference after a label.
  'T017 See [plan](./plan.md "Plan") first',
  'T018 Show ![diagram](./d.png) in the docs',
  'T019 Keep \\[a](b) as written',
  'T020 Read [**the spec**](./spec.md)',
  'T021 Visit [www.example.com](https://www.example.com)',
  'T022 Open [it](<./a b.md>)',
  'T027 Open [this]( ./c.md) and [that](./a b.md)',
  '[T028](./a b.md) Spaced link on the id',
  '[T029](<./t.md>) Angled link on the id',
  'T023 [P][US1](#us1) linked label',
);
const box = fc.constantFrom('[ ]', '[ ]', '[ ]', '[x]', '[X]');

const heading = fc.constantFrom(
  '## Format: `[ID] [P?] [Story] Description`',
  '## Path Conventions',
  '## Phase 1: Setup (Shared Infrastructure)',
  '## Phase 2: Foundational (Blocking Prerequisites)',
  '## Phase 3: User Story 1 - Create albums (Priority: P1) 🎯 MVP',
  '### Tests for User Story 1 (OPTIONAL - only if tests requested) ⚠️',
  '### Implementation for User Story 1',
  '## Phase 4: User Story 2 — 写真の整理 (Priority: P2)',
  '## Фаза 5: Полировка',
  '## Phase 5: Polish & Cross-Cutting Concerns',
  '## Dependencies & Execution Order',
  '### Phase Dependencies',
  '## Phase 6: `cli` and `docs`',
  '## Notes',
  '## Phase 7: [Docs](./docs/README.md) and polish',
  // Sub-headings of acceptance criteria, and a level-1 note that may sit inside a phase.
  '### Acceptance criteria',
  '### 验收标准',
  '# Note: Tasks T088–T091 are NOT duplicates of Phase 4',
);

const fenced: fc.Arbitrary<Block> = fc.constantFrom(
  [
    '```bash',
    '# Launch all tests for User Story 1 together:',
    'Task: "Contract test for [endpoint] in tests/contract/test_[name].py"',
    '- [ ] T099 not a task: code',
    '```',
  ],
  ['```', '## Phase 9: inside code', '```'],
  ['~~~text', '\tindented with a tab', '~~~'],
);
const comment: fc.Arbitrary<Block> = fc.constantFrom(
  [
    '<!-- TOC below is an exemplar. The /speckit.tasks command MUST regenerate',
    '     this list with proper anchor links from the actual ## headings. -->',
  ],
  ['<!-- one line -->'],
  ['<!--', '  - [ ] T098 commented out', '-->'],
);
const quote: fc.Arbitrary<Block> = fc.constantFrom(
  ['> **NOTE: Write these tests FIRST, ensure they FAIL before implementation**'],
  ['> See [the contract](./contracts/c.md) before each task.'],
  ['> Примечание: тесты пишутся первыми.', '> 第二行'],
  ['> first line', 'lazy continuation of the quote'],
  // GitHub's alerts, as spec-kit plans write them between phases.
  ['> [!NOTE]', '> User Stories 1 and 2 are combined: they share the same core implementation.'],
  ['> [!IMPORTANT]', '> Write the tests first; make sure they fail.', '', '> [!TIP]'],
);
const bullets: fc.Arbitrary<Block> = fc.constantFrom(
  [
    '- **[P]**: Can run in parallel (different files, no dependencies)',
    '- **[Story]**: Which user story this task belongs to (e.g., US1, US2, US3)',
    '- Include exact file paths in descriptions',
  ],
  [
    '- **User Stories (Phase 3+)**: All depend on Foundational phase completion',
    '  - User stories can then proceed in parallel (if staffed)',
    '  - Or sequentially in priority order (P1 → P2 → P3)',
  ],
  ['1. Complete Phase 1: Setup', '2. Complete Phase 2: Foundational', '3. **STOP and VALIDATE**'],
  ['1. Team completes Setup', '2. Once Foundational is done:', '   - Developer A: User Story 1'],
  ['- [P] tasks = different files, no dependencies', '- [Story] label maps task to story'],
  ['- 所有测试必须先失败', '- Все задачи помечены'],
  ['- [spec.md](./spec.md): what to build', '- See [research.md](./research.md) for the choices'],
);
// Blocks the scanner leaves to remark: a table, a quoted task.
const otherBlock: fc.Arbitrary<Block> = fc.constantFrom(
  ['| Phase | Tasks |', '|-------|-------|', '| 1 | 3 |'],
  ['> - [ ] T097 quoted task'],
);
const rule: fc.Arbitrary<Block> = fc.constant(['---']);
// A phase's acceptance criteria (boxes with no id under their sub-heading, a task with an id among
// them), and a level-1 note inside a phase with tasks under it, as real plans write them.
const criteria: fc.Arbitrary<Block> = fc.constantFrom(
  ['### 验收标准', '- [ ] Django app 已创建并注册', '- [x] 所有必要依赖已安装', '', '### 任务列表'],
  ['### Acceptance Criteria', '', '- [ ] App starts', '- [ ] T030 [US1] Verify startup', ''],
);
const note: fc.Arbitrary<Block> = fc.constantFrom(
  [
    '# Note: Tasks T088–T091 are NOT duplicates of Phase 4',
    '',
    '- [x] T088 [US2] Extract utilities',
  ],
  ['# Notes', '- [ ] T089 Refactor join.ts', '- [ ] Review the refactor'],
);

/** A spec-kit task block: tasks, sometimes a nested detail bullet, sometimes a lazy line. */
function tasks(plain: boolean): fc.Arbitrary<Block> {
  return fc
    .array(
      fc.tuple(
        box,
        plain ? taskText : fc.oneof({ weight: 3, arbitrary: taskText }, markedTaskText),
        fc.constantFrom<string[][]>(
          [],
          [],
          [],
          ['  - Detail: keep `id` stable'],
          ['  - Подробности'],
          // Code in a task's detail bullet, as spec-kit users paste it.
          [
            '  - 添加前端过滤逻辑（使用 useMemo）：',
            '    ```typescript',
            '    const filtered = useMemo(() => {',
            '',
            '    - [ ] T096 not a task: code',
            '    }, [websites])',
            '    ```',
          ],
          // The same, its code closed by a line outside the item.
          ['  - Code:', '    ```ts', '    const x = 1;', '', '- [ ] T095 after the code'],
          ['  ```bash', '  npm test', '  ```'],
          plain ? [] : ['lazy line after a task'],
        ),
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((items) => items.flatMap(([b, t, extra]) => [`- ${b} ${t}`, ...extra]));
}

function speckitBlock(plain: boolean): fc.Arbitrary<Block> {
  return fc.oneof(
    { weight: 3, arbitrary: heading.map((h) => [h]) },
    { weight: 4, arbitrary: tasks(plain) },
    { weight: 2, arbitrary: prose.map((p) => [p]) },
    { weight: 1, arbitrary: fenced },
    { weight: 1, arbitrary: comment },
    { weight: 1, arbitrary: quote },
    { weight: 2, arbitrary: bullets },
    { weight: 1, arbitrary: rule },
    { weight: 1, arbitrary: criteria },
    { weight: 1, arbitrary: note },
    { weight: plain ? 0 : 1, arbitrary: otherBlock },
  );
}

const kiroTask = fc.constantFrom(
  '1. Set up project structure and core interfaces',
  '2. Implement data models and validation',
  '2.1 Create core data model interfaces and types',
  '2.2 Implement the User model with validation',
  '3. Create storage mechanism',
  '3.1 実装: データベース接続ユーティリティ',
  '3.2 Реализовать репозиторий',
  '4. Checkpoint - Ensure all tests pass, ask the user if questions arise.',
  '5.1 Write property test for invalid credentials',
  '5.2 Wire `App.jsx` routing',
  '5.3 Add [zod](https://zod.dev) schema validation',
);
const kiroDetail = fc.constantFrom(
  '_Requirements: 1.1, 1.2_',
  '_Requirements: 2.1, 3.3, 1.2_',
  '_Требования: 1.1, 2.2_',
  '_要件: 2.3_',
  '_需求：1.1, 1.2_',
  '_요구사항: 6.1_',
  '_Exigences: 1.4, 11.1_',
  '**验证: 需求 1.2**',
  '**Validates: Requirements 10.4, 10.8**',
  '**Property 42: Vector metadata privacy**',
  'Write TypeScript interfaces for all data models',
  'Create `src/store/index.ts` with `configureStore`',
  'Implement `loginThunk`, `registerThunk` async thunks',
  'savings row-এর `#1B5E20` text → `theme.colors.text`',
  '클래스 초기화 메서드 구현',
  'Настроить маршрутизацию',
  '_Depends on: 2.3, 3.3_',
  'Requirements: 4.3',
  // Links in a task's details: to the design, to a requirement, or splitting the word.
  'Follow [design.md](./design.md#data-models)',
  '_Requirements: [1.1](./requirements.md#r11), 2.3_',
  '[Requirements](./requirements.md): 3.1',
  '_Require[ments](./requirements.md): 4.4_',
  '_要[件](./requirements.md): 2.3_',
);
// Details with links the scanner leaves to remark (a title, an image).
const markedKiroDetail = fc.constantFrom(
  '_Requirements: [1.1](./requirements.md "R"), 2.3_',
  'See ![flow](./flow.png) and [x](y "t")',
  'Follow [design](<./design.md>)',
);
const kiroItem = (plain: boolean): fc.Arbitrary<Block> =>
  fc
    .tuple(
      fc.constantFrom('', '', '  '),
      fc.constantFrom('[ ]', '[ ]', '[x]', '[-]', '[ ]*'),
      kiroTask,
      fc.array(
        plain ? kiroDetail : fc.oneof({ weight: 6, arbitrary: kiroDetail }, markedKiroDetail),
        {
          maxLength: 4,
        },
      ),
      fc.constantFrom('', '', '  ', '-', plain ? '' : 'no blank'),
      fc.constantFrom(false, false, false, true),
    )
    .map(([indent, b, t, details, after, code]) => [
      `${indent}- ${b} ${t}`,
      ...details.map((d) => `${indent}  - ${d}`),
      // Code under a task, and Kiro's lone "-" after a task's details.
      ...(code
        ? [`${indent}  \`\`\`ts`, `${indent}  - [ ] 9.9 not a task: code`, `${indent}  \`\`\``]
        : []),
      ...(after === 'no blank' ? [] : [after]),
    ]);
const kiroBlock = (plain: boolean): fc.Arbitrary<Block> =>
  fc.oneof(
    { weight: 8, arbitrary: kiroItem(plain) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Block>(
        ['# Implementation Plan'],
        ['## Task List'],
        ['# 実装計画'],
        // Tasks grouped under headings: a top-level task's own (`### Task 5: …`, `### 3. …`), a
        // sub-task's (no phase), and a group above them (no phase either).
        ['## Phase 1: Foundation & Types (Tasks 1-3)'],
        ['### Task 5: Wire the `App` routing', '**Estimate**: 30 min'],
        ['### Task 2 - Data models'],
        ['### 3. Storage `layer`'],
        ['### タスク 3.1: 接続を追加する'],
        ['## フェーズ 2: 認証'],
        ['### Analysis'],
        ['Convert the feature design into a series of prompts.', 'Each task builds on the last.'],
        ['Этот план разбивает работу на шаги.'],
        [''],
      ),
    },
    { weight: 1, arbitrary: fenced },
    { weight: 1, arbitrary: quote },
    { weight: 1, arbitrary: comment },
    { weight: plain ? 0 : 1, arbitrary: otherBlock },
  );

export interface Framing {
  eol: '\n' | '\r\n';
  bom: boolean;
  frontMatter: boolean;
  finalNewline: boolean;
}

const framing: fc.Arbitrary<Framing> = fc.record({
  eol: fc.constantFrom<'\n' | '\r\n'>('\n', '\n', '\r\n'),
  bom: fc.boolean(),
  frontMatter: fc.boolean(),
  finalNewline: fc.constantFrom(true, true, false),
});

/** Blocks separated by blank lines (most of the time), framed as a real file may be. */
export function frame(blocks: Block[], f: Framing, glue: boolean[] = []): string {
  const lines: string[] = [];
  if (f.frontMatter)
    lines.push('---', '', 'description: "Task list for feature implementation"', '---', '');
  blocks.forEach((block, i) => {
    if (i > 0 && !glue[i]) lines.push('');
    lines.push(...block);
  });
  const text = lines.join(f.eol);
  return `${f.bom ? '\ufeff' : ''}${text}${f.finalNewline ? f.eol : ''}`;
}

function documents(
  block: fc.Arbitrary<Block>,
  plain: boolean,
  title: Block = [],
): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.array(fc.tuple(block, fc.constantFrom(false, false, false, !plain)), {
        minLength: 1,
        maxLength: 14,
      }),
      framing,
    )
    .map(([blocks, f]) =>
      frame([...(title.length ? [title] : []), ...blocks.map(([b]) => b)], f, [
        ...(title.length ? [false] : []),
        ...blocks.map(([, g]) => g),
      ]),
    );
}

/** Real shapes, some of them outside the scanner's subset (markup in a task, a lazy line, a table). */
export const realSpeckit = documents(speckitBlock(false), false, ['# Tasks: Photo Albums']);
export const realKiro = documents(kiroBlock(false), false);
/** Real shapes inside the scanner's subset only: every one of them must take the fast path. */
export const plainSpeckit = documents(speckitBlock(true), true, ['# Tasks: Photo Albums']);
export const plainKiro = documents(kiroBlock(true), true);
