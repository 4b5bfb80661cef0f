import type { LoopEnv, LoopOutcome } from './env.js';
import { onCiEvent, onPullRequest, type CiPayload, type PullRequestPayload } from './ci.js';
import {
  onIssueComment,
  onIssuesLabeled,
  type IssueCommentPayload,
  type IssuesLabeledPayload,
} from './events.js';
import { payloadProblem } from './payloads.js';
import { onReview, type ReviewPayload } from './review.js';

/** The events the loop handles, by webhook name (the App registers the same set with Probot). */
export const HANDLED_EVENTS = [
  'issue_comment',
  'issues',
  'pull_request',
  'pull_request_review',
  'check_suite',
  'check_run',
  'status',
  'workflow_run',
] as const;

/**
 * One event to its handler — the App's deliveries and the Action's workflow event alike. The
 * payload is checked first: one that lacks a field its handler reads is ignored, with the reason.
 */
export async function dispatch(env: LoopEnv, name: string, payload: unknown): Promise<LoopOutcome> {
  const problem = payloadProblem(name, payload);
  if (problem) return { state: 'ignored', reason: `malformed ${name} payload: ${problem}` };
  switch (name) {
    case 'issue_comment':
      return onIssueComment(env, payload as IssueCommentPayload);
    case 'issues':
      return onIssuesLabeled(env, payload as IssuesLabeledPayload);
    case 'pull_request':
    case 'pull_request_target':
      return onPullRequest(env, payload as PullRequestPayload);
    case 'pull_request_review':
      return onReview(env, payload as ReviewPayload);
    case 'check_suite':
    case 'check_run':
    case 'status':
    case 'workflow_run':
      return onCiEvent(env, name, payload as CiPayload);
    default:
      return { state: 'ignored', reason: `coder-loop does not handle ${name} events` };
  }
}
