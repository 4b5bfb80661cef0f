import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { KIRO_MARKS, readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import {
  comparePhaseNumbers,
  currentDialectPhase,
  setDialectStates,
  StaleDialectError,
} from '../../src/core/plan/kinds/markdownDialect.js';
import { readSpeckit, SPECKIT_MARKS } from '../../src/core/plan/kinds/speckit/index.js';

const fixture = (path: string): string =>
  readFileSync(join(repoRoot, 'test', 'fixtures', path), 'utf8');

describe('spec-kit tasks.md', () => {
  const source = fixture('speckit/001-photo-albums/tasks.md');
  const plan = readSpeckit(source, 'specs/001-photo-albums/tasks.md');

  it('reads Phase N headings, Phase 3.1 ordered as a number, task ids and labels kept', () => {
    expect(plan.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['T001', 'T002', 'T003']],
      ['2', ['T004', 'T005']],
      ['3', ['T006', 'T007', 'T008']],
      ['3.1', ['T009']],
    ]);
    expect(plan.phases[2]!.tasks[1]).toMatchObject({
      text: 'T007 [P] [US1] Create Album model in src/models/album.ts',
      requirements: ['US1'],
      state: 'todo',
    });
    expect(currentDialectPhase(plan)?.number).toBe('2');
  });

  it('names the template placeholder phase and lines outside every phase, not the [P] notes', () => {
    // One warning, on the heading, naming the box's line (60).
    expect(plan.problems.map((p) => [p.severity, p.line])).toEqual([['warning', 58]]);
    // spec-kit's template leaves the Polish phase's number as "N": said, with the number to give.
    expect(plan.problems[0]!.message).toBe(
      'The box under "## Phase N: Polish & Cross-Cutting Concerns" (line 60) is not read as a task: "N" is no phase number (spec-kit\'s template leaves it for you to fill in).',
    );
    expect(plan.problems[0]!.fix).toBe(
      'Number the phase to run it: "## Phase 4: Polish & Cross-Cutting Concerns".',
    );
  });

  it('reads a phase heading as people write it: a full-width colon, a full stop and a space, a bracket', () => {
    // "## Phase 1：基础设施" (a Chinese plan), "### Phase 2. Core" (a Korean one) and "Phase 1（MVP）"
    // are phases to the coding agent that reads spec-kit's tasks; "Phase 2.5" stays a number,
    // "Phase 3.Core" is no phase.
    const source = [
      '# Tasks',
      '',
      '## Phase 1：基础设施与后端核心（US1 + US2）',
      '',
      '- [x] T001 [P] 初始化后端项目',
      '',
      '### Phase 2. Core',
      '',
      '- [ ] T002 Build the core',
      '',
      '## Phase 2.5. Patch',
      '',
      '- [ ] T003 Patch it',
      '',
      '## Phase 2.6（P0）：消息主链路',
      '',
      '- [ ] T005 迁移',
      '',
      '## Phase 3.Core',
      '',
      '- [ ] T004 Not under a phase',
      '',
    ].join('\n');
    const read = readSpeckit(source, 'tasks.md');
    expect(read).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.name, p.tasks.map((t) => t.id)])).toEqual([
      ['1', '基础设施与后端核心（US1 + US2）', ['T001']],
      ['2', 'Core', ['T002']],
      ['2.5', 'Patch', ['T003']],
      ['2.6', '（P0）：消息主链路', ['T005']],
    ]);
    expect(read.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 21,
        message: expect.stringContaining('"## Phase 3.Core", line 19'),
      }),
    ]);
  });

  it.each([
    ['## Fase 1: Setup', '1', 'Setup'],
    ['## FASE 2 — Fundacional', '2', 'Fundacional'],
    ['## Faz 0: Tamamlanan işler', '0', 'Tamamlanan işler'],
    ['## Giai đoạn 3: Câu chuyện người dùng 1', '3', 'Câu chuyện người dùng 1'],
    ['## Этап 4. Интеграция', '4', 'Интеграция'],
    ['## 阶段 5：发布', '5', '发布'],
    ['## 阶段5：发布', '5', '发布'],
    ['## フェーズ 6: 仕上げ', '6', '仕上げ'],
    ['## 단계 7: 배포', '7', '배포'],
    ['### Etapa 8.1 (Beta)', '8.1', '(Beta)'],
    ['## 1단계: 준비', '1', '준비'],
    ['## Fáze 2: Jádro', '2', 'Jádro'],
    ['## Vaihe 3: Testit', '3', 'Testit'],
    ['## Tahap 4: Rilis', '4', 'Rilis'],
    ['## Фаза 5 — Выпуск', '5', 'Выпуск'],
    ['## 階段 6：發布', '6', '發布'],
    ['## ✅ Phase 7: Launch', '7', 'Launch'],
    ['## 🚀 Fase 8 — Lanzamiento', '8', 'Lanzamiento'],
    ['## 第2阶段：开发', '2', '开发'],
    ['## 第 3 フェーズ: 仕上げ', '3', '仕上げ'],
    ['## 第一阶段：基础设施搭建（2-3天）', '1', '基础设施搭建（2-3天）'],
    ['## 第十二阶段：收尾', '12', '收尾'],
    ['## 第二十一フェーズ: 仕上げ', '21', '仕上げ'],
  ])(
    'reads "%s" as a phase: the word an agent writes for "Phase" in the plan\'s language',
    (heading, number, name) => {
      const source = `# Tasks\n\n${heading}\n\n- [ ] T001 Do it\n`;
      const read = readSpeckit(source, 'tasks.md');
      expect(read).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
      expect(read.phases.map((p) => [p.number, p.name, p.tasks.map((t) => t.id)])).toEqual([
        [number, name, ['T001']],
      ]);
      expect(read.problems).toEqual([]);
    },
  );

  it('names a phase word with no number, in the word the plan writes (a Turkish "Faz A")', () => {
    const source =
      '## Faz 1: Kurulum\n\n- [ ] T001 a\n\n## Faz A: Retrieval hattı\n\n- [ ] T002 b\n';
    const read = readSpeckit(source, 'tasks.md');
    expect(read.phases.map((p) => p.number)).toEqual(['1']);
    expect(read.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 5,
        message: expect.stringContaining('"A" is no phase number (spec-kit numbers its phases'),
        fix: 'Number the phase to run it: "## Faz 2: Retrieval hattı".',
      }),
    ]);
  });

  it('names a phase written as a line of text, not a heading, and how to make it one', () => {
    // A plan an agent wrote with its phases as plain lines (bold too), no `#`: no phase is read,
    // and each box says which line it was meant to be under, not only "under no heading".
    const source = [
      '# Tasks for Feature 007',
      '',
      'Phase 1: Setup',
      '',
      '- [ ] T001 a',
      '',
      '```text',
      'Phase 9: in a fence',
      '```',
      '',
      '**Phase 2:** Core',
      '',
      '- [ ] T002 b',
      '',
      '## Notes',
      '',
      '- [ ] T003 c',
      '',
    ].join('\n');
    const read = readSpeckit(source, 'tasks.md');
    expect(read.phases).toEqual([]);
    expect(
      read.problems.map((p) => [p.line, p.message.replace(/^.*not read as one: /, ''), p.fix]),
    ).toEqual([
      [
        5,
        'the line "Phase 1: Setup" above it (line 3) is text, not a heading, so it is no phase.',
        'Write it as a heading: "## Phase 1: Setup".',
      ],
      [
        13,
        'the line "Phase 2: Core" above it (line 11) is text, not a heading, so it is no phase.',
        'Write it as a heading: "## Phase 2: Core".',
      ],
      [
        17,
        'it is under no "## Phase N" heading (the nearest heading above it is "## Notes", line 15).',
        'Write a task as "- [ ] T001 Description" under a "## Phase N: Name" heading.',
      ],
    ]);
  });

  it('names the section heading with words before its phase (## Deferred Phase 2) that leaves its boxes unread', () => {
    const source = [
      '## Phase 1: Setup',
      '- [x] T001 Create the project',
      '',
      '## Deferred Phase 2: Later work (Priority: P2)',
      '### Tests for User Story 2',
      '- [ ] T002 [US2] Write the test',
      '',
      '## Phase 3: Polish',
      '- [ ] T003 Tidy up',
      '',
    ].join('\n');
    const read = readSpeckit(source, 'tasks.md');
    expect(read).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => p.number)).toEqual(['1', '3']);
    expect(
      read.problems.map((p) => [p.line, p.message.replace(/^.*not read as one: /, ''), p.fix]),
    ).toEqual([
      [
        6,
        'it is under "## Deferred Phase 2: Later work (Priority: P2)" (line 4), which is no phase heading: "Deferred" stands before "Phase 2".',
        'Start the heading with "Phase 2" ("## Phase 2: Later work (Priority: P2)") to run its tasks; else they stay unread.',
      ],
    ]);
  });

  it('says so when a second round of phases under another section starts its numbers again', () => {
    const source = [
      '# Tasks',
      '## Phase 1: Setup',
      '- [x] T001 a',
      '## Phase 2: Core',
      '- [x] T002 b',
      '## Bug Fix: the modal',
      '### Phase 1: Types',
      '- [ ] T201 c',
      '',
    ].join('\n');
    const read = readSpeckit(source, 'tasks.md');
    expect(read).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(read.problems).toEqual([
      {
        severity: 'error',
        path: 'tasks.md',
        line: 7,
        message:
          'Phase 1 is also on line 2: the phases under "## Bug Fix: the modal" (line 6) start their numbers again.',
        fix: "Number each phase once: go on from Phase 3, or move that section's phases to a tasks file of their own.",
      },
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 8,
        message:
          '"- [ ] T201 c" looks like a task but is not read as one: it is under "### Phase 1: Types" (line 7), and Phase 1 is another heading\'s.',
        fix: 'Number each phase once.',
      },
    ]);
    // Two phases 1 in one section: the plain message.
    const plain = readSpeckit(
      '## Phase 1: A\n- [ ] T001 a\n## Phase 1: B\n- [ ] T002 b\n',
      'tasks.md',
    );
    expect(plain.problems).toEqual([
      expect.objectContaining({
        line: 3,
        message: 'Phase 1 is also on line 1.',
        fix: 'Number each phase once.',
      }),
      expect.objectContaining({ line: 4, severity: 'warning' }),
    ]);
  });

  it("a phase's number again over boxes with no task id, after the phases: that phase's criteria, not a second round", () => {
    // As a Japanese plan writes its checks after the phases (`Phase 1 検証`: Phase 1's checks).
    const source = [
      '## Phase 1: セットアップ',
      '- [x] T001 フォルダ作成',
      '## Phase 2: 基礎',
      '- [ ] T002 [P] PlatformInput.cs',
      '',
      '## チェックリスト・検証基準',
      '',
      '### Phase 1 検証',
      '',
      '- [ ] `Assets/Scripts/Input/` フォルダ作成確認',
      '',
      '### Phase 2 検証',
      '',
      '- [ ] PlatformInput.cs：DllImport 確認',
      '- [x] MouseButton.cs：プロパティ存在',
      '',
    ].join('\n');
    const read = readSpeckit(source, 'tasks.md');
    expect(read).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['T001']],
      ['2', ['T002']],
    ]);
    expect(read.problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      [
        'warning',
        8,
        'The box under "### Phase 1 検証" (line 10) has no task id: it is read as an acceptance criterion, not as a task of Phase 1.',
      ],
      [
        'warning',
        12,
        'The 2 boxes under "### Phase 2 検証" (lines 14–15) have no task id: they are read as acceptance criteria, not as tasks of Phase 2.',
      ],
    ]);
    expect(currentDialectPhase(read)?.number).toBe('2');
    // Where the phase's own tasks have no id either, nothing tells the two apart: still an error.
    const noIds = readSpeckit(
      '## Phase 1: A\n- [ ] a\n## Checks\n### Phase 1 checks\n- [ ] b\n',
      'tasks.md',
    );
    expect(noIds.problems.filter((p) => p.severity === 'error')).toEqual([
      expect.objectContaining({
        line: 4,
        message: expect.stringMatching(/^Phase 1 is also on line 1/),
      }),
    ]);
  });

  it('a word that is no phase word, or a phase word run into its number, is no phase', () => {
    for (const heading of [
      '## Milestone 1: Setup',
      '## Phase1: Setup',
      '## Faseada 1',
      '## 第十十阶段：两个十',
      '## 第一二阶段：不是数',
    ]) {
      expect(readSpeckit(`${heading}\n\n- [ ] T001 a\n`, 'tasks.md').phases).toEqual([]);
    }
  });

  it('names a task whose id is written another way (T-001, T00A, TASK-7): it is read by its place, never silently', () => {
    const source =
      '# Tasks\n\n## Phase 1: Setup\n\n- [x] T-001 [P] Add the config\n- [ ] T00A Record the baseline\n- [ ] Test the build\n- [ ] T002 Wire it\n';
    for (const fast of [true, false]) {
      const plan = readSpeckit(source, 'tasks.md', { fast });
      expect(plan.phases[0]!.tasks.map((t) => t.id)).toEqual(['1.1', '1.2', '1.3', 'T002']);
      expect(plan.problems.map((p) => [p.line, p.message])).toEqual([
        [
          5,
          '"T-001" is not read as a task id (spec-kit\'s are "T" and three digits or more, "T001"): this task is 1.1, by its place.',
        ],
        [
          6,
          '"T00A" is not read as a task id (spec-kit\'s are "T" and three digits or more, "T001"): this task is 1.2, by its place.',
        ],
      ]);
    }
  });

  it('orders phase numbers as numbers', () => {
    const sorted = ['5.5', '3', '10', '3.10', '3.2', '5'].sort(comparePhaseNumbers);
    expect(sorted).toEqual(['3', '3.2', '3.10', '5', '5.5', '10']);
  });

  it('writes [X] when done, nothing for in progress, one byte per task', () => {
    const phase = plan.phases[1]!;
    expect(setDialectStates(source, SPECKIT_MARKS, phase.tasks, 'doing')).toBe(source);
    const done = setDialectStates(source, SPECKIT_MARKS, phase.tasks, 'done');
    expect(done).toBe(
      source.replace('- [ ] T004', '- [X] T004').replace('- [ ] T005', '- [X] T005'),
    );
  });
});

