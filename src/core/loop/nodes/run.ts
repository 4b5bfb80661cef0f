import type { LoopMarker, PhaseCounts, RunState } from '../record/marker.js';

/**
 * `/coder run` (SPEC §3 item 12): after a phase of an active run is verified and merged, the loop
 * starts the next phase itself. Everything here is pure: the run's state comes only from the
 * merged PR's record (its head's `coder-loop` check run, which only the loop writes), never from
 * the PR's body, labels or comments.
 */

/** What a phase (or a run) has spent, counted by the loop across retries, not by the agent. */
export interface Spend {
  failedAttempts: number;
  minutes: number;
  costUsd: number;
}

/** A limit per phase and per run; an absent limit is no limit. */
export interface Limit {
  phase?: number;
  run?: number;
}

export interface Budget {
  failedAttempts?: Limit;
  agentMinutes?: Limit;
  costUsd?: Limit;
}

export const NO_SPEND: Spend = { failedAttempts: 0, minutes: 0, costUsd: 0 };

/** A phase's spend from its record: failed attempts and the agent runs the loop recorded. */
export function phaseSpend(record: Pick<LoopMarker, 'attempts' | 'agentRuns'>): Spend {
  const runs = record.agentRuns ?? [];
  return {
    failedAttempts: (record.attempts ?? []).length,
    minutes: round(runs.reduce((sum, r) => sum + r.minutes, 0)),
    costUsd: round(runs.reduce((sum, r) => sum + (r.usage?.costUsd ?? 0), 0)),
  };
}

export const NO_COUNTS: PhaseCounts = {
  agentRuns: 0,
  unpriced: 0,
  pauses: 0,
  pausedMinutes: 0,
  reruns: 0,
  flaky: 0,
};

/** A phase's counts from its record. */
export function phaseCounts(
  record: Pick<LoopMarker, 'agentRuns' | 'pauses' | 'reruns' | 'flaky'>,
): PhaseCounts {
  const runs = record.agentRuns ?? [];
  const pauses = record.pauses ?? [];
  const span = (p: { since: string; until: string }) =>
    Math.max(0, (Date.parse(p.until) - Date.parse(p.since)) / 60_000) || 0;
  return {
    agentRuns: runs.length,
    unpriced: runs.filter((r) => r.usage?.costUsd === undefined).length,
    pauses: pauses.length,
    pausedMinutes: Math.round(pauses.reduce((sum, p) => sum + span(p), 0)),
    reruns: (record.reruns ?? []).filter((r) => !r.refused).length,
    flaky: (record.flaky ?? []).length,
  };
}

export function addCounts(a: PhaseCounts, b: PhaseCounts): PhaseCounts {
  return {
    agentRuns: a.agentRuns + b.agentRuns,
    unpriced: a.unpriced + b.unpriced,
    pauses: a.pauses + b.pauses,
    pausedMinutes: a.pausedMinutes + b.pausedMinutes,
    reruns: a.reruns + b.reruns,
    flaky: a.flaky + b.flaky,
  };
}

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    failedAttempts: a.failedAttempts + b.failedAttempts,
    minutes: round(a.minutes + b.minutes),
    costUsd: round(a.costUsd + b.costUsd),
  };
}

/** The run's spend including this phase: the totals carried in the record plus the phase's own. */
export function runSpend(record: Pick<LoopMarker, 'attempts' | 'agentRuns' | 'run'>): Spend {
  return addSpend(record.run?.totals ?? NO_SPEND, phaseSpend(record));
}

/**
 * The first budget spent, as a sentence with the figures, or undefined when none is. A limit is
 * spent when the count reaches it (`failedAttempts: 3` allows three failed attempts, not four).
 */
export function budgetSpent(
  budget: Budget | undefined,
  phase: Spend,
  run: Spend,
): string | undefined {
  if (!budget) return undefined;
  const checks: [keyof Budget, keyof Spend, string, (n: number) => string][] = [
    ['failedAttempts', 'failedAttempts', 'failed attempts', (n) => String(n)],
    ['agentMinutes', 'minutes', 'agent minutes', (n) => String(round(n))],
    ['costUsd', 'costUsd', 'agent cost', (n) => `$${n.toFixed(2)}`],
  ];
  for (const [key, field, name, show] of checks) {
    const limit = budget[key];
    if (!limit) continue;
    if (limit.phase !== undefined && phase[field] >= limit.phase) {
      return `The phase's budget of ${name} is spent: ${show(phase[field])} of ${show(limit.phase)}`;
    }
    if (limit.run !== undefined && run[field] >= limit.run) {
      return `The run's budget of ${name} is spent: ${show(run[field])} of ${show(limit.run)}`;
    }
  }
  return undefined;
}

/** What the loop sees when a phase's PR closes (all read before deciding). */
/** Where a run's plan stands on the default branch after a merge (`PhasePlan.runState`). */
export type RunPlanState = Pick<
  RunSnapshot,
  'nextPhase' | 'planComplete' | 'waiting' | 'mergedPhaseFinished'
>;

