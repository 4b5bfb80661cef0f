import type { Config } from '../../config.js';
import { formatProblem, type Problem } from '../../problem.js';
import {
  ciGateNames,
  ciGateProblems,
  isLoopWorkflow,
  isWorkflowPath,
  parseWorkflow,
  type Workflow,
} from '../../workflows.js';
import type { CheckResult } from './gate.js';
import type { LoopMarker } from '../record/marker.js';
import { done, type Decided, type PullSnapshot } from '../snapshot/pullSnapshot.js';

/**
 * Verification with no CI at all: the loop waits at the CI gate for a head on which nothing but
 * the loop has reported — a CI workflow under another name than the one the loop's workflow waits
 * for, a workflow that does not run on pull requests, Actions turned off. Left alone, the pull
 * request would wait forever without a word. After `ciStallMinutes` from when the loop's own
 * check run on the head was created (GitHub's `started_at`, which no writer sets), the issue is
 * told once per head which CI the loop waits for and what to change; the record keeps the head
 * (`ciStall`) so that a later sweep says nothing. Pure: `now` is given.
 */

/** The CI gate as the loop's workflow sets it (the Action): the names it waits for, its problems. */
export interface CiGateFacts {
  /** The loop's workflow file. */
  path: string;
  /** The names its `workflow_run` waits for as CI; absent: it has no `workflow_run` trigger. */
  waits?: string[];
  problems: Problem[];
}

/** What the stall is decided from, beside the snapshot. */
export interface CiStallFacts {
  /** When the loop's check run on the head was created (`started_at`): the wait's start. */
  waitingSince: string | null | undefined;
  /** Every check run and commit status of the head but the loop's own. */
  checks: readonly CheckResult[];
  /** The Action's CI gate (its workflow and the repository's), when it was read. */
  gate?: CiGateFacts;
}

/**
 * Whether the head may have stalled: the loop waits for CI on it (Verification, not concluded,
 * not escalated, not paused), nothing but the loop reported there, the issue was not told for
 * this head yet, and the wait has lasted `ciStallMinutes`. Answerable before the gate is read.
 */
export function ciStallDue(snap: PullSnapshot, config: Config, facts: CiStallFacts, now: Date) {
  const minutes = config.ciStallMinutes;
  if (minutes === 0 || !snap.own || snap.own.node !== 'Verification') return false;
  if (snap.own.conclusion !== null || snap.pr.escalated || snap.marker.pause) return false;
  if (snap.marker.ciStall === snap.pr.head.sha || facts.checks.length > 0) return false;
  const since = facts.waitingSince ? Date.parse(facts.waitingSince) : NaN;
  return Number.isFinite(since) && now.getTime() - since >= minutes * 60_000;
}

/**
 * The CI gate of the loop's workflow among the repository's workflow texts (path → text): the
 * workflow that runs the loop and hears CI through `workflow_run` (the scheduled sweep runs from
 * another file), else the one that hears `/coder` commands.
 */
export function ciGateOf(texts: ReadonlyMap<string, string>): CiGateFacts | undefined {
  const workflows: Workflow[] = [];
  for (const [path, text] of texts) {
    if (!isWorkflowPath(path)) continue;
    const read = parseWorkflow({ path, text });
    if ('workflow' in read) workflows.push(read.workflow);
  }
  const loops = workflows.filter(isLoopWorkflow);
  const loop =
    loops.find((w) => Object.hasOwn(w.on, 'workflow_run')) ??
    loops.find((w) => Object.hasOwn(w.on, 'issue_comment'));
  if (!loop) return undefined;
  const waits = ciGateNames(loop, workflows);
  return {
    path: loop.path,
    ...(waits ? { waits } : {}),
    problems: ciGateProblems(loop, workflows),
  };
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** What the issue is told: how long, which CI the loop waits for, and the fix. */
function stallReply(snap: PullSnapshot, config: Config, gate: CiGateFacts | undefined): string {
  const head = snap.pr.head.sha.slice(0, 7);
  const lines = [
    `⏳ No CI has reported on #${snap.pr.number} (head \`${head}\`) in the ${config.ciStallMinutes} minutes since the loop began waiting for it: no check run or commit status but the loop's own. The loop waits at Verification for CI, and it waits forever if none runs.`,
    '',
  ];
  if (gate?.waits !== undefined)
    lines.push(
      gate.waits.length > 0
        ? `The loop's workflow (${gate.path}) waits for the workflow${gate.waits.length > 1 ? 's' : ''} ${quoted(gate.waits)} through \`workflow_run\`.`
        : `The loop's workflow (${gate.path}) waits for no workflow through \`workflow_run\`.`,
    );
  for (const p of gate?.problems ?? []) lines.push(`- ${formatProblem(p)}`);
  if (!gate?.problems.length)
    lines.push(
      'Check that a CI workflow runs on `pull_request` for this branch under the name the loop waits for, and that GitHub Actions is enabled for the repository (Settings → Actions); a CI that reports through another app or commit statuses must report on this head.',
    );
  lines.push(
    '',
    "Once CI has reported, the loop goes on by itself; `/coder retry` reads this head's checks again now. This is said once for this head.",
  );
  return lines.join('\n');
}

/**
 * The stall, said: one reply on the issue and the head kept in the record (`ciStall`). Undefined
 * when there is nothing to say (`ciStallDue`).
 */
export function ciStalled(
  snap: PullSnapshot,
  config: Config,
  facts: CiStallFacts,
  now: Date,
): Decided | undefined {
  if (!ciStallDue(snap, config, facts, now)) return undefined;
  const marker: LoopMarker = { ...snap.marker, ciStall: snap.pr.head.sha };
  return done(
    snap,
    'waiting-for-ci',
    'Verification',
    [
      { kind: 'marker', marker },
      { kind: 'reply', body: stallReply(snap, config, facts.gate) },
    ],
    {
      reason: `no CI reported on ${snap.pr.head.sha.slice(0, 7)} for ${config.ciStallMinutes} minutes`,
    },
  );
}