describe('Kiro tasks.md', () => {
  it('reads a task put in between with a letter (2A.) as its own phase, and ids with a letter inside (3.2a.1)', () => {
    const source = [
      '- [x] 2. Two',
      '  - [x] 2.1 b',
      '- [x] 2A. Pull to refresh',
      '  - [x] 2A.1 Install',
      '  - [ ] 2A.2 Wire',
      '- [ ] 3. Three',
      '  - [x] 3.2a Animate',
      '    - [x] 3.2a.1 State',
      '',
    ].join('\n');
    const read = readKiro(source, 'tasks.md');
    expect(read).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['2', ['2.1']],
      ['2A', ['2A.1', '2A.2']],
      ['3', ['3.2a', '3.2a.1']],
    ]);
    // Each top-level box that disagrees with its sub-tasks is said; the sub-tasks decide.
    expect(read.problems.map((p) => [p.line, p.message])).toEqual([
      [
        3,
        'Task 2A is checked, but its sub-tasks 2A.2 are not: the loop reads it by its sub-tasks, so it has work left.',
      ],
      [
        6,
        'Task 3 is not checked, but all its sub-tasks are: the loop reads it by its sub-tasks, as done.',
      ],
    ]);
    expect(currentDialectPhase(read)?.number).toBe('2A');
  });

  it('a top-level number written twice: a new round under another heading says so, with the number to go on from', () => {
    const source = [
      '# Plan',
      '- [x] 1. One',
      '- [x] 2. Two',
      '- [ ] 2. Two again',
      '## Notes',
      '- [ ] 1. A new round',
      '',
    ].join('\n');
    const read = readKiro(source, 'tasks.md');
    expect(read).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    const fix =
      'Number each top-level task once: go on from task 3, or delete the line if it is a stale copy.';
    expect(read.problems.filter((p) => p.severity === 'error')).toEqual([
      { severity: 'error', path: 'tasks.md', line: 4, message: 'Task 2 is also on line 3.', fix },
      {
        severity: 'error',
        path: 'tasks.md',
        line: 6,
        message:
          'Task 1 is also on line 2: the tasks under "## Notes" (line 5) start their numbers again.',
        fix,
      },
    ]);
  });

  it('reads a top-level task written twice, word for word and box for box, once: the copy is a warning', () => {
    const source = [
      '- [x] 13. Add handling',
      '- [ ] 14. Update the tab',
      '  - [ ] 14.1 Wire it',
      '- [ ] 14. Update the tab',
      '- [ ] 15. Filter',
      '- [x] 15. Filter',
      '',
    ].join('\n');
    const read = readKiro(source, 'tasks.md');
    expect(read).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.line, p.tasks.map((t) => t.id)])).toEqual([
      ['13', 1, ['13']],
      ['14', 2, ['14.1']],
      ['15', 5, ['15']],
    ]);
    expect(read.problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      ['warning', 4, 'Task 14 is written again here, the same as line 2: the copy is not read.'],
      // Another box on the copy is no stale copy: which one holds is the writer's to say.
      ['error', 6, 'Task 15 is also on line 5.'],
    ]);
  });

  it('reads tasks grouped under numbered headings (### 1. Setup) with no top-level box, as cc-sdd writes them', () => {
    const source = [
      '# Implementation Plan',
      '## Tasks',
      '### 1. Setup',
      '- [x] 1.1 (P) Add dependencies',
      '  - _Requirements: 1.1, 4.1_',
      '- [ ] 1.2 Set up Redis',
      '### 2. Service',
      '- [ ] 2.1 Feed generator',
      '## 3. Overview',
      'No task here.',
      '### 4. Mixed',
      '- [ ] 4. The task itself',
      '  - [ ] 4.1 d',
      '',
    ].join('\n');
    const read = readKiro(source, 'tasks.md');
    expect(read).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    expect(
      read.phases.map((p) => [p.number, p.name, p.line, p.tasks.map((t) => t.id), p.self?.line]),
    ).toEqual([
      ['1', 'Setup', 3, ['1.1', '1.2'], undefined],
      ['2', 'Service', 7, ['2.1'], undefined],
      ['4', 'The task itself', 12, ['4.1'], 12],
    ]);
    expect(read.phases[0]!.tasks[0]!.requirements).toEqual(['1.1', '4.1']);
    expect(read.problems).toEqual([]);
    expect(currentDialectPhase(read)?.number).toBe('1');
    // Done: one byte a task, the heading untouched.
    const done = setDialectStates(source, KIRO_MARKS, read.phases[0]!.tasks, 'done');
    expect(done).toBe(source.replace('- [ ] 1.2', '- [x] 1.2'));
  });

  it("reads a task's requirements from their own line, not run into the next one", () => {
    const source = '- [ ] 1. Top\n  - Detail\n  - _Requirements: 1.1, 2.3_\n  - 4 more notes\n';
    expect(readKiro(source, 'tasks.md').phases[0]!.tasks[0]!.requirements).toEqual(['1.1', '2.3']);
  });

  const source = fixture('kiro/user-auth/tasks.md');
  const plan = readKiro(source, '.kiro/specs/user-auth/tasks.md');

  it('reads top-level tasks as phases, sub-tasks nested or at column 0, optional ones', () => {
    expect(plan.problems).toEqual([]);
    expect(plan.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['1']],
      ['2', ['2.1', '2.2', '2.3']],
      ['3', ['3.1', '3.2']],
    ]);
    const [t21, , t23] = plan.phases[1]!.tasks;
    expect(t21).toMatchObject({ state: 'doing', requirements: ['2.1', '3.3', '1.2'] });
    expect(t23).toMatchObject({ optional: true, state: 'todo' });
    expect(currentDialectPhase(plan)?.number).toBe('2');
  });

  it('an open optional task does not keep its phase open', () => {
    const phase = plan.phases[1]!;
    const required = phase.tasks.filter((t) => !t.optional);
    const done = setDialectStates(source, KIRO_MARKS, required, 'done');
    expect(currentDialectPhase(readKiro(done, 'tasks.md'))?.number).toBe('3');
  });

  it('writes [-] then [x], one byte each, CRLF and a missing final newline kept', () => {
    const crlf = source.replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    const read = readKiro(crlf, 'tasks.md');
    const phase = read.phases[2]!;
    const doing = setDialectStates(crlf, KIRO_MARKS, phase.tasks, 'doing');
    expect(doing).toBe(
      crlf.replace('  - [ ] 3.1', '  - [-] 3.1').replace('  - [ ] 3.2', '  - [-] 3.2'),
    );
    const again = readKiro(doing, 'tasks.md').phases[2]!;
    const done = setDialectStates(doing, KIRO_MARKS, again.tasks, 'done');
    expect(done).toBe(
      crlf.replace('  - [ ] 3.1', '  - [x] 3.1').replace('  - [ ] 3.2', '  - [x] 3.2'),
    );
    expect(() => setDialectStates(done, KIRO_MARKS, phase.tasks, 'doing')).toThrow(
      StaleDialectError,
    );
  });
});

