import { progressPhases, type ProgressPhase } from '../../core/index.js';
import { readPlan } from '../plans.js';
import { readerFor, type LoopEnv } from './env.js';

/** The plan's phases on the default branch, for a progress comment made again (it was deleted). */
export function planPhases(
  env: LoopEnv,
  plansDir: string,
  plan: string,
): () => Promise<ProgressPhase[]> {
  return async () => {
    const reader = readerFor(env);
    const head = await reader.branchHead(env.defaultBranch);
    if (!head) return [];
    const tree = await reader.tree(head);
    const { context } = await readPlan(reader, tree, plansDir, plan, { contents: false });
    return progressPhases(context.checklist?.phases ?? []);
  };
}
