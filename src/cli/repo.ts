import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import picomatch from 'picomatch';
import {
  chooseAnyPlan,
  closest,
  CONFIG_PATH,
  plansOfAnyKind,
  slugConflicts,
  planSlug,
  PLAN_FILES,
  planDiscoveryReads,
  taggedPlanFiles,
  type AnyPlan,
  type Config,
  type Problem,
} from '../core/index.js';
import {
  defaultPlanGlobs,
  kindModule,
  kindOfPath,
  otherKindNames,
  skippedPlanFiles,
  unreachedPlanFiles,
  skippedSentence,
  type SkippedPlanFiles,
} from '../core/plan/kinds/index.js';
import { DEFAULT_CONFIG } from './defaultConfig.js';
import { InputError, linkLeaves, listPlans, NotUtf8Error, readText, UsageError } from './files.js';

/**
 * The repository the CLI runs in, as the loop sees it: its `.github/coder.yml` (read through the
 * loop's own parser), the plans its `plans` globs find, named and chosen by the loop's own
 * functions (a plan is opened in `workingCopy.ts`).
 */

/**
 * `.github/coder.yml` in the current directory: the defaults when absent, else parsed. The parser
 * (the config's zod schema, js-yaml) is loaded only when there is a file to parse.
 */
export async function readRepoConfig(
  cwd: string,
): Promise<{ config: Config; problems: Problem[] }> {
  let text: string;
  try {
    text = await readText(join(cwd, CONFIG_PATH), CONFIG_PATH);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { config: DEFAULT_CONFIG, problems: [] };
    if (error instanceof NotUtf8Error) {
      return { config: DEFAULT_CONFIG, problems: [notUtf8Problem(error)] };
    }
    throw error;
  }
  const { parseConfigText } = await import('../core/config.js');
  const { config, problems } = parseConfigText(text, CONFIG_PATH);
  return { config: config ?? DEFAULT_CONFIG, problems };
}

export function notUtf8Problem(error: NotUtf8Error): Problem {
  return {
    severity: 'error',
    path: error.shown,
    line: error.line,
    message: error.encoding
      ? `not valid UTF-8: ${error.encoding}.`
      : 'not valid UTF-8 (the first byte that is not is on this line).',
    fix: 'Save the file as UTF-8.',
  };
}

/** Folders never walked for a `**`: git's own, and installed packages (never in a plan's tree). */
const SKIPPED = new Set(['.git', 'node_modules']);

export async function dirents(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

async function kindOf(
  root: string,
  full: string,
  e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean },
) {
  if (!e.isSymbolicLink()) return e.isFile() ? 'file' : e.isDirectory() ? 'dir' : undefined;
  // A link out of the repository is nothing of it (GitHub reads the link, never its target).
  if (await linkLeaves(root, full).catch(() => true)) return undefined;
  const s = await stat(full).catch(() => undefined);
  return s?.isFile() ? 'file' : s?.isDirectory() ? 'dir' : undefined;
}

/**
 * Every file under `root/dir` (symbolic links to files in `root` included), but `.git` and
 * `node_modules`.
 */
export async function everyFile(root: string, dir: string, out: Set<string>): Promise<void> {
  for (const e of await dirents(join(root, dir))) {
    if (SKIPPED.has(e.name)) continue;
    const path = dir ? `${dir}/${e.name}` : e.name;
    const kind = await kindOf(root, join(root, path), e);
    if (kind === 'file') out.add(path);
    else if (kind === 'dir' && !e.isSymbolicLink()) await everyFile(root, path, out);
  }
}

/** One walk of the globs: the folders walked whole by a `**`, each folder's listing read once. */
interface Walk {
  walked: Set<string>;
  listed: Map<string, ReturnType<typeof dirents>>;
}

async function walkGlob(
  root: string,
  dir: string,
  segments: string[],
  out: Set<string>,
  walk: Walk,
) {
  const [segment, ...rest] = segments;
  if (segment === undefined) return;
  if (segment === '**') {
    // Every file below `dir` is in `out` once it was walked: the default globs start three times
    // with `**`, and the repository is walked once, not three times.
    if (walk.walked.has(dir)) return;
    walk.walked.add(dir);
    return everyFile(root, dir, out);
  }
  const literal = !picomatch.scan(segment).isGlob;
  const matches = literal ? (name: string) => name === segment : picomatch(segment, { dot: true });
  // Most default globs start at the root: its listing is read once for all of them.
  let listing = walk.listed.get(dir);
  if (listing === undefined) walk.listed.set(dir, (listing = dirents(join(root, dir))));
  for (const e of await listing) {
    if (!matches(e.name)) continue;
    const path = dir ? `${dir}/${e.name}` : e.name;
    const kind = await kindOf(root, join(root, path), e);
    if (rest.length === 0) {
      if (kind === 'file') out.add(path);
    } else if (kind === 'dir') await walkGlob(root, path, rest, out, walk);
  }
}

