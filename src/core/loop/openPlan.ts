import type { Config } from '../config.js';
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
 */
export function openToStart(
  config: Pick<Config, 'plansDir'>,
  chosen: AnyPlan,
  snap: Pick<StartSnapshot, 'plan'>,
  base: Pick<Base, 'files'>,
  texts: ReadonlyMap<string, string>,
): PlanRead | { open: PhasePlan } {
  if (chosen.kind === 'coder') {
    if (!snap.plan) return { need: 'plan', plan: chosen.name, plansDir: config.plansDir };
    return { open: coderPlan(config, snap.plan.files, snap.plan.context) };
  }
  const paths = treePaths(base.files);
  const opened = openWhenRead(chosen.plan, paths, texts);
  if ('need' in opened) return { need: 'texts', paths: opened.need };
  return { open: kindPlan(opened.open, chosen.label, paths, texts) };
}
