import { readFileSync } from 'node:fs';
import { inProcessAt } from '../helpers/cli.js';
import { join } from 'node:path';
import { readSprintStatus } from '../../src/core/plan/kinds/bmad/sprintStatus.js';
import { readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';
import { scratchCheckouts } from '../helpers/checkout.js';

/** Writes one checkout's files into a fresh folder; returns it. */
const checkout = scratchCheckouts('coder-loop-readfix-');

const cli = inProcessAt('2026-11-24T12:00:00Z');

/**
 * Misreadings of real plans fixed together (each a minimal excerpt written here, byte for byte,
 * of a shape seen in files people wrote), read as the tools' own code reads them.
 */

describe('spec-kit: phases lettered, not numbered', () => {
  // spec-kit's tasks command numbers its phases ("Phase 1: Setup", "Phase 3+: User Stories",
  // "Final Phase") and its tasks ("Task ID: Sequential number (T001, T002, T003...)"): a
  // `### Phase A` over `T-AI-01` boxes is neither, so its boxes are named, once per heading.
  const tasks = [
    '## Phase 1: Setup',
    '',
    '- [x] T001 Init',
    '',
    '## Side work',
    '',
    '### Phase A — Beside Phase 1',
    '',
    '- [ ] T-AI-01 [P] Add the model service',
    '- [ ] T-AI-02 [P] Add the client',
    '',
    '### Phase B',
    '',
    '- [ ] T-AI-03 Wire it up',
    '',
  ].join('\n');

  it('one warning per lettered heading, on its line, naming its boxes and a number no phase has', () => {
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([['1', ['T001']]]);
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 7,
        message:
          'The 2 boxes under "### Phase A — Beside Phase 1" (lines 9–10) are not read as tasks: "A" is no phase number (spec-kit numbers its phases 1, 2, 3, …).',
        fix: 'Number the phase to run them: "### Phase 2: Beside Phase 1".',
      },
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 12,
        message:
          'The box under "### Phase B" (line 14) is not read as a task: "B" is no phase number (spec-kit numbers its phases 1, 2, 3, …).',
        fix: 'Number the phase to run it: "### Phase 3".',
      },
    ]);
  });
});

describe('spec-kit: criteria after the last phase', () => {
  // A verification list after the phases, its completion criteria per phase and per story:
  // boxes with no task id, which spec-kit's tasks command never writes for a task.
  const tasks = [
    '## Phase 1: Setup',
    '',
    '- [x] T001 Init',
    '',
    '## 验证清单',
    '',
    '### Phase 1完成标准',
    '- [ ] `make check` 无错误',
    '- [ ] `make test` 运行成功',
    '',
    '### Completion criteria',
    '- [ ] Docs build',
    '',
  ].join('\n');

  it('reads them as criteria: one warning on each heading, none per box; the plan is complete', () => {
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([['1', ['T001']]]);
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 7,
        message:
          'The 2 boxes under "### Phase 1完成标准" (lines 8–9) have no task id: they are read as acceptance criteria, not as tasks (they are under no phase).',
        fix: 'Leave them so, or move a box under its phase\'s heading with a task id ("- [ ] T002 …") if it is a task.',
      },
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 11,
        message:
          'The box under "### Completion criteria" (line 12) has no task id: it is read as an acceptance criterion, not as a task (it is under no phase).',
        fix: 'Leave it so, or move it under its phase\'s heading with a task id ("- [ ] T002 …") if it is a task.',
      },
    ]);
  });

  it('a box with a task id there is still named on its own line: a task outside every phase', () => {
    const read = readSpeckit(`${tasks}\n### 最终验收\n- [ ] T009 Ship\n`, 'tasks.md');
    expect(read.problems.map((p) => p.line)).toEqual([7, 11, 15]);
    expect(read.problems[2]!.message).toContain('T009 Ship');
  });
});

