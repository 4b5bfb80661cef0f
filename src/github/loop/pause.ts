import {
  handOffGone,
  isResumeSweep,
  isWorkflowPath,
  parseWorkflow,
  pauseAt,
  pauseDue,
  resumePause,
  scheduleWake,
  type Config,
  type LoopOutcome,
  type Waker,
} from '../../core/index.js';

import { handOffOf } from '../agent.js';
import { findPullRequest, openPulls } from '../pulls.js';
import { gateReader, sayCiStall } from './ciStall.js';
import { readerFor, type LoopEnv, type ReportedHandOff } from './env.js';
import { run } from './pull.js';
import { pullContext } from './snapshot.js';
import { loopPullForHead, trustedLoopPull } from './trust.js';

/**
 * Paused, not failed (src/core/loop/nodes/pause.ts), on GitHub: the apply step's pause recorded on the
 * head it left, and the resumes — the App's delayed job, the Action's scheduled sweep — each a
 * read of the loop's record, a pure decision and the one applier.
 */

/**
 * `step: apply` found the agent stopped at its provider's limit: the pause on `headSha` (the
 * partial commit when its work was kept). Spends no attempt.
 */
export async function agentRunPaused(
  env: LoopEnv,
  config: Config,
  handOff: ReportedHandOff,
  pause: { reason: string; until?: string },
  /** The partial commit that keeps the run's work (the pause is recorded there), when it made one. */
  commit?: string,
): Promise<LoopOutcome> {
  const loop = await loopPullForHead(env, handOff.branch, commit ?? handOff.headSha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  if (loop.marker.escalation) return { state: 'escalated', node: 'Escalate', reason: 'escalated' };
  // Recorded once: after a stop or a resume of this pause, a re-run apply job pauses nothing.
  const gone = handOffGone(loop.marker, handOffOf(handOff));
  if (gone) return { state: 'ignored', reason: gone };
  const waker: Waker = env.wake ? 'job' : (await sweepInstalled(env)) ? 'sweep' : undefined;
  return run(pullContext(env, config, loop), (snap) =>
    pauseAt(
      snap,
      config,
      { node: handOff.node, attempt: handOff.attempt, ...pause },
      env.now(),
      waker,
    ),
  );
}

/**
 * Whether the default branch has the pauses' scheduled sweep (a workflow that runs the loop on
 * `schedule`): without it, and without the App's wake-up queue, nothing resumes a pause by itself.
 */
async function sweepInstalled(env: LoopEnv): Promise<boolean> {
  const reader = readerFor(env);
  const base = await reader.base(env.defaultBranch);
  if (!base) return false;
  const { files } = base;
  for (const [path, sha] of files) {
    if (!isWorkflowPath(path)) continue;
    const read = parseWorkflow({ path, text: await reader.blob(sha) });
    if ('workflow' in read && isResumeSweep(read.workflow)) return true;
  }
  return false;
}

/**
 * A wake-up for the loop PR of `branch` (the App's delayed job): its head as it is now is read,
 * and a pause that is due resumes. Nothing when the PR is gone, the pause was resumed or stopped
 * already, or it is not due (a job that fired early).
 */
export async function resumeBranch(
  env: LoopEnv,
  config: Config,
  branch: string,
): Promise<LoopOutcome> {
  const pr = await findPullRequest(env.gh, env.repo, branch, (await env.identity()).login);
  if (!pr) return { state: 'ignored', reason: `no open pull request for ${branch}` };
  const loop = await loopPullForHead(env, branch, pr.head.sha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  return run(pullContext(env, config, loop), (snap) => resumePause(snap, config, env.now()));
}

/**
 * The Action's scheduled sweep (`schedule` event): every open loop PR whose record holds a pause
 * that is due resumes; one whose head has had no CI for `ciStallMinutes` tells its issue once
 * (ciStall.ts). Returns the outcome of the last resumed or told, or `not-due`.
 */
export async function sweepPauses(env: LoopEnv, config: Config): Promise<LoopOutcome> {
  let last: LoopOutcome = { state: 'not-due', reason: 'no pause is due' };
  const now = env.now();
  const gate = gateReader(env);
  for (const pr of await openPulls(env.gh, env.repo)) {
    if (!pr.head.ref.startsWith('coder/')) continue;
    const loop = await trustedLoopPull(env, pr);
    if ('ignored' in loop) continue;
    if (!pauseDue(loop.marker, now)) {
      last = (await sayCiStall(env, config, loop, gate)) ?? last;
      continue;
    }
    last = await run(pullContext(env, config, loop), (snap) => resumePause(snap, config, now));
  }
  return last;
}

/**
 * A host with a wake-up queue (the App with Redis), when the agent's workflow completed: every
 * open loop PR whose record holds a pause this host has not scheduled yet — recorded by the
 * Action's `step: apply`, which has no queue — gets its delayed job (`scheduleWake`). Returns the
 * outcome of the last scheduled, or `ignored`.
 */
export async function schedulePauses(env: LoopEnv, config: Config): Promise<LoopOutcome> {
  let last: LoopOutcome = { state: 'ignored', reason: 'no pause to schedule' };
  const waker: Waker = env.wake ? 'job' : undefined;
  for (const pr of await openPulls(env.gh, env.repo)) {
    if (!pr.head.ref.startsWith('coder/')) continue;
    const loop = await trustedLoopPull(env, pr);
    if ('ignored' in loop || !loop.marker.pause) continue;
    const outcome = await run(
      pullContext(env, config, loop),
      (snap) =>
        scheduleWake(snap, waker) ?? {
          effects: [],
          outcome: { state: 'ignored', reason: `#${pr.number}: its wake-up is scheduled already` },
        },
    );
    if (outcome.state === 'paused') last = outcome;
  }
  return last;
}
