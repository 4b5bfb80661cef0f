import picomatch from 'picomatch';
import type { Config } from '../config.js';
import { parseChecklist } from '../plan/checklist.js';
import { findCheckpoint, isLoopCheckpoint, writeCheckpoint } from '../plan/checkpoint.js';
import {
  defaultPlanGlobs,
  isPlanDocument,
  mayBePlanDocument,
  type FoundPlanFile,
} from '../plan/kinds/discovery.js';
import { kindSidecar, openKindPlan, planFromRef } from '../plan/kinds/plan.js';
import { PLAN_FILES } from '../plan/layout.js';
import { markPhase } from '../plan/mark.js';
import { appendedByLoop } from '../plan/masterLog.js';
import { isLoopReport } from '../plan/report.js';
import type { LoopMarker } from './marker.js';
import { touchedPaths, type Need, type PullSnapshot } from './pullSnapshot.js';

/**
 * "Touched Locked Items?" — what only an architect's approval may let through: paths matching
 * `locked`, and every plan's documents, of every kind, with every sidecar. The loop's own plan
 * files (its tasks file or checklist, log, checkpoint and this phase's report) are plan documents
 * too, except where the head holds exactly what the loop writes there: the base with the loop's
 * marks for this phase, its log entries appended, its checkpoint, its report. Anything else in
 * them — a later phase marked done, a line of the log rewritten — is a plan change.
 */

/** The part the loop writes of one of its own plan files. */
export type LoopFileRole = 'tasks' | 'log' | 'checkpoint' | 'report';

/** One file's text at the PR's base and at its head (absent: no such file there). */
export interface PlanFileTexts {
  base?: string;
  head?: string;
}

/** The `plans` globs in force: the config's, else every kind's default places. */
export function planGlobs(config: Pick<Config, 'plans' | 'plansDir'>): readonly string[] {
  return config.plans ?? defaultPlanGlobs(config.plansDir);
}

/** Which of the loop's own plan files `path` is for this PR, if any. */
export function loopFileRole(
  path: string,
  marker: LoopMarker,
  config: Pick<Config, 'plansDir' | 'quick'>,
): LoopFileRole | undefined {
  const plans = config.plansDir.replace(/\/+$/, '');
  if (marker.mode === 'quick') {
    // `quick.log`: one entry in a plan's master log.
    if (!config.quick.log || !path.startsWith(`${plans}/`)) return undefined;
    const rest = path.slice(plans.length + 1);
    const slash = rest.indexOf('/');
    return slash > 0 && rest.slice(slash + 1) === PLAN_FILES.masterLog ? 'log' : undefined;
  }
  const report = (dir: string, phase: string) =>
    path.startsWith(`${dir}/${PLAN_FILES.reportsDir}/${phase.padStart(2, '0')}_`) &&
    path.endsWith('.md') &&
    !path.slice(dir.length + PLAN_FILES.reportsDir.length + 2).includes('/');
  if (marker.planFile !== undefined) {
    const plan = planFromRef(marker.planFile);
    if (!plan || marker.phaseId === undefined) return undefined;
    const sidecar = kindSidecar(plan);
    if (path === plan.path) return 'tasks';
    if (path === sidecar.masterLog) return 'log';
    if (path === sidecar.checkpoint) return 'checkpoint';
    return report(sidecar.dir, marker.phaseId) ? 'report' : undefined;
  }
  if (marker.plan === undefined || marker.phase === undefined) return undefined;
  const own = `${plans}/${marker.plan}`;
  if (path === `${own}/${PLAN_FILES.checklist}`) return 'tasks';
  if (path === `${own}/${PLAN_FILES.context}`) return 'checkpoint';
  if (path === `${own}/${PLAN_FILES.masterLog}`) return 'log';
  return report(own, String(marker.phase)) ? 'report' : undefined;
}

/** The loop's own plan files the PR touches: their texts are read to tell its bytes from others'. */
export function loopFilesTouched(
  snap: Pick<PullSnapshot, 'files' | 'marker'>,
  config: Pick<Config, 'plansDir' | 'quick'>,
): string[] {
  return [...new Set(touchedPaths(snap.files ?? []))].filter(
    (p) => loopFileRole(p, snap.marker, config) !== undefined,
  );
}

