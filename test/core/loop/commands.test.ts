import { DEFAULT_CONFIG, resume, retry, type Decision } from '../../../src/core/index.js';
import { ci, effects, snap, state } from './pullFixtures.js';

describe('/coder resume', () => {
  it.each<[string, Decision, string, string[]]>([
    [
      'resume, not escalated → says so on the thread',
      resume(snap(), 9),
      'not-escalated @-',
      ['reply to #9: Pull request #2 is not escalated; nothing to resume.'],
    ],
    [
      'resume, the record not escalated → the PR’s history is asked',
      resume(snap({ escalatedBefore: undefined }), 9),
      'need escalation',
      ['need escalation'],
    ],
    [
      'resume, escalated by the PR’s history only → unlabel, attempts and rounds reset',
      resume(snap({ escalatedBefore: true }), 9),
      'resumed @Verification',
      [
        'unlabel',
        'marker attempts=0 rounds=0',
        'reply: Resumed pull request #2: the escalation is cleared, the attempt count starts again, and the gate is evaluated now.',
      ],
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

describe('/coder retry', () => {
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
