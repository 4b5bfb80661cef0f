/**
 * The review relay (the Action): which review, if any, a completed run of the relay workflow
 * stands for. Pure: the facts are GitHub's own — the run's attempt, actors, head repository,
 * head sha and pull requests from the `workflow_run` event, the reviews from the API. Nothing
 * the relay's job ran or wrote is read (a writer can edit it on their branch).
 *
 * A run stands for one review only when GitHub started it for that review: the first attempt
 * (a re-run keeps the original actor, so "Re-run jobs" of an old run by anyone would replay the
 * reviewer's review), for a head in this repository (a fork's branch may carry the lock branch's
 * name), naming the loop PR, and the reviewer's newest verdict (an approval, a change request or
 * a dismissed review; never a comment) made on the head the run is for.
 * Anything else relays nothing.
 */

/** What GitHub says of the relay's run (`workflow_run` event), as far as it names a review. */
export interface RelayRun {
  /** `run_attempt`: 1 for the run GitHub started, more for each re-run. */
  attempt?: number;
  /** `actor`: who caused the first attempt — the reviewer. */
  actor: string;
  /** `triggering_actor`: who caused this attempt (on a re-run, whoever re-ran it). */
  triggeringActor?: string;
  /** `head_repository.full_name`: the repository the reviewed pull request's head is in. */
  headRepository?: string;
  /** `head_sha`: the reviewed pull request's head when the review was submitted. */
  headSha: string;
  /** `pull_requests`: the pull requests of this repository whose head the run is for. */
  pulls: readonly { number: number }[];
}

/** A review as the API lists it, as far as the relay reads it. */
export interface RelayListedReview {
  id: number;
  login?: string;
  state: string;
  commit?: string | null;
}

/** Reviews that are no verdict: unsubmitted, or a comment (`latestReviews` reads them alike). */
const NO_VERDICT = new Set(['PENDING', 'COMMENTED']);

const same = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * Why the relay's run names no review of a pull request of `repository` (`owner/name`), or
 * undefined when it may: decided before anything is read.
 */
export function relayRunProblem(run: RelayRun, repository: string): string | undefined {
  const rerunBy =
    run.triggeringActor && !same(run.triggeringActor, run.actor) ? run.triggeringActor : undefined;
  if (run.attempt !== 1 || rerunBy)
    return `the relayed run is a re-run (attempt ${run.attempt ?? 'unknown'}${
      rerunBy ? `, by @${rerunBy}` : ''
    }): GitHub keeps the first attempt's actor, so it names no new review`;
  if (!same(run.headRepository, repository))
    return `the relayed run is for a pull request from ${run.headRepository ?? 'an unknown repository'}, not from ${repository}`;
  return undefined;
}

/**
 * The review the run stands for on the loop PR `pull`: the run must name that pull request, and
 * the reviewer's newest verdict must be of the run's head; else why there is none.
 * Whether the review is still of the PR's head is the review's own question (`codeReview`): a
 * stale approval is answered, a stale change request not counted.
 */
export function relayedReview(
  run: RelayRun,
  pull: number,
  reviews: readonly RelayListedReview[],
): { review: RelayListedReview } | { ignored: string } {
  if (!run.pulls.some((p) => p.number === pull))
    return { ignored: `the relayed run does not name pull request #${pull}` };
  // The newest verdict: a comment after it (a "Comment" review, a reply in a review thread, both
  // listed as COMMENTED) leaves the approval or change request standing, as GitHub has it.
  const newest = reviews
    .filter((r) => same(r.login, run.actor) && !NO_VERDICT.has(r.state))
    .reduce<RelayListedReview | undefined>((a, r) => (!a || r.id > a.id ? r : a), undefined);
  if (!newest?.commit) return { ignored: `@${run.actor} has no review on pull request #${pull}` };
  if (newest.commit !== run.headSha)
    return {
      ignored: `@${run.actor}'s newest review is of ${newest.commit.slice(0, 7)}, not of the relayed head ${run.headSha.slice(0, 7)}`,
    };
  return { review: newest };
}
