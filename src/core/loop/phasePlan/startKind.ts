import type { Config } from '../../config.js';
import { codeSpan } from '../../markdown.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  kindModule,
  namePlans,
  resolvePlan,
  type FoundPlanFile,
  type SkippedPlanFiles,
  type NamedPlan,
  type PlanKind,
} from '../../plan/kinds/index.js';
import {
  kindPlanReads,
  openKindPlan,
  planRef,
  type KindPhase,
  type KindPlan,
} from '../../plan/kinds/plan.js';
import { KINDS } from '../../plan/kinds/registry.js';
import { PLAN_FILES, planNames, planPath, planSlug, slugConflicts } from '../../plan/layout.js';
import { formatProblem, type Problem } from '../../problem.js';
import type { Answer } from './choose.js';
import type { RunSnapshot } from '../nodes/run.js';
import { reply } from '../messages/replies.js';
import { phaseInteger } from '../messages/phaseName.js';

/**
 * A plan the loop can run, of any kind: its kind, the name people use, the label the loop writes
 * (the name, or the tasks file's path when two plans share the name), its tasks file (a coder
 * plan's checklist) and the path that names it always (`#tag` for one tag of a tagged kind); a
 * coder plan folder under `plansDir`, or a plan of another kind as its reader found it.
 */
export type AnyPlan = {
  planKind: PlanKind;
  name: string;
  label: string;
  path: string;
  ref: string;
  /** The folder of the plan's files, the loop's own (its log, reports) inside it or its sidecar. */
  folder: string;
  sidecar: string;
  /** How a list of plans names it: a coder plan by its folder's name, another kind's by `ref`. */
  handle: string;
} & ({ kind: 'coder' } | { kind: 'other'; plan: NamedPlan });

/** Whether a found file is a tagged kind's: its text names its plans (its tags). */
function isTagged(f: FoundPlanFile): boolean {
  return f.kind !== 'coder' && kindModule(f.kind).tagged === true;
}

/** The tasks files of tagged kinds among a tree's paths: their text names their plans (tags). */
export function taggedPlanFiles(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
) {
  return otherKindFiles(config, paths)
    .filter(isTagged)
    .map((f) => f.path);
}

// The start decision runs once per read or write of a start, on one tree: its paths as a list
// and the plan files among them are computed once per tree (the list is the cache's key).
const pathLists = new WeakMap<ReadonlyMap<string, unknown>, readonly string[]>();
const foundIn = new WeakMap<readonly string[], Map<string, FoundPlanFile[]>>();

/** A tree's paths as one list, the same list for the same tree. */
export function treePaths(files: ReadonlyMap<string, unknown>): readonly string[] {
  let paths = pathLists.get(files);
  if (!paths) pathLists.set(files, (paths = [...files.keys()]));
  return paths;
}

/**
 * The files a tree's plans are found by, read before discovery: the tasks files of tagged kinds
 * (their text names their plans), and, `byToolConfig` with the default `plans` globs, what a
 * kind's `discoveryReads` names (a tool's config that says where its tasks file is).
 *
 * Only the CLI finds plans by a tool's config. The loop runs the plans its `plans` globs find,
 * because those globs are also what guards a plan's documents on a pull request (a change to them
 * is an architect's) and from the coding agent: a plan found another way would be run unguarded.
 * A user names such a plan in `plans` (.github/coder.yml) for the loop to run it.
 */
export function planDiscoveryReads(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
  byToolConfig = false,
): string[] {
  const own =
    config.plans || !byToolConfig ? [] : KINDS.flatMap((k) => k.discoveryReads?.(paths) ?? []);
  return [...new Set([...taggedPlanFiles(config, paths), ...own])];
}

/** The folder of a path ('' at the root). */
function folderOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/**
 * The plans of other kinds, as the globs find them and, with the default globs, as each kind's
 * `discover` adds and sets aside from the texts `planDiscoveryReads` named.
 */
