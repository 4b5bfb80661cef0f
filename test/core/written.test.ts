import { currentPhase, parseChecklist, type Checklist } from '../../src/core/index.js';

/** Checklists as people write them (issue 12): no task is ever dropped, every refusal says why. */
const tasks = (c: Checklist) =>
  c.phases.map((p) => [p.number, p.tasks.map((t) => `${t.id} ${t.state} ${t.line} ${t.text}`)]);
const problems = (c: Checklist) => c.problems.map((p) => `${p.severity} ${p.line}: ${p.message}`);

describe('1. a task whose text starts with inline markup is a task', () => {
  it('keeps `code`, **bold** and a link after the box', () => {
    const source = [
      '## Phase 1: Release checks',
      '- [x] Write changelog',
      '- [ ] `npm test` passes',
      '- [ ] **Security review** signed off',
      '- [x] [Docs](https://example.com) published',
      '## Phase 2: Launch',
      '- [ ] Announce',
      '',
    ].join('\n');
    const checklist = parseChecklist(source, 'c.md');
    expect(tasks(checklist)).toEqual([
      [
        1,
        [
          '1.1 done 2 Write changelog',
          '1.2 todo 3 `npm test` passes',
          '1.3 todo 4 **Security review** signed off',
          '1.4 done 5 [Docs](https://example.com) published',
        ],
      ],
      [2, ['2.1 todo 7 Announce']],
    ]);
    expect(checklist.problems).toEqual([]);
    expect(currentPhase(checklist)?.number).toBe(1);
    const task = checklist.phases[0]!.tasks[1]!;
    expect(source.slice(task.markOffset - 1, task.markOffset + 2)).toBe('[ ]');
  });

  it('keeps a box whose text is on the next line, in lists and quotes, LF or CRLF', () => {
    for (const eol of ['\n', '\r\n']) {
      const source = ['## Phase 1', '- [ ]', '  Text below', '> - [x]', '> quoted text', ''].join(
        eol,
      );
      expect(tasks(parseChecklist(source, 'c.md'))).toEqual([
        [1, ['1.1 todo 2 Text below', '1.2 done 4 quoted text']],
      ]);
    }
  });

  it('does not take a second box written in the text for the first', () => {
    const source = '## Phase 1\n- [x] [x] done twice\n- [ ] [x] `x`\n';
    const checklist = parseChecklist(source, 'c.md');
    expect(checklist.phases[0]!.tasks.map((t) => [t.state, t.markOffset])).toEqual([
      ['done', source.indexOf('[x]') + 1],
      ['todo', source.indexOf('[ ]') + 1],
    ]);
  });
});

describe('2. a checklist that opens with a thematic break', () => {
  it('keeps every task when --- closes no front matter', () => {
    for (const head of ['---', '---  ', '+++']) {
      const checklist = parseChecklist(
        `${head}\n\n## Phase 1: A\n\n- [ ] 1.1 x\n- [x] 1.2 y`,
        'c.md',
      );
      expect(tasks(checklist)).toEqual([[1, ['1.1 todo 5 1.1 x', '1.2 done 6 1.2 y']]]);
    }
  });

  it('still reads closed front matter as front matter, never as tasks', () => {
    const source = '---\ntitle: x\n- [ ] fake\n---\n## Phase 1\n- [ ] real\n';
    expect(tasks(parseChecklist(source, 'c.md'))).toEqual([[1, ['1.1 todo 6 real']]]);
  });
});

describe('3. a heading inside a block quote', () => {
  it('is not a phase and does not end one; the quote after it is not tracked', () => {
    const source = [
      '## Phase 1: A',
      '- [ ] a',
      '> ## Phase 2: Quoted',
      '> - [ ] quoted',
      '',
      '- [ ] b',
      '> - [ ] quoted but plain',
      '',
    ].join('\n');
    const checklist = parseChecklist(source, 'c.md');
    expect(tasks(checklist)).toEqual([
      [1, ['1.1 todo 2 a', '1.2 todo 6 b', '1.3 todo 7 quoted but plain']],
    ]);
    expect(problems(checklist)).toEqual([
      'warning 3: "Phase 2: Quoted" is inside a block quote or a list item, so it is not a phase.',
      'warning 4: This task is not tracked by the loop: it follows the heading on line 3 inside a block quote or list item, which is not a phase.',
    ]);
  });
});

