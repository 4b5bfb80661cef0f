import { isBot, parseComment, reply, type AgentPayload, type Config } from '../../core/index.js';
import { applyRepo } from './apply.js';
import { threadOfError, type LoopEnv, type LoopOutcome, type Thread } from './env.js';
import { agentRunFailed } from './pull.js';
import { onCiEvent, onPullRequest, type CiPayload, type PullRequestPayload } from './ci.js';
import {
  onIssueComment,
  onIssuesLabeled,
  type IssueCommentPayload,
  type IssuesLabeledPayload,
} from './events.js';
import { payloadProblem } from './payloads.js';
import { agentRunPaused, schedulePauses, sweepPauses } from './pause.js';
import { onReview, onReviewRelay, type ReviewPayload, type ReviewRelayPayload } from './review.js';

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
 * The one error boundary: a handler that fails (GitHub answered 5xx past the retries, or not at
 * all) says so once on the event's thread, then the error goes on to the adapter (the App logs
 * it, the Action fails the step). The note itself may fail too: then the log is all there is.
 */
export async function dispatch(env: LoopEnv, name: string, payload: unknown): Promise<LoopOutcome> {
  const problem = payloadProblem(name, payload);
  if (problem) return { state: 'ignored', reason: `malformed ${name} payload: ${problem}` };
  return boundary(env, threadOf(name, payload), () => route(env, name, payload));
}

/**
 * The Action's apply step, when the coding agent's run produced no commit (or only partial work,
 * `commit`): a failed attempt on the loop PR (`agentRunFailed`), inside the same boundary, on the
 * orchestrator's issue. `payload` is the hand-off as the loop sent it.
 */
export function dispatchAgentFailure(
  env: LoopEnv,
  config: Config,
  payload: AgentPayload,
  reason: string,
  commit?: string,
): Promise<LoopOutcome> {
  const thread = {
    issue: payload.issue,
    pullRequest: payload.pullRequest,
    what: `the coding agent's ${payload.node} run`,
  };
  return boundary(env, thread, () => agentRunFailed(env, config, payload, reason, commit));
}

/**
 * The Action's apply step, when the coding agent stopped at its provider's limit: the pause on
 * the head it left — the hand-off's (`payload`, as the loop sent it), or the partial commit
 * `commit` — (pause.ts), no attempt, inside the same boundary.
 */
export function dispatchAgentPause(
  env: LoopEnv,
  config: Config,
  payload: AgentPayload,
  pause: { reason: string; until?: string },
  commit?: string,
): Promise<LoopOutcome> {
  const thread = {
    issue: payload.issue,
    pullRequest: payload.pullRequest,
    what: `the coding agent's ${payload.node} run`,
  };
  return boundary(env, thread, () => agentRunPaused(env, config, payload, pause, commit));
}

async function boundary(
  env: LoopEnv,
  thread: Thread | undefined,
  handle: () => Promise<LoopOutcome>,
): Promise<LoopOutcome> {
  try {
    return await handle();
  } catch (error) {
    const where = thread ?? threadOfError(error);
    if (where) {
      const message = error instanceof Error ? error.message : String(error);
      const body =
        'command' in where
          ? reply.failed(where.command, message)
          : 'label' in where
            ? reply.labelFailed(where.label, message)
            : reply.eventFailed(where.what, where.pullRequest, message);
      await applyRepo(env, [{ kind: 'reply', to: where.issue, body }]).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * The thread an event's failure is said on, from its payload: a writer's `/coder` command (its
 * issue or PR), the label on an issue. A loop PR's events name no trusted thread: their handlers
 * give it (`onThread`) once they know who acts and have read the loop's record. Bots and anything else: no thread, only the log.
 */
function threadOf(name: string, payload: unknown): Thread | undefined {
  switch (name) {
    case 'issue_comment': {
      const p = payload as IssueCommentPayload;
      if (p.action !== 'created' || isBot(p.comment.user) || isBot(p.sender)) return undefined;
      const parsed = parseComment(p.comment.body ?? '');
      return parsed.kind === 'command'
        ? { issue: p.issue.number, command: `/coder ${parsed.command.name}` }
        : undefined;
    }
    case 'issues': {
      const p = payload as IssuesLabeledPayload;
      if (p.action !== 'labeled' || !p.label || isBot(p.sender) || p.issue.pull_request)
        return undefined;
      return { issue: p.issue.number, label: p.label.name };
    }
    // A loop PR's events: the thread is known only once who acts is established and the loop's
    // record read (`trustedLoopPull`, then the handler's `onThread`) — never from the PR body.
    default:
      return undefined;
  }
}

function route(env: LoopEnv, name: string, payload: unknown): Promise<LoopOutcome> {
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
    case 'workflow_run':
      // A review relayed by a `pull_request_review` workflow's run (the Action): not CI.
      if ((payload as ReviewRelayPayload).workflow_run.event === 'pull_request_review')
        return onReviewRelay(env, payload as ReviewRelayPayload);
      // The agent's workflow (started by the loop's hand-off, on the default branch) completed:
      // a pause its apply step recorded gets this host's wake-up, where it has a queue (pause.ts).
      if ((payload as ReviewRelayPayload).workflow_run.event === 'repository_dispatch')
        return onAgentWorkflowRun(env, payload as ReviewRelayPayload);
      return onCiEvent(env, name, payload as CiPayload);
    case 'check_suite':
    case 'check_run':
    case 'status':
      return onCiEvent(env, name, payload as CiPayload);
    // The Action's scheduled sweep: pauses that are due resume (pause.ts).
    case 'schedule':
      return onSchedule(env);
    default:
      return Promise.resolve({
        state: 'ignored',
        reason: `coder-loop does not handle ${name} events`,
      });
  }
}

async function onAgentWorkflowRun(env: LoopEnv, payload: ReviewRelayPayload): Promise<LoopOutcome> {
  if (payload.action !== 'completed')
    return { state: 'ignored', reason: `workflow_run.${payload.action}` };
  if (!env.wake)
    return { state: 'ignored', reason: 'a repository_dispatch run, and no wake-up queue here' };
  const { config } = await env.loadConfig();
  if (!config) return { state: 'config-invalid' };
  return schedulePauses(env, config);
}

async function onSchedule(env: LoopEnv): Promise<LoopOutcome> {
  const { config } = await env.loadConfig();
  if (!config) return { state: 'config-invalid' };
  return sweepPauses(env, config);
}
