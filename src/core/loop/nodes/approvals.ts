import type { Config } from '../../config.js';
import { architectItems, lockedCompletionWrites } from './planChanges.js';
import { reply } from '../messages/replies.js';
import { chooseApproval, reviewStanding } from '../snapshot/trust.js';
import { escalation } from './escalation.js';
import {
  done,
  isEscalated,
  type Approval,
  type Decided,
  type Effect,
  type Decision,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';
import { UNREADABLE, unreadable } from './unreadable.js';

/** Why a completion that would write a locked path waits for an architect. */
const COMPLETION_WRITES_LOCKED = 'the completion writes locked paths';

/**
 * Code Review reached (`reached`), then the approvals of the head decide: with none to act on,
 * `reached` stands; otherwise its effects come first, then the approvals' (the completion, or
 * the escalation). The approvals are read once the decision asks (`need: 'approvals'`).
 */
export function withApprovals(snap: PullSnapshot, config: Config, reached: Decided): Decision {
  if (!snap.approvals) return { need: 'approvals' };
  const next = approvals(snap, config, snap.approvals);
  if ('need' in next) return next;
  if (next.effects.length === 0) return reached;
  return { outcome: next.outcome, effects: [...reached.effects, ...next.effects] };
}

/**
 * Approvals of the head → (self-approval rule) → Touched Locked Items? → Escalate, or Mark [x].
 * The approval that decides is the one whose role the decision needs: an architect's when the PR
 * touches locked paths or plan documents. An architect's approval of an escalated head clears
 * the escalation. No approval at all: nothing to do.
 */
export function approvals(
  snap: PullSnapshot,
  config: Config,
  found: readonly Approval[],
): Decision {
  const { marker, pr } = snap;
  if (found.length === 0) return done(snap, 'code-review', 'CodeReview', []);
  if (snap.commitsIncomplete && !config.allowSelfApproval)
    return done(
      snap,
      'approval-not-counted',
      'CodeReview',
      [{ kind: 'reply', body: reply.approvalNotCounted(pr.number, UNREADABLE.commits) }],
      { reason: 'the commits of the pull request cannot be read whole' },
    );
  // A push by a workflow or an app names no person: whoever approves may be the one who ran it.
  if (snap.automationPushed?.length && !config.allowSelfApproval)
    return done(
      snap,
      'approval-not-counted',
      'CodeReview',
      [{ kind: 'reply', body: reply.automationPushed(pr.number, snap.automationPushed) }],
      { reason: 'a workflow or app pushed to the branch: who ran it is unknown' },
    );
  if (!snap.files) return { need: 'files' };
  if (snap.filesIncomplete) return unreadable(snap, 'files');
  const counting: Approval[] = [];
  const refused: string[] = [];
  for (const a of found) {
    const standing = reviewStanding(a, 'approval', config.allowSelfApproval);
    if (standing.counts) counting.push(a);
    else if (!standing.quiet) refused.push(standing.why);
  }
  if (counting.length === 0) {
    if (refused.length === 0) return done(snap, 'code-review', 'CodeReview', []);
    return done(
      snap,
      'approval-not-counted',
      'CodeReview',
      [{ kind: 'reply', body: reply.approvalNotCounted(pr.number, refused.join('; ')) }],
      { reason: refused.join('; ') },
    );
  }
  // An escalation stands until an architect's approval or `/coder resume` ends it: a push, even
  // one that brings back a head whose record predates it, does not (the PR's history says).
  if (!snap.pr.escalated && snap.escalatedBefore === undefined) return { need: 'escalation' };
  const escalated = isEscalated(snap);
  const items = architectItems(snap, config);
  if ('need' in items) return items;
  const { locked, planDocuments } = items;
  // What the completion would write, read only when nothing else already needs an architect.
  let writes: string[] = [];
  if (locked.length === 0 && planDocuments.length === 0 && !escalated) {
    const found = lockedCompletionWrites(snap, config);
    if ('need' in found) return found;
    writes = found;
  }
  const needsArchitect =
    locked.length > 0 || planDocuments.length > 0 || writes.length > 0 || escalated;
  // With a shared identity the record that says what needs an architect may be anyone's.
  if (needsArchitect && snap.shared) {
    const why = escalated
      ? 'it is escalated'
      : locked.length
        ? 'locked paths touched'
        : planDocuments.length
          ? 'plan documents changed'
          : COMPLETION_WRITES_LOCKED;
    return done(
      snap,
      escalated ? 'escalated' : 'approval-not-counted',
      escalated ? 'Escalate' : 'CodeReview',
      [{ kind: 'reply', body: reply.sharedIdentityArchitect(pr.number, why) }],
      { reason: `${why}: an architect's call, by hand with the default GITHUB_TOKEN` },
    );
  }
  if (needsArchitect && counting.some((a) => a.architect === undefined))
    return { need: 'architects' };
  const chosen = chooseApproval(
    counting.map((a) => ({ ...a, architect: a.architect === true })),
    needsArchitect,
  )!;
  if (chosen.escalate) {
    const reason = locked.length
      ? 'locked paths touched'
      : planDocuments.length
        ? 'plan change needed'
        : writes.length
          ? COMPLETION_WRITES_LOCKED
          : 'escalated before, and only an architect’s approval or `/coder resume` ends it';
    return done(
      snap,
      'escalated',
      'Escalate',
      escalation(snap, config, `${reason}, and @${chosen.approval.login} is not an architect`, [
        ...locked.map((p) => `locked: \`${p}\``),
        ...planDocuments.map((p) => `plan document: \`${p}\``),
        ...writes.map((p) => `completion writes locked: \`${p}\``),
      ]),
      { reason },
    );
  }
  // Quick mode has no completion commit: the approval is what CI alone was not enough for.
  if (marker.mode === 'quick')
    return done(snap, 'passed', 'End', [
      ...(escalated ? [{ kind: 'unlabel' as const }] : []),
      ...quickPassed(snap),
    ]);
  return done(snap, 'completing', 'FinalVerify', [
    ...(escalated ? [{ kind: 'unlabel' as const }] : []),
    { kind: 'complete', approver: chosen.approval.login },
  ]);
}

/** Quick mode's end: the loop's check run concludes success, and the orchestrator is told. */
export function quickPassed(snap: PullSnapshot): Effect[] {
  return [
    {
      kind: 'check',
      view: {
        mode: 'quick',
        node: 'End',
        title: 'Quick mode: CI passed',
        next: 'Review and merge.',
      },
      conclusion: 'success',
    },
    { kind: 'reply', body: reply.quickPassed(snap.pr.number) },
  ];
}
