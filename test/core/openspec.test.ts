import {
  defaultPlanGlobs,
  findPlanFiles,
  kindOfPath,
  namePlans,
  validateKindContext,
  type NamedPlan,
} from '../../src/core/plan/kinds/index.js';
import { readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { openKindPlan } from '../../src/core/plan/kinds/plan.js';
import { fixture, KIND_FILES, OPENSPEC } from '../helpers/kinds.js';

/** OpenSpec's changes as a plan kind: `openspec/changes/<change>/tasks.md`, `## N.` groups. */

const TASKS = fixture('openspec/add-profile-export/tasks.md');
const PLAN: NamedPlan = {
  kind: 'openspec',
  path: `${OPENSPEC}/tasks.md`,
  folder: OPENSPEC,
  sidecar: `${OPENSPEC}/coder-loop`,
  name: 'add-profile-export',
};
const open = (files: Record<string, string>) =>
  openKindPlan(PLAN, Object.keys(files), new Map(Object.entries(files)));

describe('OpenSpec discovery', () => {
  it('finds active changes by default, never an archived one', () => {
    const paths = [
      `${OPENSPEC}/tasks.md`,
      `${OPENSPEC}/proposal.md`,
      'openspec/changes/archive/2025-01-11-add-update-command/tasks.md',
      'openspec/changes/archive/tasks.md',
      'openspec/specs/user-profile/spec.md',
    ];
    const found = findPlanFiles(paths, defaultPlanGlobs('docs/plans'));
    expect(found).toEqual([
      {
        kind: 'openspec',
        path: `${OPENSPEC}/tasks.md`,
        folder: OPENSPEC,
        sidecar: `${OPENSPEC}/coder-loop`,
      },
    ]);
    expect(namePlans(found, new Map()).plans.map((p) => p.name)).toEqual(['add-profile-export']);
    // Even a glob that reaches the archive finds no plan there.
    expect(findPlanFiles(paths, ['openspec/**/tasks.md']).map((f) => f.path)).toEqual([
      `${OPENSPEC}/tasks.md`,
    ]);
    expect(kindOfPath('openspec/changes/archive/2025-01-11-x/tasks.md')).toBeUndefined();
  });

  it('Context valid? needs proposal.md beside tasks.md', () => {
    expect(validateKindContext(PLAN, (p) => p === `${OPENSPEC}/proposal.md`)).toEqual([]);
    expect(validateKindContext(PLAN, () => false)).toEqual([
      {
        severity: 'error',
        path: `${OPENSPEC}/tasks.md`,
        message: `OpenSpec's proposal is missing: ${OPENSPEC}/proposal.md.`,
        fix: 'Write proposal.md beside tasks.md.',
      },
    ]);
  });
});

describe('OpenSpec reading', () => {
  it('a phase per "## N." group, a task per checkbox item with its N.M id, nested ones too', () => {
    const read = readOpenspec(TASKS, 'tasks.md');
    expect(read.problems).toEqual([]);
    expect(
      read.phases.map((p) => [p.number, p.name, p.tasks.map((t) => [t.id, t.state, t.line])]),
    ).toEqual([
      [
        '1',
        'Setup',
        [
          ['1.1', 'done', 3],
          ['1.2', 'todo', 4],
        ],
      ],
      [
        '2',
        'Core Implementation',
        [
          ['2.1', 'todo', 8],
          ['2.2', 'todo', 9],
          ['2.2.1', 'todo', 10],
        ],
      ],
      ['3', 'Documentation', [['3.1', 'todo', 14]]],
    ]);
  });

  it('[X] is done too; a task without an id is numbered in its group', () => {
    const read = readOpenspec('## 1. Only\n\n- [X] 1.1 Done\n- [ ] Second\n', 'tasks.md');
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.state])).toEqual([
      ['1.1', 'done'],
      ['1.2', 'todo'],
    ]);
  });

  it('in a file with groups, a box before them or under an unnumbered "## Notes" is named, not dropped', () => {
    const source =
      '# Tasks\n\n- [ ] 0.1 Before any group\n\n## 1. Setup\n\n- [ ] 1.1 Install\n\n## Notes\n\n- [ ] A note\n';
    const read = readOpenspec(source, 'tasks.md');
    expect(read.phases.map((p) => [p.number, p.tasks.map((t) => t.id)])).toEqual([['1', ['1.1']]]);
    expect(read.problems.map((p) => [p.line, p.severity])).toEqual([
      [3, 'warning'],
      [11, 'warning'],
    ]);
    expect(read.problems[0]!.message).toContain('under no "## N. Group" heading');
  });

  it('a file with no "## N." group is one group, as OpenSpec counts every box (seen in 3 of 20 real changes)', () => {
    // OpenSpec's own parser leaves tasks outside a group alone on purpose, "because both forms
    // already exist in real projects" (src/core/validation/task-numbering.ts), and its progress
    // counts every box (src/utils/task-progress.ts).
    const source = [
      '# Tasks: API 配置文件写入',
      '',
      '- [x] API 配置页',
      '- [ ] 1.2 保存逻辑',
      '  - [ ] 写入 `config.toml`',
      '',
      '## Task 3: Update the spec',
      '',
      '- [ ] **Completed**',
      '',
    ].join('\r\n');
    const read = readOpenspec(source, 'tasks.md');
    expect(read).toEqual(readOpenspec(source, 'tasks.md', { fast: false }));
    expect(read.phases).toEqual([
      expect.objectContaining({ number: '1', name: 'Tasks: API 配置文件写入', line: 3 }),
    ]);
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.state, t.text, t.line])).toEqual([
      ['1.1', 'done', 'API 配置页', 3],
      ['1.2', 'todo', '1.2 保存逻辑', 4],
      ['1.2.a', 'todo', '写入 `config.toml`', 5],
      // No id of its own and no parent: its place in the group (the fourth box), as in any group.
      ['1.4', 'todo', '**Completed**', 9],
    ]);
    // The nested box with no id of its own is named (its id is one no one writes); nothing else.
    expect(read.problems.map((p) => [p.line, p.severity])).toEqual([[5, 'warning']]);
  });

  it('a group numbered twice is one group, as OpenSpec reads it, with a warning that names both lines', () => {
    const read = readOpenspec('## 1. A\n\n- [ ] 1.1 a\n\n## 1. B\n\n- [ ] 1.2 b\n', 'tasks.md');
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 5,
        message:
          "Group 1 is also on line 1: its tasks are read as group 1's, as OpenSpec reads them.",
        fix: 'Number each "## N." group once.',
      },
    ]);
    expect(read.phases.map((p) => p.tasks.map((t) => t.id))).toEqual([['1.1', '1.2']]);
  });

  it('a task id written twice (a group numbered as the next one by mistake) is named on its second line', () => {
    const source =
      '## 1. Sync\n\n- [ ] 2.1 Sync test\n- [ ] 2.2 Pull test\n\n## 2. Daemon\n\n- [ ] 2.1 Daemon test\n- [x] 2.3 Timer test\n';
    const read = readOpenspec(source, 'tasks.md');
    expect(read.phases.map((p) => p.tasks.map((t) => t.id))).toEqual([
      ['2.1', '2.2'],
      ['2.1', '2.3'],
    ]);
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: 'tasks.md',
        line: 8,
        message: 'Task id 2.1 is also on line 3.',
        fix: 'Give each task its own id: `coder-loop mark` names a task by it.',
      },
    ]);
    // Both readings say so.
    expect(readOpenspec(source, 'tasks.md', { fast: false }).problems).toEqual(read.problems);
  });
});

