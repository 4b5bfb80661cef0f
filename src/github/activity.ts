import { isBot } from '../core/index.js';
import type { GitHub, Repo } from './client.js';
import { PER_PAGE } from './pages.js';

/**
 * Who pushed to a branch, from GitHub's own record of its ref updates (the repository activity
 * list): every push, force-push, creation and deletion with the account that made it. Unlike a
 * `synchronize` event — sent as a bot's when a workflow pushes, cancelled with its run by a
 * concurrency group, or lost with a delivery — it cannot be skipped, and unlike a commit's author
 * it names who pushed, whatever email the commits carry.
 */

/** The accounts that moved a branch since it was last created, the loop's own identity left out. */
export interface BranchPushers {
  /** People (lower-cased logins): their approvals are their own push's. */
  people: string[];
  /**
   * Apps and workflows (a job's `GITHUB_TOKEN` acts as `github-actions[bot]`): GitHub does not
   * name the person who ran them.
   */
  automation: string[];
  /** The list could not be read whole (more than `ACTIVITY_CAP` entries): who pushed is unknown. */
  incomplete?: true;
}

/** How many activity entries of one branch the loop reads at most. */
const ACTIVITY_CAP = 10_000;

/** The `after` cursor of a `Link` header's next page (the activity list pages by cursor). */
function nextCursor(link: string | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (m) return new URL(m[1]!, 'https://api.github.com').searchParams.get('after') ?? undefined;
  }
  return undefined;
}

/**
 * Who pushed to `branch` (`refs/heads/<branch>`) since its latest creation, newest first, every
 * page: an update before it belongs to an earlier branch of the same name. `loop`: the loop's own
 * login, left out. A deleted account (no actor) names nobody who could approve.
 */
export async function branchPushers(
  gh: GitHub,
  repo: Repo,
  branch: string,
  loop: string,
): Promise<BranchPushers> {
  const people = new Set<string>();
  const automation = new Set<string>();
  let read = 0;
  let after: string | undefined;
  for (;;) {
    const { data, headers } = await gh.request('GET /repos/{owner}/{repo}/activity', {
      ...repo,
      ref: `refs/heads/${branch}`,
      direction: 'desc',
      per_page: PER_PAGE,
      ...(after !== undefined ? { after } : {}),
    });
    for (const entry of data) {
      const actor = entry.actor;
      if (actor && actor.login.toLowerCase() !== loop.toLowerCase())
        (isBot(actor) ? automation : people).add(actor.login.toLowerCase());
      if (entry.activity_type === 'branch_creation')
        return { people: [...people], automation: [...automation] };
    }
    read += data.length;
    after = nextCursor(headers.link);
    if (after === undefined || data.length === 0)
      return { people: [...people], automation: [...automation] };
    if (read >= ACTIVITY_CAP)
      return { people: [...people], automation: [...automation], incomplete: true };
  }
}
