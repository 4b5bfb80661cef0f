import type { Config } from '../config.js';
import { validateKindContext } from '../plan/kinds/index.js';
import { openKindPlan, type KindPlan } from '../plan/kinds/plan.js';
import type { Problem } from '../problem.js';
import { coderPlan } from './coderPlan.js';
import { kindPlan } from './kindPlan.js';
import type { PhasePlan } from './phasePlan.js';
import { openWhenRead, treePaths, type AnyPlan } from './startKind.js';
import type { Base, StartNeed, StartSnapshot } from './startSnapshot.js';

/** The reads a plan needs before it opens: the coder plan folder, or the texts of these paths. */
export type PlanRead = Extract<StartNeed, { need: 'plan' | 'texts' }>;

/**
 * The chosen plan, opened for a start: the read it needs first (the coder layout's plan folder,
 * another kind's tasks file and documents), or the plan behind the one interface every kind has.
 * `unreadable` holds the files of another kind that were read and are not text (not UTF-8 in a
 * working copy): each is the plan's problem, with its line, never a missing file.
 */
export function openToStart(
  config: Pick<Config, 'plansDir'>,
  chosen: AnyPlan,
  snap: Pick<StartSnapshot, 'plan'>,
  base: Pick<Base, 'files'>,
  texts: ReadonlyMap<string, string>,
  unreadable: ReadonlyMap<string, Problem> = new Map(),
): PlanRead | { open: PhasePlan } {
  if (chosen.kind === 'coder') {
    if (!snap.plan) return { need: 'plan', plan: chosen.name, plansDir: config.plansDir };
    return { open: coderPlan(config, snap.plan.files, snap.plan.context) };
  }
  const paths = treePaths(base.files);
  const opened = openWhenRead(chosen.plan, paths, texts);
  const need = 'need' in opened ? opened.need.filter((p) => !unreadable.has(p)) : [];
  if (need.length) return { need: 'texts', paths: need };
  const kp = 'open' in opened ? opened.open : openKindPlan(chosen.plan, paths, texts);
  const read = unreadable.size ? withUnreadable(kp, paths, texts, [...unreadable.values()]) : kp;
  return { open: kindPlan(read, chosen.label, paths, texts) };
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
  return { ...kp, problems: [...unreadable, ...problems] };
}
