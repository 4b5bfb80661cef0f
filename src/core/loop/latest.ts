import { isBot, type Actor } from './actors.js';

/**
 * What counts when GitHub lists several of a kind: a reviewer's reviews, a check's re-runs. One
 * rule each, for every reader (the gate, the approvals of a head, the phase report).
 */

/** A review as GitHub lists it (the fields these rules read). */
export interface ListedReview {
  user: Actor | null;
  state: string;
  commit_id: string | null;
}

/**
 * Each reviewer's latest verdict, oldest reviewer first (the order of their first review):
 * comments and pending (unsubmitted) reviews are no verdict; logins compare without case.
 */
export function latestReviews<R extends ListedReview>(reviews: readonly R[]): R[] {
  const latest = new Map<string, R>();
  for (const r of reviews)
    if (r.user && r.state !== 'COMMENTED' && r.state !== 'PENDING')
      latest.set(r.user.login.toLowerCase(), r);
  return [...latest.values()];
}

/**
 * Who approves `head`: each reviewer whose latest verdict is an approval of that very commit, and
 * no bot. (Whether each may approve at all — write permission — is read after, per login.)
 */
export function approversOf<R extends ListedReview>(reviews: readonly R[], head: string): string[] {
  return latestReviews(reviews)
    .filter((r) => r.state === 'APPROVED' && r.commit_id === head && !isBot(r.user))
    .map((r) => r.user!.login);
}

/** A check run as GitHub lists it (the fields the re-run rule reads). */
export interface ListedCheckRun {
  id: number;
  name: string;
  app?: { id?: number } | null;
}

/**
 * A re-run adds a check run with the same name and app: the newest (highest id) counts, one per
 * name and app, in the order each was first run. `skip`: the loop's own runs, which are not CI.
 */
export function latestCheckRuns<C extends ListedCheckRun>(
  runs: readonly C[],
  skip: ReadonlySet<number> = new Set(),
): C[] {
  const byId = [...runs].sort((a, b) => Number(a.id) - Number(b.id));
  const latest = new Map<string, C>();
  for (const r of byId) if (!skip.has(r.id)) latest.set(`${r.app?.id ?? ''}/${r.name}`, r);
  return [...latest.values()];
}
