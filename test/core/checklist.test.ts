import { currentPhase, findTask, parseChecklist, readPhaseHeading } from '../../src/core/index.js';

describe('parseChecklist', () => {
  it('reads phases, written and positional ids, states and depth', () => {
    const source = [
      '# Checklist',
      '',
      '## Phase 1: Setup',
      '- [x] 1.1 Install',
      '- [X] Configure',
      '## Phase 2 — Build the API',
      '- [~] T010: Endpoint',
      '  - [ ] nested step',
      '- [ ] Docs',
      '',
    ].join('\n');
    const { phases, problems } = parseChecklist(source, 'c.md');
    expect(problems).toEqual([]);
    expect(phases.map((p) => [p.number, p.name, p.line])).toEqual([
      [1, 'Setup', 3],
      [2, 'Build the API', 6],
    ]);
    expect(phases[0]!.tasks.map((t) => [t.id, t.state, t.mark])).toEqual([
      ['1.1', 'done', 'x'],
      ['1.2', 'done', 'X'],
    ]);
    expect(phases[1]!.tasks.map((t) => [t.id, t.state, t.depth, t.line, t.text])).toEqual([
      ['T010', 'doing', 0, 7, 'T010: Endpoint'],
      ['2.2', 'todo', 1, 8, 'nested step'],
      ['2.3', 'todo', 0, 9, 'Docs'],
    ]);
    expect(currentPhase({ phases, problems })?.number).toBe(2);
    expect(findTask({ phases, problems }, 'T010')?.markOffset).toBe(source.indexOf('[~]') + 1);
  });

  it('warns about tasks outside any phase, and refuses duplicate phases and ids, with lines', () => {
    const source = '- [ ] early\n\n## Phase 1\n- [ ] 1.1 a\n## Phase 1\n- [ ] 1.1 b\n';
    const { problems } = parseChecklist(source, 'plan/c.md');
    expect(problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      [
        'warning',
        1,
        'This task is not tracked by the loop: it comes before the first "Phase <N>" heading.',
      ],
      ['error', 5, 'Phase 1 is defined twice, and both hold tasks (first on line 3).'],
      ['error', 6, 'Task id 1.1 is used twice (first on line 4).'],
    ]);
    expect(problems.every((p) => p.path === 'plan/c.md')).toBe(true);
  });

  it('ends a phase at a heading of the same or a higher level', () => {
    const source = '## Phase 1\n### Notes\n- [ ] under notes\n## Backlog\n- [ ] stray\n';
    const { phases, problems } = parseChecklist(source, 'c.md');
    expect(phases[0]!.tasks.map((t) => t.text)).toEqual(['under notes']);
    expect(problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      [
        'warning',
        5,
        'This task is not tracked by the loop: the heading "Backlog" on line 4 ended the phase before it.',
      ],
    ]);
  });

  it('says when there is no phase, and warns about an empty phase', () => {
    expect(parseChecklist('# Nothing\n', 'c.md').problems[0]!.message).toBe(
      'The checklist has no phase.',
    );
    const empty = parseChecklist('## Phase 1\n\nSoon.\n## Phase 2\n- [ ] x\n', 'c.md');
    expect(empty.problems.map((p) => [p.severity, p.line])).toEqual([['warning', 1]]);
    expect(empty.phases.map((p) => p.number)).toEqual([1, 2]);
    expect(currentPhase(empty)?.number).toBe(2);
  });

  it('is complete when every task is done', () => {
    expect(currentPhase(parseChecklist('## Phase 1\n- [x] a\n- [X] b\n', 'c.md'))).toBeUndefined();
  });

  it('needs whitespace after the box, and a real box', () => {
    const { phases } = parseChecklist(
      '## Phase 1\n- [x]done\n- [?] no\n- \\[ ] escaped\n- [ ] yes\n',
      'c.md',
    );
    expect(phases[0]!.tasks.map((t) => t.text)).toEqual(['yes']);
  });

  it('reads nesting up to the limit', () => {
    const depth = 40;
    const lines = ['## Phase 1'];
    for (let i = 0; i < depth; i++) lines.push(`${'  '.repeat(i)}- [ ] level ${i}`);
    const { phases, problems } = parseChecklist(lines.join('\n'), 'c.md');
    expect(problems).toEqual([]);
    expect(phases[0]!.tasks).toHaveLength(depth);
    expect(phases[0]!.tasks[depth - 1]!.depth).toBe(depth - 1);
  });

  it.each([
    [
      '10,000 nested quotes',
      `## Phase 1\n${'>'.repeat(10_000)} - [ ] deep\n`,
      2,
      'Line 2 is nested more than 40 levels deep.',
    ],
    [
      '10,000 nested bullets',
      `## Phase 1\n${'- '.repeat(10_000)}[ ] deep\n`,
      2,
      'Line 2 is nested more than 40 levels deep.',
    ],
    [
      'a list indented 200 levels',
      `## Phase 1\n${Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- [ ] t${i}`).join('\n')}`,
      82,
      'Line 82 is indented more than 160 columns.',
    ],
    [
      'a 5 MiB checklist',
      `## Phase 1\n${'- [ ] task\n'.repeat(500_000)}`,
      undefined,
      'The file is larger than 4 MiB.',
    ],
  ])('refuses %s before parsing, with a clear message', (_name, source, line, message) => {
    const { phases, problems } = parseChecklist(source, 'c.md');
    expect(phases).toEqual([]);
    expect(problems).toEqual([
      {
        severity: 'error',
        path: 'c.md',
        ...(line ? { line } : {}),
        message,
        fix: 'Split the plan, or flatten the nesting.',
      },
    ]);
  });
});

