import { readFileSync } from 'node:fs';
import { inProcessAt } from '../helpers/cli.js';
import { join } from 'node:path';
import { readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';
import {
  currentTaskmasterPhase,
  readTaskmaster,
  setTaskmasterStatus,
} from '../../src/core/plan/kinds/taskmaster/index.js';
import { scratchCheckouts } from '../helpers/checkout.js';

/**
 * The last misreadings of real plans (each a minimal excerpt written here, byte for byte, of a
 * shape seen in files people wrote), read as the tools' own code reads them.
 */

/** Writes one checkout's files into a fresh folder; returns it. */
const checkout = scratchCheckouts('coder-loop-misread-');

const cli = inProcessAt('2026-11-24T12:00:00Z');

describe('Task Master', () => {
  // Task Master's `next` (scripts/modules/task-manager/find-next-task.js) starts only `pending`
  // and `in-progress` work: a blocked subtask is work left, never finished.
  const BLOCKED =
    '{\n  "master": {\n    "tasks": [\n      {\n        "id": 1,\n        "title": "Ship it",\n        "status": "in-progress",\n        "dependencies": [],\n        "subtasks": [\n          { "id": 1, "title": "Build", "status": "done" },\n          { "id": 2, "title": "Sign", "status": "blocked" }\n        ]\n      }\n    ]\n  }\n}\n';

  it('an in-progress task whose only open subtask is blocked is not marked done: blocked is open work', async () => {
    const cwd = checkout({ '.taskmaster/tasks/tasks.json': BLOCKED });
    await cli(cwd, 'mark', 'master', '--phase', '1', 'done');
    const after = readFileSync(join(cwd, '.taskmaster/tasks/tasks.json'), 'utf8');
    expect(after).toBe(BLOCKED);
    expect((await cli(cwd, 'status', 'master')).out).not.toContain('complete');
  });

  it('a Huckleberry tasks/tasks.json (TASK-001, todo, completed) is no plan: one warning, lint exits 0', async () => {
    const huckleberry =
      '{\n  "tasks": [\n    {\n      "id": "TASK-001",\n      "title": "Set up the project",\n      "status": "todo",\n      "priority": "high"\n    },\n    {\n      "id": "TASK-002",\n      "title": "Write docs",\n      "status": "completed",\n      "priority": "low"\n    }\n  ]\n}\n';
    expect(readTaskmaster(huckleberry, 'tasks/tasks.json').notTaskmaster?.severity).toBe('warning');
    const cwd = checkout({
      'tasks/tasks.json': huckleberry,
      'specs/001-x/tasks.md': '## Phase 1: Setup\n\n- [ ] T001 Init\n',
      'specs/001-x/spec.md': '# Spec\n',
      'specs/001-x/plan.md': '# Plan\n',
    });
    const lint = await cli(cwd, 'lint');
    expect(lint.code).toBe(0);
    expect(
      lint.out.match(/tasks\/tasks\.json: warning: not read as a Task Master plan/g),
    ).toHaveLength(1);
    // Why, said for what the file holds; and said again when the file is named.
    const why =
      'tasks/tasks.json: not read as a Task Master plan: no task has a whole-number "id", as Task Master numbers its tasks 1, 2, 3… (the first is "TASK-001").';
    const status = await cli(cwd, 'status', 'tasks/tasks.json');
    expect(status.code).toBe(1);
    expect(status.out).toContain(why);
  });

  it("another tool's tasks/tasks.json whose ids are numbers but whose statuses are not Task Master's: the status named", () => {
    const other =
      '{\n  "tasks": [\n    {"id": 1, "title": "a", "status": "pending"},\n    {"id": 2, "title": "b", "status": "wip"}\n  ]\n}\n';
    expect(readTaskmaster(other, 'tasks/tasks.json').notTaskmaster?.message).toBe(
      'not read as a Task Master plan: a task has the status "wip", which Task Master never writes.',
    );
  });

  it('an ML task-config list at tasks/tasks.json (ids, no Task Master status) is no plan', () => {
    const ml =
      '{\n  "tasks": [\n    {"id": 1, "name": "cola", "metric": "mcc", "status": "train"},\n    {"id": 2, "name": "sst2", "metric": "acc"}\n  ]\n}\n';
    expect(readTaskmaster(ml, 'tasks/tasks.json').notTaskmaster?.severity).toBe('warning');
    // In Task Master's own folder a file is Task Master's: its errors are named.
    expect(readTaskmaster(ml, '.taskmaster/tasks/tasks.json').problems.length).toBeGreaterThan(0);
  });

  // taskmaster/08-1rokoko-hotel-boost-tasks: subtasks written without a "status". Task Master
  // reads such a subtask as pending (find-next-task.js: `st.status || 'pending'`).
  it('08-1rokoko-hotel-boost-tasks: a subtask without a status is pending, and marking it adds only its status', () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      {\n        "id": 1,\n        "title": "Setup",\n        "status": "done",\n        "subtasks": [\n          {\n            "id": "1.1",\n            "title": "Repo"\n          }\n        ]\n      },\n      {\n        "id": 2,\n        "title": "Rooms",\n        "status": "pending",\n        "subtasks": [\n          {\n            "id": "2.1",\n            "title": "Model"\n          },\n          {\n            "id": "2.2",\n            "title": "API"\n          }\n        ]\n      }\n    ]\n  }\n}\n';
    const read = readTaskmaster(source, '.taskmaster/tasks/tasks.json');
    expect(read.problems).toEqual([]);
    const phases = read.tags[0]!.phases;
    expect(phases.map((p) => [p.id, p.tasks.map((t) => [t.id, t.state])])).toEqual([
      ['1', [['1.1', 'todo']]],
      [
        '2',
        [
          ['2.1', 'todo'],
          ['2.2', 'todo'],
        ],
      ],
    ]);
    const written = setTaskmasterStatus(source, phases[1]!.tasks[0]!, 'in-progress');
    expect(written).toBe(source.replace('"id": "2.1",', '"id": "2.1", "status": "in-progress",'));
    expect(
      readTaskmaster(written, '.taskmaster/tasks/tasks.json').tags[0]!.phases[1]!.tasks[0]!.state,
    ).toBe('doing');
  });
});

