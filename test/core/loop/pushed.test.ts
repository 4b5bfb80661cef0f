import { DEFAULT_CONFIG, pushed, type Decision } from '../../../src/core/index.js';
import { CODE_ONLY, effects, snap, state, TEST_FILE } from './pullFixtures.js';

describe('pushed', () => {
  it.each<[string, Decision, string, string[]]>([
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
  ])('%s', (_name, decision, expectedState, expectedEffects) => {
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});
