import { lstat, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  openToStart,
  validateContext,
  type AnyPlan,
  type PhasePlan,
  type PlanContext,
  type PlanFiles,
  type Problem,
} from '../core/index.js';
import { kindModule } from '../core/plan/kinds/index.js';
import { linkLeaves, NotUtf8Error, readPlanFolder, readText } from './files.js';
import { dirents, everyFile, notUtf8Problem, type Repo } from './repo.js';

/** The paths among which a plan's files are looked for: its folder, and its sidecar. */
async function planPaths(root: string, plan: AnyPlan): Promise<string[]> {
  const paths = new Set<string>();
  // The repository root as a plan's folder: its own files only, and the loop's sidecar.
  if (plan.folder === '') {
    for (const e of await dirents(root)) if (e.isFile()) paths.add(e.name);
    await everyFile(root, plan.sidecar, paths);
  } else await everyFile(root, plan.folder, paths);
  return [...paths].sort();
}

/**
 * The files another kind's reader names outside the plan's folder (a tool's config in a folder
 * that holds it, a file its config places elsewhere), with `files`, as they exist: a file in the
 * repository, or a link to one; `files` itself when none is added (a new map otherwise: the
 * tree's paths are cached by their map). `checked` holds the paths looked at before.
 */
async function withNamedElsewhere(
  root: string,
  chosen: AnyPlan,
  texts: ReadonlyMap<string, string>,
  files: ReadonlyMap<string, string>,
  checked: Set<string>,
): Promise<ReadonlyMap<string, string>> {
  if (chosen.kind === 'coder' || chosen.plan.kind === 'coder') return files;
  const added: string[] = [];
  for (const path of kindModule(chosen.plan.kind).reads?.(chosen.plan, texts) ?? []) {
    if (files.has(path) || checked.has(path)) continue;
    checked.add(path);
    const full = join(root, path);
    const entry = await lstat(full).catch(() => undefined);
    if (!entry || (entry.isSymbolicLink() && (await linkLeaves(root, full).catch(() => true))))
      continue;
    const file = entry.isSymbolicLink() ? await stat(full).catch(() => undefined) : entry;
    if (file?.isFile()) added.push(path);
  }
  return added.length ? new Map([...files, ...added.map((p) => [p, p] as const)]) : files;
}

/**
 * A plan of any kind opened from the working copy behind the one interface the loop has, the
 * reads `openToStart` asks for done from files: a coder plan folder read whole (a file of it that
 * is not UTF-8 stops here: NotUtf8Error), another kind's files as its reader names them (one that
 * is not UTF-8 is the plan's problem, with its line). Paths are named from the repository root;
 * a coder plan's as `shownPlansDir` names its folder.
 */
export async function openWorkingPlan(
  repo: Repo,
  shownPlansDir: string,
  chosen: AnyPlan,
): Promise<PhasePlan> {
  const config = { plansDir: shownPlansDir };
  let files: ReadonlyMap<string, string> = new Map(
    (await planPaths(repo.root, chosen)).map((p) => [p, p]),
  );
  let plan: { files: PlanFiles; context: PlanContext } | undefined;
  const texts = new Map<string, string>();
  const unreadable = new Map<string, Problem>();
  const checked = new Set<string>();
  for (;;) {
    files = await withNamedElsewhere(repo.root, chosen, texts, files, checked);
    const opened = openToStart(config, chosen, plan ? { plan } : {}, { files }, texts, unreadable);
    if ('open' in opened) return opened.open;
    if (opened.need === 'plan') {
      const shown = `${opened.plansDir}/${opened.plan}`;
      const read = await readPlanFolder(
        resolve(repo.root, opened.plansDir),
        opened.plan,
        shown,
        repo.root,
      );
      plan = { files: read, context: validateContext(read) };
      continue;
    }
    for (const path of opened.paths) {
      try {
        texts.set(path, await readText(join(repo.root, path), path));
      } catch (error) {
        if (!(error instanceof NotUtf8Error)) throw error;
        unreadable.set(path, notUtf8Problem(error));
      }
    }
  }
}
