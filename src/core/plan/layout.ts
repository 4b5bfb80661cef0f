/**
 * The plan directory of seed 002, names with spaces exactly as written:
 *
 *   {PlanName}/00_context.md
 *   {PlanName}/01_Master Plan/01_Checklist.md
 *   {PlanName}/01_Master Plan/10_Master_Codemap.mmd
 *   {PlanName}/01_Master Plan/03_Requirements_*.md
 *   {PlanName}/Task Plans/{Phase}.md
 *   {PlanName}/Reports/01_Master_Log.md
 *   {PlanName}/Reports/{NN}_{Phase_Name}.md
 */
export const PLAN_FILES = {
  context: '00_context.md',
  checklist: '01_Master Plan/01_Checklist.md',
  codemap: '01_Master Plan/10_Master_Codemap.mmd',
  masterLog: 'Reports/01_Master_Log.md',
  taskPlansDir: 'Task Plans',
  reportsDir: 'Reports',
  masterPlanDir: '01_Master Plan',
} as const;

const REQUIREMENTS = /^01_Master Plan\/03_Requirements_[^/]*\.md$/;

export function isRequirementsFile(planPath: string): boolean {
  return REQUIREMENTS.test(planPath);
}

const MAX_PLAN_NAME_LENGTH = 100;

/**
 * Why a plan named by the path of its tasks file (`specs/auth/tasks.md`, `…/tasks.json#tag`,
 * `…/01_Checklist.md`: how two plans with one name are told apart) cannot be, or undefined.
 */
export function checkPlanPath(ref: string): string | undefined {
  if (ref.length > 1_000) return 'the tasks file path is longer than 1000 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(ref)) return 'the path contains a control character or a \\';
  if (ref.startsWith('/') || ref.split('/').some((part) => part === '..' || part === '.'))
    return 'the path is not a path from the repository root';
  if (/%2e|%2f|%5c/i.test(ref)) return 'the path contains an encoded path character';
  return undefined;
}

