import {
  readProgress,
  renderProgress,
  type ProgressInput,
  type ProgressPhase,
} from '../core/index.js';
import { commentOnIssue, editComment, loopLogin, readComment } from './issues.js';
import type { LoopEnv } from './loop/env.js';

const sameLogin = (a: string | undefined, b: string) =>
  a !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * A run's progress comment (src/core/loop/record/progress.ts), written: the comment `id` the record
 * keeps is edited when its author is the loop's identity and its hidden key names this run, and
 * only when its text changes; otherwise (no id yet, deleted, someone else's, another run's) a new
 * one is made. `progress.phases` empty: the phases the comment listed are kept (`phases()` reads
 * them afresh when there is no comment to keep them from). Returns the comment's id.
 */
export async function writeProgress(
  env: Pick<LoopEnv, 'gh' | 'repo' | 'identity'>,
  progress: ProgressInput,
  id: number | undefined,
  phases?: () => Promise<ProgressPhase[]>,
): Promise<number> {
  const { gh, repo } = env;
  const found = id !== undefined ? await readComment(gh, repo, id) : undefined;
  const ours =
    found && sameLogin(found.login, (await env.identity()).login)
      ? readProgress(found.body, progress.key)
      : undefined;
  let listed = progress.phases;
  if (listed.length === 0) listed = ours?.phases ?? (phases ? await phases() : []);
  const body = renderProgress({ ...progress, phases: listed });
  if (ours && id !== undefined) {
    if (found!.body === body) return id;
    if (await editComment(gh, repo, id, body)) return id;
  }
  return commentOnIssue(gh, repo, progress.key.issue, body, loopLogin(env));
}
