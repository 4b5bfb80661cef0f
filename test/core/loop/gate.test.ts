import {
  ConfigSchema,
  evaluateGate,
  touchedLockedItems,
  type CheckResult,
  type Gate,
} from '../../../src/core/index.js';

/** Verification (CI is the gate), Write Failing Test, Touched Locked Items?: one table each. */

const run = (name: string, conclusion: string | null, status = 'completed'): CheckResult => ({
  name,
  status,
  conclusion,
});

describe('evaluateGate', () => {
  it.each<[string, CheckResult[], string[], Gate]>([
    ['nothing reported yet', [], [], { verdict: 'pending', waiting: [] }],
    [
      'all green, neutral and skipped pass',
      [run('a', 'success'), run('b', 'neutral'), run('c', 'skipped')],
      [],
      {
        verdict: 'passed',
        checks: [run('a', 'success'), run('b', 'neutral'), run('c', 'skipped')],
      },
    ],
    [
      'one red among green',
      [run('a', 'success'), run('b', 'timed_out')],
      [],
      { verdict: 'failed', failing: [run('b', 'timed_out')], reason: '1 check(s) failed' },
    ],
    [
      'red wins over still running',
      [run('a', null, 'in_progress'), run('b', 'cancelled'), run('c', 'failure')],
      [],
      {
        verdict: 'failed',
        failing: [run('b', 'cancelled'), run('c', 'failure')],
        reason: '2 check(s) failed',
      },
    ],
    [
      'one still running',
      [run('a', 'success'), run('b', null, 'queued')],
      [],
      { verdict: 'pending', waiting: ['b'] },
    ],
    [
      'an unknown conclusion waits',
      [run('a', 'pending')],
      [],
      { verdict: 'pending', waiting: ['a'] },
    ],
    [
      'required checks only: a red other check does not count',
      [run('req', 'success'), run('other', 'failure')],
      ['req'],
      { verdict: 'passed', checks: [run('req', 'success')] },
    ],
    [
      'a required check not reported yet',
      [run('other', 'success')],
      ['req'],
      { verdict: 'pending', waiting: ['req'] },
    ],
  ])('%s', (_name, checks, requiredChecks, expected) => {
    expect(evaluateGate(checks, { requiredChecks })).toEqual(expected);
  });
});

describe('touchedLockedItems', () => {
  const config = ConfigSchema.parse({ locked: ['infra/**', '.github/**'] });
  const plans = config.plansDir.replace(/\/+$/, '');
  it.each<[string, string[], string | undefined, { locked: string[]; planDocuments: string[] }]>([
    ['nothing locked', ['src/a.ts'], 'A', { locked: [], planDocuments: [] }],
    [
      'locked paths, dot folders included',
      ['infra/main.tf', '.github/workflows/ci.yml', 'src/a.ts'],
      'A',
      { locked: ['infra/main.tf', '.github/workflows/ci.yml'], planDocuments: [] },
    ],
    [
      'what the loop writes in its own plan is not locked',
      [
        `${plans}/A/01_Master Plan/01_Checklist.md`,
        `${plans}/A/00_context.md`,
        `${plans}/A/Reports/phase-1.md`,
      ],
      'A',
      { locked: [], planDocuments: [] },
    ],
    [
      'other plan documents are',
      [`${plans}/A/01_Master Plan/02_Design.md`, `${plans}/B/00_context.md`],
      'A',
      {
        locked: [],
        planDocuments: [`${plans}/A/01_Master Plan/02_Design.md`, `${plans}/B/00_context.md`],
      },
    ],
    [
      'without a plan (quick mode) every plan file is',
      [`${plans}/A/00_context.md`],
      undefined,
      { locked: [], planDocuments: [`${plans}/A/00_context.md`] },
    ],
  ])('%s', (_name, files, plan, expected) => {
    expect(touchedLockedItems(files, config, plan)).toEqual(expected);
  });

  it.each<[string, string[], string, string[]]>([
    [
      "a Kiro plan: requirements and design are the user's; the tasks' marks and the sidecar the loop's",
      [
        '.kiro/specs/auth/requirements.md',
        '.kiro/specs/auth/design.md',
        '.kiro/specs/auth/tasks.md',
        '.kiro/specs/auth/coder-loop/Master_Log.md',
        '.kiro/specs/billing/design.md',
        'src/a.ts',
      ],
      '.kiro/specs/auth/tasks.md',
      ['.kiro/specs/auth/requirements.md', '.kiro/specs/auth/design.md'],
    ],
    [
      'a spec-kit plan: spec, plan and contracts',
      ['specs/001/spec.md', 'specs/001/contracts/api.yaml', 'specs/001/coder-loop/Checkpoint.md'],
      'specs/001/tasks.md',
      ['specs/001/spec.md', 'specs/001/contracts/api.yaml'],
    ],
    [
      "a Task Master tag: the other tags' sidecars are the loop's too",
      [
        '.taskmaster/tasks/task_001.txt',
        '.taskmaster/tasks/tasks.json',
        '.taskmaster/tasks/coder-loop/master/Reports/01_A.md',
      ],
      '.taskmaster/tasks/tasks.json#master',
      ['.taskmaster/tasks/task_001.txt'],
    ],
  ])('%s', (_name, files, planFile, planDocuments) => {
    expect(touchedLockedItems(files, config, 'x', planFile)).toEqual({ locked: [], planDocuments });
  });
});
