import { mayCommand, type LoopIdentity } from '../core/index.js';
import { readPermission } from './identity.js';
import { isHttpError, madeOnce, type GitHub, type Repo } from './client.js';
import { PER_PAGE, readWhole } from './pages.js';

/** GitHub rejects comment bodies over 65,536 characters; replies stay well under. */
const MAX_COMMENT = 60_000;

const cut = (body: string) =>
  body.length > MAX_COMMENT ? `${body.slice(0, MAX_COMMENT)}\n\n…(cut)` : body;

/**
 * Who the loop's comments are by (its login), asked only when a comment's create must be looked
 * for: memoized by the adapters, so it costs nothing on a create that was answered.
 */
export type CommentAuthor = () => Promise<string>;

/** The loop's comment author, from its memoized identity (an event's `env`). */
export function loopLogin(env: { identity: () => Promise<LoopIdentity> }): CommentAuthor {
  return async () => (await env.identity()).login;
}

export async function replyOnIssue(
  gh: GitHub,
  repo: Repo,
  issue: number,
  body: string,
  by: CommentAuthor,
): Promise<void> {
  await commentOnIssue(gh, repo, issue, body, by);
}

/**
 * A new comment on an issue; its id (the progress comment is edited by it later). Safe to retry:
 * a comment GitHub made though its answer was lost is found on the thread (the loop's, with this
 * very text, made since just before the first attempt) and not made again.
 */
export async function commentOnIssue(
  gh: GitHub,
  repo: Repo,
  issue: number,
  body: string,
  by: CommentAuthor,
): Promise<number> {
  const text = cut(body);
  // GitHub's clock, not this one, dates the comment: a margin for a clock that runs ahead.
  const since = new Date(Date.now() - SKEW_MS).toISOString();
  const { data } = await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...repo,
    issue_number: issue,
    body: text,
    request: madeOnce(() => findOwnComment(gh, repo, issue, text, since, by)),
  });
  return Number(data.id);
}

/** How far this machine's clock may run ahead of GitHub's for a comment it made to be found. */
const SKEW_MS = 10 * 60_000;

/** The loop's comment holding exactly `body`, made since `since` (every page of them). */
async function findOwnComment(
  gh: GitHub,
  repo: Repo,
  issue: number,
  body: string,
  since: string,
  by: CommentAuthor,
) {
  const { items } = await readWhole(
    async (page) =>
      (
        await gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...repo,
          issue_number: issue,
          since,
          per_page: PER_PAGE,
          page,
        })
      ).data,
  );
  const login = (await by()).toLowerCase();
  return items.findLast((c) => c.body === body && c.user?.login.toLowerCase() === login);
}

/** An issue comment's text and author; undefined when it is gone (deleted). */
export async function readComment(
  gh: GitHub,
  repo: Repo,
  id: number,
): Promise<{ body: string; login: string | undefined } | undefined> {
  try {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...repo,
      comment_id: id,
    });
    return { body: data.body ?? '', login: data.user?.login };
  } catch (error) {
    if (isHttpError(error, 404)) return undefined;
    throw error;
  }
}

/** Edits an issue comment; false when it is gone (deleted in between). */
export async function editComment(
  gh: GitHub,
  repo: Repo,
  id: number,
  body: string,
): Promise<boolean> {
  try {
    await gh.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...repo,
      comment_id: id,
      body: cut(body),
    });
    return true;
  } catch (error) {
    if (isHttpError(error, 404)) return false;
    throw error;
  }
}

/**
 * 👀 on the command, as the loop's claim on it: whether this identity's reaction is new. GitHub
 * answers 201 when it adds the reaction and 200 when the same identity reacted so before: then
 * the command was taken already (delivered again, its workflow run re-run, or one delivery handled
 * twice at once). Never retried by the client: a retry of a request whose answer was lost would
 * find the reaction it made and take the command for taken; the command fails instead, and its
 * reply says to comment it again.
 */
export async function reactEyes(gh: GitHub, repo: Repo, commentId: number): Promise<boolean> {
  const { status } = await gh.request(
    'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    { ...repo, comment_id: commentId, content: 'eyes', request: { retries: 0 } },
  );
  return status === 201;
}

/**
 * An issue as it is now, not as an event's payload saw it: open or closed, and its labels' names.
 * Undefined when it is gone (deleted, or transferred away).
 */
export async function readIssueNow(
  gh: GitHub,
  repo: Repo,
  issue: number,
): Promise<{ open: boolean; labels: string[] } | undefined> {
  try {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      ...repo,
      issue_number: issue,
    });
    return {
      open: data.state === 'open',
      labels: data.labels.flatMap((l) => (typeof l === 'string' ? [l] : l.name ? [l.name] : [])),
    };
  } catch (error) {
    if (isHttpError(error, 404) || isHttpError(error, 410)) return undefined;
    throw error;
  }
}

/**
 * Whether a user may command the loop: repository permission write, maintain or admin, read from
 * the collaborator-permission endpoint (author_association is not a permission).
 */
export async function canCommand(gh: GitHub, repo: Repo, login: string): Promise<boolean> {
  return mayCommand(await readPermission(gh, repo, login));
}

/**
 * Whether `login` has a comment holding `key` on the issue or pull request: every page read (a
 * note said once is found again however long the thread has grown).
 */
export async function hasOwnComment(
  gh: GitHub,
  repo: Repo,
  issue: number,
  login: string,
  key: string,
): Promise<boolean> {
  const { items } = await readWhole(
    async (page) =>
      (
        await gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...repo,
          issue_number: issue,
          per_page: PER_PAGE,
          page,
        })
      ).data,
  );
  const own = (who: string | undefined) => who?.toLowerCase() === login.toLowerCase();
  return items.some((c) => own(c.user?.login) && c.body?.includes(key) === true);
}
