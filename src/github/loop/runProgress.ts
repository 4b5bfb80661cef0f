import type { ProgressPhase } from '../../core/index.js';
import { openRecordedOnTree } from '../openPlan.js';
import { readerFor, type LoopEnv } from './env.js';

/**
 * The plan's phases on the default branch, for a progress comment made again (it was deleted):
 * the plan the record names (`plan`, and `planFile` for another kind), in the kind's own order.
 */
export function planPhases(
  env: LoopEnv,
  plansDir: string,
  plan: string,
  planFile: string | undefined,
): () => Promise<ProgressPhase[]> {
  return async () => {
    const reader = readerFor(env);
    const tree = await reader.base(env.defaultBranch);
    if (!tree) return [];
    const opened = await openRecordedOnTree(
      reader,
      tree,
      { plansDir },
      { plan, ...(planFile !== undefined ? { planFile } : {}) },
      { contents: false },
    );
    return 'problems' in opened ? [] : opened.progress();
  };
}
