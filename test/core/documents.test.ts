import {
  appendLogEntry,
  findCheckpoint,
  parseChecklist,
  renderCheckpoint,
  renderLogEntry,
  renderPhaseReport,
  writeCheckpoint,
} from '../../src/core/index.js';

describe('master log', () => {
  it('renders one line, with untrusted text flattened and escaped', () => {
    expect(
      renderLogEntry({
        timestamp: '2026-11-22T10:00:00Z',
        event: 'Coder started',
        plan: 'Example',
        actor: 'mallory\n- [x] fake',
        links: [{ label: 'PR #3', url: 'https://github.com/o/r/pull/3' }],
      }),
    ).toBe(
      '- 2026-11-22T10:00:00Z — **Coder started** — Example — @mallory - \\[x\\] fake — [PR #3](https://github.com/o/r/pull/3)',
    );
  });

  it('creates a titled log when there is none', () => {
    expect(appendLogEntry(undefined, { timestamp: 't', event: 'e', plan: 'p' })).toBe(
      '# Master Log\n\n- t — **e** — p\n',
    );
  });
});

describe('checkpoint', () => {
  it('refuses markers in the wrong order', () => {
    const source = '<!-- /coder-loop:checkpoint -->\n\n<!-- coder-loop:checkpoint -->\n';
    expect(findCheckpoint(source, 'c.md').problems[0]).toMatchObject({
      line: 1,
      message: 'The checkpoint end marker comes before its start marker.',
    });
    expect(() => writeCheckpoint(source, 'c.md', ['x'])).toThrow('end marker');
  });

  it('renders what is done and what is next', () => {
    expect(
      renderCheckpoint({
        plan: 'Example',
        updated: '2026-11-22',
        completed: { number: 1, name: 'Setup' },
        next: { number: 2, name: 'API' },
        pullRequest: { number: 7, url: 'https://github.com/o/r/pull/7' },
        by: 'octocat',
      }),
    ).toEqual([
      '## Checkpoint',
      '',
      '- Updated: 2026-11-22 by @octocat',
      '- Completed: Phase 1: Setup',
      '- Next: Phase 2: API (`/coder next Example`)',
      '- Pull request: [#7](https://github.com/o/r/pull/7)',
    ]);
  });
});

describe('phase report', () => {
  it('lists tasks, their traceability, commits, attempts, reviews and files', () => {
    const { phases } = parseChecklist(
      '## Phase 1: Setup\n- [x] 1.1 a | b\n  - [x] child\n',
      'c.md',
    );
    const lines = renderPhaseReport({
      plan: 'Example',
      phase: { number: 1, name: 'Setup' },
      tasks: phases[0]!.tasks,
      completedAt: '2026-11-22T12:00:00Z',
      pullRequest: { number: 7, url: 'https://github.com/o/r/pull/7' },
      approver: 'reviewer1',
      commits: [
        {
          sha: 'abcdef1234567',
          message: 'Add test\n\nbody',
          url: 'https://github.com/o/r/commit/abcdef1',
        },
      ],
      attempts: [
        {
          number: 1,
          sha: '1111111aaaa',
          outcome: 'failed',
          checks: [{ name: 'test', conclusion: 'failure', url: 'https://ci/1' }],
        },
        {
          number: 2,
          sha: '2222222bbbb',
          outcome: 'passed',
          checks: [{ name: 'test', conclusion: 'success' }],
        },
      ],
      reviewers: [{ login: 'reviewer1', state: 'APPROVED' }],
      files: [{ path: 'src/a|b.ts', additions: 3, deletions: 1 }],
      trace: {
        passed: false,
        tasks: [
          {
            id: '1.1',
            status: 'missing',
            line: 'names `src/a|b.ts`, not changed.',
            tests: [],
            commits: [],
          },
          {
            id: 'child',
            status: 'evidence',
            line: 'changes `src/c.ts`.',
            tests: Array.from({ length: 12 }, (_, i) => `test/t${i}.test.ts`),
            commits: [{ sha: 'abcdef1234567', message: 'child', url: 'https://c/1' }],
          },
        ],
        requirements: [{ id: 'FR-1', tasks: ['child'], tests: ['test/t0.test.ts'], commits: [] }],
        testRule: 'Tests: changed (12 test files).',
      },
    });
    expect(lines.join('\n')).toBe(
      [
        '# Phase 1: Setup — report',
        '',
        '- Plan: Example',
        '- Date: 2026-11-22T12:00:00Z',
        '- Pull request: [#7](https://github.com/o/r/pull/7)',
        '- Approved by: @reviewer1',
        '',
        '## Tasks',
        '',
        '- [x] 1.1 a | b',
        '  - [x] child',
        '',
        '## Traceability',
        '',
        'Passes Spec? no on the approved head: 1 of 2 tasks traced to evidence, 1 lacking.',
        '',
        '| Task | Evidence | Tests | Commits |',
        '| --- | --- | --- | --- |',
        '| `1.1` | missing: names `src/a\\|b.ts`, not changed. | — | — |',
        `| \`child\` | changes \`src/c.ts\`. | ${Array.from({ length: 10 }, (_, i) => `\`test/t${i}.test.ts\``).join(', ')} and 2 more | [abcdef1](https://c/1) |`,
        '',
        '| Requirement | Tasks | Tests | Commits |',
        '| --- | --- | --- | --- |',
        '| `FR-1` | `child` | `test/t0.test.ts` | — |',
        '',
        '- Tests: changed (12 test files).',
        '',
        '## Commits',
        '',
        '- [abcdef1](https://github.com/o/r/commit/abcdef1) Add test',
        '',
        '## CI attempts',
        '',
        '1. failed on `1111111`',
        '   - [test](https://ci/1): failure',
        '2. passed on `2222222`',
        '   - test: success',
        '',
        '## Reviews',
        '',
        '- @reviewer1: APPROVED',
        '',
        '## Files changed',
        '',
        '| File | + | − |',
        '| --- | ---: | ---: |',
        '| `src/a\\|b.ts` | 3 | 1 |',
      ].join('\n'),
    );
  });
});
