import type { Config } from '../config.js';
import { reply } from './replies.js';
import type { Effect, PullSnapshot } from './pullSnapshot.js';

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
