import type { NodeId } from '../flowchart.js';

/**
 * What a handled event came to: the Action's `state` output (docs/github-action.md lists each),
 * the App's log line.
 */
export const LOOP_STATES = [
  // Ignored, refused or answered without moving the loop.
  'ignored',
  'not-permitted',
  'invalid',
  'config-invalid',
  'help',
  'assessed',
  'status',
  // The start side (/coder next, /coder quick, the quick label).
  'no-plan',
  'choose-plan',
  'plan-required',
  'plan-complete',
  'plan-waiting',
  'locked',
  'started',
  'already-started',
  // The PR side.
  'pending',
  'waiting-for-ci',
  // Triage (triage.ts): the loop asked GitHub to re-run a failure; no attempt is counted.
  'rerun',
  'verification',
  'failed',
  'escalated',
  'not-escalated',
  'passed',
  'code-review',
  'changes-requested',
  'approved',
  'approval-not-counted',
  'stale-approval',
  'branch-moved',
  'unreadable',
  'completing',
  'complete',
  'merged',
  'closed',
  'quick-grew',
  'resumed',
  // The agent at its provider's limit (pause.ts): paused; the scheduled sweep found none due.
  'paused',
  'not-due',
  // /coder run goes on, or stops (run.ts); /coder stop.
  'run-complete',
  'run-waiting',
  'run-budget-spent',
  'run-permission-gone',
  'run-closed-unmerged',
  'run-escalated',
  'run-stopped',
  'run-resumed',
  'no-run',
  // /coder retry, /coder resume, /coder release without a loop PR or lock.
  'no-pull-request',
  'released',
  'nothing-to-release',
] as const;

export type LoopState = (typeof LOOP_STATES)[number];

/**
 * What a handled event came to: the Action turns it into outputs and its job summary, the App
 * logs it. `node` is where the loop stands in the flowchart afterwards (when it moved).
 */
export interface LoopOutcome {
  state: LoopState;
  node?: NodeId;
  mode?: 'plan' | 'quick';
  plan?: string;
  phase?: number;
  branch?: string;
  pullRequest?: number;
  reason?: string;
}
