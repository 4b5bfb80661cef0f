import type { Config } from '../../config.js';
import { reply } from '../messages/replies.js';
import { done, type Decided, type PullSnapshot } from '../snapshot/pullSnapshot.js';

/**
 * A loop PR closed by someone with write permission (the adapter checks): the lock is freed — the
 * branch deleted unless merged with `deleteBranchOnMerge: false` — and the orchestrator told.
 */
export function closed(
  snap: PullSnapshot,
  config: Pick<Config, 'deleteBranchOnMerge'> | undefined,
  merged: boolean,
): Decided {
  const deleteBranch = !merged || (config?.deleteBranchOnMerge ?? true);
  return done(snap, merged ? 'merged' : 'closed', merged ? 'End' : undefined, [
    ...(deleteBranch ? [{ kind: 'deleteBranch' as const }] : []),
    {
      kind: 'reply',
      body: reply.prClosed(snap.pr.number, merged, snap.pr.head.ref, deleteBranch),
    },
  ]);
}
