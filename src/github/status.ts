import { CHECK_NAME, decodeCheckState, type CheckRunView, type NodeId } from '../core/index.js';
import type { GitHub, Repo } from './client.js';

/**
 * The fallback for tokens that may not write check runs. GitHub lets only GitHub Apps create check
 * runs; other tokens get a 403: "You must authenticate via a GitHub App." (a classic PAT),
 * "Resource not accessible by personal access token" (a fine-grained PAT) or "… by integration"
 * (a token without `checks: write`). The loop then keeps its state in a commit status of the same
 * name, `coder-loop`: the flowchart node (and its data) in brackets at the start of the
 * description, which GitHub caps at 140 characters.
 */

/** Whether a failed check-run write was refused for the token's kind (not a rate limit). */
export function checkRunRefused(error: unknown): boolean {
  const { status, message } = error as { status?: number; message?: string };
  return (
    status === 403 && /not accessible by|must authenticate via a GitHub App/i.test(message ?? '')
  );
}

/** What the commit status says: `[node;data] title`, at most 140 characters. */
function statusDescription(externalId: string, view: CheckRunView): string {
  const text = `[${externalId}] ${view.title}`;
  return text.length <= 140 ? text : `${text.slice(0, 139)}…`;
}

/** The loop's own state read back from its commit status, if it keeps one on the head. */
export function ownFromStatus(
  statuses: readonly { context: string; state: string; description?: string | null }[],
):
  | { node: NodeId | undefined; next?: number; externalId: string; conclusion: string | null }
  | undefined {
  const mine = statuses.find((s) => s.context === CHECK_NAME);
  const externalId = /^\[([^\]]*)\]/.exec(mine?.description ?? '')?.[1];
  if (!mine || externalId === undefined) return undefined;
  return {
    ...decodeCheckState(externalId),
    externalId,
    conclusion: mine.state === 'pending' ? null : mine.state,
  };
}

/** Writes the loop's commit status on a head: pending while it waits, then its conclusion. */
export async function writeLoopStatus(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  externalId: string,
  view: CheckRunView,
  conclusion: 'success' | 'failure' | undefined,
  targetUrl: string,
): Promise<void> {
  await gh.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
    ...repo,
    sha: headSha,
    context: CHECK_NAME,
    state: conclusion ?? 'pending',
    description: statusDescription(externalId, view),
    target_url: targetUrl,
  });
}
