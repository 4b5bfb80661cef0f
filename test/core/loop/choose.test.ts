import {
  afterLock,
  choosePlan,
  phaseToStart,
  releaseTarget,
  type PlanContext,
} from '../../../src/core/index.js';

/** The start of a phase, decided: Start → which plan → Context valid? → current phase → Locked?. */

describe('Start → the plan', () => {
  it.each<[string, string[], string | undefined, string]>([
    ['no plan at all → a reply that says how to make one', [], undefined, 'no-plan'],
    ['several plans, none named → a reply listing them', ['A', 'B'], undefined, 'choose-plan'],
    ['a name that is no plan → a reply listing the plans', ['A'], 'Z', 'no-plan'],
    ['the only plan', ['A'], undefined, 'plan A'],
    ['the named plan', ['A', 'B'], 'B', 'plan B'],
    [
      'two plans with one slug → plan required, nothing written',
      ['Café', 'Cafe'],
      'Cafe',
      'plan-required',
    ],
  ])('%s', (_name, plans, requested, expected) => {
    const chosen = choosePlan('docs/plans', plans, requested);
    expect('plan' in chosen ? `plan ${chosen.plan}` : chosen.outcome.state).toBe(expected);
  });
});

describe('Context valid? → the current phase', () => {
  it('plan required: a reply naming each problem; complete: a reply; else the current phase', () => {
    const invalid = phaseToStart('Example', {
      valid: false,
      problems: [{ severity: 'error', path: 'x.md', line: 3, message: 'Broken.', fix: 'Fix it.' }],
    } as unknown as PlanContext);
    expect('reply' in invalid && invalid.outcome).toMatchObject({
      state: 'plan-required',
      node: 'ValidateContext',
    });
    expect('reply' in invalid && invalid.reply).toContain('x.md:3');
    const complete = phaseToStart('Example', {
      valid: true,
      problems: [],
    } as unknown as PlanContext);
    expect('reply' in complete && complete.outcome.state).toBe('plan-complete');
    const phase = { number: 2, name: 'Two' };
    const current = phaseToStart('Example', {
      valid: true,
      problems: [],
      current: phase,
    } as unknown as PlanContext);
    expect('context' in current && current.context.current).toBe(phase);
  });
});

describe('Locked? after the atomic ref creation', () => {
  it.each<[string, Parameters<typeof afterLock>[0], ReturnType<typeof afterLock>]>([
    ['created the lock → take', { acquired: true, pr: false, via: 'command', comment: 1 }, 'take'],
    [
      'held by another command → locked',
      { acquired: false, pr: true, holder: 2, comment: 1, via: 'command' },
      'locked',
    ],
    [
      'held, no marker to tell → locked',
      { acquired: false, pr: false, comment: 1, via: 'command' },
      'locked',
    ],
    [
      'held by this command, PR open → done (a redelivery)',
      { acquired: false, pr: true, holder: 1, comment: 1, via: 'command' },
      'done',
    ],
    [
      'held by this command, no PR yet → finish its work',
      { acquired: false, pr: false, holder: 1, comment: 1, via: 'command' },
      'finish',
    ],
    [
      'a command without a comment id never matches → locked',
      { acquired: false, pr: true, via: 'command' },
      'locked',
    ],
    ['a repeated label → done', { acquired: false, pr: false, via: 'label' }, 'done'],
  ])('%s', (_name, lock, expected) => {
    expect(afterLock(lock)).toBe(expected);
  });
});

describe("/coder release: which locks are the issue's", () => {
  it.each<[string, string, Parameters<typeof releaseTarget>[2], ReturnType<typeof releaseTarget>]>([
    ["the issue's quick branch", 'coder/quick/issue-7', 'unread', 'release'],
    ['a loop PR whose marker names the issue', 'coder/a/phase-1', { issue: 7 }, 'release'],
    ['a loop PR of another issue', 'coder/a/phase-1', { issue: 8 }, 'keep'],
    ['no loop PR: ask the start commit', 'coder/a/phase-1', 'unread', 'read-commit'],
    ['no marker anywhere', 'coder/a/phase-1', undefined, 'keep'],
    ["another issue's quick branch", 'coder/quick/issue-8', undefined, 'keep'],
  ])('%s', (_name, branch, marker, expected) => {
    expect(releaseTarget(7, branch, marker)).toBe(expected);
  });
});