describe('OpenSpec marks: one byte per task, nothing else', () => {
  it('start writes no mark (the lock branch and PR are the record); done writes [x]', () => {
    const kp = open(KIND_FILES.openspec);
    expect(kp.problems).toEqual([]);
    expect(kp.current!.number).toBe('1');
    expect(kp.markStart(kp.current!)).toBe(TASKS);
    const done = kp.markDone(kp.current!);
    expect(done).toBe(TASKS.replace('- [ ] 1.2', '- [x] 1.2'));
    expect(done.length).toBe(TASKS.length);
  });

  it('CRLF and a missing final newline are kept', () => {
    const source = TASKS.replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    const kp = open({ ...KIND_FILES.openspec, [`${OPENSPEC}/tasks.md`]: source });
    const second = kp.phases[1]!;
    const out = kp.markDone(second);
    const changed = [...out].flatMap((c, i) => (c === source[i] ? [] : [[i, source[i], c]]));
    expect(changed.map(([, before, after]) => `${before}→${after}`)).toEqual([' →x', ' →x', ' →x']);
    expect(out.endsWith('`docs/api.md`')).toBe(true);
  });

  it('the context: the proposal, the design and each delta spec', () => {
    const kp = open(KIND_FILES.openspec);
    expect(kp.context(kp.current!).links).toEqual([
      { label: 'Proposal', path: `${OPENSPEC}/proposal.md` },
      { label: 'Design', path: `${OPENSPEC}/design.md` },
      { label: 'Spec delta user-profile', path: `${OPENSPEC}/specs/user-profile/spec.md` },
    ]);
  });
});
