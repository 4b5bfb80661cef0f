/**
 * The loop's decisions, pure. The start side: `decideStart` (start.ts) over the start snapshot
 * (startSnapshot.ts). The PR side, from Verification to Final Verification: one file per seed
 * node over the pull snapshot (pullSnapshot.ts), each a pure decision — a snapshot in, an
 * outcome and the effects to carry out (or the one more read it needs) out.
 */
export * from './flowchart.js';
export * from './marker.js';
export * from './record.js';
export * from './startSnapshot.js';
export * from './phaseName.js';
export * from './start.js';
export * from './replies.js';
export * from './checkRun.js';
export * from './gate.js';
export * from './passesSpec.js';
export {
  namedPaths,
  type SpecFile,
  type SpecVerdict,
  type TaskEvidence,
  type TaskStatus,
} from './specEvidence.js';
export * from './specTable.js';
export * from './specTasks.js';
export * from './complete.js';
export * from './actors.js';
export * from './trust.js';
export * from './ciRuns.js';
export * from './handoff.js';
export * from './outcome.js';
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
} from './pullSnapshot.js';
export { verification } from './verification.js';
export { debugFix } from './debugFix.js';
export { escalation, escalationStood, type LabelEvent } from './escalation.js';
export { finalVerification } from './finalVerification.js';
export { codeReview, type ReviewFacts } from './codeReview.js';
export { approvals, withApprovals } from './approvals.js';
export { closed } from './closed.js';
export { pushed } from './pushed.js';
export { resume, retry, stopRun } from './commands.js';
export * from './choose.js';
export * from './ci.js';
export * from './run.js';
export * from './latest.js';
export * from './startKind.js';
export * from './kindPlan.js';
export * from './coderPlan.js';
export * from './phasePlan.js';
export type * from './planReading.js';
export * from './openPlan.js';
export * from './rerun.js';
export { outageSign, timeoutSign } from './triage.js';
export * from './budget.js';
export * from './progress.js';
export * from './pause.js';
export * from './ciStall.js';
export * from './planChanges.js';
export * from './relay.js';