describe('Kiro: boxes with no number under a "### Task N:" heading', () => {
  // Tasks grouped under `## Task 21: …` headings, a numbered sub-task, boxes with no number
  // (nested in it, and at column 0 after it), and acceptance criteria under a sub-heading.
  const tasks = [
    '# Implementation Plan',
    '',
    '## Task 21: Reversals',
    '',
    '### Implementation Tasks',
    '',
    '- [ ] 21.1 Service functions',
    '  - [x] Lift a suspension',
    '',
    '- [ ] Remove a ban',
    '',
    '### Acceptance Criteria',
    '- [ ] Moderators can lift suspensions',
    '',
    '## Task 22: Metrics',
    '',
    '- [ ] Count the reversals',
    '',
  ].join('\n');
  const files = {
    '.kiro/specs/reversals/tasks.md': tasks,
    '.kiro/specs/reversals/requirements.md': '# Requirements\n',
    '.kiro/specs/reversals/design.md': '# Design\n',
  };

  it("reads them as the heading's task's sub-tasks, with ids no one writes, named once per heading", () => {
    const read = readKiro(tasks, 'tasks.md');
    expect(read).toEqual(readKiro(tasks, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => [t.id, t.line, t.state])])).toEqual(
      [
        [
          '21',
          [
            ['21.1', 7, 'todo'],
            ['21.a', 8, 'done'],
            ['21.b', 10, 'todo'],
          ],
        ],
        ['22', [['22.a', 17, 'todo']]],
      ],
    );
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 3,
        message:
          'The 2 boxes under "## Task 21: Reversals" with no number of their own (lines 8, 10) are read as sub-tasks of task 21, called 21.a to 21.b here.',
        fix: 'Number them ("- [ ] 21.1 …") so that the ids are yours.',
      },
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 12,
        message:
          'The box under "### Acceptance Criteria" (line 13) has no number: it is read as an acceptance criterion, not as a task of task 21.',
        fix: 'Leave it so, or number it ("- [ ] 21.1 …") if it is a task.',
      },
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 15,
        message:
          'The box under "## Task 22: Metrics" with no number of its own (line 17) is read as a sub-task of task 22, called 22.a here.',
        fix: 'Number it ("- [ ] 22.1 …") so that the ids are yours.',
      },
    ]);
  });

  it('a sub-task\'s number as a heading ("### 0.1 Create …") is no section: its boxes stay unread', () => {
    const read = readKiro(
      '## Fase 0: Setup\n\n### 0.1 Create\n\n- [ ] Add the folder\n',
      'tasks.md',
    );
    expect(read.phases).toEqual([]);
    expect(read.problems.map((p) => [p.severity, p.line])).toEqual([['error', 5]]);
  });

  it('mark 21.b writes exactly one byte', async () => {
    const cwd = checkout(files);
    expect((await cli(cwd, 'mark', 'reversals', '21.b', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, '.kiro/specs/reversals/tasks.md'), 'utf8')).toBe(
      tasks.replace('- [ ] Remove a ban', '- [x] Remove a ban'),
    );
  });
});

describe('BMAD: epics numbered with a dot', () => {
  // An epic put in between (7.6) and its stories, keyed as the project wrote them; BMAD's
  // sprint_plan.py (EPIC_KEY_RE, STORY_KEY_RE) reads an epic's number as digits alone.
  const yaml = [
    'development_status:',
    '  epic-7: done',
    '  7-1-login: done',
    '  epic-7.6: in-progress',
    '  7.6-1-cleanup: done',
    '  7.6-2-rules: backlog',
    '  epic-7.6-retrospective: optional',
    '  epic-8: backlog',
    '  8-1-search: backlog',
    '  8.5-1-hotfix: backlog',
    '',
  ].join('\n');

  it('one warning for all of them, on the first, with how many, the first few lines and the fix', () => {
    const read = readSprintStatus(yaml, 'sprint-status.yaml');
    expect(read.entries.map((e) => e.key)).toEqual(['epic-7', '7-1-login', 'epic-8', '8-1-search']);
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'sprint-status.yaml',
        line: 4,
        message:
          '5 keys number their epic with a dot, so they are not read: "epic-7.6" (line 4), "7.6-1-cleanup" (line 5), "7.6-2-rules" (line 6), "epic-7.6-retrospective" (line 7), "8.5-1-hotfix" (line 10). BMAD\'s sprint planning reads an epic\'s number as digits alone and lists such keys as unrecognized; the loop runs none of these stories.',
        fix: "Number epics 7.6, 8.5 with a whole number no epic has (`epic-N`, its stories `N-1-slug`), here and in their story files' names.",
      },
    ]);
  });
});

describe('BMAD: keys that are no epic, story or retrospective key', () => {
  // A project's preparation tasks kept beside its stories; BMAD's sprint_plan.py (classify_key)
  // reads none of them and lists each as unrecognized.
  const prep = [
    'prep-1-setup-ci',
    'prep-2-lint-rules',
    'prep-3-test-db',
    'prep-4-secrets',
    'prep-5-docker',
    'prep-6-staging',
    'prep-7-monitoring',
  ];
  const yaml = [
    'development_status:',
    '  epic-1: in-progress',
    ...prep.slice(0, 4).map((k) => `  ${k}: done`),
    '  1-1-login: in-progress',
    ...prep.slice(4).map((k) => `  ${k}: backlog`),
    '  epic-1-retrospective: optional',
    '',
  ].join('\n');

  it('one warning for all of them, on the first, with how many, the first few lines and the fix', () => {
    const read = readSprintStatus(yaml, 'sprint-status.yaml');
    expect(read.entries.map((e) => e.key)).toEqual(['epic-1', '1-1-login', 'epic-1-retrospective']);
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'sprint-status.yaml',
        line: 3,
        message:
          '7 keys are no epic, story or retrospective key, so they are not read: "prep-1-setup-ci" (line 3), "prep-2-lint-rules" (line 4), "prep-3-test-db" (line 5), "prep-4-secrets" (line 6), "prep-5-docker" (line 8), and 2 more. BMAD\'s sprint planning reads none of them either, and lists such keys as unrecognized.',
        fix: "Write each as `epic-N`, `N-M-story-slug` or `epic-N-retrospective`, or move the keys that track no story out of `development_status` (sprint planning keeps the file's other top-level keys).",
      },
    ]);
  });
});

