import { isBot, type Actor } from './actors.js';
import { ACTIONS_BOT } from './trust.js';

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
  app?: { id?: number; slug?: string } | null;
}

/** A GitHub Actions check run's job, as the jobs API names it: its workflow run and attempt. */
export interface RunJob {
  run: number;
  attempt: number;
}

/** The app every workflow's `GITHUB_TOKEN` acts as: any writer's workflow can create its runs. */
const ACTIONS_APP = 'github-actions';

const isActions = (r: ListedCheckRun) => r.app?.slug === ACTIONS_APP;
const groupOf = (r: ListedCheckRun) => `${r.app?.id ?? ''}/${r.name}`;

/**
 * The check runs whose job the re-run rule needs to know (`latestCheckRuns`): GitHub Actions runs
 * that share their name with another Actions run of the head. Any other run is decided without.
 */
export function runsToTrace<C extends ListedCheckRun>(
  runs: readonly C[],
  skip: ReadonlySet<number> = new Set(),
): number[] {
  const groups = new Map<string, number[]>();
  for (const r of runs)
    if (!skip.has(r.id) && isActions(r))
      groups.set(groupOf(r), [...(groups.get(groupOf(r)) ?? []), r.id]);
  return [...groups.values()].filter((ids) => ids.length > 1).flat();
}

/**
 * What counts when a head has several check runs of one name and app: for an app other than
 * GitHub Actions, only that app writes its runs, so the newest (highest id) counts — a re-run.
 * GitHub Actions runs are different: any job of any writer's workflow can create one through the
 * API with its token. There a later run supersedes an earlier one only when it is a re-run of the
 * same job — a job (`jobs`) of the same workflow run, at a later attempt; any other stands beside
 * it, so a check that is not the CI waited for never hides CI's verdict. `skip`: the loop's own
 * runs, which are not CI. One entry per run that counts, in the order each name was first run.
 */
export function latestCheckRuns<C extends ListedCheckRun>(
  runs: readonly C[],
  skip: ReadonlySet<number> = new Set(),
  jobs: ReadonlyMap<number, RunJob | null> = new Map(),
): C[] {
  const byId = [...runs].sort((a, b) => Number(a.id) - Number(b.id));
  const standing = new Map<string, C[]>();
  for (const r of byId) {
    if (skip.has(r.id)) continue;
    const key = groupOf(r);
    if (!isActions(r)) {
      standing.set(key, [r]);
      continue;
    }
    const job = jobs.get(r.id);
    const rerunOf = (earlier: C) => {
      const was = jobs.get(earlier.id);
      return !!job && !!was && job.run === was.run && job.attempt > was.attempt;
    };
    standing.set(key, [...(standing.get(key) ?? []).filter((e) => !rerunOf(e)), r]);
  }
  return [...standing.values()].flat();
}

/** A commit status as GitHub lists it, newest first (the fields the rule reads). */
export interface ListedStatus {
  context: string;
  state?: string;
  creator?: { login?: string } | null;
}

const RED = new Set(['failure', 'error']);

/**
 * The statuses that count, from every status of a commit listed newest first: for each context,
 * the newest of each creator. CI reporting again replaces its own verdict; a status of the same
 * context posted by anyone else — a writer's workflow — stands beside it, never over it.
 *
 * A status posted with a workflow's `GITHUB_TOKEN` is `github-actions[bot]`'s, whichever
 * workflow posted it: CI that reports that way and every job a writer pushes are one creator.
 * So for that creator a red verdict is never replaced: its newest failure or error of a context
 * stands (a pending or a later green does not cover it). A head it failed on needs a new push.
 */
export function latestStatuses<S extends ListedStatus>(statuses: readonly S[]): S[] {
  const latest = new Map<string, S>();
  for (const s of statuses) {
    const creator = s.creator?.login?.toLowerCase() ?? '';
    const key = `${creator}\u0000${s.context}`;
    const kept = latest.get(key);
    if (!kept) latest.set(key, s);
    else if (creator === ACTIONS_BOT && !RED.has(kept.state ?? '') && RED.has(s.state ?? ''))
      latest.set(key, s);
  }
  return [...latest.values()].reverse();
}
