import picomatch from 'picomatch';
import { CONFIG_PATH } from '../../configPath.js';
import type { Problem } from '../../problem.js';
import type { PlanKindModule } from './kindModule.js';
import { KINDS, type OtherKind } from './registry.js';

/**
 * The plan kinds the loop reads: the coder layout (`<plansDir>/<Plan>/`, the loop's own, read by
 * src/core/plan/) and the kinds of the registry (`registry.ts`, one folder each).
 */
export type PlanKind = 'coder' | OtherKind;

export type { OtherKind };

const BY_ID: ReadonlyMap<string, PlanKindModule> = new Map(KINDS.map((k) => [k.id, k]));

/** What a kind of the registry is (its folder's `PlanKindModule`). */
export function kindModule(kind: OtherKind): PlanKindModule {
  return BY_ID.get(kind)!;
}

/** How replies, PR bodies and the CLI name each kind: the one list every message of kinds uses. */
export const KIND_LABELS = Object.fromEntries([
  ['coder', 'coder'],
  ...KINDS.map((k) => [k.id, k.label]),
]) as Readonly<Record<PlanKind, string>>;

/** `a`, `a or b`, `a, b or c`. */
function listed(names: readonly string[], conjunction: 'or' | 'and'): string {
  return names.length < 2
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

/** The other tools' kinds in a sentence: `<label>, <label> or <label>`, in the registry's order. */
export function otherKindNames(conjunction: 'or' | 'and'): string {
  return listed(
    KINDS.map((k) => k.label),
    conjunction,
  );
}

/**
 * The other kinds' folders, as the agent's prompt forbids them: the kinds whose folders are said
 * in words first (`<label> and <label> feature folders`), then the paths, each a code span.
 */
export function otherPlanFolders(): string {
  const words = new Map<string, string[]>();
  const paths: string[] = [];
  for (const k of KINDS) {
    const what = k.agentMayNotEdit;
    if ('path' in what) paths.push(`\`${what.path}\``);
    else words.set(what.words, [...(words.get(what.words) ?? []), k.label]);
  }
  return [...[...words].map(([w, labels]) => `${listed(labels, 'and')} ${w}`), ...paths].join(', ');
}

/** Where each kind's tasks file lives, as globs from the repository root; the default of `plans`. */
export function defaultPlanGlobs(plansDir: string): string[] {
  return [`${plansDir}/*/01_Master Plan/01_Checklist.md`, ...KINDS.flatMap((k) => k.globs)];
}

/** A tasks file found in the repository, its kind read from where it sits. */
export interface FoundPlanFile {
  kind: PlanKind;
  /** The tasks file's path from the repository root. */
  path: string;
  /** The folder the plan's other files sit in (spec.md, design.md, …). */
  folder: string;
  /** The loop's own folder for this plan's log, reports and checkpoint (never the user's files). */
  sidecar: string;
}

function dirOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at === -1 ? '' : path.slice(0, at);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The kinds by the name of their tasks file, a kind that reads any such file (`fallback`) last. */
const BY_TASKS_FILE: ReadonlyMap<string, readonly PlanKindModule[]> = (() => {
  const byFile = new Map<string, PlanKindModule[]>();
  for (const k of [...KINDS.filter((k) => !k.fallback), ...KINDS.filter((k) => k.fallback)])
    byFile.set(k.tasksFile, [...(byFile.get(k.tasksFile) ?? []), k]);
  return byFile;
})();

/** The kind a tasks file is, from its path; undefined for a path no kind reads. */
export function kindOfPath(path: string): PlanKind | undefined {
  if (path.endsWith('/01_Master Plan/01_Checklist.md')) return 'coder';
  const kinds = BY_TASKS_FILE.get(baseOf(path));
  if (!kinds) return undefined;
  let found: PlanKindModule | undefined;
  for (const k of kinds) {
    const test = k.test(path);
    // A kind's `never` (a folder of completed plans) holds for every kind: that file is no plan.
    if (test === 'never') return undefined;
    if (test === 'plan') found ??= k;
  }
  return found?.id as OtherKind | undefined;
}

/** What the loop finds of another tool's plans but does not run, so that it is never skipped in silence. */
export interface SkippedPlanFiles {
  /** The file, or the folder (ending in `/`), from the repository root. */
  path: string;
  /** What it is, and why the loop does not read it. */
  why: string;
}

/**
 * The files among `paths` that belong to plans the loop does not run: a kind's files it never
 * runs (its `notRun`: completed changes, never started again; another version's files). One
 * entry per folder of them, sorted by path.
 */
export function skippedPlanFiles(paths: Iterable<string>): SkippedPlanFiles[] {
  const notRun = new Map<string, { n: number; why: (n: number) => string }>();
  const kinds = KINDS.flatMap((k) => (k.notRun ? [k.notRun] : []));
  for (const path of paths) {
    let never: ReturnType<(typeof kinds)[number]> | undefined;
    for (const notRunOf of kinds) if ((never = notRunOf(path))) break;
    if (never) {
      notRun.set(never.folder, { n: (notRun.get(never.folder)?.n ?? 0) + 1, why: never.why });
    }
  }
  const out: SkippedPlanFiles[] = [...notRun].map(([path, { n, why }]) => ({ path, why: why(n) }));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The tasks files a kind's own folder holds below the repository root (a sub-project's
 * `<dir>/.tool/…`, where the kind's default glob names `.tool/…` at the root) that `reached`, the
 * plans found, does not hold: one entry per folder and kind, with the glob that would reach them.
 */
export function unreachedPlanFiles(
  paths: readonly string[],
  reached: ReadonlySet<string>,
): SkippedPlanFiles[] {
  const groups = new Map<string, { n: number; label: string; glob: string }>();
  for (const k of KINDS) {
    for (const glob of k.globs.filter((g) => g.startsWith('.'))) {
      const nested = picomatch(`**/${glob}`, { dot: true });
      const folder = glob.slice(0, glob.indexOf('/') + 1);
      for (const path of paths) {
        if (reached.has(path) || !nested(path)) continue;
        const at = path.lastIndexOf(`/${folder}`);
        if (at === -1) continue;
        const prefix = path.slice(0, at + 1);
        const key = `${prefix}${folder}`;
        const group = groups.get(key);
        if (group) group.n++;
        else groups.set(key, { n: 1, label: k.label, glob: `${prefix}${glob}` });
      }
    }
  }
  return [...groups].map(([path, { n, label, glob }]) => ({
    path,
    why: `${n} ${label} tasks ${n === 1 ? 'file' : 'files'} in a folder below the root, not looked for by default: add "${glob}" to \`plans\` in ${CONFIG_PATH}, with the default places you use (a \`plans\` list replaces them)`,
  }));
}

/** `Skipped: <path> (<why>); …` for a message, or '' when nothing was skipped. */
export function skippedSentence(skipped: readonly SkippedPlanFiles[]): string {
  if (skipped.length === 0) return '';
  return `Skipped: ${skipped.map((s) => `${s.path} (${s.why})`).join('; ')}.`;
}

/** The files of `paths` the `plans` globs match, each with its kind and folders. */
export function findPlanFiles(paths: readonly string[], globs: readonly string[]): FoundPlanFile[] {
  const matches = picomatch([...globs], { dot: true });
  const out: FoundPlanFile[] = [];
  // Only a path some kind reads can be a plan: that cheap test first, so a tree of 100,000 files
  // costs a string comparison each, not a glob match (and only the few plans are sorted).
  const candidates: { path: string; kind: PlanKind }[] = [];
  for (const path of paths) {
    const kind = kindOfPath(path);
    if (kind) candidates.push({ path, kind });
  }
  candidates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, kind } of candidates) {
    if (!matches(path)) continue;
    const folder = kind === 'coder' ? dirOf(dirOf(path)) : dirOf(path);
    out.push({
      kind,
      path,
      folder,
      sidecar: kind === 'coder' ? folder : `${folder}/coder-loop`.replace(/^\//, ''),
    });
  }
  return out;
}

/** The name of a plan that is not a tag: its kind's `planName`, else its tasks file's folder. */
export function planName(kind: PlanKind, path: string): string {
  const own = kind === 'coder' ? undefined : kindModule(kind).planName;
  if (own) return own(path);
  const folder = kind === 'coder' ? dirOf(dirOf(path)) : dirOf(path);
  return baseOf(folder);
}

/** A plan as the loop names it: a kind's folder, a tag of a tagged kind, or a coder plan folder. */
export interface NamedPlan extends FoundPlanFile {
  name: string;
  /** The tag the plan is, for a tagged kind. */
  tag?: string;
}

/**
 * Names the plans of the found files: a folder's name, or each tag of a tasks.json (read by the
 * caller and given in `tags`). Two plans with one name are both reported, with both paths; such
 * a plan is reached by its tasks file's path.
 */
export function namePlans(
  files: readonly FoundPlanFile[],
  tags: ReadonlyMap<string, readonly string[]>,
): { plans: NamedPlan[]; problems: Problem[] } {
  const plans: NamedPlan[] = [];
  for (const file of files) {
    if (file.kind !== 'coder' && kindModule(file.kind).tagged) {
      for (const tag of tags.get(file.path) ?? []) {
        const sidecar = `${file.folder}/coder-loop/${tag}`;
        plans.push({ ...file, name: tag, tag, sidecar });
      }
    } else plans.push({ ...file, name: planName(file.kind, file.path) });
  }
  const problems: Problem[] = [];
  const byName = new Map<string, NamedPlan[]>();
  for (const plan of plans) byName.set(plan.name, [...(byName.get(plan.name) ?? []), plan]);
  for (const [name, same] of byName) {
    if (same.length < 2) continue;
    problems.push({
      severity: 'warning',
      path: same[0]!.path,
      message: `Two plans are named "${name}": ${same.map((p) => p.path).join(' and ')}.`,
      fix: 'Name the plan by the path of its tasks file.',
    });
  }
  return { plans, problems };
}

/**
 * The plan a user named: by name when exactly one plan has it, else by the path of its tasks
 * file (with `#<tag>` or `:<tag>` for a tag of a tagged kind's file, other than its only one).
 */
export function resolvePlan(
  plans: readonly NamedPlan[],
  wanted: string,
): { plan: NamedPlan } | { error: string } {
  const byName = plans.filter((p) => p.name === wanted);
  if (byName.length === 1) return { plan: byName[0]! };
  if (byName.length > 1) {
    return {
      error: `Two plans are named "${wanted}": ${byName.map((p) => p.path).join(' and ')}. Name one by the path of its tasks file.`,
    };
  }
  const [path, tag] = wanted.split(/[#:](?=[^/]*$)/);
  const byPath = plans.filter((p) => p.path === path && (tag === undefined || p.tag === tag));
  if (byPath.length === 1) return { plan: byPath[0]! };
  if (byPath.length > 1) {
    return {
      error: `${path} holds the tags ${byPath.map((p) => p.tag).join(', ')}; name one as ${path}#<tag>.`,
    };
  }
  const names = plans.map((p) => p.name);
  return {
    error: `No plan is named "${wanted}".${names.length ? ` Plans here: ${names.join(', ')}.` : ' There are no plans here.'}`,
  };
}

/**
 * Context valid? per kind (SPEC §2b): the files a kind's plan needs beside its tasks file, and
 * the tasks file's own syntax when its text is given. `exists` answers for paths from the
 * repository root.
 */
export function validateKindContext(
  plan: FoundPlanFile,
  exists: (path: string) => boolean,
  tasksSource?: string,
): Problem[] {
  if (plan.kind === 'coder') return [];
  const kind = kindModule(plan.kind);
  const need = (names: readonly string[], what: string): Problem[] =>
    names.some((n) => exists(`${plan.folder}/${n}`))
      ? []
      : [
          {
            severity: 'error',
            path: plan.path,
            message: `${what} is missing: ${names.map((n) => `${plan.folder}/${n}`).join(' or ')}.`,
            fix: `Write ${names[0]} beside ${baseOf(plan.path)}.`,
          },
        ];
  return [
    ...kind.required.flatMap((r) => need(r.names, r.what)),
    ...(tasksSource !== undefined && kind.validateTasksFile
      ? kind.validateTasksFile(plan.path, tasksSource)
      : []),
  ];
}

/**
 * The folder every file of a plan's lives in — the user's documents of its kind and the loop's
 * sidecar: a coder plan's folder; another kind's `documentsRoot` (its tasks file's folder unless
 * it says). Undefined for a tasks file at the repository root (only that file, and its sidecar,
 * are the plan's then).
 */
export function planDocumentsRoot(
  plan: Pick<FoundPlanFile, 'kind' | 'folder'>,
): string | undefined {
  const { kind, folder } = plan;
  const root = kind === 'coder' ? folder : (kindModule(kind).documentsRoot?.(folder) ?? folder);
  return root === '' ? undefined : root;
}

/** The folders a kind's plans share with every plan of that kind, beside their own. */
function sharedPlanFolders(plan: Pick<FoundPlanFile, 'kind' | 'folder'>): string[] {
  return plan.kind === 'coder' ? [] : (kindModule(plan.kind).sharedFolders?.(plan.folder) ?? []);
}

/**
 * A plan found in a tree, with the paths its kind reads beyond its documents root as the trees
 * read say (`reads`: a story file where its tool's config puts it), when they were read.
 */
export interface GuardedPlanFile extends FoundPlanFile {
  /** What its kind's `reads` names on the base and head trees, there or not (`planReadsOnTree`). */
  reads?: readonly string[];
}

/** The paths a plan's kind `reads` names, given the `texts` read so far. */
function kindReads(
  plan: Pick<FoundPlanFile, 'kind' | 'folder' | 'path' | 'sidecar'>,
  texts: ReadonlyMap<string, string>,
): string[] {
  if (plan.kind === 'coder') return [];
  const kind = kindModule(plan.kind);
  return kind.reads?.({ ...plan, name: planName(plan.kind, plan.path) }, texts) ?? [];
}

/**
 * Whether `path`, from itself alone, may be a file a plan of `kind` reads beyond its documents
 * root: a file whose text places the plan's others (a tool's config), or one so placed.
 */
export function mayBeReadBeyondRoot(kind: PlanKind, path: string): boolean {
  const beyond = kind === 'coder' ? undefined : kindModule(kind).beyondRoot;
  return beyond !== undefined && (beyond.places(path) || beyond.placed(path));
}

/**
 * What a plan reads beyond its documents root on one tree, to guard it: first the read it needs
 * (its tasks file, and the files of the tree whose text places its others, `beyondRoot.places`),
 * then every path its kind's `reads` names, in the tree or not (a file added there is read).
 */
export function planReadsOnTree(
  plan: Pick<FoundPlanFile, 'kind' | 'folder' | 'path' | 'sidecar'>,
  present: ReadonlySet<string>,
  texts: ReadonlyMap<string, string>,
): { need: 'texts'; paths: string[] } | { reads: string[] } {
  const reads = kindReads(plan, texts);
  const places = (p: string) =>
    p === plan.path || (plan.kind !== 'coder' && kindModule(plan.kind).beyondRoot?.places(p));
  const need = [plan.path, ...reads].filter((p) => places(p) && present.has(p) && !texts.has(p));
  return need.length ? { need: 'texts', paths: [...new Set(need)] } : { reads };
}

/**
 * Whether `path` is one of a plan's files: under its root, or its tasks file and sidecar; or in
 * a folder its kind shares (`sharedPlanFolders`); or a file its kind reads to find or place its
 * files (a tool's config, from the tasks file's path alone) — and, once the trees were read
 * (`reads`), each file it reads beyond its root, and a file of such a file's name in another
 * folder (a story file moved out of where its tool looks for it).
 */
export function isPlanDocument(
  path: string,
  plan: Pick<GuardedPlanFile, 'kind' | 'folder' | 'path' | 'sidecar' | 'reads'>,
): boolean {
  const root = planDocumentsRoot(plan);
  const under = (dir: string) => path === dir || path.startsWith(`${dir}/`);
  if (sharedPlanFolders(plan).some(under)) return true;
  if (root !== undefined ? under(root) : path === plan.path || under(plan.sidecar)) return true;
  if (kindReads(plan, new Map()).includes(path)) return true;
  if (!plan.reads) return false;
  if (plan.reads.includes(path)) return true;
  const name = baseOf(path);
  const placed = plan.kind !== 'coder' && kindModule(plan.kind).beyondRoot?.placed(path) === true;
  return placed && plan.reads.some((r) => baseOf(r) === name);
}

/**
 * Whether `path` could be one of a plan's files, from its path alone (no tree): some folder
 * above it would hold a tasks file the `plans` globs find, or a kind's plans may read it beyond
 * their folders (`mayBeReadBeyondRoot`). Only then is the tree read to know.
 */
export function mayBePlanDocument(path: string, globs: readonly string[]): boolean {
  const matches = picomatch([...globs], { dot: true });
  const found = (tasks: string) => kindOfPath(tasks) !== undefined && matches(tasks);
  if (KINDS.some((k) => mayBeReadBeyondRoot(k.id as OtherKind, path))) return true;
  for (let dir = path; dir !== ''; dir = dirOf(dir)) {
    if (found(`${dir}/01_Master Plan/01_Checklist.md`)) return true;
    for (const k of KINDS) if (k.tasksFilesAt(dir).some(found)) return true;
  }
  return false;
}
