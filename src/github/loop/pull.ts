import {
  debugFix,
  handOffGone,
  verification,
  type Config,
  type Decision,
  type LoopOutcome,
  type PullSnapshot,
} from '../../core/index.js';
import { handOffOf } from '../agent.js';
import type { LoopEnv, ReportedHandOff } from './env.js';
import { apply } from './apply.js';
import { pullContext, read, type GivenApproval, type PullContext } from './snapshot.js';
import type { LoopPull } from './loopPull.js';
import { loopPullForHead } from './trust.js';

/**
 * The PR side's shell: read a snapshot of the loop PR → a pure decision (src/core/loop/pull.ts)
 * → apply its effects. Every `if` here is about I/O: what to read, how to write it once.
 */

/**
 * More reads than any PR-side decision asks for (checks, files, tasks, escalation, plans, plan
 * texts, approvals, architects, the completion's writes).
 */
const MOST_READS = 10;

/**
 * Runs a decision to its end: each read it asks for yields a new snapshot and the decision is
 * asked again, until it decides; then the applier carries its effects out. Returns the outcome
 * and the context as the applier left it (the loop's check run, the record it wrote).
 */
export async function runTo(
  start: PullContext,
  decide: (snap: PullSnapshot) => Decision,
  given?: GivenApproval,
): Promise<{ outcome: LoopOutcome; ctx: PullContext }> {
  let ctx = start;
  let decision = decide(ctx.snap);
  for (let reads = 0; 'need' in decision; reads++) {
    if (reads === MOST_READS)
      throw new Error(`The decision on #${ctx.snap.pr.number} still needs ${decision.need}.`);
    ctx = await read(ctx, decision.need, given);
    decision = decide(ctx.snap);
  }
  return { outcome: await apply(ctx, decision.effects, decision.outcome), ctx };
}

/** `runTo`'s outcome. */
export async function run(
  ctx: PullContext,
  decide: (snap: PullSnapshot) => Decision,
  given?: GivenApproval,
): Promise<LoopOutcome> {
  return (await runTo(ctx, decide, given)).outcome;
}

/**
 * Verification on a loop PR's head (a CI event, `/coder retry`, `/coder resume`): read, decide,
 * apply — Debug & Fix, escalation, Code Review and the approvals waiting for it, or Final
 * Verification.
 */
export async function evaluate(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  options: { again?: boolean } = {},
): Promise<LoopOutcome> {
  const waker = env.wake ? ('job' as const) : undefined;
  return run(pullContext(env, config, loop), (snap) =>
    verification(snap, config, { ...options, waker }),
  );
}

/**
 * A failed agent run (`step: apply` found no change, refused changes, or the agent failed or
 * timed out): one more failed attempt on the head it was handed, then Debug & Fix again or, at
 * `maxRetries`, escalation — as for a red CI.
 */
export async function agentRunFailed(
  env: LoopEnv,
  config: Config,
  handOff: ReportedHandOff,
  reason: string,
  /** The partial commit the run left (the failed attempt is on it), when it made one. */
  commit?: string,
): Promise<LoopOutcome> {
  const loop = await loopPullForHead(env, handOff.branch, commit ?? handOff.headSha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  if (loop.marker.escalation) return { state: 'escalated', node: 'Escalate', reason: 'escalated' };
  // Told once: a re-run apply job, or one told after the loop went on, changes nothing.
  const gone = handOffGone(loop.marker, handOffOf(handOff));
  if (gone) return { state: 'ignored', reason: gone };
  return run(pullContext(env, config, loop), (snap) =>
    debugFix(
      snap,
      config,
      [],
      `The coding agent (${handOff.node}, attempt ${handOff.attempt}) produced no commit: ${reason}`,
      `${handOff.node}#${handOff.attempt}`,
    ),
  );
}
