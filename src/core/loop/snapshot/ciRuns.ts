/**
 * Which GitHub Actions runs on a head are CI of the loop's PR. GitHub lists check runs by commit:
 * every run at that sha shows, whatever it ran for. Two kinds are not the PR's CI, whatever they
 * are called: a run for a pull request from a fork (anyone can open one at the loop head's commit,
 * with a branch named like the lock branch, and its red would cost an attempt and a hand-off), or
 * for another branch of this repository at the same commit; and a run a review started (the
 * review relay, or any workflow on `pull_request_review`: a reviewer's event, not the code's
 * test). What GitHub says of the workflow run — its event, head branch and head repository — is
 * the authority; no name a writer can reuse decides. A run whose head repository GitHub no longer
 * names (`null`: a fork deleted after its PR's run) is no CI of the PR either.
 */

/** A workflow run as GitHub lists it (the fields that say what it ran for). */
export interface ListedWorkflowRun {
  check_suite_id?: number | bigint | null;
  event: string;
  head_branch: string | null;
  repository?: RunRepository | null;
  head_repository?: RunRepository | null;
}

interface RunRepository {
  id?: number | bigint;
  full_name?: string;
}

/** The events a review brings: the runs they start judge nothing about the code. */
const REVIEW_EVENTS = new Set(['pull_request_review', 'pull_request_review_comment']);

/**
 * Why a workflow run is not CI of the loop PR whose head branch is `branch`, or undefined when it
 * is. Without a branch (a reader that knows none), only the review's runs are set aside.
 */
export function runNotForPull(run: ListedWorkflowRun, branch?: string): string | undefined {
  if (REVIEW_EVENTS.has(run.event))
    return `a run started by a review (\`${run.event}\`): the review relay, no CI`;
  if (branch === undefined) return undefined;
  const head = run.head_repository;
  const base = run.repository;
  // A fork deleted since its PR's run: GitHub names no head repository (null), so nothing says
  // the run was this repository's, and its branch name may be the lock branch's.
  if (head === null) return 'a run for a repository GitHub no longer names (a fork deleted since)';
  if (head && base) {
    const same =
      head.id !== undefined && base.id !== undefined
        ? String(head.id) === String(base.id)
        : head.full_name?.toLowerCase() === base.full_name?.toLowerCase();
    if (!same) return `a run for ${head.full_name ?? 'another repository'}'s branch (a fork)`;
  }
  if (run.head_branch !== null && run.head_branch !== branch)
    return `a run for the branch ${run.head_branch}, not ${branch}`;
  return undefined;
}

/** The check suites of the runs that are not CI of the loop PR (their check runs do not count). */
export function suitesNotForPull(runs: readonly ListedWorkflowRun[], branch?: string): Set<number> {
  return new Set(
    runs
      .filter((r) => r.check_suite_id != null && runNotForPull(r, branch) !== undefined)
      .map((r) => Number(r.check_suite_id)),
  );
}
