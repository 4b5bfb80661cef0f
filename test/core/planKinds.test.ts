import {
  defaultPlanGlobs,
  findPlanFiles,
  namePlans,
  resolvePlan,
  validateKindContext,
} from '../../src/core/plan/kinds/index.js';

const paths = [
  'README.md',
  'docs/plans/Launch/01_Master Plan/01_Checklist.md',
  'docs/plans/Launch/01_Master Plan/02_Context.md',
  'specs/001-foundation/spec.md',
  'specs/001-foundation/plan.md',
  'specs/001-foundation/tasks.md',
  '.specify/specs/002-search/tasks.md',
  '.kiro/specs/user-auth/tasks.md',
  '.kiro/specs/user-auth/requirements.md',
  '.kiro/specs/user-auth/design.md',
  '.kiro/specs/001-foundation/tasks.md',
  '.taskmaster/tasks/tasks.json',
  'src/tasks.md',
];

describe('plan discovery (SPEC §2b)', () => {
  const files = findPlanFiles(paths, defaultPlanGlobs('docs/plans'));

  it('finds every kind where its tool writes it, nothing else', () => {
    expect(files.map((f) => [f.kind, f.path, f.sidecar])).toEqual([
      ['kiro', '.kiro/specs/001-foundation/tasks.md', '.kiro/specs/001-foundation/coder-loop'],
      ['kiro', '.kiro/specs/user-auth/tasks.md', '.kiro/specs/user-auth/coder-loop'],
      ['speckit', '.specify/specs/002-search/tasks.md', '.specify/specs/002-search/coder-loop'],
      ['taskmaster', '.taskmaster/tasks/tasks.json', '.taskmaster/tasks/coder-loop'],
      ['coder', 'docs/plans/Launch/01_Master Plan/01_Checklist.md', 'docs/plans/Launch'],
      ['speckit', 'specs/001-foundation/tasks.md', 'specs/001-foundation/coder-loop'],
    ]);
  });

  it('names plans by folder or tag; two with one name are named with both paths', () => {
    const tags = new Map([['.taskmaster/tasks/tasks.json', ['master', 'feature-x']]]);
    const { plans, problems } = namePlans(files, tags);
    expect(plans.map((p) => p.name).sort()).toEqual(
      [
        '001-foundation',
        '001-foundation',
        '002-search',
        'Launch',
        'feature-x',
        'master',
        'user-auth',
      ].sort(),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        message: expect.stringContaining(
          '.kiro/specs/001-foundation/tasks.md and specs/001-foundation/tasks.md',
        ),
      }),
    ]);
    const refused = resolvePlan(plans, '001-foundation');
    expect(refused).toEqual({ error: expect.stringContaining('specs/001-foundation/tasks.md') });
    expect(resolvePlan(plans, 'specs/001-foundation/tasks.md')).toEqual({
      plan: expect.objectContaining({ kind: 'speckit', name: '001-foundation' }),
    });
    expect(resolvePlan(plans, '.taskmaster/tasks/tasks.json#feature-x')).toEqual({
      plan: expect.objectContaining({
        tag: 'feature-x',
        sidecar: '.taskmaster/tasks/coder-loop/feature-x',
      }),
    });
    expect(resolvePlan(plans, 'nope')).toEqual({ error: expect.stringContaining('Plans here:') });
  });

  it('checks each kind has its context, with file and fix', () => {
    const has = (p: string): boolean => paths.includes(p);
    const byPath = (p: string) => files.find((f) => f.path === p)!;
    expect(validateKindContext(byPath('specs/001-foundation/tasks.md'), has)).toEqual([]);
    expect(
      validateKindContext(byPath('.specify/specs/002-search/tasks.md'), has).map((p) => p.message),
    ).toEqual([
      "spec-kit's spec is missing: .specify/specs/002-search/spec.md.",
      "spec-kit's plan is missing: .specify/specs/002-search/plan.md.",
    ]);
    expect(validateKindContext(byPath('.kiro/specs/user-auth/tasks.md'), has)).toEqual([]);
    expect(validateKindContext(byPath('.kiro/specs/001-foundation/tasks.md'), has)).toHaveLength(2);
    expect(
      validateKindContext(byPath('.taskmaster/tasks/tasks.json'), has, '{\n  "master": {\n}'),
    ).toEqual([expect.objectContaining({ line: 3, path: '.taskmaster/tasks/tasks.json' })]);
  });
});
