import type { NamedPlan } from '../core/plan/kinds/index.js';
import { kindPlanReads, openKindPlan, type KindPlan } from '../core/plan/kinds/plan.js';
import type { GitReader, Tree } from './git.js';

/**
 * A plan of another kind (spec-kit, Kiro, Task Master) in a tree: the texts `kindPlanReads`
 * names (its tasks file, its context, its sidecar), read at once, and the plan opened on them.
 */
export async function readKindPlan(
  reader: GitReader,
  tree: Tree,
  plan: NamedPlan,
): Promise<{ kp: KindPlan; paths: string[]; texts: Map<string, string> }> {
  const paths = [...tree.files.keys()];
  const reads = kindPlanReads(plan, paths);
  const texts = new Map(
    await Promise.all(
      reads.map(async (path) => [path, await reader.blob(tree.files.get(path)!)] as const),
    ),
  );
  return { kp: openKindPlan(plan, paths, texts), paths, texts };
}
