import type { Config } from '../../config.js';
import { reply } from '../messages/replies.js';
import type { Effect, PullSnapshot } from '../snapshot/pullSnapshot.js';

/**
 * Escalate to Architect: the label on PR and issue, review requested from the architects, the
 * check run, one comment that names them and the reason.
 */
export function escalation(
  snap: PullSnapshot,
  config: Pick<Config, 'architects'>,
  reason: string,
  details: readonly string[],
): Effect[] {
  return [
    { kind: 'label', reason },
    { kind: 'requestReviews', names: config.architects },
    {
      kind: 'check',
      view: {
        mode: snap.marker.mode,
        node: 'Escalate',
        title: 'Escalated to architect',
        next: `${reason}. Waiting for an architect; \`/coder resume\` continues.`,
      },
      conclusion: 'failure',
    },
    {
      kind: 'reply',
      body: reply.escalated(snap.pr.number, config.architects, reason, details),
    },
  ];
}

/** One `labeled`/`unlabeled` event of a pull request's history (GitHub's issue events). */
export interface LabelEvent {
  event: string;
  label?: string;
  actor?: string;
}

const ESCALATED_LABEL = 'coder:escalated';

/**
 * Whether the PR's history says it was escalated and the escalation still stands: the loop's
 * identity labelled it `coder:escalated` and did not take the label off since (the loop removes
 * it only when the escalation ends). With a shared identity (the default `GITHUB_TOKEN`) any
 * writer's job removes labels as the loop does, so a removal proves nothing: once the loop
 * labelled the PR, the escalation stands for good — an architect merges it by hand. The history
 * is append-only: nobody can take the loop's label event back.
 */
export function escalationStood(
  events: readonly LabelEvent[],
  loop: string,
  shared: boolean,
): boolean {
  let stands = false;
  for (const e of events) {
    if (e.label !== ESCALATED_LABEL || e.actor?.toLowerCase() !== loop.toLowerCase()) continue;
    if (e.event === 'labeled') stands = true;
    if (e.event === 'unlabeled' && !shared) stands = false;
  }
  return stands;
}
