import {
  reply,
  resume,
  resumePause,
  retry,
  stopRun,
  verification,
  type Config,
} from '../../core/index.js';
import { applyRepo } from './apply.js';
import { getPull, openPulls, type PullRequest } from '../pulls.js';
import type { LoopEnv, LoopOutcome } from './env.js';
import { apply } from './apply.js';
import { run, runTo } from './pull.js';
import { pullContext } from './snapshot.js';
import type { LoopPull } from './loopPull.js';
import { trustedLoopPull } from './trust.js';

/** The open loop PRs of an issue (or the PR the command was written on). */
async function loopPulls(
  env: LoopEnv,
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopPull[]> {
  let pulls: PullRequest[];
  if (issue.isPullRequest) {
    const pr = await getPull(env.gh, env.repo, issue.number);
    pulls = pr.state === 'open' ? [pr] : [];
  } else pulls = await openPulls(env.gh, env.repo);
  const found: LoopPull[] = [];
  for (const pr of pulls) {
    const loop = await trustedLoopPull(env, pr);
    if ('ignored' in loop) continue;
    if (issue.isPullRequest || loop.marker.issue === issue.number) found.push(loop);
  }
  return found;
}

/**
 * `/coder retry`: evaluate the gate again on the current head (a re-run of CI, a flaky check).
 * `/coder resume`: clear an escalation, start the attempt count again, and evaluate.
 */
export async function retryOrResume(
  env: LoopEnv,
  config: Config,
  command: 'retry' | 'resume',
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopOutcome> {
  return eachLoopPull(env, config, issue, async (ctx) => {
    if (command === 'retry') return run(ctx, (snap) => retry(snap, config, issue.number));
    // Paused at the agent's limit: `/coder resume` resumes it now (pause.ts).
    if (ctx.snap.marker.pause && !ctx.snap.marker.escalation)
      return run(ctx, (snap) =>
        resumePause(snap, config, env.now(), { early: true, thread: issue.number }),
      );
    const cleared = await runTo(ctx, (snap) => resume(snap, issue.number));
    if (cleared.outcome.state !== 'resumed') return cleared.outcome;
    return run(cleared.ctx, (snap) => verification(snap, config, { again: true }));
  });
}

/**
 * `fn` on each open loop PR of this issue (or this PR), the outcome of the last; with none, one
 * reply saying so.
 */
async function eachLoopPull(
  env: LoopEnv,
  config: Config,
  issue: { number: number; isPullRequest: boolean },
  fn: (ctx: ReturnType<typeof pullContext>) => Promise<LoopOutcome>,
): Promise<LoopOutcome> {
  const pulls = await loopPulls(env, issue);
  if (pulls.length === 0) {
    await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.noLoopPullRequest() }]);
    return { state: 'no-pull-request' };
  }
  let last: LoopOutcome = { state: 'ignored' };
  for (const loop of pulls) last = await fn(pullContext(env, config, loop));
  return last;
}

/**
 * `/coder stop`: takes `run` out of the record of each open phase PR of this issue (or this PR),
 * on the head the loop judged; the PRs keep their state. One reply per PR found, or one saying
 * there is none.
 */
export async function stop(
  env: LoopEnv,
  config: Config,
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopOutcome> {
  return eachLoopPull(env, config, issue, async (ctx) => {
    const stopped = stopRun(ctx.snap, issue.number);
    return apply(ctx, stopped.effects, stopped.outcome);
  });
}