describe('readPhaseHeading', () => {
  it.each([
    ['Phase 1', 1, ''],
    ['Phase 2: API', 2, 'API'],
    ['phase 3 - Tests', 3, 'Tests'],
    ['Phase 10 — Release', 10, 'Release'],
    ['Phase 4 Hardening', 4, 'Hardening'],
  ])('%s', (text, number, name) => {
    expect(readPhaseHeading(text)).toEqual({ number, name });
  });

  it.each(['Phases 1', 'Phase one', 'Phase 1a', 'The Phase 1', 'Phase'])('not %s', (text) => {
    expect(readPhaseHeading(text)).toBeUndefined();
  });
});

describe('lines that look like tasks are never dropped silently', () => {
  it('names -[ ], - [?], - [ ]x and a box in a table with their lines; code stays quiet', () => {
    const source = [
      '## Phase 1: Setup',
      '',
      '- [ ] 1.1 Real task',
      '-[ ] 1.2 Missing space',
      '- [?] 1.3 Unknown mark',
      '- [ ]1.4 Glued',
      '',
      '| task | done |',
      '| --- | --- |',
      '| 1.5 | [ ] |',
      '',
      '```',
      '- [?] in code',
      '```',
      '',
    ].join('\n');
    const checklist = parseChecklist(source, 'c.md');
    expect(checklist.phases[0]!.tasks.map((t) => t.id)).toEqual(['1.1']);
    expect(checklist.problems.map((p) => [p.severity, p.line])).toEqual([
      ['warning', 4],
      ['warning', 5],
      ['warning', 6],
      ['warning', 10],
    ]);
    expect(checklist.problems.map((p) => [p.message.replace(/^.*: /, ''), p.fix])).toEqual([
      ['the list marker needs a space before the box.', 'Write "- [ ] …".'],
      [
        '"[?]" is not a box this plan reads (it reads [space], [tab], [~], [x], [X]).',
        'Write "[ ]" for a task to do, "[x]" for one done.',
      ],
      ['the box needs a space after it.', 'Write "[ ] " and then the text.'],
      ['a box in a table is not a task.', 'Write the task as a list item "- [ ] …".'],
    ]);
  });
});