describe('no silent drop, in both dialects', () => {
  it.each([
    ['-[ ] T001 Missing space'],
    ['- [?] T001 Unknown mark'],
    ['| T001 | [ ] |'],
    ['Some text\n[ ] T001 inside a paragraph'],
  ])('%j gets a warning with its line', (body) => {
    const source = `# Tasks\n\n## Phase 1: Setup\n\n${body}\n`;
    const plan = readSpeckit(source, 'tasks.md');
    expect(plan.phases[0]!.tasks).toEqual([]);
    expect(plan.problems).toEqual([
      expect.objectContaining({ severity: 'warning', line: source.split('\n').length - 1 }),
    ]);
  });

  it('a box GFM accepts ([<tab>], or [ ] after a tab) is a task', () => {
    const source = '## Phase 1: Setup\n\n- [\t] T001 tab in the box\n-\t[ ] T002 tab before\n';
    const plan = readSpeckit(source, 'tasks.md');
    expect(plan.problems).toEqual([]);
    expect(plan.phases[0]!.tasks.map((t) => [t.id, t.state])).toEqual([
      ['T001', 'todo'],
      ['T002', 'todo'],
    ]);
  });

  it('boxes in fenced code are neither tasks nor warnings', () => {
    const source = '## Phase 1: Setup\n\n```md\n- [ ] T001 example\n-[ ] T002\n```\n';
    expect(readSpeckit(source, 'tasks.md')).toEqual({ phases: [expect.anything()], problems: [] });
  });

  it('a fence line holding a line separator (U+2028) is read as remark reads it', () => {
    const source = '## Phase 1: Setup\n\n```a\u2028b\n- [ ] T001 in code\n```\n\n- [ ] T002 Task\n';
    const plan = readSpeckit(source, 'tasks.md');
    expect(plan).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
    expect(plan.phases[0]!.tasks.map((t) => t.id)).toEqual(['T002']);
  });
});

