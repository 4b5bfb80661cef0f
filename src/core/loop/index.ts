/**
 * The loop's decisions, pure. The start side: `decideStart` (start.ts) over the start snapshot
 * (startSnapshot.ts). The PR side, from Verification to Final Verification: one file per seed
 * node over the pull snapshot (pullSnapshot.ts), each a pure decision — a snapshot in, an
 * outcome and the effects to carry out (or the one more read it needs) out.
 */
export * from './flowchart.js';
export * from './record/marker.js';
export * from './record/record.js';
export * from './snapshot/startSnapshot.js';
export * from './messages/phaseName.js';
export * from './nodes/start.js';
export * from './messages/replies.js';
export * from './record/checkRun.js';
export * from './nodes/gate.js';
export * from './nodes/passesSpec.js';
export {
  namedPaths,
  type SpecFile,
  type SpecVerdict,
  type TaskEvidence,
  type TaskStatus,
} from './nodes/specEvidence.js';
export * from './nodes/specTable.js';
export * from './phasePlan/specTasks.js';
export * from './nodes/complete.js';
export * from './snapshot/actors.js';
export * from './snapshot/trust.js';
export * from './snapshot/ciRuns.js';
export * from './record/handoff.js';
export * from './record/outcome.js';
export {
  touchedPaths,
  type Approval,
  type Decided,
  type Decision,
  type Effect,
  type Need,
  type OwnState,
  type PullFile,
  type PullSnapshot,
  type SpecTask,
} from './snapshot/pullSnapshot.js';
export { verification } from './nodes/verification.js';
export { debugFix } from './nodes/debugFix.js';
export { escalation, escalationStood, type LabelEvent } from './nodes/escalation.js';
export { finalVerification } from './nodes/finalVerification.js';
export { codeReview, type ReviewFacts } from './nodes/codeReview.js';
export { approvals, withApprovals } from './nodes/approvals.js';
export { closed } from './nodes/closed.js';
export { pushed } from './nodes/pushed.js';
export { resume, retry, stopRun } from './nodes/commands.js';
export * from './phasePlan/choose.js';
export * from './snapshot/ci.js';
export * from './nodes/run.js';
export * from './snapshot/latest.js';
export * from './phasePlan/startKind.js';
export * from './phasePlan/kindPlan.js';
export * from './phasePlan/coderPlan.js';
export * from './phasePlan/phasePlan.js';
export type * from './phasePlan/planReading.js';
export * from './phasePlan/openPlan.js';
export * from './nodes/rerun.js';
export { outageSign, timeoutSign } from './nodes/triage.js';
export * from './nodes/budget.js';
export * from './record/progress.js';
export * from './nodes/pause.js';
export * from './nodes/ciStall.js';
export * from './nodes/planChanges.js';
export * from './snapshot/relay.js';