describe('Task Master: a tag made invalid by a status Task Master does not use', () => {
  const json =
    '{\n  "master": {\n    "tasks": [\n      { "id": 1, "title": "A", "status": "done" },\n      { "id": 2, "title": "B", "status": "wip" },\n      { "id": 3, "title": "C", "status": "pending" }\n    ]\n  }\n}\n';

  it('is listed as invalid with its real counts; status names the error with its line and the fix', async () => {
    const cwd = checkout({ '.taskmaster/tasks/tasks.json': json });
    const plans = await cli(cwd, 'plans');
    expect(plans.out).toContain(
      '.taskmaster/tasks/tasks.json#master  (1/3 phases done; invalid: run coder-loop lint "master")',
    );
    const status = await cli(cwd, 'status', 'master');
    expect(status.code).toBe(1);
    expect(status.out.split('\n')).toEqual([
      '.taskmaster/tasks/tasks.json:5: error: task 2 has status "wip", which Task Master does not use. Use one of pending, in-progress, done, review, deferred, cancelled, blocked.',
      'master (Task Master, .taskmaster/tasks/tasks.json#master): invalid: the loop will not run this plan until the errors above are fixed',
      'Tasks: 1 done, 0 in progress, 2 open',
      'Phase 1: A (1/1 done)',
      '  [x] 1  A',
      'Phase 2: B (0/1 done)',
      '  [ ] 2  B (unknown status)',
      'Phase 3: C (0/1 done)',
      '  [ ] 3  C',
    ]);
  });
});

describe('Kiro: markup inside the word of a requirement line', () => {
  // `_Require*ments*:_` is "Requirements:" in mdast's text: the fast path cites what remark does.
  it.each([
    ['  - _Require*ments*: 1.1, 2.3_', ['1.1', '2.3']],
    ['  - _Require*ments*:_ 1.1, 2.3', ['1.1', '2.3']],
    ['  - _Req**uire**ments: 1.1_', ['1.1']],
    ['  - Require`ments`: 1.1', ['1.1']],
    ['  - Require\\*ments: 1.1', []],
  ])('%s', (line, cited) => {
    const tasks = `- [ ] 1. Build it\n${line}\n- [ ] 2. Ship it\n  - _Requirements: 3.1_\n`;
    const read = readKiro(tasks, 'tasks.md');
    expect(read).toEqual(readKiro(tasks, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => p.tasks[0]!.requirements)).toEqual([cited, ['3.1']]);
  });
});

describe('Kiro: a character reference inside the word of a requirement line', () => {
  // `_Requir&#101;ments: 1.2_` is "Requirements: 1.2" in mdast's text (remark decodes `&#101;`
  // to `e`): the fast path cites what remark does, or leaves the document to remark.
  const plan = (details: string) =>
    `# Implementation Plan\n\n- [ ] 1. Set up\n  - [ ] 1.1 Create the project\n${details}`;
  it.each([
    ['the first detail', '    - _Requir&#101;ments: 1.2_\n', ['1.2']],
    ['after a plain detail', '    - Add the config\n    - Requir&#101;ments: 1.2\n', ['1.2']],
    ['a hexadecimal reference', '    - Add the config\n    - _&#x52;equirements: 1.2_\n', ['1.2']],
    ['a line going on', '    Add the config\n    _Requir&#101;ments: 1.2_\n', ['1.2']],
    ['a paragraph in the item', '\n    _Requir&#101;ments: 1.2_\n', ['1.2']],
    ['Russian, in the stem', '    - _Тр&#1077;бования: 1.1_\n', ['1.1']],
    ['Russian, after a plain detail', '    - Add it\n    - Т&#1088;ебования: 1.1\n', ['1.1']],
  ])('%s', (_, details, cited) => {
    const tasks = plan(details);
    const read = readKiro(tasks, 'tasks.md');
    expect(read).toEqual(readKiro(tasks, 'tasks.md', { fast: false }));
    expect(read.phases[0]!.tasks[0]!.requirements).toEqual(cited);
  });
});
