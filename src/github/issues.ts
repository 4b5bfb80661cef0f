import type { GitHub, Repo } from './client.js';

/** GitHub rejects comment bodies over 65,536 characters; replies stay well under. */
export const MAX_COMMENT = 60_000;

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

const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);

/**
 * Whether a user may command the loop: repository permission write, maintain or admin, read from
 * the collaborator-permission endpoint (author_association is not a permission).
 */
export async function canCommand(gh: GitHub, repo: Repo, login: string): Promise<boolean> {
  try {
    const { data } = await gh.request(
      'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
      {
        ...repo,
        username: login,
      },
    );
    return WRITE_ROLES.has(data.permission) || WRITE_ROLES.has(data.role_name);
  } catch (error) {
    // 404: not a collaborator at all.
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}
