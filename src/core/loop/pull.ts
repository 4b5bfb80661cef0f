/**
 * The PR side of the loop, from Verification to Final Verification: one file per seed node over
 * the pull snapshot (`pullSnapshot.ts`), each a pure decision — a snapshot in, an outcome and the
 * effects to carry out (or the one more read it needs) out.
 */
export {
  touchedPaths,
  type Decision,
  type Effect,
  type Need,
  type OwnState,
  type PullFile,
  type PullSnapshot,
} from './pullSnapshot.js';
export { verification } from './verification.js';
export { debugFix } from './debugFix.js';
export { escalation } from './escalation.js';
export { finalVerification } from './finalVerification.js';
export { codeReview, type ReviewFacts } from './codeReview.js';
export { approvals, type Approval } from './approvals.js';
export { closed } from './closed.js';
export { pushed } from './pushed.js';
export { resume, retry, stopRun } from './commands.js';
