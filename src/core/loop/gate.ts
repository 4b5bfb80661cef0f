import picomatch from 'picomatch';
import { planFromRef } from '../plan/kinds/plan.js';
import type { Config } from '../config.js';

/** A check run or commit status of a head commit, as the gate sees it. */
export interface CheckResult {
  name: string;
  /** queued | in_progress | completed (check runs); statuses are completed unless pending. */
  status: string;
  /** success, failure, neutral, cancelled, skipped, timed_out, action_required, stale, error, pending… */
  conclusion: string | null;
  url?: string;
  /**
   * A GitHub Actions job (or a workflow run that started no job), read when it did not pass: its
   * workflow run, that run's attempt, and whether any step of the project ran (GitHub's own
   * set-up steps aside). Absent: a check run or status the loop cannot re-run.
   */
  job?: CheckJob;
}

/** A failing GitHub Actions job, as triage reads it. */
export interface CheckJob {
  run: number;
  attempt: number;
  projectRan: boolean;
  /** The workflow run started no job (`startup_failure`): only the whole run can be re-run. */
  whole?: true;
}

export type Gate =
  | { verdict: 'passed'; checks: CheckResult[] }
  | { verdict: 'failed'; failing: CheckResult[]; reason: string }
  | { verdict: 'pending'; waiting: string[] };

const PASS = new Set(['success', 'neutral', 'skipped']);
const FAIL = new Set([
  'failure',
  'cancelled',
  'timed_out',
  'action_required',
  'error',
  'startup_failure',
  'stale',
]);

/**
 * Verification (CI is the gate): every check run and commit status of the head (the caller leaves
 * out coder-loop's own, recognised by its app, never by name) — or only `requiredChecks` when the
 * config lists them. All
 * success/neutral/skipped: passed; any failure/cancelled/timed_out/action_required: failed;
 * otherwise pending. With nothing to wait for, the gate is pending (CI has not reported yet).
 */
export function evaluateGate(
  checks: readonly CheckResult[],
  config: Pick<Config, 'requiredChecks'>,
): Gate {
  const relevant = [...checks];
  const considered = config.requiredChecks.length
    ? relevant.filter((c) => config.requiredChecks.includes(c.name))
    : relevant;
  const failing = considered.filter((c) => c.conclusion !== null && FAIL.has(c.conclusion));
  if (failing.length > 0) {
    return { verdict: 'failed', failing, reason: `${failing.length} check(s) failed` };
  }
  const missing = config.requiredChecks.filter((name) => !relevant.some((c) => c.name === name));
  const waiting = [
    ...considered
      .filter((c) => c.conclusion === null || !PASS.has(c.conclusion))
      .map((c) => c.name),
    ...missing,
  ];
  if (waiting.length > 0 || considered.length === 0) return { verdict: 'pending', waiting };
  return { verdict: 'passed', checks: considered };
}

/** "Touched Locked Items?": paths matching `locked`, and plan documents the loop does not own. */
export function touchedLockedItems(
  files: readonly string[],
  config: Pick<Config, 'locked' | 'plansDir'>,
  plan: string | undefined,
  /** A plan of another kind: the record's `planFile` (its folder holds the user's documents). */
  planFile?: string,
): { locked: string[]; planDocuments: string[] } {
  const isLocked = config.locked.length ? picomatch(config.locked, { dot: true }) : () => false;
  const plans = `${config.plansDir.replace(/\/+$/, '')}/`;
  const own = plan ? `${plans}${plan}/` : undefined;
  // The loop owns what it writes: checklist marks, the log, reports and the context checkpoint.
  const owned = (path: string) =>
    own !== undefined &&
    (path === `${own}01_Master Plan/01_Checklist.md` ||
      path === `${own}00_context.md` ||
      (path.startsWith(`${own}Reports/`) && path.endsWith('.md')));
  // Another kind's plan: its folder is the user's (spec, plan, requirements, design, contracts);
  // the loop owns the marks of its tasks file (as the coder kind's checklist) and its sidecar.
  const other = planFile ? planFromRef(planFile) : undefined;
  const otherDocument = (path: string) =>
    other !== undefined &&
    path.startsWith(other.folder === '' ? '' : `${other.folder}/`) &&
    path !== other.path &&
    !path.startsWith(`${other.folder === '' ? '' : `${other.folder}/`}coder-loop/`);
  const locked = files.filter((f) => isLocked(f));
  const planDocuments = files.filter((f) => (f.startsWith(plans) && !owned(f)) || otherDocument(f));
  return { locked, planDocuments };
}