export interface RunSnapshot {
  /** The record on the closed PR's head `coder-loop` check run (undefined: none that reads). */
  record: LoopMarker | undefined;
  merged: boolean;
  /** The phase's final verification passed (the loop's verdict on that head). */
  verified: boolean;
  /** The run's starter still has the permission `/coder run` needs, read now. */
  starterPermitted: boolean;
  /** The phase to start next, read from the default branch after the merge (undefined: none). */
  nextPhase: number | undefined;
  /** The plan is complete on the default branch (every phase `[x]`). */
  planComplete: boolean;
  /**
   * Work is left on the default branch and no phase can start (a task blocked or in review, a
   * dependency not done): why. The run stops and says so; it is not complete.
   */
  waiting?: string;
  /**
   * The merged phase is finished on the default branch, for a plan whose phases are not taken in
   * number order (a kind's dependencies): then `nextPhase` may be lower than the merged one.
   * Absent: the merged phase is finished when `nextPhase` is past it.
   */
  mergedPhaseFinished?: boolean;
  /** Another phase of this plan has an open lock branch or PR. */
  otherPhaseOpen: boolean;
  /** The closed PR's number (the merged phase's row in the progress comment). */
  pr?: number;
  budget?: Budget;
  now: string;
}

export type RunDecision =
  | { kind: 'start'; phase: number; run: RunState }
  /** Not a run, or not this event's business: do nothing, say nothing. */
  | { kind: 'none' }
  /** The run ends here; `reason` is said on the issue (and in the progress comment). */
  | { kind: 'stop'; reason: string; state: RunStopState };

export type RunStopState =
  | 'run-complete'
  | 'run-waiting'
  | 'run-stopped'
  | 'run-budget-spent'
  | 'run-permission-gone'
  | 'run-closed-unmerged'
  | 'run-escalated';

/**
 * After a phase's PR closes: start the next phase of the run, stop the run and say why, or do
 * nothing. The seed's rule 2 holds: no phase starts while an earlier one is not `[x]` on the
 * default branch (`nextPhase` comes from it) and never two phases of one plan are open at once.
 */
export function decideRunNext(s: RunSnapshot): RunDecision {
  const record = s.record;
  // No record, not plan mode, or no active run on it (never started, or `/coder stop` cleared
  // it): nothing to continue.
  if (!record || record.mode !== 'plan' || !record.run || record.plan !== record.run.plan) {
    return { kind: 'none' };
  }
  const run = record.run;
  if (!s.merged) {
    return {
      kind: 'stop',
      state: 'run-closed-unmerged',
      reason: `The pull request of phase ${record.phase ?? '?'} was closed without merge: the run of plan \`${run.plan}\` stops. \`/coder run\` starts it again.`,
    };
  }
  if (record.escalation) {
    return {
      kind: 'stop',
      state: 'run-escalated',
      reason: `Phase ${record.phase ?? '?'} was merged while escalated to the architects, so the run stops here: once the escalation is settled, \`/coder run\` goes on from the next open phase.`,
    };
  }
  if (!s.verified) return { kind: 'none' };
  if (!s.starterPermitted) {
    return {
      kind: 'stop',
      state: 'run-permission-gone',
      reason: `@${run.starter}, who started the run, no longer has write access: the run of plan \`${run.plan}\` stops.`,
    };
  }
  const totals = runSpend(record);
  if (!s.planComplete && s.nextPhase === undefined && s.waiting !== undefined) {
    return {
      kind: 'stop',
      state: 'run-waiting',
      reason: `The run of plan \`${run.plan}\` stops: work is left but no phase can start (${s.waiting.replace(/\.$/, '')}). \`/coder run\` goes on once one can: ${describeSpend(totals)} so far.`,
    };
  }
  if (s.planComplete || s.nextPhase === undefined) {
    return {
      kind: 'stop',
      state: 'run-complete',
      reason: `The run of plan \`${run.plan}\` is complete: ${describeSpend(totals)}.`,
    };
  }
  const spent = budgetSpent(s.budget, NO_SPEND, totals);
  if (spent) {
    return { kind: 'stop', state: 'run-budget-spent', reason: `${spent}: the run stops.` };
  }
  if (s.otherPhaseOpen) return { kind: 'none' };
  if (
    s.mergedPhaseFinished !== undefined
      ? !s.mergedPhaseFinished
      : record.phase !== undefined && s.nextPhase <= record.phase
  ) {
    // The merged phase is not `[x]` on the default branch yet (or was reopened): seed rule 2.
    return { kind: 'none' };
  }
  const phases =
    s.pr !== undefined && record.phase !== undefined
      ? [
          ...(run.phases ?? []),
          { phase: record.phase, pr: s.pr, ...phaseSpend(record), counts: phaseCounts(record) },
        ].slice(-200)
      : run.phases;
  return {
    kind: 'start',
    phase: s.nextPhase,
    run: { ...run, totals, ...(phases ? { phases } : {}) },
  };
}

function describeSpend(spend: Spend): string {
  return `${spend.failedAttempts} failed attempt${spend.failedAttempts === 1 ? '' : 's'}, ${spend.minutes} agent minute${spend.minutes === 1 ? '' : 's'}, $${spend.costUsd.toFixed(2)}`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
