import { planSkeleton, validateContext, type PlanFiles } from '../../src/core/index.js';

function plan(files: Record<string, string>, extraPaths: string[] = []): PlanFiles {
  return {
    name: 'Example',
    dir: 'docs/plans/Example',
    paths: [...Object.keys(files), ...extraPaths].sort(),
    files: new Map(Object.entries(files)),
  };
}

const skeleton = Object.fromEntries(planSkeleton('Example', '2026-11-22'));

describe('validateContext ("Context valid?")', () => {
  it('accepts the init skeleton with no problem at all', () => {
    const context = validateContext(plan(skeleton));
    expect(context.problems).toEqual([]);
    expect(context.valid).toBe(true);
    expect(context.current?.number).toBe(1);
    expect(context.taskPlan).toBe('Task Plans/Phase 1 - Foundation.md');
    expect(context.codemap).toBe('01_Master Plan/10_Master_Codemap.mmd');
    expect(context.requirements).toEqual(['01_Master Plan/03_Requirements_Core.md']);
  });

  it('names each missing file with its path', () => {
    const context = validateContext(plan({}));
    expect(context.valid).toBe(false);
    expect(context.problems.filter((p) => p.severity === 'error').map((p) => p.path)).toEqual([
      'docs/plans/Example/00_context.md',
      'docs/plans/Example/01_Master Plan/01_Checklist.md',
    ]);
  });

  it('needs a task plan for the current phase, and only warns for later ones', () => {
    const files = { ...skeleton };
    delete files['Task Plans/Phase 1 - Foundation.md'];
    delete files['Task Plans/Phase 2 - Hardening.md'];
    const context = validateContext(plan(files));
    expect(context.valid).toBe(false);
    expect(
      context.problems
        .filter((p) => p.message.includes('task plan'))
        .map((p) => [p.severity, p.path]),
    ).toEqual([
      ['error', 'docs/plans/Example/Task Plans/Phase 1.md'],
      ['warning', 'docs/plans/Example/Task Plans/Phase 2.md'],
    ]);
  });

  it('refuses two task plans for one phase', () => {
    const context = validateContext(plan({ ...skeleton, 'Task Plans/01_Other.md': '# x\n' }));
    expect(context.valid).toBe(false);
    expect(context.problems[0]!.message).toMatch(/^Phase 1 has 2 task plans/);
  });

  it('carries checklist problems with their lines', () => {
    const checklist = '# C\n\n## Phase 1\n- [ ] 1.1 a\n## Phase 2\n- [ ] 1.1 b\n';
    const context = validateContext(
      plan({ ...skeleton, '01_Master Plan/01_Checklist.md': checklist }),
    );
    expect(context.valid).toBe(false);
    expect(context.problems[0]).toMatchObject({
      path: 'docs/plans/Example/01_Master Plan/01_Checklist.md',
      line: 6,
      severity: 'error',
    });
  });

  it('reports broken checkpoint markers and an empty context', () => {
    const broken = validateContext(
      plan({ ...skeleton, '00_context.md': '# C\n\n<!-- coder-loop:checkpoint -->\n' }),
    );
    expect(broken.problems[0]).toMatchObject({ line: 3, severity: 'error' });
    const empty = validateContext(plan({ ...skeleton, '00_context.md': '  \n' }));
    expect(empty.problems[0]!.message).toBe('00_context.md is empty.');
  });

  it('warns about missing guidance without failing', () => {
    const files = { ...skeleton };
    delete files['01_Master Plan/10_Master_Codemap.mmd'];
    delete files['01_Master Plan/03_Requirements_Core.md'];
    delete files['Reports/01_Master_Log.md'];
    const context = validateContext(plan(files));
    expect(context.valid).toBe(true);
    expect(context.problems.map((p) => p.severity)).toEqual(['warning', 'warning', 'warning']);
  });

  it('warns about task plans no phase uses', () => {
    const context = validateContext(
      plan({ ...skeleton, 'Task Plans/Phase 9.md': '', 'Task Plans/Notes.md': '' }),
    );
    expect(context.valid).toBe(true);
    expect(context.problems.map((p) => p.path)).toEqual([
      'docs/plans/Example/Task Plans/Phase 9.md',
      'docs/plans/Example/Task Plans/Notes.md',
    ]);
  });

  it('refuses a plan name that escapes the plans folder', () => {
    const context = validateContext({ ...plan(skeleton), name: '../x' });
    expect(context.valid).toBe(false);
    expect(context.problems[0]!.message).toBe(
      '"../x" cannot be a plan name: the plan name contains a path separator (`/` or `\\`).',
    );
  });
});
