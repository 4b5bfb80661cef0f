import {
  CONTEXT_FILES,
  PLAN_FILES,
  validateContext,
  type PlanContext,
  type PlanFiles,
} from '../core/index.js';
import type { GitReader, Tree } from './git.js';

/** The plan folders under `plansDir` in a tree. */
export function plansInTree(tree: Tree, plansDir: string): string[] {
  const prefix = `${plansDir.replace(/\/+$/, '')}/`;
  const names = new Set<string>();
  for (const path of tree.files.keys()) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash > 0) names.add(rest.slice(0, slash));
  }
  return [...names].sort();
}

export interface ReadPlan {
  files: PlanFiles;
  context: PlanContext;
}

/**
 * Reads what ValidateContext needs (context, checklist, master log) in one batch, validates,
 * then reads the current phase's task plan: four blobs at most, none twice.
 */
export async function readPlan(
  reader: GitReader,
  tree: Tree,
  plansDir: string,
  name: string,
): Promise<ReadPlan> {
  const dir = `${plansDir.replace(/\/+$/, '')}/${name}`;
  const prefix = `${dir}/`;
  const shas = new Map<string, string>();
  for (const [path, sha] of tree.files)
    if (path.startsWith(prefix)) shas.set(path.slice(prefix.length), sha);
  const contents = new Map<string, string>();
  const load = async (file: string) => {
    const sha = shas.get(file);
    if (sha !== undefined) contents.set(file, await reader.blob(sha));
  };
  await Promise.all([...CONTEXT_FILES, PLAN_FILES.masterLog].map(load));
  const files: PlanFiles = { name, dir, paths: [...shas.keys()].sort(), files: contents };
  const context = validateContext(files);
  if (context.valid && context.taskPlan) await load(context.taskPlan);
  return { files, context };
}