/** Whether a command names its plan by the path of its tasks file. */
export function isPlanPath(ref: string): boolean {
  return /\/(?:tasks\.md|tasks\.json(?:#[^/]*)?|01_Checklist\.md)$/.test(ref);
}

/** Why a plan name cannot be used as a directory under `plansDir`, or undefined when it can. */
export function checkPlanName(name: string): string | undefined {
  if (name.trim() === '') return 'the plan name is empty';
  if (name.length > MAX_PLAN_NAME_LENGTH) {
    return `the plan name is longer than ${MAX_PLAN_NAME_LENGTH} characters`;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the plan name contains a control character';
  if (/[/\\]/.test(name)) return 'the plan name contains a path separator (`/` or `\\`)';
  if (name === '.' || name.includes('..')) return 'the plan name contains ".."';
  if (/%2e|%2f|%5c/i.test(name)) return 'the plan name contains an encoded path character';
  if (name !== name.trim()) return 'the plan name starts or ends with a space';
  return undefined;
}

/**
 * `coder/<plan-slug>/phase-<N>`'s plan-slug: the name NFC-normalised, diacritics folded
 * (`Café` → `cafe`), lower case, runs outside a-z0-9 → one `-`, trimmed. A name with nothing
 * left (`計画`) gets `plan-` and a hash of the name, so the slug is never empty.
 */
export function planSlug(name: string): string {
  const nfc = name.normalize('NFC');
  const slug = nfc
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? `plan-${fnv1a(nfc)}` : slug;
}

/** 32-bit FNV-1a of a string's UTF-16 units, eight hex digits: short, stable, dependency-free. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Plans whose slugs collide (their lock branches would be one): each name → the first other. */
export function slugConflicts(names: readonly string[]): Map<string, string> {
  const bySlug = new Map<string, string[]>();
  for (const name of names)
    bySlug.set(planSlug(name), [...(bySlug.get(planSlug(name)) ?? []), name]);
  const conflicts = new Map<string, string>();
  for (const group of bySlug.values()) {
    if (group.length < 2) continue;
    for (const name of group)
      conflicts.set(
        name,
        group.find((other) => other !== name)!,
      );
  }
  return conflicts;
}

export function phaseBranch(planName: string, phase: number): string {
  return `coder/${planSlug(planName)}/phase-${phase}`;
}

export function quickBranch(issue: number): string {
  return `coder/quick/issue-${issue}`;
}

/**
 * A phase's name as a report's file name holds it, portable to every file system git checks out
 * on: no `<>:"/\|?*`, no control character, no emoji or other pictograph (nor the joiners and
 * variation selectors that build them), no trailing dot or space; spaces as `_`, one at a time.
 * Letters of every script stay. `(Priority: P1) 🎯 MVP` → `(Priority_P1)_MVP`.
 */
function portableName(name: string): string {
  return (
    name
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex
      .replace(/[<>:"/\\|?*\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0e|\ufe0f|\u20e3/gu, ' ')
      .replace(/[\p{Cs}\p{Co}\p{Cn}]/gu, ' ')
      .trim()
      .replace(/\s+/g, '_')
      .replace(/_+/g, '_')
      .replace(/[._ ]+$/, '')
  );
}

/** The name reports had before names were portable: kept for a report already written so. */
function legacyName(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex
      .replace(/[/\\\u0000-\u001f\u007f]/g, '')
      .trim()
      .replace(/\s+/g, '_')
  );
}

/**
 * A phase report's file name, `{NN}_{Phase_Name}.md` (`NN` two digits at least), its name
 * portable (`portableName`); when `existing` (the paths there now) holds the phase's report under
 * the name an earlier version wrote, that one, so a report is never written twice.
 */
export function reportFileName(
  number: string,
  phaseName: string,
  existing: (name: string) => boolean = () => false,
): string {
  const nn = number.padStart(2, '0');
  const fallback = `Phase_${number}`;
  const now = `${nn}_${portableName(phaseName) || fallback}.md`;
  const before = `${nn}_${legacyName(phaseName) || fallback}.md`;
  return before !== now && existing(before) ? before : now;
}

/** `Reports/{NN}_{Phase_Name}.md` of a coder plan (`reportFileName`); `existing`: plan-relative paths. */
export function reportPath(
  phase: number,
  phaseName: string,
  existing: readonly string[] = [],
): string {
  const dir = PLAN_FILES.reportsDir;
  const file = reportFileName(String(phase), phaseName, (name) =>
    existing.includes(`${dir}/${name}`),
  );
  const path = `${dir}/${file}`;
  // Phase 1 named "Master Log" must not overwrite the master log.
  return path === PLAN_FILES.masterLog ? path.replace(/\.md$/, '_Report.md') : path;
}

/**
 * The phase number a task-plan file name stands for: the number after "Phase" when the name
 * has one ("Phase 2 - API.md", "phase_02.md"), else its leading number ("02_API.md").
 */
export function taskPlanPhase(fileName: string): number | undefined {
  const base = fileName.replace(/\.md$/i, '');
  const m = /phase[\s_-]*0*(\d+)/i.exec(base) ?? /^0*(\d+)(?!\d)/.exec(base);
  return m ? Number(m[1]) : undefined;
}

export interface TaskPlanIndex {
  /** phase number → plan-relative paths of the task plans that name it */
  byPhase: Map<number, string[]>;
  /** task plans whose name holds no phase number */
  unmatched: string[];
}

/** Task plans are `Task Plans/*.md`, matched to phases by the number in their name. */
export function indexTaskPlans(planPaths: readonly string[]): TaskPlanIndex {
  const byPhase = new Map<number, string[]>();
  const unmatched: string[] = [];
  const prefix = `${PLAN_FILES.taskPlansDir}/`;
  for (const path of planPaths) {
    if (!path.startsWith(prefix) || !/\.md$/i.test(path)) continue;
    const fileName = path.slice(prefix.length);
    if (fileName.includes('/')) continue;
    const phase = taskPlanPhase(fileName);
    if (phase === undefined) unmatched.push(path);
    else byPhase.set(phase, [...(byPhase.get(phase) ?? []), path]);
  }
  return { byPhase, unmatched };
}

export function planPath(plansDir: string, planName: string, file: string): string {
  const dir = plansDir.replace(/\/+$/, '');
  return dir === '' || dir === '.' ? `${planName}/${file}` : `${dir}/${planName}/${file}`;
}

/** The plan folders under `plansDir` among a tree's paths. */
export function planNames(paths: Iterable<string>, plansDir: string): string[] {
  const prefix = `${plansDir.replace(/\/+$/, '')}/`;
  const names = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash > 0) names.add(rest.slice(0, slash));
  }
  return [...names].sort();
}
