import {
  approvals,
  closed,
  codeReview,
  debugFix,
  DEFAULT_CONFIG,
  finalVerification,
  parseConfig,
  pushed,
  resume,
  retry,
  verification,
  type Approval,
  type CheckResult,
  type Config,
  type Decision,
  type Effect,
  type PullSnapshot,
  type ReviewFacts,
} from '../../../src/core/index.js';

/**
 * The PR side's decisions, table by table: a snapshot in, the exact outcome and effects out —
 * every node and edge of the flowchart from Verification to Final Verification, with no GitHub.
 */

const HEAD = 'a'.repeat(40);
const OLD = 'b'.repeat(40);

function config(input: Record<string, unknown> = {}): Config {
  const { config: parsed, problems } = parseConfig(input);
  if (!parsed) throw new Error(problems.map((p) => p.message).join('; '));
  return parsed;
}

function snap(over: Partial<PullSnapshot> & { escalated?: boolean } = {}): PullSnapshot {
  const { escalated = false, ...rest } = over;
  return {
    repo: { owner: 'o', repo: 'r' },
    repoUrl: 'https://github.com/o/r',
    pr: {
      number: 2,
      url: 'https://github.com/o/r/pull/2',
      body: '',
      head: { sha: HEAD, ref: 'coder/example/phase-1' },
      escalated,
    },
    marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1 },
    checks: [],
    ...rest,
  };
}

const ci = (conclusion: string | null, name = 'test'): CheckResult => ({
  name,
  status: conclusion === null ? 'in_progress' : 'completed',
  conclusion,
  url: `https://ci/${name}`,
});
const TEST_FILE = [{ path: 'test/a.test.ts', additions: 1, deletions: 0 }];
const CODE_ONLY = [{ path: 'src/a.ts', additions: 1, deletions: 0 }];

/** An effect in one short line, so the tables read as the flowchart does. */
function line(e: Effect): string {
  switch (e.kind) {
    case 'check':
      return `check ${e.view.node}${e.conclusion ? ` ${e.conclusion}` : ''}${e.next !== undefined ? ` next=${e.next}` : ''}${e.when ? ` (${e.when})` : ''}`;
    case 'reply':
      return `reply${e.to ? ` to #${e.to}` : ''}${e.when ? ` (${e.when})` : ''}: ${e.body.split('\n')[0]}`;
    case 'marker':
      return `marker attempts=${e.marker.attempts?.length ?? 0} rounds=${e.marker.reviewRounds?.length ?? 0}${e.marker.grew ? ' grew' : ''}`;
    case 'requestReviews':
      return `request reviews [${e.names.join(', ')}]`;
    case 'dispatch':
      return `dispatch ${e.payload.node} #${e.payload.attempt}`;
    case 'complete':
      return `complete by @${e.approver}`;
    case 'deleteBranch':
      return `deleteBranch${e.when ? ` (${e.when})` : ''}`;
    default:
      return e.kind;
  }
}

function effects(decision: Decision): string[] {
  if ('need' in decision) return [`need ${decision.need}`];
  return decision.effects.map(line);
}
const state = (decision: Decision) =>
  'need' in decision
    ? `need ${decision.need}`
    : `${decision.outcome.state} @${decision.outcome.node ?? '-'}`;

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
      'passed without a test change → Write failing test',
      snap({ checks: [ci('success')], files: CODE_ONLY }),
      DEFAULT_CONFIG,
      'failed @Debug',
      [
        'marker attempts=1 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      ],
    ],
    [
      'passed with a test → Code Review, then the approvals',
      snap({ checks: [ci('success'), ci('neutral', 'lint')], files: TEST_FILE }),
      config({ reviewers: ['rev'] }),
      'code-review @CodeReview',
      [
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
      'passed in quick mode → End, success',
      snap({ checks: [ci('success')], marker: { mode: 'quick', issue: 1 } }),
      DEFAULT_CONFIG,
      'passed @End',
      [
        'check End success',
        'reply: **CI passed** on quick pull request #2: ready to review and merge.',
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
      snap({ checks: [ci('success')], files: TEST_FILE }),
      DEFAULT_CONFIG,
    );
    expect('then' in passed && passed.then).toBe('approvals');
    const failed = verification(snap({ checks: [ci('failure')] }), DEFAULT_CONFIG);
    expect('then' in failed && failed.then).toBeFalsy();
  });

  it('`/coder retry` evaluates a reported head again; escalated, it says so on the thread', () => {
    const reported = snap({
      checks: [ci('failure')],
      own: { node: 'Debug', conclusion: 'failure' },
    });
    expect(effects(retry(reported, DEFAULT_CONFIG, 9))).toContain('check Debug failure');
    expect(effects(retry(snap({ escalated: true }), DEFAULT_CONFIG, 9))).toEqual([
      'reply to #9: **Escalated to architect** (pull request #2): still escalated.',
    ]);
  });
});

