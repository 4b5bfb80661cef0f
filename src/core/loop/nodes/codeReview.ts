import type { Config } from '../../config.js';
import type { CheckRunView } from '../record/checkRun.js';
import { evaluateGate } from './gate.js';
import { specVerdictOf } from './passesSpec.js';
import { reviewRound, withAgent } from '../record/handoff.js';
import { reply } from '../messages/replies.js';
import type { Permission } from '../snapshot/trust.js';
import { escalation } from './escalation.js';
import {
  done,
  handOff,
  outcomeOf,
  plural,
  type Decision,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';
import { unreadable } from './unreadable.js';
import { withApprovals } from './approvals.js';

/** A review's author, as the reader established it before anything is decided. */
export interface ReviewFacts {
  login: string;
  type?: string;
  permission: Permission | string;
  kind: 'approval' | 'changes';
  /** The reviewed commit. */
  commit: string;
  /** Whether the reviewer is an architect (read only when the PR is escalated). */
  architect?: boolean;
}

/**
 * Code Review: a `pull_request_review` on the loop PR. The reviewer must count (write
 * permission; the applier never sees an outsider's review: `reviewStanding` is asked first).
 */
export function codeReview(snap: PullSnapshot, config: Config, review: ReviewFacts): Decision {
  const { marker, pr, own } = snap;
  if (snap.pr.escalated && (review.kind !== 'approval' || review.architect !== true))
    return done(snap, 'escalated', 'Escalate', [], {
      reason: 'escalated: waiting for an architect',
    });

  if (review.kind === 'changes') {
    // Quick mode has no review round: CI (and, where needed, an architect's approval) decides.
    if (marker.mode === 'quick')
      return done(snap, 'ignored', undefined, [], { reason: 'quick mode: CI is the gate' });
    // A change request is about the head it was made on: one of an older head (an old review
    // replayed, or made through the API on an old commit) sends nothing back.
    if (review.commit !== pr.head.sha)
      return done(snap, 'ignored', undefined, [], {
        reason: `the change request is of ${review.commit.slice(0, 7)}, not of the head ${pr.head.sha.slice(0, 7)}`,
      });
    if (!snap.checks) return { need: 'checks' };
    // Code Review → Issues with a coding agent: one review-fix round per head, at most
    // `agent.maxReviewRounds` of them; past that, the architects decide.
    const round = config.agent ? reviewRound(marker, pr.head.sha, config) : undefined;
    if (round && !round.repeat && round.exhausted) {
      const max = config.agent!.maxReviewRounds;
      return done(
        snap,
        'escalated',
        'Escalate',
        escalation(
          snap,
          config,
          `${plural(max, 'review round')} handed to the coding agent (the limit is ${max}), and @${review.login} asked for changes again`,
          [],
        ),
        { reason: 'review rounds exhausted' },
      );
    }
    const payload =
      round && !round.repeat ? handOff(snap, config, 'review-fix', round.round) : undefined;
    const view: CheckRunView = {
      mode: 'plan',
      node: 'TDD',
      title: 'Changes requested',
      next: `@${review.login} asked for changes: back to implementation. Push to this branch; CI runs again.`,
    };
    return done(snap, 'changes-requested', 'TDD', [
      { kind: 'check', view: withAgent(view, payload, snap.repoUrl) },
      { kind: 'reply', body: reply.changesRequested(pr.number, review.login) },
      // The round is recorded before the hand-off: a redelivery finds it and sends no second one.
      ...(payload
        ? [
            {
              kind: 'marker' as const,
              marker: { ...marker, reviewRounds: [...(marker.reviewRounds ?? []), pr.head.sha] },
            },
            { kind: 'dispatch' as const, payload },
          ]
        : []),
    ]);
  }

  // Completing, or complete (the head is the loop's completion commit): an approval changes
  // nothing, and asks for nothing — one of the head before (a second reviewer's, heard after the
  // first completed the phase; the same one's event delivered again, its run re-run) included.
  if (own?.node === 'FinalVerify' || own?.node === 'End')
    return done(snap, 'ignored', undefined, [], { reason: 'the phase is already completing' });
  if (review.commit !== pr.head.sha)
    return done(snap, 'stale-approval', 'CodeReview', [
      { kind: 'reply', body: reply.staleApproval(pr.number, review.commit, pr.head.sha) },
    ]);
  if (!snap.checks) return { need: 'checks' };
  const passed = evaluateGate(snap.checks, config).verdict === 'passed';
  if (snap.pr.escalated) {
    // The architect decides the escalation, but not CI, nor Passes Spec? (with `require`).
    if (passed && !snap.files) return { need: 'files' };
    if (passed && snap.filesIncomplete) return unreadable(snap, 'files');
    const spec =
      passed && config.specCheck === 'require' && marker.mode === 'plan'
        ? specVerdictOf(snap, config)
        : undefined;
    if (spec && 'need' in spec) return spec;
    if (!passed || (spec && !spec.verdict.passed))
      return done(
        snap,
        'escalated',
        'Escalate',
        [{ kind: 'reply', body: reply.architectApprovalBeforeGate(pr.number, review.login) }],
        { reason: 'CI has not passed on the head' },
      );
    return withApprovals(snap, config, {
      outcome: outcomeOf(snap, 'approved', 'LockCheck2'),
      effects: [],
    });
  }
  // Quick mode asks for an approval only when CI passed on a head that needs an architect; one
  // that came earlier is read then.
  if (marker.mode === 'quick' && (!passed || own?.node !== 'CodeReview'))
    return done(snap, 'ignored', undefined, [], {
      reason: 'quick mode: no approval is asked for on this head',
    });
  if (!passed || own?.node !== 'CodeReview')
    return done(snap, 'waiting-for-ci', 'Verification', [
      { kind: 'reply', body: reply.approvalBeforeGate(pr.number) },
    ]);
  if (!snap.files) return { need: 'files' };
  if (snap.filesIncomplete) return unreadable(snap, 'files');
  return withApprovals(snap, config, {
    outcome: outcomeOf(snap, 'approved', 'LockCheck2'),
    effects: [],
  });
}
