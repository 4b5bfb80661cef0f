import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';

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
          'The 2 boxes under "### Phase 1完成标准" (lines 8 to 9) have no task id: they are read as acceptance criteria, not as tasks (they are under no phase).',
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