describe('Debug & Fix with a coding agent', () => {
  const agent = config({ agent: { command: './agent.sh' } });
  it.each<[string, PullSnapshot, string[]]>([
    [
      'attempt 1 of 3 → hand-off debug-fix #1',
      snap({ checks: [ci('failure')] }),
      [
        'marker attempts=1 rounds=0',
        'check Debug failure',
        'reply: **CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
        'dispatch debug-fix #1',
      ],
    ],
    [
      'attempt 3 of 3 → escalation, no hand-off',
      snap({
        checks: [ci('failure')],
        marker: {
          mode: 'plan',
          plan: 'Example',
          phase: 1,
          issue: 1,
          attempts: [
            { sha: OLD, checks: [] },
            { sha: 'c'.repeat(40), checks: [] },
          ],
        },
      }),
      [
        'marker attempts=3 rounds=0',
        'label',
        'request reviews []',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): 3 failed CI attempts (the limit is 3).',
      ],
    ],
  ])('%s', (_name, s, expected) => {
    expect(effects(verification(s, agent))).toEqual(expected);
  });

  it('a failed agent run on the same head is one more attempt, once per run', () => {
    const first = debugFix(snap(), agent, [], 'no change', 'tdd#1');
    expect(effects(first)).toContain('dispatch debug-fix #1');
    const marker = 'need' in first ? undefined : first.effects.find((e) => e.kind === 'marker');
    const again = debugFix(
      snap({ marker: (marker as Effect & { kind: 'marker' }).marker }),
      agent,
      [],
      'no change',
      'debug-fix#1',
    );
    expect(effects(again)).toContain('dispatch debug-fix #2');
    // The same run reported twice counts once.
    const twice = debugFix(
      snap({ marker: (marker as Effect & { kind: 'marker' }).marker }),
      agent,
      [],
      'no change',
      'tdd#1',
    );
    expect(effects(twice)).toContain('dispatch debug-fix #1');
  });
});

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
        "reply: @rev's approval on pull request #2 is noted, but CI has not passed on its head (or it changes no test file), so the escalation stays. Push a fix, then `/coder resume`.",
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

describe('Touched Locked Items? → Escalate or Mark [x]', () => {
  const locked = config({ architects: ['arch'], locked: ['src/core/**'] });
  const files = [...TEST_FILE, { path: 'src/core/x.ts', additions: 1, deletions: 0 }];
  const a = (login: string, over: Partial<Approval> = {}): Approval => ({
    login,
    permission: 'write',
    pushed: false,
    ...over,
  });
  it.each<[string, PullSnapshot, Config, Approval[], string, string[]]>([
    [
      'no approval → nothing',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [],
      'code-review @CodeReview',
      [],
    ],
    [
      'a writer who pushed nothing → Mark [x]',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'only a writer who pushed → does not count, says why',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('dev', { pushed: true })],
      'approval-not-counted @CodeReview',
      [
        'reply: The approval on pull request #2 does not count: @dev pushed commits to this branch, and an approval must come from someone else (config `allowSelfApproval`). Nothing was done; an approval from another person with write access completes the phase.',
      ],
    ],
    [
      'allowSelfApproval → the pusher counts',
      snap({ files: TEST_FILE }),
      config({ allowSelfApproval: true }),
      [a('dev', { pushed: true })],
      'completing @FinalVerify',
      ['complete by @dev'],
    ],
    [
      'a read-only approval → nothing, not even a reply',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('reader', { permission: 'read' })],
      'code-review @CodeReview',
      [],
    ],
    [
      'locked paths, architects unknown → ask',
      snap({ files }),
      locked,
      [a('dev')],
      'need architects',
      ['need architects'],
    ],
    [
      'locked paths, no architect → Escalate',
      snap({ files }),
      locked,
      [a('dev', { architect: false })],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): locked paths touched, and @dev is not an architect.',
      ],
    ],
    [
      'locked paths, the first approval not an architect, the second is → Mark [x] by the architect',
      snap({ files }),
      locked,
      [a('dev', { architect: false }), a('arch', { architect: true })],
      'completing @FinalVerify',
      ['complete by @arch'],
    ],
    [
      'escalated head, the architect approves → unlabel, Mark [x]',
      snap({ files, escalated: true }),
      locked,
      [a('arch', { architect: true })],
      'completing @FinalVerify',
      ['unlabel', 'complete by @arch'],
    ],
    [
      'a plan document changed → plan change needed',
      snap({
        files: [
          ...TEST_FILE,
          { path: 'docs/plans/Example/Task Plans/Phase 1.md', additions: 1, deletions: 0 },
        ],
      }),
      config({ architects: ['arch'] }),
      [a('dev', { architect: false })],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): plan change needed, and @dev is not an architect.',
      ],
    ],
  ])('%s', (_name, s, c, found, expectedState, expectedEffects) => {
    const decision = approvals(s, c, found);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});

