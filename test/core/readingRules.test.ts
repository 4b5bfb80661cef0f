import type { NamedPlan } from '../../src/core/plan/kinds/index.js';
import { readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';
import { readTaskmaster } from '../../src/core/plan/kinds/taskmaster/index.js';
import { openKindPlan, type KindPlan } from '../../src/core/plan/kinds/plan.js';

/**
 * Which work remains, read as each tool reads its own plan (docs/plan-format.md, "Reading
 * rules"): minimal excerpts of real plans, byte-exact, each a case the reader got wrong.
 */

const SPECKIT: NamedPlan = {
  kind: 'speckit',
  path: 'specs/001-x/tasks.md',
  folder: 'specs/001-x',
  sidecar: 'specs/001-x/coder-loop',
  name: '001-x',
};
const KIRO: NamedPlan = {
  kind: 'kiro',
  path: '.kiro/specs/x/tasks.md',
  folder: '.kiro/specs/x',
  sidecar: '.kiro/specs/x/coder-loop',
  name: 'x',
};
const tm = (tag: string, path = '.taskmaster/tasks/tasks.json'): NamedPlan => {
  const folder = path.slice(0, path.lastIndexOf('/'));
  return {
    kind: 'taskmaster',
    path,
    folder,
    sidecar: `${folder}/coder-loop/${tag}`,
    name: tag,
    tag,
  };
};

function open(plan: NamedPlan, source: string): KindPlan {
  const files = new Map([[plan.path, source]]);
  const context =
    plan.kind === 'speckit'
      ? ['spec.md', 'plan.md']
      : plan.kind === 'kiro'
        ? ['requirements.md', 'design.md']
        : [];
  for (const f of context) files.set(`${plan.folder}/${f}`, '# x\n');
  return openKindPlan(plan, [...files.keys()], files);
}

/** The phases as `number: id state[ note], …`, and where the plan stands. */
function shape(kp: KindPlan): string[] {
  return [
    ...kp.phases.map(
      (p) =>
        `${p.number}${p.finished ? ' finished' : ''}: ${p.tasks
          .map((t) => `${t.id} ${t.state}${t.note ? ` ${t.note}` : ''}`)
          .join(', ')}`,
    ),
    kp.current
      ? `current ${kp.current.number}`
      : kp.complete
        ? 'complete'
        : `waiting: ${kp.waiting ?? '-'}`,
  ];
}

const errors = (kp: KindPlan) => kp.problems.map((p) => `${p.line}: ${p.message}`);
const warnings = (kp: KindPlan) => kp.warnings.map((p) => `${p.line}: ${p.message}`);

describe('Kiro: required work is never skipped', () => {
  const PLAN =
    '- [x] 1. Set up infrastructure\n' +
    '- [ ] 2. Implement authentication API endpoints\n' +
    '  - Create /api/auth/login\n' +
    '- [ ]* 2.1 Write property test for invalid credentials\n' +
    '- [ ] 3. Checkpoint - Ensure all tests pass\n';

  it('an open top-level task whose sub-tasks are all optional is itself a task, and current', () => {
    const kp = open(KIRO, PLAN);
    expect(shape(kp)).toEqual([
      '1 finished: 1 done',
      '2: 2 todo, 2.1 todo optional',
      '3: 3 todo',
      'current 2',
    ]);
  });

  it('a done top-level task with only optional sub-tasks counts as done in its phase', () => {
    const kp = open(KIRO, '- [x] 1. Set up\n  - [ ]* 1.1 Unit tests\n- [ ] 2. Next\n');
    expect(shape(kp)).toEqual(['1 finished: 1 done, 1.1 todo optional', '2: 2 todo', 'current 2']);
  });

  it('the start and the completion mark the top-level task, never an optional task', () => {
    const kp = open(KIRO, PLAN);
    const phase = kp.current!;
    expect(kp.markStart(phase)).toBe(PLAN.replace('- [ ] 2.', '- [-] 2.'));
    expect(kp.markDone(phase)).toBe(PLAN.replace('- [ ] 2.', '- [x] 2.'));
  });

  it('an optional top-level task (and its sub-tasks) never keeps the plan open, and is never marked', () => {
    const source =
      '- [x] 10. Wire routing\n' +
      '- [ ]* 11. Add storybook stories\n' +
      '  - [ ] 11.1 Button stories\n';
    const kp = open(KIRO, source);
    expect(shape(kp)).toEqual([
      '10 finished: 10 done',
      '11 finished: 11 todo optional, 11.1 todo optional',
      'complete',
    ]);
    expect(kp.markDone(kp.phases[1]!)).toBe(source);
  });

  it('a phase with required sub-tasks is marked with its top-level task', () => {
    const source = '- [ ] 1. API\n  - [ ] 1.1 Route\n  - [ ]* 1.2 Tests\n';
    const kp = open(KIRO, source);
    expect(shape(kp)).toEqual(['1: 1.1 todo, 1.2 todo optional', 'current 1']);
    expect(kp.markDone(kp.current!)).toBe('- [x] 1. API\n  - [x] 1.1 Route\n  - [ ]* 1.2 Tests\n');
  });

  it('three-level ids keep every level, and a warning names the whole id', () => {
    const kp = open(
      KIRO,
      '- [ ] 7. Build\n  - [ ] 7.3 Parser\n    - [ ] 7.3.1 Lexer\n- [ ] 1.1.1 Orphan\n',
    );
    expect(shape(kp)).toEqual(['7: 7.3 todo, 7.3.1 todo', '1: 1.1.1 todo', 'current 7']);
    expect(warnings(kp)).toEqual([
      '4: Sub-task 1.1.1 has no top-level task 1 before it: it and the 1.x sub-tasks after it are read as phase 1 ("Orphan"), which has no box of its own.',
    ]);
  });

  it('sub-tasks with no top-level task are a phase of their own, in file order, never dropped', () => {
    const source =
      '- [ ] 2. Core\n' +
      '- [x] 2.1 Parser\n' +
      '\n' +
      '- [ ] 3.1 Analyze pages\n' +
      '- [ ] 3.2 Analyze components\n' +
      '\n' +
      '- [ ] 4. Docs\n';
    const kp = open(KIRO, source);
    expect(shape(kp)).toEqual([
      '2 finished: 2.1 done',
      '3: 3.1 todo, 3.2 todo',
      '4: 4 todo',
      'current 3',
    ]);
    expect(kp.phases[1]).toMatchObject({ number: '3', name: 'Analyze pages', line: 4 });
    expect(kp.warnings.map((p) => [p.line, p.message, p.fix])).toEqual([
      [1, expect.stringContaining('Task 2 is not checked'), expect.anything()],
      [
        4,
        'Sub-task 3.1 has no top-level task 3 before it: it and the 3.x sub-tasks after it are read as phase 3 ("Analyze pages"), which has no box of its own.',
        'Add "- [ ] 3. Title" above it to give the phase a line of its own.',
      ],
    ]);
    // Its sub-tasks are marked, one byte each: it has no box of its own.
    expect(kp.markDone(kp.current!)).toBe(
      source.replace('- [ ] 3.1', '- [x] 3.1').replace('- [ ] 3.2', '- [x] 3.2'),
    );
  });

  it('such a phase is named by a heading right above it; its "N." box after it takes its place', () => {
    const source =
      '## Analysis\n' +
      '\n' +
      '- [ ] 3.1 Pages\n' +
      '  - [ ] Nested, no number\n' +
      '- [ ] 3. Analyze\n' +
      '- [ ] 3.2 Components\n';
    const plain = readKiro(source.replace('- [ ] 3. Analyze\n', ''), 'tasks.md');
    expect(plain.phases.map((p) => [p.number, p.name, p.line])).toEqual([['3', 'Analysis', 3]]);
    const kp = open(KIRO, source);
    expect(shape(kp)).toEqual(['3: 3.1 todo, 3.a todo, 3.2 todo', 'current 3']);
    expect(kp.phases[0]).toMatchObject({ name: 'Analyze', line: 5 });
    expect(kp.warnings.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        3,
        'Sub-task 3.1 comes before its top-level task 3 (line 5).',
        'Move "- [ ] 3. …" above line 3.',
      ],
      [4, expect.stringContaining('called 3.a here'), expect.anything()],
    ]);
  });

  it('a sub-task far below its top-level task is still read in that task, without a warning', () => {
    const kp = open(KIRO, '- [ ] 5. A\n  - [x] 5.1 a\n- [ ] 6. B\n  - [ ] 6.1 b\n- [ ] 5.3 late\n');
    expect(shape(kp)).toEqual(['5: 5.1 done, 5.3 todo', '6: 6.1 todo', 'current 5']);
    expect(kp.warnings).toEqual([]);
  });

  it('"### Task 1: Title" headings are top-level tasks over their "1.1" boxes', () => {
    const source =
      '## Phase 1: Foundation\n' +
      '\n' +
      '### Task 1: Module structure\n' +
      '**Estimate**: 30 min\n' +
      '\n' +
      '- [x] 1.1 Create folder\n' +
      '- [ ] 1.2 Add index\n' +
      '\n' +
      '### Task 2: Types\n' +
      '\n' +
      '- [ ] 2.1 Define types\n';
    const kp = open(KIRO, source);
    expect(shape(kp)).toEqual(['1: 1.1 done, 1.2 todo', '2: 2.1 todo', 'current 1']);
    expect(kp.phases.map((p) => [p.name, p.line])).toEqual([
      ['Module structure', 3],
      ['Types', 9],
    ]);
    expect(kp.problems).toEqual([]);
    expect(kp.warnings).toEqual([]);
  });

  it('boxes with no number under headings: one error where the first is, not "no phase with a task"', () => {
    const source = '# タスク\n\n## フェーズ 1: 基盤\n\n- [x] 型定義\n- [ ] ストア\n';
    const kp = open(KIRO, source);
    expect(kp.complete).toBe(false);
    expect(kp.problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        5,
        'None of the 2 boxes of this file is read as a task: Kiro reads a task numbered "1. Title" or a sub-task "1.1 Title", and the first of them (under "## フェーズ 1: 基盤", line 3) has no number.',
        'Number the tasks: "- [ ] 1. Title" for each top-level task (or a heading "### 1. Title" over its sub-tasks), "- [ ] 1.1 Title" for each of its sub-tasks.',
      ],
    ]);
    expect(warnings(kp)).toEqual([expect.stringMatching(/^6: "- \[ \] ストア" looks like a task/)]);
  });

  it('an escaped optional mark (a formatter\'s "\\*") is the optional mark it shows', () => {
    const read = readKiro('- [ ] 10. Tests\n  - [ ]\\* 10.1 Property tests\n', 'tasks.md');
    expect(read.problems).toEqual([]);
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.optional])).toEqual([
      ['10', false],
      ['10.1', true],
    ]);
  });

  it('a duplicated sub-task id is reported', () => {
    const kp = open(KIRO, '- [ ] 1. A\n  - [ ] 1.1 B\n  - [ ] 1.1 C\n');
    expect(warnings(kp)).toEqual(['3: Task id 1.1 is also on line 2.']);
  });

  it('tasks only under "### 1.1" headings: no task is read, so the plan is not complete', () => {
    const kp = open(KIRO, '# Tasks\n\n### 1.1 Create the store\n\n- Write the reducer\n');
    expect(kp.complete).toBe(false);
    expect(errors(kp)).toEqual(['1: no phase with a task was found.']);
  });
});

