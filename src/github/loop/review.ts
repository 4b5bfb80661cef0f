import { codeReview, isBot, modeOfBranch, reply, reviewStanding } from '../../core/index.js';
import { readPermission } from '../identity.js';
import { replyOnIssue } from '../issues.js';
import type { PullRequest } from '../pulls.js';
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
  if (modeOfBranch(payload.pull_request.head.ref) === 'quick')
    return { state: 'ignored', reason: 'quick mode: CI is the only gate' };
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
        await replyOnIssue(env.gh, env.repo, marker.issue, reply.configInvalid(problems));
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
