import {
  approvals as decideApprovals,
  debugFix,
  verification,
  type Config,
  type Decision,
  type LoopOutcome,
  type PullSnapshot,
} from '../../core/index.js';
import type { LoopEnv } from './env.js';
import { apply } from './apply.js';
import { approvalsOf, fill, pullContext, type PullContext } from './snapshot.js';
import { loopPullForHead, type LoopPull } from './trust.js';

/**
 * The PR side's shell: read a snapshot of the loop PR → a pure decision (src/core/loop/pull.ts)
 * → apply its effects. Every `if` here is about I/O: what to read, how to write it once.
 */

/**
 * Runs a decision to its end: reads what it needs, applies its effects, and — after Code Review
 * is reached, or an approval arrives — decides on the approvals of the head.
 */
export async function run(
  ctx: PullContext,
  decide: (snap: PullSnapshot) => Decision,
  given?: { login: string; permission: string; architect?: boolean },
): Promise<LoopOutcome> {
  let decision = decide(ctx.snap);
  while ('need' in decision) {
    await fill(ctx, decision.need, []);
    decision = decide(ctx.snap);
  }
  const first = await apply(ctx, decision.effects, decision.outcome);
  if (decision.then !== 'approvals') return first;
  const found = await approvalsOf(ctx, given);
  let next = decideApprovals(ctx.snap, ctx.config, found);
  while ('need' in next) {
    await fill(ctx, next.need, found);
    next = decideApprovals(ctx.snap, ctx.config, found);
  }
  // No approval to act on: the first decision's outcome stands (Code Review reached).
  if (next.effects.length === 0) return first;
  return apply(ctx, next.effects, next.outcome);
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
  return run(pullContext(env, config, loop), (snap) => verification(snap, config, options));
}

/**
 * A failed agent run (`step: apply` found no change, refused changes, or the agent failed or
 * timed out): one more failed attempt on the head it was handed, then Debug & Fix again or, at
 * `maxRetries`, escalation — as for a red CI.
 */
export async function agentRunFailed(
  env: LoopEnv,
  config: Config,
  handOff: { branch: string; headSha: string; node: string; attempt: number },
  reason: string,
): Promise<LoopOutcome> {
  const loop = await loopPullForHead(env, handOff.branch, handOff.headSha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  if (loop.marker.escalation) return { state: 'escalated', node: 'Escalate', reason: 'escalated' };
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