function kindFiles(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
  byToolConfig: boolean,
): { files: FoundPlanFile[]; skipped: SkippedPlanFiles[] } {
  const globbed = otherKindFiles(config, paths);
  if (config.plans || !byToolConfig) return { files: globbed, skipped: [] };
  let files = globbed;
  const skipped: SkippedPlanFiles[] = [];
  for (const kind of KINDS) {
    if (!kind.discover) continue;
    const own = files.filter((f) => f.kind === kind.id).map((f) => f.path);
    const found = kind.discover(paths, texts, own);
    skipped.push(...found.skipped);
    const keep = new Set(found.plans);
    files = [
      ...files.filter((f) => f.kind !== kind.id || keep.has(f.path)),
      ...found.plans
        .filter((p) => !own.includes(p))
        .map((path) => ({
          kind: kind.id as PlanKind,
          path,
          folder: folderOf(path),
          sidecar: `${folderOf(path)}/coder-loop`.replace(/^\//, ''),
        })),
    ];
  }
  return { files, skipped };
}

function otherKindFiles(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
): FoundPlanFile[] {
  const globs = config.plans ?? defaultPlanGlobs(config.plansDir);
  const key = JSON.stringify(globs);
  let byGlobs = foundIn.get(paths);
  if (!byGlobs) foundIn.set(paths, (byGlobs = new Map()));
  let found = byGlobs.get(key);
  if (!found)
    byGlobs.set(key, (found = findPlanFiles(paths, globs).filter((f) => f.kind !== 'coder')));
  return found;
}

/**
 * Every plan of every kind in a tree (`plans` globs; without them, coder plans are the folders
 * under `plansDir`, as before the other kinds — `folders` when the caller lists them itself, as
 * a working copy holds empty ones a git tree cannot), each named as `AnyPlan` says; with
 * `byToolConfig` (the CLI's), also those a tool's config places (`planDiscoveryReads`).
 */
export function plansOfAnyKind(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
  folders?: readonly string[],
  byToolConfig = false,
): { plans: AnyPlan[]; problems: Problem[]; skipped: SkippedPlanFiles[] } {
  const coderNames = coderPlanNames(config, paths, folders);
  const found = kindFiles(config, paths, texts, byToolConfig);
  const tags = new Map<string, string[]>();
  const notPlans: Problem[] = [];
  // A tagged kind's file that is another tool's (a legacy tasks/tasks.json of VS Code's, a
  // config) is no plan.
  const files = found.files.filter((f) => {
    if (f.kind === 'coder' || !isTagged(f)) return true;
    const text = texts.get(f.path);
    const read = text === undefined ? undefined : kindModule(f.kind).plansIn!(text, f.path);
    if (read?.notAPlan) {
      notPlans.push(read.notAPlan);
      return false;
    }
    tags.set(f.path, read ? read.names : []);
    return true;
  });
  const named = namePlans(files, tags);
  // A tasks.json with no tag to read (not JSON, no task list) names no plan; its path still
  // reaches it, so that "Plan required" can say what is wrong with it (file:line).
  for (const f of files)
    if (isTagged(f) && (tags.get(f.path) ?? []).length === 0)
      named.plans.push({ ...f, name: f.path });
  const count = new Map<string, number>();
  for (const n of [...coderNames, ...named.plans.map((p) => p.name)])
    count.set(n, (count.get(n) ?? 0) + 1);
  const plans: AnyPlan[] = [
    ...coderNames.map((name) => {
      const path = planPath(config.plansDir, name, PLAN_FILES.checklist);
      const folder = path.slice(0, -`/${PLAN_FILES.checklist}`.length);
      return {
        kind: 'coder' as const,
        planKind: 'coder' as const,
        name,
        label: name,
        path,
        ref: path,
        folder,
        sidecar: folder,
        handle: name,
      };
    }),
    ...named.plans.map((plan) => ({
      kind: 'other' as const,
      planKind: plan.kind,
      plan,
      name: plan.name,
      label: count.get(plan.name)! > 1 ? planRef(plan) : plan.name,
      path: plan.path,
      ref: planRef(plan),
      folder: plan.folder,
      sidecar: plan.sidecar,
      handle: planRef(plan),
    })),
  ];
  return { plans, problems: [...notPlans, ...named.problems], skipped: found.skipped };
}

/**
 * Start → the plan, over every kind: the named one (by name, or by its tasks file's path when two
 * share a name); else the only plan; else a reply listing them. Two plans named alike, asked by
 * that name, are both listed and nothing is written.
 */
export function chooseAnyPlan(
  plansDir: string,
  plans: readonly AnyPlan[],
  requested: string | undefined,
  cli?: string,
): AnyPlan | Answer {
  const labels = plans.map((p) => p.label);
  let chosen: AnyPlan | undefined;
  if (requested === undefined) {
    if (plans.length === 0)
      return { reply: reply.noPlans(plansDir, cli), outcome: { state: 'no-plan' } };
    if (plans.length > 1)
      return { reply: reply.choosePlan(labels), outcome: { state: 'choose-plan' } };
    chosen = plans[0]!;
  } else {
    const byName = plans.filter((p) => p.name === requested);
    if (byName.length > 1)
      return {
        reply: reply.twoPlansNamed(
          requested,
          byName.map((p) => p.ref),
        ),
        outcome: { state: 'choose-plan' },
      };
    chosen = byName[0] ?? plans.find((p) => p.label === requested || p.ref === requested);
    if (!chosen) {
      const others = plans.flatMap((p) => (p.kind === 'other' ? [p.plan] : []));
      const byPath = others.length ? resolvePlan(others, requested) : undefined;
      if (byPath && 'plan' in byPath)
        chosen = plans.find((p) => p.kind === 'other' && p.plan === byPath.plan);
      // A tagged kind's tasks file by its path alone: each of its tags is a plan of its own.
      const tagged = plans.filter((p) => p.kind === 'other' && p.path === requested);
      if (!chosen && tagged.length > 1)
        return {
          reply: reply.tagsInFile(
            requested,
            tagged.map((p) => p.ref),
          ),
          outcome: { state: 'choose-plan' },
        };
    }
    if (!chosen)
      return { reply: reply.noSuchPlan(requested, labels), outcome: { state: 'no-plan' } };
  }
  // Two plans with one slug would share lock branches: one's lock would read as the other's.
  const { label } = chosen;
  const other = slugConflicts([...new Set(labels)]).get(label);
  if (other !== undefined)
    return {
      reply: reply.slugConflict(label, other, `coder/${planSlug(label)}/…`, cli),
      outcome: { state: 'plan-required', node: 'ValidateContext', mode: 'plan', plan: label },
    };
  return chosen;
}

/** A kind's phase number as a ref may hold it. */
function branchPart(number: string): string {
  return number.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/\.{2,}/g, '.');
}