/** The tasks file as the loop leaves it in this phase: as found, the start's marks, the done marks. */
function tasksByLoop(path: string, base: string, marker: LoopMarker): string[] {
  if (marker.planFile !== undefined) {
    const plan = planFromRef(marker.planFile)!;
    const open = (source: string) => openKindPlan(plan, [path], new Map([[path, source]]));
    const kp = open(base);
    const phase = kp.phases.find((p) => p.number === marker.phaseId);
    if (!phase) return [base];
    const started = kp.markStart(phase);
    const again = open(started).phases.find((p) => p.number === marker.phaseId);
    return [base, started, kp.markDone(phase), ...(again ? [open(started).markDone(again)] : [])];
  }
  const phase = parseChecklist(base, path).phases.find((p) => p.number === marker.phase);
  if (!phase) return [base];
  return [
    base,
    markPhase(base, phase, 'doing', ['todo']).source,
    markPhase(base, phase, 'done').source,
  ];
}

/**
 * Whether the head's text of one of the loop's own plan files is the base's with only what the
 * loop writes there in this phase: the phase's marks (start, done), log entries appended at the
 * end, the checkpoint block, this phase's report. The loop never deletes one of them.
 */
export function loopWroteOnly(
  path: string,
  role: LoopFileRole,
  texts: PlanFileTexts,
  snap: Pick<PullSnapshot, 'marker' | 'pr'>,
): boolean {
  const { marker } = snap;
  const { base, head } = texts;
  if (head === undefined) return false;
  if (head === base) return true;
  const phase = marker.phaseId ?? (marker.phase !== undefined ? String(marker.phase) : undefined);
  try {
    switch (role) {
      case 'tasks':
        return base !== undefined && tasksByLoop(path, base, marker).includes(head);
      case 'log':
        return appendedByLoop(
          base,
          head,
          marker.mode === 'quick'
            ? { events: ['Quick mode started'] }
            : { events: ['Coder started', 'Coder completed'], phase: phase ?? '' },
        );
      case 'checkpoint': {
        const { block, problems } = findCheckpoint(head, path);
        if (!block || problems.length || phase === undefined) return false;
        const eol = head.includes('\r\n') ? '\r\n' : '\n';
        const inner = head.slice(block.innerStart, block.innerEnd);
        const lines =
          inner.startsWith(eol) && inner.endsWith(eol)
            ? inner.slice(eol.length, -eol.length).split(eol)
            : undefined;
        if (!lines || !isLoopCheckpoint(lines, phase, snap.pr.number)) return false;
        return writeCheckpoint(base ?? '', path, lines) === head;
      }
      case 'report':
        return phase !== undefined && isLoopReport(head, phase);
    }
  } catch {
    // A file the loop's own reading refuses is not what the loop wrote.
    return false;
  }
}

/**
 * The paths a PR touches that need an architect: `locked` ones, and plan documents — every
 * plan's files under `plansDir`, or of a plan of any kind the `plans` globs find (`found`, the
 * tasks files of the base and head trees), and every sidecar — but for what `loopWrote`.
 */
export function touchedLockedItems(
  files: readonly string[],
  config: Pick<Config, 'locked' | 'plansDir'>,
  found: readonly FoundPlanFile[],
  loopWrote: (path: string) => boolean = () => false,
): { locked: string[]; planDocuments: string[] } {
  const isLocked = config.locked.length ? picomatch(config.locked, { dot: true }) : () => false;
  const plans = `${config.plansDir.replace(/\/+$/, '')}/`;
  const unique = [...new Set(files)];
  const locked = unique.filter((f) => isLocked(f));
  const planDocuments = unique.filter(
    (f) => (f.startsWith(plans) || found.some((p) => isPlanDocument(f, p))) && !loopWrote(f),
  );
  return { locked, planDocuments };
}

/**
 * The PR's items that need an architect, from the snapshot; or the read it needs first: the
 * plans of the base and head trees (only when a touched path could be in a plan's folder), the
 * texts of the loop's own plan files the PR touches.
 */
export function architectItems(
  snap: PullSnapshot,
  config: Config,
): { locked: string[]; planDocuments: string[] } | { need: Need } {
  const touched = touchedPaths(snap.files ?? []);
  const plans = `${config.plansDir.replace(/\/+$/, '')}/`;
  const globs = planGlobs(config);
  if (!snap.plans && touched.some((p) => !p.startsWith(plans) && mayBePlanDocument(p, globs)))
    return { need: 'plans' };
  const own = loopFilesTouched(snap, config);
  if (own.length && !snap.planTexts) return { need: 'planTexts' };
  const loopWrote = (path: string) => {
    const role = loopFileRole(path, snap.marker, config);
    const texts = snap.planTexts?.get(path);
    return role !== undefined && texts !== undefined && loopWroteOnly(path, role, texts, snap);
  };
  return touchedLockedItems(touched, config, snap.plans ?? [], loopWrote);
}
