import { finalVerification } from '../../../src/core/index.js';
import { ci, config, effects, snap } from './pullFixtures.js';

describe('Final Verification', () => {
  it('autoMerge: the merge, then the texts for either of its answers', () => {
    const s = snap({ checks: [ci('success')], own: { node: 'FinalVerify', conclusion: null } });
    expect(effects(finalVerification(s, config({ autoMerge: true })))).toEqual([
      'merge',
      'check End success (merged)',
      'reply (merged): **Phase 1 complete** (`Example`, pull request #2, merged). That was the last phase: the plan is complete once this is merged.',
      'check End success (not-merged)',
      'reply (not-merged): **Phase 1 complete** (`Example`, pull request #2). That was the last phase: the plan is complete once this is merged.',
    ]);
  });
});