describe('Final Verification', () => {
  it('autoMerge: the merge, then the texts for either of its answers', () => {
    const s = snap({ checks: [ci('success')], own: { node: 'FinalVerify', conclusion: null } });
    expect(effects(finalVerification(s, config({ autoMerge: true })))).toEqual([
      'merge',
      'check End success (merged)',
      'reply (merged): **Phase 1 complete** (`Example`, pull request #2, merged). That was the last phase: the plan is complete once this is merged.',
      'check End success (not-merged)',
      'reply (not-merged): **Phase 1 complete** (`Example`, pull request #2). That was the last phase: the plan is complete once this is merged.',
      'deleteBranch (merged)',
    ]);
  });

  it('autoMerge with deleteBranchOnMerge: false keeps the branch', () => {
    const s = snap({ checks: [ci('success')], own: { node: 'FinalVerify', conclusion: null } });
    const c = config({ autoMerge: true, deleteBranchOnMerge: false });
    expect(effects(finalVerification(s, c))).not.toContain('deleteBranch (merged)');
  });
});

describe('the PR closed, pushed; /coder resume', () => {
  it.each<[string, Decision, string, string[]]>([
    [
      'closed unmerged → the lock freed',
      closed(snap(), DEFAULT_CONFIG, false),
      'closed @-',
      [
        'deleteBranch',
        'reply: Pull request #2 was closed without merging; branch `coder/example/phase-1` deleted, so the phase is free again.',
      ],
    ],
    [
      'merged → branch deleted',
      closed(snap(), DEFAULT_CONFIG, true),
      'merged @End',
      ['deleteBranch', 'reply: Pull request #2 merged; branch `coder/example/phase-1` deleted.'],
    ],
    [
      'merged, deleteBranchOnMerge: false → kept',
      closed(snap(), config({ deleteBranchOnMerge: false }), true),
      'merged @End',
      ['reply: Pull request #2 merged.'],
    ],
    [
      'pushed, checks not read → read them',
      pushed(snap({ checks: undefined }), DEFAULT_CONFIG),
      'need checks',
      ['need checks'],
    ],
    [
      'pushed to a new head → Verification shown',
      pushed(snap(), DEFAULT_CONFIG),
      'verification @Verification',
      ['check Verification'],
    ],
    [
      'pushed to a head already shown → nothing',
      pushed(snap({ own: { node: 'Verification', conclusion: null } }), DEFAULT_CONFIG),
      'verification @Verification',
      [],
    ],
    [
      'quick PR outgrew the limits → one proposal',
      pushed(
        snap({
          marker: { mode: 'quick', issue: 3 },
          own: { node: 'QuickMode', conclusion: null },
          files: [...TEST_FILE, ...CODE_ONLY],
        }),
        DEFAULT_CONFIG,
      ),
      'quick-grew @QuickMode',
      [
        'marker attempts=0 rounds=0 grew',
        'reply: Quick pull request #2 has grown to 2 file(s) and 2 changed lines (quick mode: at most 1 file(s), fewer than 50 lines). Consider plan mode: put the work into a plan phase and run `/coder next`.',
      ],
    ],
    [
      'quick PR that grew before → no second proposal',
      pushed(
        snap({
          marker: { mode: 'quick', issue: 3, grew: true },
          own: { node: 'QuickMode', conclusion: null },
          files: [...TEST_FILE, ...CODE_ONLY],
        }),
        DEFAULT_CONFIG,
      ),
      'verification @Verification',
      [],
    ],
    [
      'resume, not escalated → says so on the thread',
      resume(snap(), 9),
      'not-escalated @-',
      ['reply to #9: Pull request #2 is not escalated; nothing to resume.'],
    ],
    [
      'resume, escalated → unlabel, attempts and rounds reset',
      resume(snap({ escalated: true }), 9),
      'resumed @Verification',
      [
        'unlabel',
        'marker attempts=0 rounds=0',
        'reply: Resumed pull request #2: the escalation is cleared, the attempt count starts again, and the gate is evaluated now.',
      ],
    ],
  ])('%s', (_name, decision, expectedState, expectedEffects) => {
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});