describe('Task Master: more files people wrote', () => {
  const TM = '.taskmaster/tasks/tasks.json';

  // Subtask ids written as JSON numbers with a dot. Task Master reads the file without complaint
  // (tm-core keeps String(3.1)); `27.10` is its tenth subtask, not `27.1` again.
  const DECIMAL =
    '{\n  "master": {\n    "tasks": [\n      {\n        "id": 3,\n        "title": "Repository",\n        "status": "in-progress",\n        "dependencies": [],\n        "subtasks": [\n          { "id": 3.1, "title": "Create it", "status": "done" },\n          { "id": 3.10, "title": "Protect main", "status": "pending" }\n        ]\n      },\n      {\n        "id": 4,\n        "title": "Deploy",\n        "status": "pending",\n        "dependencies": [3.1]\n      }\n    ]\n  }\n}';

  it('subtask ids written as numbers with a dot (3.1, 3.10) are read as written, and marking one writes only its status', async () => {
    const read = readTaskmaster(DECIMAL, TM);
    expect(read.problems).toEqual([]);
    const [three, four] = read.tags[0]!.phases;
    expect(three!.tasks.map((t) => [t.id, t.state])).toEqual([
      ['3.1', 'done'],
      ['3.10', 'todo'],
    ]);
    expect(four!.dependencies).toEqual(['3.1']);
    const cwd = checkout({ [TM]: DECIMAL });
    expect((await cli(cwd, 'mark', 'master', '3.10', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, TM), 'utf8')).toBe(
      DECIMAL.replace('"Protect main", "status": "pending"', '"Protect main", "status": "done"'),
    );
  });

  it('a top-level task whose id is not a whole number is named as such, with its line', () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      { "id": 2.5, "title": "Half", "status": "pending" }\n    ]\n  }\n}\n';
    expect(readTaskmaster(source, TM).problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 4,
        message: 'a task in tag "master" has the id 2.5, which is not a whole number.',
      }),
    ]);
  });

  // Eight subtasks all written `"id": 42`: one `mark 42.42` would write every one of them.
  it('two subtasks with one id are both read, with a warning naming both lines; mark by the id writes nothing, mark --phase writes each', async () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      {\n        "id": 42,\n        "title": "Loop",\n        "status": "pending",\n        "subtasks": [\n          { "id": 42, "title": "Design", "status": "pending" },\n          { "id": 42, "title": "Build", "status": "pending" }\n        ]\n      }\n    ]\n  }\n}\n';
    const read = readTaskmaster(source, TM);
    expect(read.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 10,
        message:
          'task 42 has two subtasks with id 42.42 (the first on line 9): a mark by that id is refused.',
      }),
    ]);
    expect(read.tags[0]!.phases[0]!.tasks.map((t) => t.title)).toEqual(['Design', 'Build']);
    const cwd = checkout({ [TM]: source });
    const mark = await cli(cwd, 'mark', 'master', '42.42', 'done');
    expect(mark.code).toBe(1);
    expect(mark.out).toContain(
      '2 tasks have the id 42.42 (lines 9, 10); nothing written. Mark their phase with --phase 42, or give each task its own id.',
    );
    expect(readFileSync(join(cwd, TM), 'utf8')).toBe(source);
    expect((await cli(cwd, 'mark', 'master', '--phase', '42', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, TM), 'utf8')).toBe(source.replaceAll('"pending"', '"done"'));
  });

  // `task-master add-tag` writes `{ "tasks": [], "metadata": … }`: a tag waiting for its tasks.
  it('an empty tag is a warning on its own line and a plan that waits; lint exits 0', async () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      { "id": 1, "title": "Init", "status": "pending" }\n    ]\n  },\n  "lms-feature": {\n    "tasks": [],\n    "metadata": { "created": "2025-07-15T00:00:00.000Z", "description": "Tag created on 7/15/2025" }\n  }\n}\n';
    const cwd = checkout({ [TM]: source });
    const lint = await cli(cwd, 'lint');
    expect(lint.code).toBe(0);
    expect(lint.out).toContain(
      '.taskmaster/tasks/tasks.json:8: warning: the tag "lms-feature" holds no task yet.',
    );
    const status = await cli(cwd, 'status', 'lms-feature');
    expect(status.code).toBe(0);
    expect(status.out).toContain('no phase can start: the tag "lms-feature" holds no task yet.');
  });

  // find-next-task.js: "Prefer an eligible SUBTASK that belongs to any parent task whose own
  // status is `in-progress`", before any task not started.
  it('a task in progress with subtasks left is current before an earlier task not started', () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      { "id": 8, "title": "Later", "status": "pending", "dependencies": [] },\n      {\n        "id": 12,\n        "title": "Started",\n        "status": "in-progress",\n        "dependencies": [],\n        "subtasks": [\n          { "id": 1, "title": "A", "status": "done" },\n          { "id": 2, "title": "B", "status": "pending" }\n        ]\n      },\n      {\n        "id": 13,\n        "title": "Started, held",\n        "status": "in-progress",\n        "subtasks": [{ "id": 1, "title": "C", "status": "blocked" }, { "id": 2, "title": "D", "status": "pending" }]\n      }\n    ]\n  }\n}\n';
    const tag = readTaskmaster(source, TM).tags[0]!;
    expect(currentTaskmasterPhase(tag)?.id).toBe('12');
    // With 12 done, 13 is in progress but holds a blocked subtask: the file's order takes 8.
    const done = readTaskmaster(
      source
        .replace(
          '"id": 2, "title": "B", "status": "pending"',
          '"id": 2, "title": "B", "status": "done"',
        )
        .replace(
          '"Started",\n        "status": "in-progress"',
          '"Started",\n        "status": "done"',
        ),
      TM,
    ).tags[0]!;
    expect(currentTaskmasterPhase(done)?.id).toBe('8');
  });

  it('a task deferred over subtasks still pending: status and plans say it is set aside, not done', async () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      {"id": 1, "title": "Ship", "status": "done"},\n      {"id": 2, "title": "Later", "status": "deferred", "subtasks": [\n        {"id": 1, "title": "a", "status": "pending"}\n      ]},\n      {"id": 3, "title": "Now", "status": "pending"}\n    ]\n  }\n}\n';
    const cwd = checkout({ '.taskmaster/tasks/tasks.json': source });
    const status = (await cli(cwd, 'status', 'master')).out;
    expect(status).toContain('Phase 2: Later (0/1 done; deferred, set aside)');
    expect(status).toContain('Phase 3: Now (0/1 done) ← current');
    expect((await cli(cwd, 'plans')).out).toContain('(2/3 phases done, 1 of them set aside)');
  });

  it('a BMAD story whose status BMAD does not define: counted as set aside, not as done', async () => {
    const cwd = checkout({
      '_bmad-output/implementation-artifacts/sprint-status.yaml':
        'development_status:\n  epic-1: in-progress\n  1-1-a: done\n  1-2-b: planned\n',
    });
    const status = (await cli(cwd, 'status', 'bmad')).out;
    expect(status).toContain('Phase 1.2: b (0/0 done; unknown status, set aside)');
    expect((await cli(cwd, 'plans')).out).toContain('(2/2 phases done, 1 of them set aside)');
  });

  it('a JSON list at tasks/tasks.json is no plan, and the warning says it is a list', () => {
    const list = '[\n  { "id": 1, "title": "Army list", "status": "in-progress" }\n]\n';
    expect(readTaskmaster(list, 'tasks/tasks.json').notTaskmaster?.message).toBe(
      'not read as a Task Master plan: it is a JSON list, where Task Master keeps an object ({ "tasks": [...] }, or tags of them).',
    );
  });
});