/**
 * The files under `root` the globs can match, found by walking only the folders the globs name
 * (a `**` walks everything below it, but `.git` and `node_modules`); the loop matches the globs
 * against these paths as against a git tree's.
 */
async function globPaths(root: string, globs: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  const walk: Walk = { walked: new Set(), listed: new Map() };
  for (const glob of globs) {
    if (glob.startsWith('!')) continue;
    await walkGlob(root, '', glob.split('/'), out, walk);
  }
  return [...out].sort();
}

/** The repository as the commands see it. */
export interface Repo {
  root: string;
  config: Config;
  /** The plans folder: absolute, and as the loop names it (from the repository root). */
  plansDir: string;
  plansDirRel: string;
}

export type FoundPlan = AnyPlan;

export interface Discovered {
  plans: FoundPlan[];
  problems: Problem[];
  /** Other tools' plan files found but not run (a kind's completed plans, a tool not read). */
  skipped: SkippedPlanFiles[];
}

/**
 * Every plan of every kind, found and named by the loop's own functions; with `elsewhere`, also
 * the plans in folders the loop does not read (plansElsewhere: `plans` and `doctor` say so).
 */
export async function discover(repo: Repo, elsewhere = false): Promise<Discovered> {
  const { config } = repo;
  const globs = config.plans ?? defaultPlanGlobs(repo.plansDirRel);
  const paths = await globPaths(repo.root, globs);
  const texts = new Map<string, string>();
  const problems: Problem[] = [];
  // The CLI finds a plan by its tool's config too (the loop runs what `plans` finds).
  for (const path of planDiscoveryReads(config, paths, true)) {
    try {
      texts.set(path, await readText(join(repo.root, path), path));
    } catch (error) {
      // A file that is not UTF-8 names no plan; it must not stop the commands on other plans.
      if (!(error instanceof NotUtf8Error)) throw error;
      problems.push(notUtf8Problem(error));
    }
  }
  // Coder plans: every folder under the plans folder, as the loop counts them (a folder without
  // a checklist still gets its "Plan required"); with `plans` set, the folders it matches.
  const found = plansOfAnyKind(
    config,
    paths,
    texts,
    config.plans ? undefined : await listPlans(repo.plansDir),
    true,
  );
  // Tags of a file that is not JSON are reported by lint, for the file.
  for (const path of taggedPlanFiles(config, paths)) {
    const text = texts.get(path);
    const kind = kindOfPath(path);
    if (text === undefined || kind === undefined || kind === 'coder') continue;
    const read = kindModule(kind).plansIn!(text, path);
    if (read.names.length === 0) problems.push(...read.problems);
  }
  return {
    plans: found.plans,
    problems: [...problems, ...found.problems, ...(elsewhere ? await plansElsewhere(repo) : [])],
    skipped: [
      ...skippedPlanFiles(paths),
      ...unreachedPlanFiles(paths, new Set(found.plans.map((p) => p.path))),
      ...found.skipped,
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}

/**
 * The plans, with the one `wanted` names by the path of a tasks file the `plans` globs do not
 * reach (a tool's file in a folder its config chose): a file of a kind's tasks file name that
 * exists is opened as that kind's plan, as if a glob named it.
 */
export async function discoverNamed(repo: Repo, wanted: string | undefined): Promise<Discovered> {
  const found = await discover(repo);
  if (wanted === undefined) return found;
  const path = normalise(repo, wanted);
  const kind = kindOfPath(path);
  if (kind === undefined || kind === 'coder' || kindModule(kind).tagged) return found;
  if (found.plans.some((p) => p.path === path || p.name === path || p.folder === path))
    return found;
  if (picomatch.scan(path).isGlob || path.startsWith('../')) return found;
  const entry = await stat(join(repo.root, path)).catch(() => undefined);
  if (!entry?.isFile()) return found;
  const own = plansOfAnyKind({ plans: [path], plansDir: repo.plansDirRel }, [path], new Map());
  return { ...found, plans: [...found.plans, ...own.plans] };
}

/** Where the commands looked for plans, said when they found none. */
export function noPlansHere(repo: Repo): string {
  return `There are no plans here: none under ${repo.plansDirRel}/, and no ${otherKindNames('or')} tasks file where ${repo.config.plans ? `the \`plans\` globs of ${CONFIG_PATH} look` : 'those tools write them'}.`;
}

/** How far the search for plans elsewhere looks: folders deep from the root, folders in all. */
export const ELSEWHERE_BOUNDS = { depth: 6, folders: 5000 };

/** A coder plan's folder: it holds 00_context.md or its checklist (01_Master Plan/01_Checklist.md). */
async function isPlanFolder(dir: string): Promise<boolean> {
  for (const file of [PLAN_FILES.context, PLAN_FILES.checklist]) {
    const entry = await stat(join(dir, file)).catch(() => undefined);
    if (entry?.isFile()) return true;
  }
  return false;
}

/**
 * Folders of coder plans other than the plans folder, each with its plans' names: a walk of the
 * repository from its root, breadth first and bounded (ELSEWHERE_BOUNDS), that skips `.git` and
 * `node_modules` and enters no plan folder and no symbolic link.
 */
export async function planFoldersElsewhere(repo: Repo): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  let queue = [''];
  let seen = 0;
  for (let depth = 0; depth < ELSEWHERE_BOUNDS.depth && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      for (const e of await dirents(join(repo.root, dir))) {
        if (!e.isDirectory() || SKIPPED.has(e.name)) continue;
        if (++seen > ELSEWHERE_BOUNDS.folders) return found;
        const path = dir ? `${dir}/${e.name}` : e.name;
        if (!(await isPlanFolder(join(repo.root, path)))) next.push(path);
        else if ((dir || '.') !== repo.plansDirRel)
          found.set(dir || '.', [...(found.get(dir || '.') ?? []), e.name]);
      }
    }
    queue = next.sort();
  }
  return found;
}

/**
 * Plans in folders other than the plans folder, when `plansDir` names another folder than the
 * default or holds no plan: after a change of `plansDir` the plans left in the old folder would
 * vanish from `plans` and `doctor` without a word. Each folder is named, with how to read it.
 */
async function plansElsewhere(repo: Repo): Promise<Problem[]> {
  if (repo.config.plans) return [];
  const moved = repo.plansDirRel !== DEFAULT_CONFIG.plansDir;
  if (!moved && (await listPlans(repo.plansDir)).length > 0) return [];
  const problems: Problem[] = [];
  for (const [folder, names] of await planFoldersElsewhere(repo)) {
    const shown = folder === '.' ? 'The repository root' : `${folder}/`;
    problems.push({
      severity: 'warning',
      path: folder,
      message: `${shown} holds plans (${names.join(', ')}) that are not read: the plans folder is ${repo.plansDirRel}/ (\`plansDir\` in ${CONFIG_PATH}, or --dir), and the loop looks only there.`,
      fix:
        folder === '.'
          ? `Move them into ${repo.plansDirRel}/ (the plans folder cannot be the repository root).`
          : `Move them into ${repo.plansDirRel}/, or set \`plansDir: ${folder}\` in ${CONFIG_PATH}${folder === DEFAULT_CONFIG.plansDir ? ' again' : ''}.`,
    });
  }
  return problems;
}

