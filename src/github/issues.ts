import { mayCommand } from '../core/index.js';
import { readPermission } from './identity.js';
import type { GitHub, Repo } from './client.js';

/** GitHub rejects comment bodies over 65,536 characters; replies stay well under. */
const MAX_COMMENT = 60_000;

export async function replyOnIssue(
  gh: GitHub,
  repo: Repo,
  issue: number,
  body: string,
): Promise<void> {
  const text = body.length > MAX_COMMENT ? `${body.slice(0, MAX_COMMENT)}\n\n…(cut)` : body;
  await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...repo,
    issue_number: issue,
    body: text,
  });
}

/** 👀 on the command: GitHub answers 200 for a reaction that exists, so a retry adds nothing. */
export async function reactEyes(gh: GitHub, repo: Repo, commentId: number): Promise<void> {
  await gh.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
    ...repo,
    comment_id: commentId,
    content: 'eyes',
  });
}

/**
 * Whether a user may command the loop: repository permission write, maintain or admin, read from
 * the collaborator-permission endpoint (author_association is not a permission).
 */
export async function canCommand(gh: GitHub, repo: Repo, login: string): Promise<boolean> {
  return mayCommand(await readPermission(gh, repo, login));
}
