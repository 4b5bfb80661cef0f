import {
  codeReview,
  isBot,
  modeOfBranch,
  relayedReview,
  relayRunProblem,
  reply,
  reviewStanding,
} from '../../core/index.js';
import { applyRepo } from './apply.js';
import { readPermission } from '../identity.js';
import { findPullRequest, pullReviews, type PullRequest } from '../pulls.js';
import { onThread, type LoopEnv, type LoopOutcome } from './env.js';
import { run } from './pull.js';
import { isArchitect, pullContext } from './snapshot.js';
import { notLoopPull, trustedLoopPull } from './trust.js';

export interface ReviewPayload {
  action: string;
  review: {
    id: number;
    state: string;
    commit_id: string;
    user: { login: string; type?: string } | null;
  };
  pull_request: PullRequest;
}

/**
 * `pull_request_review.submitted` on a loop PR: the Code Review node (`codeReview` decides). Who
 * reviews is established first: a review from a bot, or from anyone without write permission,
 * writes nothing at all.
 */
export async function onReview(env: LoopEnv, payload: ReviewPayload): Promise<LoopOutcome> {
  if (payload.action !== 'submitted')
    return { state: 'ignored', reason: `pull_request_review.${payload.action}` };
  const reviewer = payload.review.user;
  if (!reviewer || isBot(reviewer)) return { state: 'ignored', reason: 'review by a bot' };
  const state = payload.review.state.toLowerCase();
  if (state !== 'approved' && state !== 'changes_requested')
    return { state: 'ignored', reason: `review ${state}` };
  const notOurs = await notLoopPull(env, payload.pull_request);
  if (notOurs) return { state: 'ignored', reason: notOurs.ignored };
  // Quick mode: CI is the gate, and an approval counts only where an architect's is needed
  // (locked paths, plan documents); a request for changes there is nobody's gate.
  if (modeOfBranch(payload.pull_request.head.ref) === 'quick' && state !== 'approved')
    return { state: 'ignored', reason: 'quick mode: CI is the gate' };
  const kind = state === 'approved' ? 'approval' : 'changes';
  // Who acts, once, before anything is read of the loop's record or written.
  const permission = await readPermission(env.gh, env.repo, reviewer.login);
  const standing = reviewStanding({ ...reviewer, permission, pushed: false }, kind, true);
  if (!standing.counts) return { state: 'ignored', reason: standing.why };
  const loop = await trustedLoopPull(env, payload.pull_request, `@${reviewer.login}'s review`);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  const { pr, marker } = loop;
  return onThread(
    { issue: marker.issue, pullRequest: pr.number, what: `@${reviewer.login}'s review` },
    async () => {
      const { config, problems } = await env.loadConfig();
      if (!config) {
        await applyRepo(env, [
          { kind: 'reply', to: marker.issue, body: reply.configInvalid(problems) },
        ]);
        return { state: 'config-invalid' };
      }
      const ctx = pullContext(env, config, loop);
      // While escalated, only an architect's approval is read on: it is what the escalation waits for.
      const architect =
        ctx.snap.pr.escalated && kind === 'approval'
          ? await isArchitect(env, config, reviewer.login)
          : undefined;
      const facts = {
        login: reviewer.login,
        permission,
        kind,
        commit: payload.review.commit_id,
        ...(architect !== undefined ? { architect } : {}),
      } as const;
      return run(ctx, (snap) => codeReview(snap, config, facts), {
        login: reviewer.login,
        permission,
        ...(architect !== undefined ? { architect } : {}),
      });
    },
  );
}

/** The parts of a `workflow_run` the review relay is read from: all set by GitHub itself. */
export interface ReviewRelayPayload {
  action: string;
  workflow_run: {
    event?: string;
    head_branch: string | null;
    head_sha: string;
    actor?: { login: string; type?: string } | null;
    triggering_actor?: { login: string } | null;
    run_attempt?: number;
    head_repository?: { full_name?: string } | null;
    pull_requests?: { number: number }[] | null;
  };
}

/**
 * A review, in the Action, through the relay: a `pull_request_review` workflow with no secret and
 * no permission, whose completion starts the loop's `workflow_run` (a review event runs the
 * pull request's own workflow, where the loop's key must never be). Nothing the relay ran or
 * wrote is read: its definition comes from the pull request's merge ref. What GitHub says of the
 * run — its event, attempt, actors, head repository, head and pull requests — must name the loop
 * PR in this repository (`relayRunProblem`: no re-run, no fork); the reviewer's newest review on
 * it, read from the API and made on the run's head (`relayedReview`), is then handled as the
 * review event would be.
 */
export async function onReviewRelay(
  env: LoopEnv,
  payload: ReviewRelayPayload,
): Promise<LoopOutcome> {
  const run = payload.workflow_run;
  if (payload.action !== 'completed')
    return { state: 'ignored', reason: `workflow_run.${payload.action}` };
  const reviewer = run.actor;
  if (!reviewer) return { state: 'ignored', reason: 'the relayed run names no reviewer' };
  if (isBot(reviewer)) return { state: 'ignored', reason: 'review by a bot' };
  if (!run.head_branch?.startsWith('coder/'))
    return { state: 'ignored', reason: 'not a coder-loop branch' };
  const facts = {
    actor: reviewer.login,
    headSha: run.head_sha,
    pulls: run.pull_requests ?? [],
    ...(run.run_attempt !== undefined ? { attempt: run.run_attempt } : {}),
    ...(run.triggering_actor ? { triggeringActor: run.triggering_actor.login } : {}),
    ...(run.head_repository?.full_name ? { headRepository: run.head_repository.full_name } : {}),
  };
  // Before any read: a re-run or a fork's run names no review of this repository's PR.
  const problem = relayRunProblem(facts, `${env.repo.owner}/${env.repo.repo}`);
  if (problem) return { state: 'ignored', reason: problem };
  const pr = await findPullRequest(env.gh, env.repo, run.head_branch, (await env.identity()).login);
  if (!pr) return { state: 'ignored', reason: `no open pull request for ${run.head_branch}` };
  const notOurs = await notLoopPull(env, pr);
  if (notOurs) return { state: 'ignored', reason: notOurs.ignored };
  const listed = (await pullReviews(env.gh, env.repo, pr.number)).map((r) => ({
    id: Number(r.id),
    state: r.state,
    commit: r.commit_id,
    ...(r.user ? { login: r.user.login } : {}),
    user: r.user,
  }));
  const relayed = relayedReview(facts, pr.number, listed);
  if ('ignored' in relayed) return { state: 'ignored', reason: relayed.ignored };
  const review = listed.find((r) => r.id === relayed.review.id);
  if (!review?.user || !review.commit)
    return {
      state: 'ignored',
      reason: `@${reviewer.login} has no review on pull request #${pr.number}`,
    };
  return onReview(env, {
    action: 'submitted',
    review: {
      id: review.id,
      state: review.state,
      commit_id: review.commit,
      user: { login: review.user.login, type: review.user.type },
    },
    pull_request: pr,
  });
}