/** `./specs/x/`, `specs\x`, an absolute path: the path from the repository root. */
function normalise(repo: Repo, wanted: string): string {
  let path = wanted.split('\\').join('/');
  if (isAbsolute(path)) path = relative(repo.root, path).split('\\').join('/');
  return path.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '') || '.';
}

/** The tag the tool of a tagged tasks file takes when none is named, where it records one. */
function currentTagOf(
  repo: Repo,
  tasksPath: string,
): { tag: string; path: string; label: string } | undefined {
  const kind = kindOfPath(tasksPath);
  if (kind === undefined || kind === 'coder') return undefined;
  const tool = kindModule(kind);
  const state = tool.currentTag?.(tasksPath);
  if (!state) return undefined;
  let text: string;
  try {
    text = readFileSync(join(repo.root, state.path), 'utf8');
  } catch {
    return undefined; // no state file: the message names the tags alone
  }
  const tag = state.read(text);
  return tag === undefined ? undefined : { tag, path: state.path, label: tool.label };
}

/** "Did you mean": a close spelling, or the one name or path `wanted` begins. */
function nearest(wanted: string, candidates: readonly string[]): string | undefined {
  const near = closest(wanted, candidates);
  if (near) return near;
  const lower = wanted.toLowerCase();
  const starts = candidates.filter((c) => c.toLowerCase().startsWith(lower));
  return starts.length === 1 ? starts[0] : undefined;
}

