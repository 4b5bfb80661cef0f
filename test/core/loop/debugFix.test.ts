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