describe('spec-kit: headings and ids people write', () => {
  const speckitFiles = (tasks: string): Record<string, string> => ({
    'specs/001-x/tasks.md': tasks,
    'specs/001-x/spec.md': '# Spec\n',
    'specs/001-x/plan.md': '# Plan\n',
  });

  // spec-kit's tasks command: "**Final Phase**: Polish & Cross-Cutting Concerns".
  it('a "Final Phase" heading is the phase after the last numbered one, with a warning; its open task keeps the plan open', async () => {
    const tasks =
      '## Phase 1: Setup\n\n- [x] T001 Init\n\n## Phase 2: Core\n\n- [x] T002 Build\n\n## Final Phase — Polish & Cross-Cutting Concerns\n\n- [x] T003 Docs\n- [ ] T004 Run the linters\n- [ ] Tidy up\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read.phases.map((p) => [p.number, p.name, p.tasks.map((t) => t.id)])).toEqual([
      ['1', 'Setup', ['T001']],
      ['2', 'Core', ['T002']],
      ['3', 'Polish & Cross-Cutting Concerns', ['T003', 'T004', '3.3']],
    ]);
    expect(read.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 9,
        message: '"Final Phase" is read as Phase 3, the phase after the last numbered one.',
      }),
    ]);
    const cwd = checkout(speckitFiles(tasks));
    const status = await cli(cwd, 'status', '001-x');
    expect(status.out).not.toContain('complete');
    expect(status.out).toContain('Phase 3');
  });

  it('"## Phase 2a:" and "## Phase 2b:" are phases between 2 and 3', () => {
    const tasks =
      '## Phase 3: Stories\n\n- [ ] T030 Story\n\n## Phase 2: Core\n\n- [x] T020 Build\n\n## Phase 2b: Navigation\n\n- [ ] T029 Links\n\n## Phase 2a: Route stubs\n\n- [x] T028 Routes\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read.problems).toEqual([]);
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['2', ['T020']],
      ['2a', ['T028']],
      ['2b', ['T029']],
      ['3', ['T030']],
    ]);
  });

  it('a tasks file wrapped whole in a ````markdown fence: the error names the fence and its lines', async () => {
    const tasks =
      '````markdown\n# Tasks\n\n## Phase 1: Setup\n\n- [X] T001 Init\n\n```bash\nnpm test\n```\n````\n';
    const cwd = checkout(speckitFiles(tasks));
    const lint = await cli(cwd, 'lint', '001-x');
    expect(lint.code).toBe(1);
    expect(lint.out).toContain(
      'specs/001-x/tasks.md:1: error: no phase with a task was found: the whole file is inside a code fence (lines 1 to 11), where no heading or task is read. Remove the two fence lines: the plan is the text between them.',
    );
  });

  it('a sub-id written after a task id (T007.1) is its own id: no duplicate, and mark writes its one box', async () => {
    const tasks =
      '## Phase 1: Calculator\n\n- [ ] T007.1 [P] [US1] Write tests for add\n- [ ] T007 [P] [US1] Implement add\n- [ ] T007.2 Write tests for sub\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read.problems).toEqual([]);
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.requirements])).toEqual([
      ['T007.1', ['US1']],
      ['T007', ['US1']],
      ['T007.2', []],
    ]);
    const cwd = checkout(speckitFiles(tasks));
    expect((await cli(cwd, 'mark', '001-x', 'T007.1', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, 'specs/001-x/tasks.md'), 'utf8')).toBe(
      tasks.replace('- [ ] T007.1', '- [X] T007.1'),
    );
  });
});