/**
 * The plan a user named, chosen as `/coder next` chooses it: by name, else by the path of its
 * tasks file (`#tag` for one tag of a tagged kind); here also by its folder. Without a name: the
 * only plan there is. Otherwise a message that says why, with a "did you mean" for a typo.
 */
export function choose(repo: Repo, found: Discovered, wanted: string | undefined): FoundPlan {
  const { plans } = found;
  let requested = wanted === undefined ? undefined : normalise(repo, wanted);
  if (requested !== undefined && !plans.some((p) => p.name === requested)) {
    // A plan's folder names it, when the folder holds one plan.
    const inFolder = plans.filter((p) => p.folder === requested);
    if (inFolder.length === 1) requested = inFolder[0]!.ref;
    else if (inFolder.length > 1) {
      throw new InputError(
        `${requested} holds the plans ${inFolder.map((p) => p.ref).join(', ')}; name one of them.`,
      );
    }
  }
  const chosen = chooseAnyPlan(repo.plansDirRel, plans, requested);
  if (!('reply' in chosen)) return chosen;
  const refs = plans.map((p) => p.handle);
  // A tasks file that holds several plans (a tagged kind's) names none of them.
  const inFile = plans.filter((p) => p.path === requested);
  if (requested !== undefined && inFile.length > 1) {
    const tags = inFile.map((p) => p.ref.slice(requested.length + 1));
    const current = currentTagOf(repo, requested);
    throw new InputError(
      `${requested} holds the tags ${tags.join(', ')}; name one as ${requested}#<tag>.${current && tags.includes(current.tag) ? ` ${current.label}'s current tag (${current.path}) is ${current.tag}: ${requested}#${current.tag}.` : ''}`,
    );
  }
  switch (chosen.outcome.state) {
    case 'choose-plan': {
      if (requested === undefined) throw new UsageError(`name a plan: ${refs.join(', ')}`);
      const same = plans.filter((p) => p.name === requested).map((p) => p.path);
      throw new InputError(
        `Two plans are named "${requested}": ${same.join(' and ')}. Name one by the path of its tasks file.`,
      );
    }
    case 'plan-required': {
      const label = chosen.outcome.plan ?? requested ?? '';
      const other = slugConflicts([...new Set(plans.map((p) => p.label))]).get(label);
      throw new InputError(
        `"${label}" and "${other}" share the plan slug "${planSlug(label)}", so their lock branches would collide. Rename one of the plans.`,
      );
    }
    default: {
      // A file named by its path that is read as no plan (another tool's tasks/tasks.json): why.
      const about = found.problems.filter((p) => requested !== undefined && p.path === requested);
      if (about.length > 0 && !plans.some((p) => p.path === requested)) {
        throw new InputError(
          about
            .map((p) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message} ${p.fix}`)
            .join('\n'),
        );
      }
      // A path in a folder of plans the loop finds and does not run (an archived change): why.
      const skipped = found.skipped.find(
        (s) => requested !== undefined && s.path.endsWith('/') && requested.startsWith(s.path),
      );
      if (skipped) {
        throw new InputError(
          `${requested} is not run: it is in ${skipped.path}, skipped (${skipped.why}).`,
        );
      }
      if (requested === undefined || plans.length === 0) {
        throw new InputError(
          `${noPlansHere(repo)}${found.skipped.length ? ` ${skippedSentence(found.skipped)}` : ''}`,
        );
      }
      const names = [...new Set(plans.map((p) => p.name))];
      const near = requested.includes('/')
        ? nearest(requested, [...refs, ...plans.map((p) => p.folder)])
        : nearest(requested, names);
      // A tasks file that could not be read names no plan: say why, the plan may be in it.
      const unread = found.problems
        .filter((p) => p.severity === 'error' && p.message.startsWith('not valid UTF-8'))
        .map(
          (p) => ` ${p.path} could not be read, so its plans are unknown: ${p.message} ${p.fix}`,
        );
      throw new InputError(
        `No plan is named "${requested}".${near ? ` Did you mean "${near}"?` : ''} Plans here: ${refs.join(', ')}.${unread.join('')}`,
      );
    }
  }
}