describe('spec-kit: headings', () => {
  it('a nested "### Phase 3.1" does not end "## Phase 3" for the tasks after it', () => {
    const kp = open(
      SPECKIT,
      '## Phase 3: Core\n\n### Phase 3.1: Tests\n\n- [ ] T001 Test\n\n### Notes\n\n- [ ] T002 Build\n\n## Phase 4: Polish\n\n- [ ] T003 Docs\n',
    );
    expect(shape(kp)).toEqual(['3: T002 todo', '3.1: T001 todo', '4: T003 todo', 'current 3']);
    expect(warnings(kp)).toEqual([]);
  });

  it('a repeated phase heading with no task is a reference: a warning, not a second phase', () => {
    const kp = open(
      SPECKIT,
      '## Phase 1: Setup\n\n- [x] T001 Init\n\n## Phase 2: Core\n\n- [ ] T002 Build\n\n' +
        '## Dependencies & Execution Order\n\n### Phase 1: Setup\n\nNo dependencies.\n\n### Phase 2: Core\n\nAfter Phase 1.\n',
    );
    expect(errors(kp)).toEqual([]);
    expect(warnings(kp)).toEqual([
      '11: Phase 1 is also on line 1; this heading holds no task, so it is read as a reference.',
      '15: Phase 2 is also on line 5; this heading holds no task, so it is read as a reference.',
    ]);
    expect(shape(kp)).toEqual(['1 finished: T001 done', '2: T002 todo', 'current 2']);
  });

  it('two headings of one phase that both hold tasks stay an error', () => {
    const kp = open(SPECKIT, '## Phase 1: A\n\n- [ ] T001 a\n\n## Phase 1: B\n\n- [ ] T002 b\n');
    expect(errors(kp)).toEqual(['5: Phase 1 is also on line 1.']);
  });

  it('a duplicated task id is reported', () => {
    const kp = open(SPECKIT, '## Phase 1: A\n\n- [ ] T001 a\n- [ ] T001 b\n');
    expect(warnings(kp)).toEqual(['4: Task id T001 is also on line 3.']);
  });

  it.each([
    ['bold bullets', '## Phase 1: Setup\n\n- **T016 [US5]**: Add the endpoint\n'],
    ['headings the reader does not read', '## Milestone 1\n\n- [ ] T001 初期化\n'],
  ])('%s: no task is read, so the plan is not complete', (_name, source) => {
    const kp = open(SPECKIT, source);
    expect(kp.complete).toBe(false);
    expect(kp.current).toBeUndefined();
    expect(errors(kp)).toEqual(['1: no phase with a task was found.']);
  });
});