describe('a phase heading in Chinese or Japanese text', () => {
  it('takes a full-width colon after the number as a colon, and a bracket as the start of the name', () => {
    const checklist = parseChecklist(
      '## Phase 1：准备\n- [ ] 1.1 安装\n## Phase 2： 実装\n- [ ] 2.1 書く\n## Phase 3（MVP）\n- [ ] 3.1 出す\n',
      'c.md',
    );
    expect(checklist.phases.map((p) => [p.number, p.name])).toEqual([
      [1, '准备'],
      [2, '実装'],
      [3, '（MVP）'],
    ]);
    expect(checklist.problems).toEqual([]);
  });
});

describe('4. plans hold more than phases', () => {
  it('reads a real plan: H1 title, emoji, appendices, verification lists', () => {
    const source = [
      '# Phase 1: Auth Tasks',
      '',
      '## Phase 1: Setup',
      '- [x] T001 Init',
      '## ✅ Phase 3: Launch',
      '- [ ] T002 Ship',
      '## Verification',
      '- [ ] All tests pass',
      '## Success Criteria',
      '- [ ] Users log in',
      '## Appendix',
      '### Phase 1 (Setup)',
      'Notes on phase 1.',
      '',
    ].join('\n');
    const checklist = parseChecklist(source, 'c.md');
    expect(checklist.phases.map((p) => [p.number, p.name, p.line])).toEqual([
      [1, 'Setup', 3],
      [3, 'Launch', 5],
    ]);
    expect(tasks(checklist)).toEqual([
      [1, ['T001 done 4 T001 Init']],
      [3, ['T002 todo 6 T002 Ship']],
    ]);
    expect(checklist.problems.map((p) => [p.severity, p.line])).toEqual([
      ['warning', 8],
      ['warning', 10],
    ]);
    expect(problems(checklist)[0]).toBe(
      'warning 8: This task is not tracked by the loop: the heading "Verification" on line 7 ended the phase before it.',
    );
  });

  it.each([
    [
      '## Phase N: Polish',
      '"Phase N: Polish" is not a phase: "N" is a placeholder, not a phase number.',
    ],
    [
      '## Phase I: Intro',
      '"Phase I: Intro" is not a phase: "I" is a roman numeral; phases are numbered 1, 2, 3.',
    ],
    [
      '## Phase 1.5: Patch',
      '"Phase 1.5: Patch" is not a phase: "1.5" is not a whole number; phases are numbered 1, 2, 3.',
    ],
    [
      '## Phase two',
      '"Phase two" is not a phase: "two" is a word; write the phase number in digits.',
    ],
    [
      '## Phase 1. Setup',
      '"Phase 1. Setup" is not a phase: the number must be followed by ":", "-", "—" or a space, not ".".',
    ],
    [
      '**Phase 1:** Setup',
      '"Phase 1:" is bold text, not a heading, so it is not a phase (its tasks are not tracked).',
    ],
  ])('says why %s is not a phase', (line, message) => {
    const checklist = parseChecklist(`${line}\n- [ ] a\n`, 'c.md');
    expect(problems(checklist)).toEqual([
      `warning 1: ${message}`,
      'error 1: The checklist has no phase.',
      'warning 2: This task is not tracked by the loop: it comes before the first "Phase <N>" heading.',
    ]);
  });

  it('says where the tasks of a bold line go when a phase is open', () => {
    const checklist = parseChecklist('## Phase 1\n- [ ] a\n\n**Phase 2:** b\n- [ ] c\n', 'c.md');
    expect(tasks(checklist)).toEqual([[1, ['1.1 todo 2 a', '1.2 todo 5 c']]]);
    expect(problems(checklist)).toEqual([
      'warning 4: "Phase 2:" is bold text, not a heading, so it is not a phase (its tasks count in Phase 1).',
    ]);
  });

  it('lets two headings share a number unless both hold tasks', () => {
    const checklist = parseChecklist('## Phase 1\n## Phase 1: Real\n- [ ] a\n## Phase 2\n', 'c.md');
    expect(checklist.phases.map((p) => [p.number, p.name])).toEqual([
      [1, 'Real'],
      [2, ''],
    ]);
    expect(problems(checklist)).toEqual(['warning 4: Phase 2 has no tasks; the loop skips it.']);
  });

  it('does not call a plan without tasks complete', () => {
    const checklist = parseChecklist('## Phase 1\nSoon.\n## Phase 2\n', 'c.md');
    expect(problems(checklist)).toEqual([
      'error 1: No phase holds a task, so the loop has nothing to do (the plan is not complete, it is empty).',
    ]);
  });

  it('does not read "Phase out" or "Phases" as near-phases', () => {
    expect(
      parseChecklist('## Phase out the API\n## Phases\n## Phase 1\n- [ ] a\n', 'c.md').problems,
    ).toEqual([]);
  });
});
