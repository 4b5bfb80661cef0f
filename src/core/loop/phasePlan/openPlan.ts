import type { Config } from '../../config.js';
import type { NamedPlan } from '../../plan/kinds/discovery.js';
import { validateKindContext } from '../../plan/kinds/index.js';
import { openKindPlan, planFromRef, type KindPlan } from '../../plan/kinds/plan.js';
import type { Problem } from '../../problem.js';
import { coderOwnFiles, coderPlan } from './coderPlan.js';
import { kindOwnFiles, kindPlan } from './kindPlan.js';
import type { LoopMarker } from '../record/marker.js';
import { restoreOnBranch, type OwnFiles, type PhasePlan } from './phasePlan.js';
import { openWhenRead, treePaths, type AnyPlan } from './startKind.js';
import type { Base, StartNeed, StartSnapshot } from '../snapshot/startSnapshot.js';

/** The reads a plan needs before it opens: the coder plan folder, or the texts of these paths. */
export type PlanRead = Extract<StartNeed, { need: 'plan' | 'texts' }>;

/**
 * The chosen plan, opened for a start: the read it needs first (the coder layout's plan folder,
 * another kind's tasks file and documents), or the plan behind the one interface every kind has.
 */
export function openToStart(
  config: Pick<Config, 'plansDir'>,
  chosen: AnyPlan,
  snap: Pick<StartSnapshot, 'plan'>,
  base: Pick<Base, 'files'>,
  texts: ReadonlyMap<string, string>,
  unreadable: ReadonlyMap<string, Problem> = new Map(),
): PlanRead | { open: PhasePlan } {
  if (chosen.kind === 'coder') return openCoder(config, chosen.name, snap, texts);
  return openKind(chosen.plan, chosen.label, base, texts, unreadable);
}

/**
 * The plan a loop record names, opened on a tree (the approved head, the PR's head, the default
 * branch): the coder layout's plan folder, or — a `planFile` in the record — another kind's tasks
 * file, documents and sidecar; or why the record names no plan.
 */
export function openRecorded(
  config: Pick<Config, 'plansDir'>,
  marker: Pick<LoopMarker, 'plan' | 'planFile'>,
  snap: Pick<StartSnapshot, 'plan'>,
  base: Pick<Base, 'files'>,
  texts: ReadonlyMap<string, string>,
): PlanRead | { open: PhasePlan } | { problems: Problem[] } {
  if (marker.planFile === undefined) return openCoder(config, marker.plan ?? '', snap);
  const plan = planFromRef(marker.planFile);
  if (!plan)
    return restoreOnBranch(marker.planFile, 'The loop record names no plan the loop reads.');
  return openKind(plan, marker.plan ?? plan.name, base, texts);
}

/**
 * The loop's own files of the plan a loop record names, from the record alone (no plan read):
 * the coder layout's in its plan folder, another kind's tasks file and sidecar (`planFile`); with
 * the phase the record names, as its report's name begins (`01_…`). Undefined: the record names
 * no phase of a plan the loop reads.
 */
export function recordedFiles(
  config: Pick<Config, 'plansDir'>,
  marker: Pick<LoopMarker, 'plan' | 'planFile' | 'phase' | 'phaseId'>,
): (OwnFiles & { phase: string }) | undefined {
  if (marker.planFile === undefined) {
    if (marker.plan === undefined || marker.phase === undefined) return undefined;
    return { ...coderOwnFiles(config.plansDir, marker.plan), phase: String(marker.phase) };
  }
  const plan = planFromRef(marker.planFile);
  if (!plan || marker.phaseId === undefined) return undefined;
  return { ...kindOwnFiles(plan), phase: marker.phaseId };
}

/**
 * The coder layout: its plan folder read and validated first (`readPlan` on GitHub's side). Texts
 * of the folder read since (the task plan a start reads beside its commit, `pullReads`) join its
 * files.
 */
function openCoder(
  config: Pick<Config, 'plansDir'>,
  name: string,
  snap: Pick<StartSnapshot, 'plan'>,
  texts: ReadonlyMap<string, string> = new Map(),
): PlanRead | { open: PhasePlan } {
  if (!snap.plan) return { need: 'plan', plan: name, plansDir: config.plansDir };
  const { files } = snap.plan;
  const prefix = `${files.dir}/`;
  const later = [...texts].filter(
    ([path]) => path.startsWith(prefix) && !files.files.has(path.slice(prefix.length)),
  );
  const all = later.length
    ? {
        ...files,
        files: new Map([
          ...files.files,
          ...later.map(([path, text]) => [path.slice(prefix.length), text] as const),
        ]),
      }
    : files;
  return { open: coderPlan(config, all, snap.plan.context) };
}

/** Another kind: the texts its reader names (tasks file, documents, sidecar) read first. */
function openKind(
  plan: NamedPlan,
  label: string,
  base: Pick<Base, 'files'>,
  texts: ReadonlyMap<string, string>,
  unreadable: ReadonlyMap<string, Problem> = new Map(),
): PlanRead | { open: PhasePlan } {
  const paths = treePaths(base.files);
  const opened = openWhenRead(plan, paths, texts);
  const need = 'need' in opened ? opened.need.filter((p) => !unreadable.has(p)) : [];
  if (need.length) return { need: 'texts', paths: need };
  const kp = 'open' in opened ? opened.open : openKindPlan(plan, paths, texts);
  const read = unreadable.size ? withUnreadable(kp, paths, texts, [...unreadable.values()]) : kp;
  return { open: kindPlan(read, label, paths, texts) };
}

/** A plan with files that are not text: their problems first; a tasks file's, and the context's. */
function withUnreadable(
  kp: KindPlan,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
  unreadable: Problem[],
): KindPlan {
  const has = new Set(paths);
  // A tasks file that is not text is that, not "missing": its problem and the context's.
  const problems = texts.has(kp.plan.path)
    ? kp.problems
    : validateKindContext(kp.plan, (p) => has.has(p));
  // The file of a finished phase (a done story's) is read for nothing the loop does: a warning.
  const finished = new Map(
    kp.phases.flatMap((p) => (p.finished && p.file !== undefined ? [[p.file, p.number]] : [])),
  );
  const told = unreadable.map((p): Problem => {
    const phase = finished.get(p.path);
    // A file the reader can go without (a tool's config): a warning, with what it did instead.
    const without = phase === undefined ? kp.withoutFile?.(p.path) : undefined;
    if (without !== undefined)
      return { ...p, severity: 'warning', message: `${p.message} ${without}` };
    return phase === undefined
      ? p
      : {
          ...p,
          severity: 'warning',
          message: `${p.message} It is the file of Phase ${phase}, which is finished: the plan runs without its tasks.`,
        };
  });
  return { ...kp, problems: [...told, ...problems] };
}
