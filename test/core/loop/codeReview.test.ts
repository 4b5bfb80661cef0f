import {
  codeReview,
  DEFAULT_CONFIG,
  type Config,
  type PullSnapshot,
  type ReviewFacts,
} from '../../../src/core/index.js';
import { ci, config, effects, HEAD, OLD, snap, state, TEST_FILE } from './pullFixtures.js';

describe('Code Review', () => {
  const review = (over: Partial<ReviewFacts> = {}): ReviewFacts => ({
    login: 'rev',
    permission: 'write',
    kind: 'approval',
    commit: HEAD,
    ...over,
  });
  const atReview = {
    checks: [ci('success')],
    own: { node: 'CodeReview' as const, conclusion: null },
    files: TEST_FILE,
  };
  it.each<[string, PullSnapshot, Config, ReviewFacts, string, string[]]>([
    [
      'changes requested, checks not read → read them',
      snap({ checks: undefined }),
      DEFAULT_CONFIG,
      review({ kind: 'changes' }),
      'need checks',
      ['need checks'],
    ],
    [
      'changes requested → back to TDD',
      snap(atReview),
      DEFAULT_CONFIG,
      review({ kind: 'changes' }),
      'changes-requested @TDD',
      [
        'check TDD',
        'reply: **Changes requested** on pull request #2 by @rev. Back to implementation.',
      ],
    ],
    [
      'changes requested with an agent → review-fix round 1',
      snap(atReview),
      config({ agent: { command: 'x' } }),
      review({ kind: 'changes' }),
      'changes-requested @TDD',
      [
        'check TDD',
        'reply: **Changes requested** on pull request #2 by @rev. Back to implementation.',
        'marker attempts=0 rounds=1',
        'dispatch review-fix #1',
      ],
    ],
    [
      'changes requested again on the same head → no second hand-off',
      snap({
        ...atReview,
        marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1, reviewRounds: [HEAD] },
      }),
      config({ agent: { command: 'x' } }),
      review({ kind: 'changes' }),
      'changes-requested @TDD',
      [
        'check TDD',
        'reply: **Changes requested** on pull request #2 by @rev. Back to implementation.',
      ],
    ],
    [
      'changes requested of an older head (a replayed review) → not counted, no round spent',
      snap({
        ...atReview,
        marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1, reviewRounds: [OLD] },
      }),
      config({ agent: { command: 'x', maxReviewRounds: 1 } }),
      review({ kind: 'changes', commit: OLD }),
      'ignored @-',
      [],
    ],
    [
      'changes requested past maxReviewRounds → Escalate',
      snap({
        ...atReview,
        marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1, reviewRounds: [OLD] },
      }),
      config({ agent: { command: 'x', maxReviewRounds: 1 } }),
      review({ kind: 'changes' }),
      'escalated @Escalate',
      [
        'label',
        'request reviews []',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): 1 review round handed to the coding agent (the limit is 1), and @rev asked for changes again.',
      ],
    ],
    [
      'approval of an old head → says so',
      snap({ checks: undefined }),
      DEFAULT_CONFIG,
      review({ commit: OLD }),
      'stale-approval @CodeReview',
      [
        `reply: The approval on pull request #2 is for \`bbbbbbb\`, but the head is now \`aaaaaaa\`. Nothing was done; approve the current head.`,
      ],
    ],
    [
      'approval of the head before the completion commit, the phase complete → nothing',
      snap({ checks: [ci('success')], own: { node: 'End', conclusion: 'success' } }),
      DEFAULT_CONFIG,
      review({ commit: OLD }),
      'ignored @-',
      [],
    ],
    [
      'approval before CI passed → noted',
      snap({ checks: [ci(null)] }),
      DEFAULT_CONFIG,
      review(),
      'waiting-for-ci @Verification',
      [
        'reply: Approval on pull request #2 noted, but CI has not passed on its head yet. The phase completes when it does.',
      ],
    ],
    [
      'approval while completing → nothing',
      snap({ checks: [ci('success')], own: { node: 'FinalVerify', conclusion: null } }),
      DEFAULT_CONFIG,
      review(),
      'ignored @-',
      [],
    ],
    [
      'approval at Code Review → Touched Locked Items?',
      snap(atReview),
      DEFAULT_CONFIG,
      review(),
      'approved @LockCheck2',
      [],
    ],
    [
      'escalated: a non-architect approval → nothing',
      snap({ ...atReview, escalated: true }),
      DEFAULT_CONFIG,
      review({ architect: false }),
      'escalated @Escalate',
      [],
    ],
    [
      'escalated: changes requested → nothing',
      snap({ ...atReview, escalated: true }),
      DEFAULT_CONFIG,
      review({ kind: 'changes', architect: true }),
      'escalated @Escalate',
      [],
    ],
    [
      'escalated: an architect approves a red head → the escalation stays',
      snap({ checks: [ci('failure')], escalated: true }),
      DEFAULT_CONFIG,
      review({ architect: true }),
      'escalated @Escalate',
      [
        "reply: @rev's approval on pull request #2 is noted, but CI has not passed on its head (or a task of the phase lacks evidence: Passes Spec?), so the escalation stays. Push a fix, then `/coder resume`.",
      ],
    ],
    [
      'escalated: an architect approves a green head → the approvals',
      snap({
        checks: [ci('success')],
        files: TEST_FILE,
        escalated: true,
        own: { node: 'Escalate', conclusion: 'failure' },
      }),
      DEFAULT_CONFIG,
      review({ architect: true }),
      'approved @LockCheck2',
      [],
    ],
  ])('%s', (_name, s, c, r, expectedState, expectedEffects) => {
    const decision = codeReview(s, c, r);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});
