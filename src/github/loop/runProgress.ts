import { kindProgressPhases, progressPhases, type ProgressPhase } from '../../core/index.js';
import { planFromRef } from '../../core/plan/kinds/plan.js';
import { readKindPlan } from '../kindPlans.js';
import { readPlan } from '../plans.js';
import { readerFor, type LoopEnv } from './env.js';

/**
 * The plan's phases on the default branch, for a progress comment made again (it was deleted):
 * the checklist's, or — `planFile` in the record — those of the spec-kit, Kiro or Task Master plan.
 */
export function planPhases(
  env: LoopEnv,
  plansDir: string,
  plan: string,
  planFile: string | undefined,
): () => Promise<ProgressPhase[]> {
  return async () => {
    const reader = readerFor(env);
    const head = await reader.branchHead(env.defaultBranch);
    if (!head) return [];
    const tree = await reader.tree(head);
    const other = planFile !== undefined ? planFromRef(planFile) : undefined;
    if (other) return kindProgressPhases((await readKindPlan(reader, tree, other)).kp.phases);
    const { context } = await readPlan(reader, tree, plansDir, plan, { contents: false });
    return progressPhases(context.checklist?.phases ?? []);
  };
}
