import picomatch from 'picomatch';
import type { Problem } from '../../problem.js';
import { parseJsonWithOffsets, JsonSyntaxError } from './jsonOffsets.js';

/** The plan kinds the loop reads. */
export type PlanKind = 'coder' | 'speckit' | 'kiro' | 'taskmaster' | 'openspec';

/** How replies, PR bodies and the CLI name each kind: the one list every message of kinds uses. */
export const KIND_LABELS: Readonly<Record<PlanKind, string>> = {
  coder: 'coder',
  speckit: 'spec-kit',
  kiro: 'Kiro',
  taskmaster: 'Task Master',
  openspec: 'OpenSpec',
};

/** The other tools' kinds, named in a sentence: `spec-kit, Kiro, Task Master or OpenSpec`. */
export function otherKindNames(conjunction: 'or' | 'and'): string {
  const names = (Object.keys(KIND_LABELS) as PlanKind[])
    .filter((k) => k !== 'coder')
    .map((k) => KIND_LABELS[k]);
  return `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

/** Where each kind's tasks file lives, as globs from the repository root; the default of `plans`. */
export function defaultPlanGlobs(plansDir: string): string[] {
  return [
    `${plansDir}/*/01_Master Plan/01_Checklist.md`,
    'specs/*/tasks.md',
    '.specify/specs/*/tasks.md',
    '.kiro/specs/*/tasks.md',
    '.taskmaster/tasks/tasks.json',
    'tasks/tasks.json',
    // OpenSpec at any depth (`hw3/openspec/changes/…`); never `changes/archive/` (kindOfPath).
    '**/openspec/changes/*/tasks.md',
  ];
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

