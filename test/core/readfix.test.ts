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
