import { reply } from '../messages/replies.js';
import { done, type Decision, type PullSnapshot } from '../snapshot/pullSnapshot.js';

export const UNREADABLE = {
  files:
    'GitHub lists no more than 3,000 files of a pull request, so the loop cannot see everything this one changes (locked paths, plan documents, tests). Split it into smaller pull requests.',
  commits:
    'GitHub lists no more than 250 commits of a pull request, so the loop cannot tell who pushed to this one. Squash or split it.',
} as const;

/**
 * A list the verdict needs cannot be read whole: not passed, and the check run and the thread say
 * why (once per head). Nothing else moves; a smaller PR is judged afresh.
 */
export function unreadable(snap: PullSnapshot, what: keyof typeof UNREADABLE): Decision {
  if (snap.own?.node === 'Verification' && snap.own.conclusion === 'failure')
    return done(snap, 'unreadable', 'Verification', [], { reason: 'already reported' });
  return done(
    snap,
    'unreadable',
    'Verification',
    [
      {
        kind: 'check',
        view: {
          mode: snap.marker.mode,
          node: 'Verification',
          title: 'Verification: the pull request is too large to judge',
          next: UNREADABLE[what],
        },
        conclusion: 'failure',
      },
      { kind: 'reply', body: reply.tooLargeToJudge(snap.pr.number, UNREADABLE[what]) },
    ],
    { reason: `the ${what} of the pull request cannot be read whole` },
  );
}
