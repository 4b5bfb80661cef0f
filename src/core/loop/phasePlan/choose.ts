import type { Phase } from '../../plan/checklistModel.js';
import { phaseBranch, quickBranch, slugConflicts } from '../../plan/layout.js';
import type { PlanContext } from '../../plan/validate.js';
import type { LoopOutcome } from '../record/outcome.js';
import { CLI_NAME } from '../../cliCommand.js';
import { reply } from '../messages/replies.js';

/**
 * The start of a phase, decided: which plan, whether its context is valid and which phase is
 * current, and what the atomic lock's answer means. `decideStart` (start.ts) is built on these.
 */

/** An answer that ends the command: the reply on the thread and the outcome. */
export interface Answer {
  reply: string;
  outcome: LoopOutcome;
}

/** Start → the plan: the named one; else the only one under `plansDir`; else a reply. */
export function choosePlan(
  plansDir: string,
  plans: readonly string[],
  requested: string | undefined,
  cli: string = CLI_NAME,
): { plan: string } | Answer {
  let plan: string;
  if (requested !== undefined) {
    if (!plans.includes(requested))
      return { reply: reply.noSuchPlan(requested, plans), outcome: { state: 'no-plan' } };
    plan = requested;
  } else {
    if (plans.length === 0)
      return { reply: reply.noPlans(plansDir, cli), outcome: { state: 'no-plan' } };
    if (plans.length > 1)
      return { reply: reply.choosePlan(plans), outcome: { state: 'choose-plan' } };
    plan = plans[0]!;
  }
  // Two plans with one slug would share lock branches: one's lock would read as the other's.
  const other = slugConflicts(plans).get(plan);
  if (other !== undefined)
    return {
      reply: reply.slugConflict(plan, other, phaseBranch(plan, 1).replace(/\/phase-1$/, '/…'), cli),
      outcome: { state: 'plan-required', node: 'ValidateContext', mode: 'plan', plan },
    };
  return { plan };
}

/** Context valid? → the current phase; or Plan Required (each problem), or the plan complete. */
export function phaseToStart(
  plan: string,
  context: PlanContext,
  cli: string = CLI_NAME,
): { context: PlanContext & { current: Phase } } | Answer {
  if (!context.valid)
    return {
      reply: reply.planRequired(plan, context.problems, cli),
      outcome: { state: 'plan-required', node: 'ValidateContext', mode: 'plan', plan },
    };
  if (!context.current)
    return {
      reply: reply.planComplete(plan),
      outcome: { state: 'plan-complete', node: 'End', mode: 'plan', plan },
    };
  return { context: { ...context, current: context.current } };
}

/**
 * Locked? after the atomic ref creation. `take`: this event created the lock. Otherwise the lock
 * is held: by this very command's earlier delivery (`holder` is the comment that started it) —
 * `done` when its PR exists, `finish` when that delivery stopped before the PR — or by someone
 * else: `locked` (a reply names the branch). A repeated label finds its own run going: `done`.
 */
export function afterLock(lock: {
  acquired: boolean;
  pr: boolean;
  holder?: number | undefined;
  comment?: number | undefined;
  via: 'command' | 'label';
}): 'take' | 'finish' | 'done' | 'locked' {
  if (lock.acquired) return 'take';
  if (lock.via === 'label') return 'done';
  const ours = lock.comment !== undefined && lock.holder === lock.comment;
  if (!ours) return 'locked';
  return lock.pr ? 'done' : 'finish';
}

/**
 * `/coder release` on an issue: whether a `coder/` branch is that issue's lock — its quick branch,
 * or a branch whose loop marker names the issue. The marker comes from the branch's loop PR; a
 * branch without one is asked about its start commit (`read-commit`), once.
 */
export function releaseTarget(
  issue: number,
  branch: string,
  marker: { issue: number } | undefined | 'unread',
): 'release' | 'keep' | 'read-commit' {
  if (branch === quickBranch(issue)) return 'release';
  if (marker === 'unread') return 'read-commit';
  return marker?.issue === issue ? 'release' : 'keep';
}
