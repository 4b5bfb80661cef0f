import type { Config } from '../../config.js';
import type { LoopMarker } from '../record/marker.js';
import { budgetSpent, phaseSpend, runSpend } from './run.js';

/**
 * A plan-mode head CI passed on, before Code Review: whether a budget is spent already — the
 * agent's minutes or cost of a green attempt count as much as a red one's. The sentence with the
 * figures, or undefined. `/coder resume` (`again`) lets the head through once: the architect
 * decided; a later head is counted again (raise the budget to go on for longer).
 */
export function spentAtGreen(
  marker: LoopMarker,
  config: Pick<Config, 'budget'>,
  again: boolean,
): string | undefined {
  if (marker.mode !== 'plan' || again) return undefined;
  return budgetSpent(config.budget, phaseSpend(marker), runSpend(marker));
}