describe('spec-kit: ids with a suffix, criteria boxes and notes inside a phase', () => {
  const speckitFiles = (tasks: string): Record<string, string> => ({
    'specs/001-x/tasks.md': tasks,
    'specs/001-x/spec.md': '# Spec\n',
    'specs/001-x/plan.md': '# Plan\n',
  });

  // 07-SalehOsman-Al-Saada_Smart_Bot (T022-A beside T022), 08-EvgenyLat-whatsapp-saas (T011b).
  it('an id with a suffix (T003-A, T004a) is the id as written: no duplicate, and mark by it writes its one box', async () => {
    const tasks =
      '## Phase 2: Core\n\n- [ ] T003 Parser\n- [ ] T003-A Parser edge cases\n- [X] T003-B Parser errors\n- [ ] T004a Lexer hotfix\n- [ ] T004B [P] Lexer docs\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.problems).toEqual([]);
    expect(read.phases[0]!.tasks.map((t) => t.id)).toEqual([
      'T003',
      'T003-A',
      'T003-B',
      'T004a',
      'T004B',
    ]);
    const cwd = checkout(speckitFiles(tasks));
    expect((await cli(cwd, 'mark', '001-x', 'T003-A', 'done')).code).toBe(0);
    expect((await cli(cwd, 'mark', '001-x', 'T003', 'done')).code).toBe(0);
    expect((await cli(cwd, 'mark', '001-x', 'T004a', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, 'specs/001-x/tasks.md'), 'utf8')).toBe(
      tasks
        .replace('- [ ] T003-A', '- [X] T003-A')
        .replace('- [ ] T003 ', '- [X] T003 ')
        .replace('- [ ] T004a', '- [X] T004a'),
    );
  });

  // 01-chenchiyuan-crypto_exchange_news_crawler: `### 验收标准` over id-less boxes in Phase 1.
  it('boxes with no id under an acceptance-criteria sub-heading of a phase are no tasks: one warning says so, and the phase is done when its tasks are', async () => {
    const tasks =
      '## Phase 1: Setup\n\n### Acceptance criteria\n- [ ] App starts\n- [ ] Config loads\n\n### Tasks\n- [X] T001 Create app\n- [X] T002 Add config\n\n## Phase 2: Core\n\n### 验收标准\n- [ ] 测试通过\n- [ ] T003 Criteria heading, task id\n\n#### Tasks\n- [ ] T004 Parser\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['T001', 'T002']],
      ['2', ['T003', 'T004']],
    ]);
    expect(read.problems.map((p) => [p.line, p.severity, p.message, p.fix])).toEqual([
      [
        3,
        'warning',
        'The 2 boxes under "### Acceptance criteria" (lines 4–5) have no task id: they are read as acceptance criteria, not as tasks of Phase 1.',
        'Leave them so, or give a box a task id ("- [ ] T005 …") if it is a task.',
      ],
      [
        13,
        'warning',
        'The box under "### 验收标准" (line 14) has no task id: it is read as an acceptance criterion, not as a task of Phase 2.',
        'Leave it so, or give it a task id ("- [ ] T005 …") if it is a task.',
      ],
    ]);
    const cwd = checkout(speckitFiles(tasks));
    const status = await cli(cwd, 'status', '001-x');
    expect(status.out).toContain('Phase 2');
    expect(status.out).not.toMatch(/Phase 1\b[^\n]*(?:current|in progress|next)/i);
  });

  // 07-SalehOsman-Al-Saada_Smart_Bot: `# Note: Tasks T088-T091 are NOT duplicates …` in Phase 4.
  it('a level-1 heading that is no phase, between two phases, does not end the first: its tasks are that phase’s', () => {
    const tasks =
      '## Phase 2: Core\n\n- [ ] T004 Lexer\n\n# Note: T005 and T006 belong to Phase 2 too\n\n- [ ] T005 Printer\n- [ ] T006 Formatter\n\n## Phase 3: Polish\n\n- [ ] T007 Docs\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.problems).toEqual([]);
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['2', ['T004', 'T005', 'T006']],
      ['3', ['T007']],
    ]);
  });

  it('a level-1 note after the last phase: its boxes are named, with no phase number taken from the note', async () => {
    const tasks =
      '## Phase 1: Setup\n\n- [ ] T001 Init\n\n## Phase 2: Core\n\n- [ ] T004 Lexer\n\n# Note: T005 belongs to Phase 2 too\n\n- [ ] T005 Printer\n';
    const read = readSpeckit(tasks, 'tasks.md');
    expect(read).toEqual(readSpeckit(tasks, 'tasks.md', { fast: false }));
    expect(read.problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        11,
        '"- [ ] T005 Printer" looks like a task but is not read as one: it is under "# Note: T005 belongs to Phase 2 too" (line 9), a level-1 heading that is no phase, so it ends "## Phase 2: Core" (line 5).',
        'Write that heading as a paragraph or a "###" heading, so that it stays inside the phase, or move the tasks under a phase\'s heading.',
      ],
    ]);
    const cwd = checkout(speckitFiles(tasks));
    const lint = await cli(cwd, 'lint', '001-x');
    expect(lint.out).toContain('looks like a task but is not read as one');
    expect(lint.out).not.toContain('"# Phase 2');
  });
});

