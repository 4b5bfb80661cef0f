import type { Config } from '../../config.js';
import { reply } from '../messages/replies.js';
import { done, type Decision, type Effect, type PullSnapshot } from '../snapshot/pullSnapshot.js';

/** Final Verification → Pass: the phase is complete; with `autoMerge`, the PR is merged first. */
export function finalVerification(snap: PullSnapshot, config: Config): Decision {
  const { marker, pr, own } = snap;
  const phase = marker.phase ?? 0;
  const next = own?.next !== undefined ? { number: own.next } : undefined;
  const say = (merged: boolean): Effect[] => [
    {
      kind: 'check',
      view: {
        mode: 'plan',
        node: 'End',
        title: `Phase ${phase} complete`,
        next: merged
          ? 'Merged. `/coder next` takes the next phase.'
          : 'Merge this pull request; then `/coder next` takes the next phase.',
      },
      conclusion: 'success',
    },
    {
      kind: 'reply',
      body: reply.phaseComplete(marker.plan ?? '', phase, pr.number, next, merged),
    },
  ];
  // With a shared identity (the default GITHUB_TOKEN) the loop merges nothing: a writer's
  // workflow could have written the record that brought it here.
  if (!config.autoMerge || snap.shared)
    return done(
      snap,
      'complete',
      'End',
      say(false),
      config.autoMerge ? { reason: 'autoMerge is off with the default GITHUB_TOKEN' } : {},
    );
  // The merge may be refused (a required review is missing, the head moved): each text comes in
  // both forms, and the applier keeps the one the merge's result calls for.
  const when = (effects: Effect[], w: 'merged' | 'not-merged') =>
    effects.map((e) => ({ ...e, when: w }) as Effect);
  return done(snap, 'complete', 'End', [
    { kind: 'merge' },
    ...when(say(true), 'merged'),
    ...when(say(false), 'not-merged'),
    // The loop's own `closed` event is ignored, so the lock goes with the loop's merge.
    ...(config.deleteBranchOnMerge
      ? [{ kind: 'deleteBranch' as const, when: 'merged' as const }]
      : []),
  ]);
}
