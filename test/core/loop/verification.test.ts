import {
  DEFAULT_CONFIG,
  verification,
  type Config,
  type PullSnapshot,
} from '../../../src/core/index.js';
import {
  CODE_ONLY,
  ci,
  config,
  effects,
  HEAD,
  OLD,
  snap,
  state,
  TEST_FILE,
} from './pullFixtures.js';

describe('Verification (CI is the gate)', () => {
  const escalate3 = [
    'marker attempts=3 rounds=0',
    'label',
    'request reviews [archie]',
    'check Escalate failure',
    'reply: **Escalated to architect** (pull request #2): 3 failed CI attempts (the limit is 3).',
  ];
  const twoFailed = {
    attempts: [
      { sha: 'c'.repeat(40), checks: [] },
      { sha: OLD, checks: [] },
    ],
  };
  it.each<[string, PullSnapshot, Config, string, string[]]>([
    [
      'checks not read yet → read them',
      snap({ checks: undefined }),
      DEFAULT_CONFIG,
      'need checks',
      ['need checks'],
    ],
    [
      'escalated → nothing advances',
      snap({ escalated: true }),
      DEFAULT_CONFIG,
      'escalated @Escalate',
      [],
    ],
    [
      'nothing reported → pending, shown once',
      snap(),
      DEFAULT_CONFIG,
      'pending @Verification',
      ['check Verification'],
    ],
    [
      'pending with the check shown → nothing',
      snap({ checks: [ci(null)], own: { node: 'Verification', conclusion: null } }),
      DEFAULT_CONFIG,
      'pending @Verification',
      [],
    ],
    [
      'requiredChecks missing → pending',
      snap({ checks: [ci('success', 'lint')] }),
      config({ requiredChecks: ['test'] }),
      'pending @Verification',
      ['check Verification'],
    ],
    [
      'failed → Debug & Fix attempt 1',
      snap({ checks: [ci('failure')] }),
      DEFAULT_CONFIG,
      'failed @Debug',
      [
        'marker attempts=1 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      ],
    ],
    [
      'failed, already reported on this head → nothing',
      snap({ checks: [ci('failure')], own: { node: 'Debug', conclusion: 'failure' } }),
      DEFAULT_CONFIG,
      'failed @Debug',
      [],
    ],
    [
      'failed at maxRetries → Escalate',
      snap({
        checks: [ci('failure')],
        marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1, ...twoFailed },
      }),
      config({ architects: ['archie'] }),
      'escalated @Escalate',
      escalate3,
    ],
    [
      'failed with the phase budget of failed attempts spent → Escalate with the figures',
      snap({ checks: [ci('failure')] }),
      config({ architects: ['archie'], budget: { failedAttempts: { phase: 1 } } }),
      'escalated @Escalate',
      [
        'marker attempts=1 rounds=0',
        'label',
        'request reviews [archie]',
        'check Escalate failure',
        "reply: **Escalated to architect** (pull request #2): The phase's budget of failed attempts is spent: 1 of 1.",
      ],
    ],
    [
      'failed with the run budget of agent cost spent → Escalate with the figures',
      snap({
        checks: [ci('failure')],
        marker: {
          mode: 'plan',
          plan: 'Example',
          phase: 1,
          issue: 1,
          agentRuns: [{ node: 'tdd', sha: HEAD, minutes: 3, usage: { costUsd: 0.5 } }],
          run: {
            starter: 'alice',
            plan: 'Example',
            totals: { failedAttempts: 0, minutes: 10, costUsd: 1.75 },
          },
        },
      }),
      config({ architects: ['archie'], budget: { costUsd: { phase: 5, run: 2 } } }),
      'escalated @Escalate',
      [
        'marker attempts=1 rounds=0',
        'label',
        'request reviews [archie]',
        'check Escalate failure',
        "reply: **Escalated to architect** (pull request #2): The run's budget of agent cost is spent: $2.25 of $2.00.",
      ],
    ],
    [
      'failed under every budget → Debug & Fix',
      snap({ checks: [ci('failure')] }),
      config({ budget: { failedAttempts: { phase: 2, run: 5 }, agentMinutes: { phase: 60 } } }),
      'failed @Debug',
      [
        'marker attempts=1 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      ],
    ],
    [
      'failed in quick mode past maxRetries → no escalation',
      snap({ checks: [ci('failure')], marker: { mode: 'quick', issue: 1, ...twoFailed } }),
      DEFAULT_CONFIG,
      'failed @Debug',
      [
        'marker attempts=3 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 3 of 3. Back to implementation (Debug & Fix).',
      ],
    ],
    [
      'passed, files not read → read them',
      snap({ checks: [ci('success')] }),
      DEFAULT_CONFIG,
      'need files',
      ['need files'],
    ],
    [
      'passed without a test change → Passes Spec? no: Revise Code ("Write failing test")',
      snap({ checks: [ci('success')], files: CODE_ONLY }),
      DEFAULT_CONFIG,
      'failed @Revise',
      [
        'marker attempts=1 rounds=0 spec=missing',
        'check Revise failure',
        'reply: **Passes Spec? no** on pull request #2 — attempt 1 of 3. Back to implementation (Revise Code): these lack evidence in the pull request.',
      ],
    ],
    [
      'passed with a test → Passes Spec? → Code Review, then the approvals',
      snap({ checks: [ci('success'), ci('neutral', 'lint')], files: TEST_FILE }),
      config({ reviewers: ['rev'] }),
      'code-review @CodeReview',
      [
        'marker attempts=0 rounds=0 spec=passed',
        'check CodeReview',
        'request reviews [rev]',
        'reply: **CI passed** on pull request #2. Code review requested from @rev: an approval completes the phase.',
      ],
    ],
    [
      'passed, Code Review already reported → nothing',
      snap({ checks: [ci('success')], own: { node: 'CodeReview', conclusion: null } }),
      DEFAULT_CONFIG,
      'code-review @CodeReview',
      [],
    ],
    [
      'passed in quick mode → the files, for Touched Locked Items?',
      snap({ checks: [ci('success')], marker: { mode: 'quick', issue: 1 } }),
      DEFAULT_CONFIG,
      'need files',
      ['need files'],
    ],
    [
      'passed in quick mode, nothing locked touched → End, success',
      snap({ checks: [ci('success')], files: CODE_ONLY, marker: { mode: 'quick', issue: 1 } }),
      DEFAULT_CONFIG,
      'passed @End',
      [
        'check End success',
        'reply: **CI passed** on quick pull request #2: ready to review and merge.',
      ],
    ],
    [
      'passed in quick mode, a plan document touched → an architect’s approval is asked',
      snap({
        checks: [ci('success')],
        files: [{ path: 'docs/plans/A/00_context.md', additions: 1, deletions: 0 }],
        marker: { mode: 'quick', issue: 1 },
        approvals: [],
        escalatedBefore: false,
      }),
      DEFAULT_CONFIG,
      'code-review @CodeReview',
      [
        'check CodeReview',
        'request reviews []',
        expect.stringMatching(
          /^reply: \*\*CI passed\*\* on quick pull request #2, but it touches what needs an architect/,
        ),
      ],
    ],
    [
      'passed on the completion commit → Final Verification',
      snap({ checks: [ci('success')], own: { node: 'FinalVerify', next: 2, conclusion: null } }),
      DEFAULT_CONFIG,
      'complete @End',
      [
        'check End success',
        'reply: **Phase 1 complete** (`Example`, pull request #2). Next: `/coder next Example` takes Phase 2 once this pull request is merged.',
      ],
    ],
    [
      'complete already reported → nothing',
      snap({ checks: [ci('success')], own: { node: 'End', conclusion: 'success' } }),
      DEFAULT_CONFIG,
      'complete @End',
      [],
    ],
    [
      'red on the completion commit → back to Debug & Fix',
      snap({ checks: [ci('failure')], own: { node: 'FinalVerify', conclusion: null } }),
      DEFAULT_CONFIG,
      'failed @Debug',
      [
        'marker attempts=1 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      ],
    ],
  ])('%s', (_name, s, c, expectedState, expectedEffects) => {
    const decision = verification(s, c);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });

  it('Code Review goes on to the approvals of the head; a failed head does not', () => {
    const passed = verification(
      snap({ checks: [ci('success')], files: TEST_FILE, approvals: undefined }),
      DEFAULT_CONFIG,
    );
    expect('need' in passed && passed.need).toBe('approvals');
    const failed = verification(
      snap({ checks: [ci('failure')], approvals: undefined }),
      DEFAULT_CONFIG,
    );
    expect('need' in failed && failed.need).toBeFalsy();
  });
});
