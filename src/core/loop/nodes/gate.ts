import type { Config } from '../../config.js';
import { CHECK_NAME } from '../record/checkRun.js';

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
  /**
   * GitHub's own annotation on the job that names its outage (triage.ts `outageSign`): a runner
   * lost mid-job, a job no runner took, GitHub Actions' internal error.
   */
  outage?: string;
  /**
   * GitHub's own annotation on a job it stopped at its time limit (triage.ts `timeoutSign`):
   * `cancelled` by GitHub, yet the code's failure (a hang), never infrastructure.
   */
  timedOut?: string;
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
 * otherwise pending. With nothing to wait for, the gate is pending (CI has not reported yet); a
 * green check or status called `coder-loop` that is not the loop's own is not CI passing.
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
  // A check run or status called like the loop's own that is not the loop's (the caller left that
  // out) may hold the gate back — red fails, pending waits — but never opens it: on its own it is
  // no CI, whoever wrote it.
  const ci = considered.some((c) => c.name !== CHECK_NAME);
  if (waiting.length > 0 || !ci) return { verdict: 'pending', waiting };
  return { verdict: 'passed', checks: considered };
}
