export * from './env.js';
export * from './events.js';
export { startPhase } from './next.js';
export { startQuick } from './quick.js';
export { assess, release, status } from './manage.js';
export { onCiEvent, onPullRequest, ciHead, type CiPayload, type PullRequestPayload } from './ci.js';
export { onReview, type ReviewPayload } from './review.js';
export { evaluate, escalate, loopPullForHead } from './verify.js';
export { retryOrResume } from './resume.js';
