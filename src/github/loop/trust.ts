import { loopPullProblem, readMarker, type LoopMarker } from '../../core/index.js';
import { findPullRequest, type PullRequest } from '../pulls.js';
import type { LoopEnv } from './env.js';

/** A loop PR and the marker read from its body. */
export interface LoopPull {
  pr: PullRequest;
  marker: LoopMarker;
}

/**
 * The loop's own PR, or why this one is not: opened by the loop's identity from a `coder/` branch
 * of the same repository. Only then is its body's marker read — a fork's or anyone else's PR that
 * copies the marker is somebody else's pull request.
 */
export async function trustedLoopPull(
  env: LoopEnv,
  pr: PullRequest,
): Promise<LoopPull | { ignored: string }> {
  // The cheap checks first: most pull requests are not on a coder/ branch at all.
  if (!pr.head.ref.startsWith('coder/')) return { ignored: 'not a coder-loop branch' };
  const problem = loopPullProblem(pr, await env.identity());
  if (problem) return { ignored: `pull request #${pr.number} is not the loop's: ${problem}` };
  const marker = readMarker(pr.body);
  if (!marker) return { ignored: `pull request #${pr.number} carries no coder-loop marker` };
  return { pr, marker };
}

/** The open loop PR whose head is `branch`, when `sha` is still its head (else: an old head). */
export async function loopPullForHead(
  env: LoopEnv,
  branch: string | null | undefined,
  sha: string,
): Promise<LoopPull | { ignored: string }> {
  if (!branch || !branch.startsWith('coder/')) return { ignored: 'not a coder-loop branch' };
  const pr = await findPullRequest(env.gh, env.repo, branch);
  if (!pr) return { ignored: `no open pull request for ${branch}` };
  if (pr.head.sha !== sha)
    return { ignored: `old head ${sha.slice(0, 7)} (the head is ${pr.head.sha.slice(0, 7)})` };
  return trustedLoopPull(env, pr);
}