/** The kind a tasks file is, from its path; undefined for a path no kind reads. */
export function kindOfPath(path: string): PlanKind | undefined {
  if (path.endsWith('/01_Master Plan/01_Checklist.md')) return 'coder';
  if (baseOf(path) === 'tasks.json') return 'taskmaster';
  if (baseOf(path) !== 'tasks.md') return undefined;
  // OpenSpec: an active change's tasks; `changes/archive/` holds completed changes, never started.
  if (/(?:^|\/)openspec\/changes\/(?!archive\/)[^/]+\/tasks\.md$/.test(path)) return 'openspec';
  if (/(?:^|\/)openspec\/changes\//.test(path)) return undefined;
  return /(?:^|\/)\.kiro\/specs\/[^/]+\/tasks\.md$/.test(path) ? 'kiro' : 'speckit';
}

/** What the loop finds of another tool's plans but does not run, so that it is never skipped in silence. */
export interface SkippedPlanFiles {
  /** The file, or the folder (ending in `/`), from the repository root. */
  path: string;
  /** What it is, and why the loop does not read it. */
  why: string;
}

/**
 * The files among `paths` that belong to plans the loop does not run: OpenSpec's archived
 * changes (`openspec/changes/archive/<change>/tasks.md`: completed, never started again), and
 * BMAD's files (a `_bmad-output/` folder, a `sprint-status.yaml`, `*.story.md` stories), a kind
 * the loop does not read. One entry per folder of them, sorted by path.
 */
export function skippedPlanFiles(paths: Iterable<string>): SkippedPlanFiles[] {
  const archived = new Map<string, number>();
  const bmad = new Map<string, string>();
  for (const path of paths) {
    const archive = /^(.*?(?:^|\/)openspec\/changes\/archive\/)[^/]+\/tasks\.md$/.exec(path);
    if (archive) {
      archived.set(archive[1]!, (archived.get(archive[1]!) ?? 0) + 1);
      continue;
    }
    const output = /^(.*?(?:^|\/)_bmad-output\/)/.exec(path);
    if (output) bmad.set(output[1]!, "BMAD's output: BMAD is not read");
    else if (baseOf(path) === 'sprint-status.yaml')
      bmad.set(path, "BMAD's sprint status: BMAD is not read");
    else if (path.endsWith('.story.md'))
      bmad.set(`${dirOf(path)}/`.replace(/^\//, ''), 'BMAD stories: BMAD is not read');
  }
  const out: SkippedPlanFiles[] = [
    ...[...archived].map(([path, n]) => ({
      path,
      why: `${n} archived ${KIND_LABELS.openspec} change${n === 1 ? '' : 's'}: completed, never run`,
    })),
    ...[...bmad].map(([path, why]) => ({ path, why })),
  ];
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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

/** A plan as the loop names it: a feature folder, a Task Master tag, or a coder plan folder. */
export interface NamedPlan extends FoundPlanFile {
  name: string;
  /** The Task Master tag the plan is, for `taskmaster`. */
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
    if (file.kind === 'taskmaster') {
      for (const tag of tags.get(file.path) ?? []) {
        const sidecar = `${file.folder}/coder-loop/${tag}`;
        plans.push({ ...file, name: tag, tag, sidecar });
      }
    } else plans.push({ ...file, name: baseOf(file.folder) });
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
 * file (with `#<tag>` or `:<tag>` for a Task Master tag other than the file's only one).
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
 * Context valid? per kind (SPEC §2b): the files a kind's plan needs beside its tasks file.
 * `exists` answers for paths from the repository root; `json` is the tasks file's text for
 * Task Master.
 */
export function validateKindContext(
  plan: FoundPlanFile,
  exists: (path: string) => boolean,
  tasksSource?: string,
): Problem[] {
  const need = (names: string[], what: string): Problem[] =>
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
  switch (plan.kind) {
    case 'speckit':
      return [...need(['spec.md'], "spec-kit's spec"), ...need(['plan.md'], "spec-kit's plan")];
    case 'kiro':
      return [
        ...need(['requirements.md', 'bugfix.md'], "Kiro's requirements"),
        ...need(['design.md'], "Kiro's design"),
      ];
    case 'openspec':
      return need(['proposal.md'], "OpenSpec's proposal");
    case 'taskmaster': {
      if (tasksSource === undefined) return [];
      try {
        parseJsonWithOffsets(tasksSource);
        return [];
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        return [
          {
            severity: 'error',
            path: plan.path,
            line: e.line,
            message: `not valid JSON: ${e.message}.`,
            fix: 'Fix the JSON, or let Task Master rewrite the file.',
          },
        ];
      }
    }
    case 'coder':
      return [];
  }
}

/**
 * The folder every file of a plan's lives in — the user's documents of its kind and the loop's
 * sidecar: a coder plan's folder; a spec-kit or Kiro feature folder; OpenSpec's own folder (its
 * changes, archive and specs); Task Master's `.taskmaster/` (tasks, docs, reports), or `tasks/`
 * for its legacy layout. Undefined for a tasks file at the repository root (only that file,
 * and its sidecar, are the plan's then).
 */
export function planDocumentsRoot(
  plan: Pick<FoundPlanFile, 'kind' | 'folder'>,
): string | undefined {
  const { kind, folder } = plan;
  let root = folder;
  if (kind === 'openspec') root = dirOf(dirOf(folder));
  else if (
    kind === 'taskmaster' &&
    baseOf(folder) === 'tasks' &&
    baseOf(dirOf(folder)) === '.taskmaster'
  )
    root = dirOf(folder);
  return root === '' ? undefined : root;
}

/**
 * The folders a kind's plans share with every plan of that kind, beside their own: Kiro's
 * steering documents (`.kiro/steering/`: product.md, tech.md, structure.md and any other), which
 * Kiro reads into every spec's work.
 */
function sharedPlanFolders(plan: Pick<FoundPlanFile, 'kind' | 'folder'>): string[] {
  if (plan.kind !== 'kiro') return [];
  // `<dir>/.kiro/specs/<feature>` → `<dir>/.kiro/steering`.
  return [`${dirOf(dirOf(plan.folder))}/steering`];
}

/**
 * Whether `path` is one of a plan's files: under its root, or its tasks file and sidecar; or in
 * a folder its kind shares (`sharedPlanFolders`).
 */
export function isPlanDocument(
  path: string,
  plan: Pick<FoundPlanFile, 'kind' | 'folder' | 'path' | 'sidecar'>,
): boolean {
  const root = planDocumentsRoot(plan);
  const under = (dir: string) => path === dir || path.startsWith(`${dir}/`);
  if (sharedPlanFolders(plan).some(under)) return true;
  return root !== undefined ? under(root) : path === plan.path || under(plan.sidecar);
}

/**
 * Whether `path` could be one of a plan's files, from its path alone (no tree): some folder
 * above it would hold a tasks file the `plans` globs find. Only then is the tree read to know.
 */
export function mayBePlanDocument(path: string, globs: readonly string[]): boolean {
  const matches = picomatch([...globs], { dot: true });
  const found = (tasks: string) => kindOfPath(tasks) !== undefined && matches(tasks);
  for (let dir = path; dir !== ''; dir = dirOf(dir)) {
    if (
      found(`${dir}/tasks.md`) ||
      found(`${dir}/tasks.json`) ||
      found(`${dir}/tasks/tasks.json`) ||
      found(`${dir}/01_Master Plan/01_Checklist.md`) ||
      found(`${dir}/changes/-/tasks.md`) ||
      // Kiro's steering, shared by its specs beside it.
      (baseOf(dir) === 'steering' &&
        baseOf(dirOf(dir)) === '.kiro' &&
        found(`${dirOf(dir)}/specs/-/tasks.md`))
    )
      return true;
  }
  return false;
}
