import { assessComplexity, describeAssessment } from '../../src/core/index.js';

const limits = { maxFiles: 1, maxLines: 50 };
const triggers = (input: Parameters<typeof assessComplexity>[0]) =>
  assessComplexity(input, limits).reasons.map((r) => `${r.mode}: ${r.trigger}`);

describe('assessComplexity (seed 002 triggers)', () => {
  it('calls a typo fix quick, with its reasons', () => {
    const a = assessComplexity({ title: 'Fix typo in README', body: 'Just a quick one.' }, limits);
    expect(a.mode).toBe('quick');
    expect(a.reasons.map((r) => r.trigger)).toEqual([
      'User explicitly uses "quick", "just", "simple"',
      'Typo fixes, comment updates, simple refactors',
      'No architectural impact',
    ]);
    expect(a.reasons[0]!.evidence).toBe('the text says "Just"');
  });

  it('calls a new feature plan work even when the user says "just"', () => {
    const a = assessComplexity({ title: 'Just implement OAuth login', body: '' }, limits);
    expect(a.mode).toBe('plan');
    expect(a.reasons.map((r) => r.mode)).toEqual(['quick', 'plan']);
  });

  it.each([
    [{ title: 'Redesign the storage architecture' }, 'plan: Refactoring with architectural impact'],
    [{ title: 'Do Phase 2 of the plan' }, 'plan: Checklist item referenced'],
    [{ body: '- [ ] 2.1 endpoint' }, 'plan: Checklist item referenced'],
    [{ title: 'Fix race condition in worker' }, 'plan: Complex bug fixes'],
    [{ title: 'Update the tests for the parser' }, 'plan: Changes requiring test updates'],
    [{ title: 'Touches several files' }, 'plan: Multi-file changes'],
    [{ title: 'Add a log statement to the retry path' }, 'quick: Log statement additions'],
    [{ title: 'Off-by-one in pager' }, 'quick: Simple bug fixes with obvious solutions'],
    [{ title: 'Takes about 5 minutes' }, 'quick: Estimated < 10 minutes'],
    [{ title: 'Takes 2 hours' }, 'plan: Estimated > 10 minutes'],
  ])('%j → %s', (input, expected) => {
    expect(triggers(input)).toContain(expected);
  });

  it.each([
    'Add a comments section with moderation',
    'Build user logging-in flow with password reset emails',
  ])('calls a feature that mentions comments or logging plan work: %s', (title) => {
    const a = assessComplexity({ title }, limits);
    expect(a.mode).toBe('plan');
    expect(a.reasons.filter((r) => r.mode === 'quick')).toEqual([]);
    expect(a.reasons.map((r) => r.trigger)).toContain('New feature implementation');
  });

  it.each([
    ['Update the comment in parser.ts', 'quick: Typo fixes, comment updates, simple refactors'],
    ['Fix outdated code comments', 'quick: Typo fixes, comment updates, simple refactors'],
    ['Add logging to the retry path', 'quick: Log statement additions'],
  ])('keeps the seed trigger for %s', (title, expected) => {
    expect(triggers({ title })).toContain(expected);
    expect(assessComplexity({ title }, limits).mode).toBe('quick');
  });

  it('uses file and line counts against the limits', () => {
    expect(triggers({ title: 'x', files: 3 })).toContain('plan: Multi-file changes');
    expect(triggers({ title: 'x', files: 1, lines: 10 })).toContain(
      'quick: Single file edit (< 50 lines)',
    );
    expect(assessComplexity({ title: 'typo', files: 1, lines: 80 }, limits).mode).toBe('plan');
    expect(assessComplexity({ title: 'typo', files: 2 }, { maxFiles: 2, maxLines: 50 }).mode).toBe(
      'quick',
    );
  });

  it('defaults to plan when nothing says quick', () => {
    const a = assessComplexity({ title: 'Improve onboarding' }, limits);
    expect(a).toEqual({
      mode: 'plan',
      reasons: [
        {
          mode: 'plan',
          trigger: 'No quick-mode trigger',
          evidence: 'nothing marks this as a small, obvious change',
        },
      ],
    });
  });

  it('ignores quoted text and code', () => {
    const body = '> just a quick typo\n\n```\nsimple typo\n```\n';
    expect(assessComplexity({ title: 'Improve onboarding', body }, limits).mode).toBe('plan');
  });

  it('describes itself in markdown', () => {
    expect(describeAssessment(assessComplexity({ title: 'typo' }, limits))).toMatch(
      /^Assessment: \*\*quick mode\*\*\./,
    );
  });
});
