import {
  checkEntries,
  type AgentChange,
  type AgentOutcome,
  type ChangeLimits,
  type ValidChange,
} from './changes.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  isPlanDocument,
  planDocumentsRoot,
  type GuardedPlanFile,
} from '../plan/kinds/discovery.js';

/** An entry of the head's tree as GitHub lists it: a file, an executable or a symbolic link. */
export interface BaseEntry {
  path: string;
  mode: string;
  /** A symbolic link's target (mode 120000). */
  target?: string;
}

export type ApplyDecision =
  | {
      ok: true;
      changes: ValidChange[];
      /** The agent ran out of time: one commit marked partial, and still a failed attempt. */
      partial?: true;
    }
  | { ok: false; problems: string[] }
  /** A timed-out run whose work is not kept (`agent.keepPartialWork` off, or nothing changed). */
  | { ok: false; discarded: true; problems: [] };

/** A tree after the change set: path → mode and, for a link, its target. Folders are implied. */
type Tree = Map<string, { mode: string; target?: string }>;

const parentsOf = (path: string): string[] => {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
};

/** Removes `path` and everything under it (a folder replaced or deleted goes whole). */
function removeTree(tree: Tree, path: string): void {
  tree.delete(path);
  for (const key of [...tree.keys()]) if (key.startsWith(`${path}/`)) tree.delete(key);
}

function treeOf(base: readonly BaseEntry[]): Tree {
  return new Map(
    base.map((e) => [
      e.path,
      { mode: e.mode, ...(e.target === undefined ? {} : { target: e.target }) },
    ]),
  );
}

/** What the commit's tree will be: GitHub replaces or deletes a folder whole. */
function applied(base: readonly BaseEntry[], changes: readonly ValidChange[]): Tree {
  const tree = treeOf(base);
  for (const change of changes) {
    removeTree(tree, change.path);
    if (!('deleted' in change))
      tree.set(change.path, {
        mode: change.mode,
        ...(change.mode === '120000' ? { target: change.bytes.toString('utf8') } : {}),
      });
  }
  return tree;
}

/** Links followed before a chain is called a loop (Linux's own limit). */
const MAX_LINKS = 40;

type Resolution = { inside: true } | { inside: false; via: string[]; why: 'leaves' | 'loop' };

/** The folders a tree holds: every parent of an entry ('' is the root). */
const foldersOf = new WeakMap<Tree, Set<string>>();
function folders(tree: Tree): Set<string> {
  let found = foldersOf.get(tree);
  if (!found) {
    found = new Set(['']);
    for (const path of tree.keys())
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
        found.add(path.slice(0, at));
    foldersOf.set(tree, found);
  }
  return found;
}

/**
 * Where link `path` points in `tree`, resolved as the kernel would: component by component, every
 * link met on the way followed from the folder it is in, `..` taken after the link it follows. A
 * component the tree does not hold, or a file, with more components after it, ends the walk as
 * the kernel's does (ENOENT, ENOTDIR): the link points nowhere, and leaves nothing. The change set
 * that later makes such a link point somewhere is checked then (`b/a` added under a head whose
 * `a -> b/../..` was dangling makes `a` leave, and is refused).
 */
function resolveLink(tree: Tree, path: string): Resolution {
  const via: string[] = [];
  const dirs = folders(tree);
  let followed = 0;
  const walk = (from: string[], target: string): string[] | Resolution => {
    if (target.startsWith('/')) return { inside: false, via, why: 'leaves' };
    let at = [...from];
    const parts = target.split('/').filter((part) => part !== '' && part !== '.');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part === '..') {
        if (at.length === 0) return { inside: false, via, why: 'leaves' };
        at.pop();
        continue;
      }
      at.push(part);
      const here = at.join('/');
      const entry = tree.get(here);
      if (entry?.mode === '120000') {
        via.push(`${here} -> ${entry.target ?? ''}`);
        if (++followed > MAX_LINKS) return { inside: false, via, why: 'loop' };
        const next = walk(at.slice(0, -1), entry.target ?? '');
        if (!Array.isArray(next)) return next;
        at = next;
        if (i < parts.length - 1 && !dirs.has(at.join('/'))) return { inside: true };
      } else if (i < parts.length - 1 && !dirs.has(here)) {
        return { inside: true }; // nothing there, or a file: the walk ends inside
      }
    }
    return at;
  };
  const entry = tree.get(path)!;
  via.push(`${path} -> ${entry.target ?? ''}`);
  const end = walk(path.split('/').slice(0, -1), entry.target ?? '');
  return Array.isArray(end) ? { inside: true } : end;
}