describe('one id on two tasks, in any kind', () => {
  it('spec-kit: mark T001 where two tasks are written T001 writes nothing and names both lines', async () => {
    const tasks = '## Phase 1: Setup\n\n- [ ] T001 Init\n- [ ] T001 Configure\n';
    const cwd = checkout({
      'specs/001-x/tasks.md': tasks,
      'specs/001-x/spec.md': '# Spec\n',
      'specs/001-x/plan.md': '# Plan\n',
    });
    const mark = await cli(cwd, 'mark', '001-x', 'T001', 'done');
    expect(mark.code).toBe(1);
    expect(mark.out).toContain('2 tasks have the id T001 (lines 3, 4); nothing written.');
    expect(readFileSync(join(cwd, 'specs/001-x/tasks.md'), 'utf8')).toBe(tasks);
  });
});

describe('Kiro', () => {
  const kiroFiles = (tasks: string): Record<string, string> => ({
    '.kiro/specs/auth/tasks.md': tasks,
    '.kiro/specs/auth/requirements.md': '# Requirements\n',
    '.kiro/specs/auth/design.md': '# Design\n',
  });

  it('03-perezjoseph-Gestion-inmobiliaria-org-isolation-fix: a queued "[~]" task is open, and mark doing writes "[-]"', async () => {
    const tasks =
      '- [x] 3. Fix services\n  - [x] 3.1 Add check\n- [~] 4. Checkpoint - Ensure all tests pass\n';
    const read = readKiro(tasks, 'tasks.md');
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => [t.id, t.state])])).toEqual([
      ['3', [['3.1', 'done']]],
      ['4', [['4', 'todo']]],
    ]);
    const cwd = checkout(kiroFiles(tasks));
    expect((await cli(cwd, 'mark', 'auth', '4', 'doing')).code).toBe(0);
    expect(readFileSync(join(cwd, '.kiro/specs/auth/tasks.md'), 'utf8')).toBe(
      tasks.replace('- [~] 4.', '- [-] 4.'),
    );
  });

  it('08-nobu007-connective-byte-api-cost-optimization-lab: "- [ ]\\* 19." is an optional top-level task', () => {
    const tasks =
      '- [x] 18. Security\n- [x] 18.1 Add API key encryption\n- [ ] 18.2 Implement rate limiting\n- [ ]\\* 19. Write end-to-end tests\n  - Cover the happy path\n';
    const read = readKiro(tasks, 'tasks.md');
    // 18. is checked over an open 18.2: said, and read by its sub-tasks.
    expect(read.problems.map((p) => [p.severity, p.line, p.fix])).toEqual([
      ['warning', 1, 'Check the sub-tasks that are done, or uncheck task 18.'],
    ]);
    expect(
      read.phases.map((p) => [p.number, p.tasks.map((t) => [t.id, t.state, t.optional])]),
    ).toEqual([
      [
        '18',
        [
          ['18.1', 'done', false],
          ['18.2', 'todo', false],
        ],
      ],
      ['19', [['19', 'todo', true]]],
    ]);
  });

  it('07-eviordevelopments-backlog-pro-frontend-user-authentication: sub-tasks belong to the task they are nested in, whatever their number', () => {
    const tasks =
      '- [x] 2. Set up types\n  - _Requirements: 1.1_\n\n- [x] 3. Create AuthContext\n  - [x] 2.1 Implement AuthContext\n  - [x] 2.5 Implement register\n  - [ ]* 2.5a Write property test for TeamMember creation\n  - [ ] 2.6 Write logout\n\n- [x] 4. Create Login page\n  - [x] 3.1 Build login form UI\n';
    const read = readKiro(tasks, 'tasks.md');
    expect(read.problems.map((p) => p.message)).toEqual([
      'Task 3 is checked, but its sub-tasks 2.6 are not: the loop reads it by its sub-tasks, so it has work left.',
    ]);
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['2', ['2']],
      ['3', ['2.1', '2.5', '2.5a', '2.6']],
      ['4', ['3.1']],
    ]);
  });

  it('01-inakanou-ArchiTrack-site-survey: an unnumbered box nested in a task is its sub-task, with an id no one writes, and lint names it', () => {
    const tasks =
      '- [x] 33. Save by button\n  - [x] Backend: add updateMetadataBatch\n  - [ ] Backend: add PATCH endpoint\n- [x] 33.1 Manual save in the photo panel\n  - _Requirements: 10.9_\n';
    const read = readKiro(tasks, 'tasks.md');
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => [t.id, t.state, t.line])])).toEqual(
      [
        [
          '33',
          [
            ['33.a', 'done', 2],
            ['33.b', 'todo', 3],
            ['33.1', 'done', 4],
          ],
        ],
      ],
    );
    expect(read.problems.map((p) => [p.severity, p.line])).toEqual([
      ['warning', 1],
      ['warning', 2],
      ['warning', 3],
    ]);
    expect(read.problems[0]!.message).toContain('Task 33 is checked, but its sub-tasks 33.b');
    expect(read.problems[1]!.message).toContain('called 33.a here');
  });

  // The oracle reads a top-level task whose only sub-task is optional as that sub-task alone;
  // the loop reads the top-level task too (its own box decides the phase: Kiro starts "12." and
  // leaves the optional test for later), so that the in-progress "[-]" is not lost.
  it('02-Homas-RpiDNS-user-authentication: a task whose sub-tasks are all optional is a task itself', () => {
    const tasks =
      '- [-] 12. Write htpasswd migration property test\n  - [ ]* 12.1 Write property test for htpasswd import\n';
    const read = readKiro(tasks, 'tasks.md');
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.state, t.optional])).toEqual([
      ['12', 'doing', false],
      ['12.1', 'todo', true],
    ]);
  });
});

