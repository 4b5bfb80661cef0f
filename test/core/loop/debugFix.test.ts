import { debugFix, verification, type Effect, type PullSnapshot } from '../../../src/core/index.js';
import { ci, config, effects, OLD, snap } from './pullFixtures.js';

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

describe('what failed is said as it was', () => {
  const agent = config({ agent: { command: './agent.sh' } });
  const plan = { mode: 'plan' as const, plan: 'Example', phase: 1, issue: 1 };
  const replyOf = (d: ReturnType<typeof debugFix>) =>
    effects(d).find((e) => e.startsWith('reply: '));

  it('a failed agent run: the agent failed (no CI ran), not "CI failed"', () => {
    const said = replyOf(
      debugFix(
        snap({ marker: plan }),
        agent,
        [],
        'The coding agent (tdd, attempt 1) produced no commit: exited with code 1',
        'tdd#1',
      ),
    );
    expect(said).toBe(
      "reply: **The coding agent's run failed** on pull request #2 — attempt 1 of 3; it made no commit, so no CI ran. The coding agent (tdd, attempt 1) produced no commit: exited with code 1. Back to implementation (Debug & Fix).",
    );
  });

  it.each([
    [
      'a red CI, then two agent runs without a commit',
      [
        { sha: OLD, checks: [{ name: 'test', conclusion: 'failure' }] },
        { sha: OLD, checks: [], reason: 'no commit', agent: 'debug-fix#1' },
      ],
      'agent',
      '3 failed attempts (the limit is 3): 1 red CI, 2 agent runs without a commit (no CI ran)',
    ],
    [
      'Passes Spec? no three times, CI green each time',
      [
        { sha: OLD, checks: [], reason: 'Passes Spec? no: 1.1 lacks evidence' },
        { sha: 'c'.repeat(40), checks: [], reason: 'Passes Spec? no: 1.1 lacks evidence' },
      ],
      'spec',
      '3 failed attempts (the limit is 3): 3 × Passes Spec? no (CI passed)',
    ],
  ])('the escalation names what failed: %s', (_name, attempts, last, expected) => {
    const decided = debugFix(
      snap({ marker: { ...plan, attempts } }),
      agent,
      [],
      last === 'agent' ? 'no commit' : 'Passes Spec? no: 1.1 lacks evidence',
      last === 'agent' ? 'debug-fix#2' : undefined,
    );
    expect(replyOf(decided)).toBe(
      `reply: **Escalated to architect** (pull request #2): ${expected}.`,
    );
  });
});