/**
 * Why `path` is a file a plan reads beyond its documents root, where its tool's config (on a
 * trusted tree) places it, or a folder that holds one: undefined when it is none.
 */
function placedProblem(
  path: string,
  plan: GuardedPlanFile,
  present: ReadonlySet<string>,
): string | undefined {
  const reads = plan.reads ?? [];
  if (reads.length === 0) return undefined;
  const name = JSON.stringify(path);
  const fix = `the plan's documents are the architect's: leave it out of the change set (an architect changes it in a pull request of its own)`;
  const where = `beyond its folder, where its tool's config on the base or the handed head places it`;
  if (reads.includes(path)) return `${name} — the plan ${plan.path} reads it ${where}; ${fix}`;
  const under = reads.filter((r) => r.startsWith(`${path}/`));
  const held = under.find((r) => present.has(r)) ?? under[0];
  if (held)
    return `${name} — holds ${JSON.stringify(held)}, which the plan ${plan.path} reads ${where}; ${fix}`;
  const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const named = isPlanDocument(path, plan)
    ? reads.find((r) => baseName(r) === baseName(path))
    : undefined;
  if (named)
    return `${name} — has the name of ${JSON.stringify(named)}, which the plan ${plan.path} reads ${where} (a copy or a move of it is one of the plan's documents); ${fix}`;
  return undefined;
}

function sameEntry(a: { mode: string; target?: string } | undefined, b: typeof a): boolean {
  return !!a && !!b && a.mode === b.mode && a.target === b.target;
}

/**
 * Whether `step: apply` may write the agent's change set on the head, and what it writes: every
 * check of `validateChanges` (paths, protected areas, modes, sizes), then the checks that need
 * the head's tree (`base`) and the change set together:
 * - no entry replaces or deletes a folder that holds a protected path (a parent of `plansDir`);
 * - no entry touches a plan's documents, of any kind (`plans` globs, default each kind's places),
 *   nor its sidecar, nor a folder that holds them: the plan is the architect's, and the loop's
 *   own bookkeeping is the loop's (a plan the change set itself adds counts too); nor a file a
 *   plan reads beyond its documents root where its tool's config places it (`guarded`: the
 *   config of the trusted trees, never the change set's), nor a file of such a file's name, nor a
 *   folder that holds one;
 * - no file is written inside a path that is a file or a symbolic link;
 * - no symbolic link of the resulting tree leaves the repository through any chain of links
 *   (`a/s -> ..` with `a/q -> s/../..`), nor loops, where it did not already at the head.
 * Every problem is listed; one problem refuses the whole set.
 *
 * A run that timed out or stopped at its provider's limit is discarded unless `keepPartialWork`
 * is on and it changed something;
 * then the same checks hold, and what passes is applied as partial work (`partial`): one commit
 * marked partial, still a failed attempt, so the next attempt starts from it.
 */
