import { closed, DEFAULT_CONFIG, type Decision } from '../../../src/core/index.js';
import { config, effects, snap, state } from './pullFixtures.js';

describe('the PR closed', () => {
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
  ])('%s', (_name, decision, expectedState, expectedEffects) => {
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});