describe('OpenSpec', () => {
  const change = (dir: string, tasks: string): Record<string, string> => ({
    [`${dir}/tasks.md`]: tasks,
    [`${dir}/proposal.md`]: '# Proposal\n',
  });

  it('an unnumbered box nested in 1.1 never takes the id of the real 1.2: mark 1.2 writes one byte', async () => {
    const tasks =
      '## 1. Setup\n\n- [ ] 1.1 Define the schema\n  - [ ] Add the migration\n- [ ] 1.2 Seed the data\n';
    const read = readOpenspec(tasks, 'tasks.md');
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.line])).toEqual([
      ['1.1', 3],
      ['1.1.a', 4],
      ['1.2', 5],
    ]);
    expect(read.problems.map((p) => [p.severity, p.line])).toEqual([['warning', 4]]);
    const cwd = checkout(change('openspec/changes/add-seed', tasks));
    expect((await cli(cwd, 'mark', 'add-seed', '1.2', 'done')).code).toBe(0);
    expect(readFileSync(join(cwd, 'openspec/changes/add-seed/tasks.md'), 'utf8')).toBe(
      tasks.replace('- [ ] 1.2', '- [x] 1.2'),
    );
    const lint = await cli(cwd, 'lint');
    expect(lint.code).toBe(0);
    expect(lint.out).toContain('openspec/changes/add-seed/tasks.md:4: warning:');
  });

  it('a box with no id takes its place in the group only where no written id has it', () => {
    const read = readOpenspec('## 2. Core\n\n- [ ] Unnumbered\n- [ ] 2.1 Written\n', 'tasks.md');
    expect(read.phases[0]!.tasks.map((t) => t.id)).toEqual(['2.2', '2.1']);
  });

  it('a change under a sub-folder (hw3/openspec/changes/x) is found; an archived change is not', async () => {
    const cwd = checkout({
      ...change('hw3/openspec/changes/add-login', '## 1. Login\n\n- [ ] 1.1 Form\n'),
      ...change('hw3/openspec/changes/archive/2025-01-01-old', '## 1. Old\n\n- [x] 1.1 Done\n'),
    });
    const listed = JSON.parse((await cli(cwd, 'plans', '--json')).out) as { path: string }[];
    expect(listed.map((p) => p.path)).toEqual(['hw3/openspec/changes/add-login/tasks.md']);
  });

  // OpenSpec's own parser (src/core/validation/task-numbering.ts) takes a `## N.` heading as the
  // current group and nothing more: a number written twice is one group, and the change is valid.
  it('a group number written twice is one group, with a warning', () => {
    const tasks =
      '## 1. Build\n\n- [x] 1.1 Code\n\n## 2. Verification (updated)\n\n- [ ] 2.1 Rerun\n\n## 2. Verification\n\n- [x] 2.2 Run\n';
    const read = readOpenspec(tasks, 'tasks.md');
    expect(read.problems.map((p) => [p.severity, p.line])).toEqual([['warning', 9]]);
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['1.1']],
      ['2', ['2.1', '2.2']],
    ]);
  });
});