export function decideApply(input: {
  changes: readonly AgentChange[];
  plansDir: string;
  /** The config's `plans` globs (absent: each kind's default places). */
  plans?: readonly string[];
  base: readonly BaseEntry[];
  /**
   * The plans of the trusted trees (the PR's base and the head the agent was handed), each with
   * what it reads beyond its documents root there (`reads`: a story file its tool's config
   * places), read when a changed path may be such a file; never from the change set.
   */
  guarded?: readonly GuardedPlanFile[];
  limits?: ChangeLimits;
  /** How the run ended (`changes.json`); a timed-out run is applied only as partial work. */
  outcome?: AgentOutcome;
  /** `agent.keepPartialWork`: what a timed-out agent changed is kept as one partial commit. */
  keepPartialWork?: boolean;
}): ApplyDecision {
  // A run stopped at its provider's limit keeps its work as a timed-out one does: only with
  // `keepPartialWork` (pause.ts).
  const timedOut = input.outcome === 'timed-out' || input.outcome === 'paused';
  if (timedOut && (!input.keepPartialWork || input.changes.length === 0))
    return { ok: false, discarded: true, problems: [] };
  const { valid, problems } = checkEntries(input.changes, input.plansDir, input.limits);
  const name = (p: string) => JSON.stringify(p);

  const dir = input.plansDir.replace(/^\.\/+/, '').replace(/\/+$/, '');
  const guarded = parentsOf(`${dir}/x`).map((p) => p.toLowerCase());
  for (const change of valid) {
    if (guarded.includes(change.path.toLowerCase()))
      problems.push(
        `${name(change.path)} — ${'deleted' in change ? 'deletes' : 'replaces'} the folder that holds the plan documents (${dir}/)`,
      );
  }
  // Plans outside `plansDir` (which is guarded whole above).
  const plans = findPlanFiles(
    [...input.base.map((e) => e.path), ...valid.map((c) => c.path)],
    input.plans ?? defaultPlanGlobs(dir),
  ).filter((p) => !p.path.startsWith(`${dir}/`));
  // What each plan of the trusted trees reads beyond its documents root (`guarded`), wherever its
  // tasks file is.
  const placing = (input.guarded ?? []).filter((p) => p.reads?.length);
  const present = new Set(input.base.map((e) => e.path));
  for (const change of valid) {
    const plan = plans.find(
      (p) =>
        isPlanDocument(change.path, p) ||
        (planDocumentsRoot(p) ?? p.path).startsWith(`${change.path}/`),
    );
    if (plan) {
      problems.push(
        `${name(change.path)} — the documents of the plan ${plan.path} are the architect's, its bookkeeping the loop's`,
      );
      continue;
    }
    for (const p of placing) {
      const problem = placedProblem(change.path, p, present);
      if (problem) {
        problems.push(problem);
        break;
      }
    }
  }

  const before = treeOf(input.base);
  const after = applied(input.base, valid);
  for (const change of valid) {
    if ('deleted' in change) continue;
    for (const parent of parentsOf(change.path)) {
      const entry = after.get(parent);
      if (!entry) continue;
      problems.push(
        entry.mode === '120000'
          ? `${name(change.path)} is beyond the symbolic link ${name(parent)}`
          : `${name(change.path)} is inside ${name(parent)}, which is a file`,
      );
      break;
    }
  }
  for (const [path, entry] of after) {
    if (entry.mode !== '120000') continue;
    const now = resolveLink(after, path);
    if (now.inside) continue;
    // A link that already left the repository at the head, unchanged, is not the agent's doing.
    if (sameEntry(before.get(path), entry) && !resolveLink(before, path).inside) continue;
    problems.push(
      now.why === 'loop'
        ? `${name(path)} is a symbolic link in a loop of links (${now.via.slice(0, 4).join(', ')}, …)`
        : now.via.length > 1
          ? `${name(path)} is a symbolic link that leaves the repository through a chain of links (${now.via.join(', ')})`
          : `${name(path)} is a symbolic link that leaves the repository`,
    );
  }
  if (problems.length) return { ok: false, problems: [...new Set(problems)] };
  return timedOut ? { ok: true, changes: valid, partial: true } : { ok: true, changes: valid };
}
