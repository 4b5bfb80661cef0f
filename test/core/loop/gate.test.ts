import {
  ConfigSchema,
  evaluateGate,
  touchedLockedItems,
  type CheckResult,
  type Gate,
} from '../../../src/core/index.js';
import { defaultPlanGlobs, findPlanFiles } from '../../../src/core/plan/kinds/discovery.js';

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
    [
      "a green check or status called like the loop's own is not CI passing",
      [run('coder-loop', 'success')],
      [],
      { verdict: 'pending', waiting: [] },
    ],
    [
      "beside CI, a red one called like the loop's own still fails the gate",
      [run('test', 'success'), run('coder-loop', 'failure')],
      [],
      { verdict: 'failed', failing: [run('coder-loop', 'failure')], reason: '1 check(s) failed' },
    ],
    [
      "beside green CI, a green one called like the loop's own passes with it",
      [run('test', 'success'), run('coder-loop', 'success')],
      [],
      { verdict: 'passed', checks: [run('test', 'success'), run('coder-loop', 'success')] },
    ],
  ])('%s', (_name, checks, requiredChecks, expected) => {
    expect(evaluateGate(checks, { requiredChecks })).toEqual(expected);
  });
});

describe('touchedLockedItems', () => {
  const config = ConfigSchema.parse({ locked: ['infra/**', '.github/**'] });
  const plans = config.plansDir.replace(/\/+$/, '');
  const found = findPlanFiles(
    [
      `${plans}/A/01_Master Plan/01_Checklist.md`,
      '.kiro/specs/auth/tasks.md',
      'specs/001/tasks.md',
      '.taskmaster/tasks/tasks.json',
      'openspec/changes/export/tasks.md',
    ],
    defaultPlanGlobs(plans),
  );
  it.each<[string, string[], { locked: string[]; planDocuments: string[] }]>([
    ['nothing locked', ['src/a.ts'], { locked: [], planDocuments: [] }],
    [
      'locked paths, dot folders included',
      ['infra/main.tf', '.github/workflows/ci.yml', 'src/a.ts'],
      { locked: ['infra/main.tf', '.github/workflows/ci.yml'], planDocuments: [] },
    ],
    [
      'every file under plansDir',
      [`${plans}/A/01_Master Plan/01_Checklist.md`, `${plans}/B/00_context.md`],
      {
        locked: [],
        planDocuments: [`${plans}/A/01_Master Plan/01_Checklist.md`, `${plans}/B/00_context.md`],
      },
    ],
    [
      "every kind's folder: tasks, documents and sidecar alike",
      [
        '.kiro/specs/auth/tasks.md',
        '.kiro/specs/auth/coder-loop/Master_Log.md',
        '.kiro/steering/tech.md',
        'specs/001/contracts/api.yaml',
        '.taskmaster/docs/prd.txt',
        'openspec/specs/profile/spec.md',
      ],
      {
        locked: [],
        planDocuments: [
          '.kiro/specs/auth/tasks.md',
          '.kiro/specs/auth/coder-loop/Master_Log.md',
          '.kiro/steering/tech.md',
          'specs/001/contracts/api.yaml',
          '.taskmaster/docs/prd.txt',
          'openspec/specs/profile/spec.md',
        ],
      },
    ],
    [
      'a folder no plan was found in is not',
      ['specs/api/openapi.yaml', 'docs/.kiro/steering/tech.md'],
      { locked: [], planDocuments: [] },
    ],
  ])('%s', (_name, files, expected) => {
    expect(touchedLockedItems(files, config, found)).toEqual(expected);
  });

  it('what the loop wrote is not', () => {
    const mine = `${plans}/A/01_Master Plan/01_Checklist.md`;
    expect(
      touchedLockedItems([mine, 'specs/001/spec.md'], config, found, (p) => p === mine),
    ).toEqual({
      locked: [],
      planDocuments: ['specs/001/spec.md'],
    });
  });
});