const TM = (tasks: unknown[], more: Record<string, unknown> = {}) =>
  JSON.stringify({ master: { tasks, metadata: {} }, ...more }, null, 2) + '\n';

describe('Task Master: which task is next', () => {
  it('an error inside one tag blocks that tag only', () => {
    const source = TM([{ id: 1, title: 'A', status: 'pending', dependencies: [] }], {
      'test-tag': { tasks: [{ id: 1, title: 'B', status: 'pending', dependencies: [16] }] },
    });
    const master = open(tm('master'), source);
    expect(errors(master)).toEqual([]);
    expect(shape(master)).toEqual(['1: 1 todo', 'current 1']);
    const broken = open(tm('test-tag'), source);
    expect(errors(broken)).toEqual([
      '15: task 1 depends on task 16, which tag "test-tag" does not have.',
    ]);
    // The file's own reading still names every tag's problems (lint).
    expect(readTaskmaster(source, 'tasks.json').problems).toHaveLength(1);
  });

  it("a dependency is done by the task's own status, whatever its subtasks", () => {
    const source = TM([
      {
        id: 1,
        title: 'A',
        status: 'done',
        dependencies: [],
        subtasks: [
          { id: 1, title: 'a', status: 'done' },
          { id: 2, title: 'b', status: 'deferred' },
        ],
      },
      { id: 2, title: 'B', status: 'pending', dependencies: [1] },
    ]);
    expect(shape(open(tm('master'), source))).toEqual([
      '1 finished: 1.1 done, 1.2 set-aside deferred',
      '2: 2 todo',
      'current 2',
    ]);
  });

  it('a blocked task is never started, nor its dependents: the plan waits, it is not complete', () => {
    const source = TM([
      { id: 1, title: 'A', status: 'blocked', dependencies: [] },
      { id: 2, title: 'B', status: 'pending', dependencies: [1] },
    ]);
    const kp = open(tm('master'), source);
    expect(shape(kp)).toEqual([
      '1: 1 todo blocked',
      '2: 2 todo',
      'waiting: task 1 is blocked; task 2 waits for task 1.',
    ]);
  });

  it('a blocked subtask holds its task: the loop runs a whole task and never overrides a block', () => {
    const source = TM([
      {
        id: 1,
        title: 'A',
        status: 'pending',
        dependencies: [],
        subtasks: [
          { id: 1, title: 'a', status: 'pending' },
          { id: 2, title: 'b', status: 'blocked' },
        ],
      },
    ]);
    expect(shape(open(tm('master'), source))).toEqual([
      '1: 1.1 todo, 1.2 todo blocked',
      'waiting: task 1.2 is blocked.',
    ]);
  });

  it('a task in review is not started again; a cancelled or deferred one is set aside', () => {
    const source = TM([
      { id: 1, title: 'A', status: 'review', dependencies: [] },
      { id: 2, title: 'B', status: 'cancelled', dependencies: [] },
      { id: 3, title: 'C', status: 'deferred', dependencies: [] },
    ]);
    expect(shape(open(tm('master'), source))).toEqual([
      '1: 1 doing review',
      '2 finished: 2 set-aside cancelled',
      '3 finished: 3 set-aside deferred',
      'waiting: task 1 is in review.',
    ]);
  });

  it('the current task is the first in the file with work left whose dependencies are done', () => {
    // Priority and the count of dependencies do not reorder the tag: the file's order does.
    const source = TM([
      { id: 1, title: 'A', status: 'done', dependencies: [] },
      { id: 2, title: 'B', status: 'pending', priority: 'high', dependencies: [6] },
      { id: 3, title: 'C', status: 'pending', priority: 'low', dependencies: [1] },
      { id: 4, title: 'D', status: 'pending', priority: 'high', dependencies: [1] },
      { id: 5, title: 'E', status: 'pending', priority: 'high', dependencies: [] },
      { id: 6, title: 'F', status: 'pending', priority: 'critical', dependencies: [] },
    ]);
    expect(open(tm('master'), source).current?.number).toBe('3');
    // The file's order, not the ids': a task written first is taken first.
    const reordered = TM([
      { id: 9, title: 'I', status: 'pending', priority: 'low', dependencies: [] },
      { id: 2, title: 'B', status: 'pending', priority: 'high', dependencies: [] },
    ]);
    expect(open(tm('master'), reordered).current?.number).toBe('9');
  });

  // find-next-task.js: "Prefer an eligible SUBTASK that belongs to any parent task whose own
  // status is `in-progress`"; else the top-level tasks, where the loop keeps the file's order.
  it('a task in progress with a subtask left goes first; one with no subtasks is taken where the file has it', () => {
    const source = TM([
      { id: 1, title: 'A', status: 'pending', priority: 'low', dependencies: [] },
      {
        id: 2,
        title: 'B',
        status: 'in-progress',
        priority: 'high',
        dependencies: [],
        subtasks: [{ id: 1, title: 'b', status: 'pending' }],
      },
    ]);
    expect(open(tm('master'), source).current?.number).toBe('2');
    const started = TM([
      { id: 1, title: 'A', status: 'done', dependencies: [] },
      { id: 2, title: 'B', status: 'in-progress', priority: 'low', dependencies: [1] },
      { id: 3, title: 'C', status: 'pending', priority: 'high', dependencies: [] },
    ]);
    expect(open(tm('master'), started).current?.number).toBe('2');
  });

  it("a dependency on a subtask is done by that subtask's own status", () => {
    const source = TM([
      {
        id: 1,
        title: 'A',
        status: 'in-progress',
        dependencies: [],
        subtasks: [
          { id: 1, title: 'a', status: 'done' },
          { id: 2, title: 'b', status: 'blocked' },
        ],
      },
      { id: 2, title: 'B', status: 'pending', dependencies: ['1.1'] },
    ]);
    expect(open(tm('master'), source).current?.number).toBe('2');
  });

  it("a tasks/tasks.json that is not Task Master's is no plan: at most a warning", () => {
    const vscode =
      '{\n  "version": "2.0.0",\n  "tasks": [\n    { "label": "build", "type": "shell", "command": "make" }\n  ]\n}\n';
    const read = readTaskmaster(vscode, 'tasks/tasks.json');
    expect(read.tags).toEqual([]);
    expect(read.problems).toEqual([]);
    expect(read.notTaskmaster?.severity).toBe('warning');
    const jsonc = '// a comment\n{ "tasks": { "train": { "epochs": 3 } } }\n';
    expect(readTaskmaster(jsonc, 'tasks/tasks.json').notTaskmaster?.severity).toBe('warning');
    // In Task Master's own folder the file is Task Master's, and what is wrong is an error.
    expect(readTaskmaster(vscode, '.taskmaster/tasks/tasks.json').notTaskmaster).toBeUndefined();
    // A legacy file of Task Master's shape is read.
    const legacy = '{ "tasks": [ { "id": 1, "title": "A", "status": "pending" } ] }';
    expect(readTaskmaster(legacy, 'tasks/tasks.json').tags.map((t) => t.name)).toEqual(['master']);
  });
});

describe('spec-kit and Kiro readers keep their phases as their own tools number them', () => {
  it('readSpeckit and readKiro expose the same phases openKindPlan shows', () => {
    const speckit = readSpeckit('## Phase 1: A\n\n- [ ] T001 a\n', 'tasks.md');
    expect(speckit.phases.map((p) => p.number)).toEqual(['1']);
    const kiro = readKiro('- [ ] 1. A\n  - [ ]* 1.1 b\n', 'tasks.md');
    expect(kiro.phases[0]!.tasks.map((t) => t.id)).toEqual(['1', '1.1']);
  });
});
