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
      'deleteBranch (merged)',
    ]);
  });

  it('autoMerge with deleteBranchOnMerge: false keeps the branch', () => {
    const s = snap({ checks: [ci('success')], own: { node: 'FinalVerify', conclusion: null } });
    const c = config({ autoMerge: true, deleteBranchOnMerge: false });
    // Everything the default returns but the branch's deletion: the merge and both texts.
    expect(effects(finalVerification(s, c))).toEqual([
      'merge',
      'check End success (merged)',
      'reply (merged): **Phase 1 complete** (`Example`, pull request #2, merged). That was the last phase: the plan is complete once this is merged.',
      'check End success (not-merged)',
      'reply (not-merged): **Phase 1 complete** (`Example`, pull request #2). That was the last phase: the plan is complete once this is merged.',
    ]);
  });
});
