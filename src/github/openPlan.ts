import {
  openRecorded,
  openToStart,
  type AnyPlan,
  type Config,
  type LoopMarker,
  type PhasePlan,
  type PlanRead,
  type Problem,
} from '../core/index.js';
import {
  findPlanFiles,
  mayBeReadBeyondRoot,
  planReadsOnTree,
  type FoundPlanFile,
  type GuardedPlanFile,
} from '../core/plan/kinds/discovery.js';
import type { GitReader, Tree } from './git.js';
import { readPlan, type ReadPlan, type ReadPlanOptions } from './plans.js';

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
  options: ReadPlanOptions = {},
): Promise<PhasePlan> {
  const opened = await readUntilOpen(reader, tree, options, (plan, texts) =>
    openToStart(config, chosen, plan ? { plan } : {}, tree, texts),
  );
  return opened.open;
}

/**
 * The plan a loop record names, opened on a tree behind the one interface (`openRecorded`), or
 * why the record names none; the reads as `openOnTree` does them.
 */
export async function openRecordedOnTree(
  reader: GitReader,
  tree: Tree,
  config: Pick<Config, 'plansDir'>,
  marker: Pick<LoopMarker, 'plan' | 'planFile'>,
  options: ReadPlanOptions = {},
): Promise<PhasePlan | { problems: Problem[] }> {
  const opened = await readUntilOpen(reader, tree, options, (plan, texts) =>
    openRecorded(config, marker, plan ? { plan } : {}, tree, texts),
  );
  return 'open' in opened ? opened.open : opened;
}

/**
 * What a found plan reads beyond its documents root on a tree (`planReadsOnTree`: a story file
 * where its tool's config puts it), the texts that decide it read as a plan's are.
 */
async function readsOnTree(
  reader: GitReader,
  tree: Tree,
  plan: FoundPlanFile,
): Promise<readonly string[]> {
  const present = new Set(tree.files.keys());
  const opened = await readUntilOpen(reader, tree, {}, (_plan, texts) =>
    planReadsOnTree(plan, present, texts),
  );
  return opened.reads;
}

/**
 * The plans of every kind the `globs` find in these trees, each with what it reads beyond its
 * documents root there (`reads`: a story file where its tool's config puts it, on any of the
 * trees that hold its tasks file), read only for a plan one of the `touched` paths may be such a
 * file of. The trees are the trusted ones (a PR's base and head; the head the loop handed the
 * agent): what a change set would make of a config is never read.
 */
export async function guardedPlans(
  reader: GitReader,
  trees: readonly Tree[],
  globs: readonly string[],
  touched: readonly string[],
): Promise<GuardedPlanFile[]> {
  const paths = new Set(trees.flatMap((t) => [...t.files.keys()]));
  const plans: GuardedPlanFile[] = [];
  for (const plan of findPlanFiles([...paths], globs)) {
    if (!touched.some((p) => mayBeReadBeyondRoot(plan.kind, p))) {
      plans.push(plan);
      continue;
    }
    const reads = new Set<string>();
    for (const tree of trees.filter((t) => t.files.has(plan.path)))
      for (const p of await readsOnTree(reader, tree, plan)) reads.add(p);
    plans.push({ ...plan, reads: [...reads] });
  }
  return plans;
}

/** What has been read of a plan so far: its coder plan folder, other texts. */
export interface PlanReads {
  plan?: ReadPlan;
  texts?: ReadonlyMap<string, string>;
}

/**
 * One read a plan asks for before it opens, answered from the tree as the fact it adds: the coder
 * plan folder as `readPlan` reads it (validated through its cache keyed by blob shas), or the
 * texts of the paths it names, added to those read before.
 */
export async function answerPlanRead(
  reader: GitReader,
  tree: { files: ReadonlyMap<string, string> },
  need: PlanRead,
  read: PlanReads,
  options: ReadPlanOptions = {},
): Promise<PlanReads> {
  if (need.need === 'plan')
    return { plan: await readPlan(reader, tree, need.plansDir, need.plan, options) };
  const texts = await readTexts(reader, tree, need.paths);
  return { texts: new Map([...(read.texts ?? []), ...texts]) };
}

/** The texts of these paths of the tree (each path in it). */
export function readTexts(
  reader: GitReader,
  tree: { files: ReadonlyMap<string, string> },
  paths: readonly string[],
): Promise<(readonly [string, string])[]> {
  return Promise.all(
    paths.map(async (path) => [path, await reader.blob(tree.files.get(path)!)] as const),
  );
}

/** Answers each read a plan asks for before it opens, from the tree, until it opens. */
async function readUntilOpen<T extends object>(
  reader: GitReader,
  tree: Tree,
  options: ReadPlanOptions,
  open: (plan: ReadPlan | undefined, texts: ReadonlyMap<string, string>) => PlanRead | T,
): Promise<T> {
  let read: PlanReads = {};
  for (;;) {
    const opened = open(read.plan, read.texts ?? new Map());
    if (!('need' in opened)) return opened;
    read = { ...read, ...(await answerPlanRead(reader, tree, opened, read, options)) };
  }
}
