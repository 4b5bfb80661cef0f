import { ciHead, type CiPayload } from '../../../src/core/index.js';

/** Verification's trigger: which loop head a CI completion is about, or why none. */

const SHA = 'c'.repeat(40);

describe('ciHead', () => {
  it.each<[string, string, CiPayload, unknown]>([
    [
      'check_suite completed',
      'check_suite',
      { action: 'completed', check_suite: { head_branch: 'coder/a', head_sha: SHA } },
      { branch: 'coder/a', sha: SHA },
    ],
    [
      'check_suite requested',
      'check_suite',
      { action: 'requested', check_suite: { head_branch: 'coder/a', head_sha: SHA } },
      { ignored: 'check_suite.requested' },
    ],
    [
      'check_run completed',
      'check_run',
      {
        action: 'completed',
        check_run: { name: 'ci', head_sha: SHA, check_suite: { head_branch: 'coder/b' } },
      },
      { branch: 'coder/b', sha: SHA },
    ],
    [
      'check_run created',
      'check_run',
      { action: 'created', check_run: { name: 'ci', head_sha: SHA } },
      { ignored: 'check_run.created' },
    ],
    [
      'workflow_run completed',
      'workflow_run',
      { action: 'completed', workflow_run: { head_branch: null, head_sha: SHA } },
      { branch: null, sha: SHA },
    ],
    [
      'workflow_run in progress',
      'workflow_run',
      { action: 'in_progress', workflow_run: { head_branch: 'x', head_sha: SHA } },
      { ignored: 'workflow_run.in_progress' },
    ],
    ['status pending', 'status', { state: 'pending', sha: SHA }, { ignored: 'status pending' }],
    [
      'status on a coder/ branch whose head it is',
      'status',
      {
        state: 'failure',
        sha: SHA,
        branches: [
          { name: 'main', commit: { sha: SHA } },
          { name: 'coder/old', commit: { sha: 'd'.repeat(40) } },
          { name: 'coder/a', commit: { sha: SHA } },
        ],
      },
      { branch: 'coder/a', sha: SHA },
    ],
    [
      'status on no coder/ branch',
      'status',
      { state: 'success', sha: SHA, branches: [{ name: 'main', commit: { sha: SHA } }] },
      { branch: undefined, sha: SHA },
    ],
    ['another event', 'push', {}, { ignored: 'push' }],
  ])('%s', (_name, event, payload, expected) => {
    expect(ciHead(event, payload)).toEqual(expected);
  });
});