/** `coder/<plan-slug>/phase-<number>`: the lock branch of a phase of another kind. */
export function kindPhaseBranch(label: string, phase: Pick<KindPhase, 'number'>): string {
  return `coder/${planSlug(label)}/phase-${branchPart(phase.number)}`;
}

/** The reads a plan of another kind needs before it can be opened, and it opened once read. */
export function openWhenRead(
  plan: NamedPlan,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
): { need: string[] } | { open: KindPlan } {
  const need = kindPlanReads(plan, paths, texts).filter((p) => !texts.has(p));
  return need.length ? { need } : { open: openKindPlan(plan, paths, texts) };
}

/**
 * Where a run over a plan of another kind stands after a merge, read from the default branch:
 * its next phase in the plan's order (dependencies respected, where the kind has them), complete
 * or waiting, and whether the merged phase is finished there (nothing starts while it is not).
 */
export function kindRunState(
  kp: KindPlan,
  mergedPhase: string | undefined,
): Pick<RunSnapshot, 'nextPhase' | 'planComplete' | 'waiting' | 'mergedPhaseFinished'> {
  const merged = kp.phases.find((p) => p.number === mergedPhase);
  return {
    nextPhase: kp.current ? phaseInteger(kp.current.number) : undefined,
    planComplete: kp.complete,
    ...(kp.waiting !== undefined ? { waiting: kp.waiting } : {}),
    mergedPhaseFinished: merged === undefined || merged.finished,
  };
}

/** Context valid? → the current phase, or Plan Required (each problem, file:line), or complete. */
export function kindPhaseToStart(
  label: string,
  kp: KindPlan,
  cli?: string,
): { phase: KindPhase } | Answer {
  if (kp.problems.length > 0)
    return {
      reply: reply.planRequired(label, kp.problems, cli),
      outcome: { state: 'plan-required', node: 'ValidateContext', mode: 'plan', plan: label },
    };
  if (!kp.current && kp.complete)
    return {
      reply: reply.planComplete(label),
      outcome: { state: 'plan-complete', node: 'End', mode: 'plan', plan: label },
    };
  if (!kp.current)
    return {
      reply: reply.planWaiting(label, kp.waiting ?? 'no phase has work that can start.'),
      outcome: { state: 'plan-waiting', mode: 'plan', plan: label },
    };
  return { phase: kp.current };
}

/** The reply's note on lookalike tasks and other warnings of the kind's reader. */
export function warningsNote(warnings: readonly Problem[]): string {
  if (warnings.length === 0) return '';
  const shown = warnings.slice(0, 20).map((w) => `- ${codeSpan(formatProblem(w))}`);
  const more = warnings.length > 20 ? [`- … and ${warnings.length - 20} more`] : [];
  return `\n\nWarnings (these lines are not read as tasks):\n\n${[...shown, ...more].join('\n')}`;
}

/**
 * The coder plans of a tree: every folder under `plansDir` (as before the other kinds, so a
 * folder without a checklist still gets its "Plan required"), or, when `plans` globs are set,
 * the folders whose checklist they match.
 */
function coderPlanNames(
  config: Pick<Config, 'plans' | 'plansDir'>,
  paths: readonly string[],
  folders: readonly string[] | undefined,
): readonly string[] {
  if (!config.plans) return folders ?? planNames(paths, config.plansDir);
  return findPlanFiles(paths, config.plans)
    .filter((f) => f.kind === 'coder')
    .map((f) => f.folder.slice(f.folder.lastIndexOf('/') + 1))
    .sort();
}