describe('lookalikes: each named with file:line, why and a fix, in spec-kit and in Kiro', () => {
  const cases: [string, string, string][] = [
    ['-[ ] 9. Missing space', 'the list marker needs a space before the box', 'Write "- [ ] …"'],
    ['- [?] 9. Unknown mark', '"[?]" is not a box this plan reads', '"[x]"'],
    ['- [ ]9. Glued to its text', 'the box needs a space after it', 'then the text'],
    ['| 9. In a table | [ ] |', 'a box in a table is not a task', '- [ ]'],
    ['Some text\n[ ] 9. Inside a paragraph', 'inside a paragraph', 'Start the line with "- "'],
    ['-   [\t] 9. A tab three columns wide', 'spans more than one column', '"[ ]"'],
  ];
  it.each(cases)('spec-kit: %j', (body, why, fix) => {
    const source = `# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Real\n${body}\n`;
    const plan = readSpeckit(source, 'specs/f/tasks.md');
    expect(plan.phases[0]!.tasks.map((t) => t.id)).toEqual(['T001']);
    expect(plan.problems).toEqual([
      {
        severity: 'warning',
        path: 'specs/f/tasks.md',
        line: source.split('\n').length - 1,
        message: expect.stringContaining(why),
        fix: expect.stringContaining(fix),
      },
    ]);
  });
  it.each(cases)('Kiro: %j', (body, why, fix) => {
    const source = `# Implementation Plan\n\n- [ ] 1. Real\n\n${body}\n`;
    const plan = readKiro(source, '.kiro/specs/f/tasks.md');
    expect(plan.phases.map((p) => p.number)).toEqual(['1']);
    expect(plan.problems).toEqual([
      {
        severity: 'warning',
        path: '.kiro/specs/f/tasks.md',
        line: source.split('\n').length - 1,
        message: expect.stringContaining(why),
        fix: expect.stringContaining(fix),
      },
    ]);
  });

  it('spec-kit: a task under no phase, and [~] (not a spec-kit mark)', () => {
    const source =
      '# Tasks\n\n- [ ] T001 Before any phase\n\n## Phase 1: Setup\n\n- [~] T002 Doing?\n';
    expect(readSpeckit(source, 'tasks.md').problems).toEqual([
      expect.objectContaining({
        line: 3,
        message: expect.stringContaining(
          'under no "## Phase N" heading (the nearest heading above it is "# Tasks", line 1)',
        ),
      }),
      expect.objectContaining({ line: 7, message: expect.stringContaining('"[~]" is not a box') }),
    ]);
  });

  it('Kiro: a task with no number, a sub-task with no parent (one warning each); [~] is queued', () => {
    const source = '- [ ] Unnumbered\n- [ ] 2.1 Orphan\n- [ ] 3. Real\n  - [~] 3.1 Queued\n';
    const plan = readKiro(source, 'tasks.md');
    expect(plan.problems.map((p) => [p.line, p.message])).toEqual([
      [1, expect.stringContaining('Kiro reads a task numbered "1. Title"')],
      [2, expect.stringContaining('Sub-task 2.1 has no top-level task 2 before it: ')],
    ]);
    expect(plan.phases.map((p) => p.tasks.map((t) => [t.id, t.state]))).toEqual([
      [['2.1', 'todo']],
      [['3.1', 'todo']],
    ]);
  });
});
