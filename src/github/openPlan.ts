import { openToStart, type AnyPlan, type Config, type PhasePlan } from '../core/index.js';
import type { GitReader, Tree } from './git.js';
import { readPlan } from './plans.js';

/**
 * A plan of any kind opened on a tree behind the one interface, the reads `openToStart` asks for
 * done from the tree: a coder plan folder as `readPlan` reads it (`contents: false` for a
 * read-only caller), another kind's files as its reader names them.
 */
export async function openOnTree(
  reader: GitReader,
  tree: Tree,
  config: Pick<Config, 'plansDir'>,
  chosen: AnyPlan,
  { contents = true }: { contents?: boolean } = {},
): Promise<PhasePlan> {
  let plan: Awaited<ReturnType<typeof readPlan>> | undefined;
  let texts = new Map<string, string>();
  for (;;) {
    const opened = openToStart(config, chosen, plan ? { plan } : {}, tree, texts);
    if ('open' in opened) return opened.open;
    if (opened.need === 'plan')
      plan = await readPlan(reader, tree, opened.plansDir, opened.plan, { contents });
    else {
      const read = await Promise.all(
        opened.paths.map(async (path) => [path, await reader.blob(tree.files.get(path)!)] as const),
      );
      texts = new Map([...texts, ...read]);
    }
  }
}
