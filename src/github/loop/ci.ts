import {
  CHECK_NAME,
  isBot,
  isOwnCheckRun,
  mayCommand,
  reply,
  type Config,
} from '../../core/index.js';
import { isHttpError } from '../client.js';
import { keepsStatus, readHeadChecks } from '../checks.js';
import { replyOnIssue } from '../issues.js';
import { pullRequestFiles, type PullRequest } from '../pulls.js';
import { readPermission } from '../identity.js';
import { showCheck, tellOnFailure, type LoopEnv, type LoopOutcome } from './env.js';
import { trustedLoopPull, type LoopPull } from './trust.js';
import { evaluate, loopPullForHead } from './verify.js';

/** Which head a CI event is about: its branch (when the payload names one) and commit. */
export interface CiHead {
  branch: string | null | undefined;
  sha: string;
}

/** The fields of CI payloads the gate reads. */
export interface CiPayload {
  action?: string;
  check_suite?: { head_branch: string | null; head_sha: string };
  check_run?: {
    name: string;
    head_sha: string;
    app?: { id?: number; slug?: string } | null;
    check_suite?: { head_branch: string | null } | null;
  };
  workflow_run?: { head_branch: string | null; head_sha: string };
  state?: string;
  context?: string;
  sha?: string;
  branches?: { name: string; commit: { sha: string } }[];
}

/** The head of a `check_suite`, `check_run`, `status` or `workflow_run` completion, or why none. */
export function ciHead(event: string, payload: CiPayload): CiHead | { ignored: string } {
  switch (event) {
    case 'check_suite':
      if (payload.action !== 'completed') return { ignored: `check_suite.${payload.action}` };
      return { branch: payload.check_suite!.head_branch, sha: payload.check_suite!.head_sha };
    case 'check_run':
      if (payload.action !== 'completed') return { ignored: `check_run.${payload.action}` };
      return {
        branch: payload.check_run!.check_suite?.head_branch,
        sha: payload.check_run!.head_sha,
      };
    case 'workflow_run':
      if (payload.action !== 'completed') return { ignored: `workflow_run.${payload.action}` };
      return { branch: payload.workflow_run!.head_branch, sha: payload.workflow_run!.head_sha };
    case 'status': {
      if (payload.state === 'pending') return { ignored: 'status pending' };
      // The payload lists the branches whose head is this commit.
      const branch = (payload.branches ?? []).find(
        (b) => b.name.startsWith('coder/') && b.commit.sha === payload.sha,
      );
      return { branch: branch?.name, sha: payload.sha! };
    }
    default:
      return { ignored: event };
  }
}

async function configOrLog(env: LoopEnv): Promise<Config | undefined> {
  const { config, problems } = await env.loadConfig();
  // CI events come often: a broken config is reported on the next command, not on every run.
  if (!config) env.log.warn(`config invalid: ${problems.map((p) => p.message).join('; ')}`);
  return config;
}

/** Verification: a CI completion on a loop PR head. Events for an old head are ignored. */
export async function onCiEvent(
  env: LoopEnv,
  event: string,
  payload: CiPayload,
): Promise<LoopOutcome> {
  const head = ciHead(event, payload);
  if ('ignored' in head) return { state: 'ignored', reason: head.ignored };
  if (!head.branch?.startsWith('coder/'))
    return { state: 'ignored', reason: 'not a coder-loop branch' };
  // The loop's own check run completing is not CI; a CI job that is also called coder-loop is.
  if (
    event === 'check_run' &&
    payload.check_run!.name === CHECK_NAME &&
    isOwnCheckRun(payload.check_run!, await env.identity())
  )
    return { state: 'ignored', reason: 'the loop’s own check run' };
  // Acting as a person (a PAT), the loop keeps its state in a `coder-loop` status: not CI.
  if (event === 'status' && payload.context === CHECK_NAME && keepsStatus(await env.identity()))
    return { state: 'ignored', reason: 'the loop’s own commit status' };
  const loop = await loopPullForHead(env, head.branch, head.sha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  return tellOnFailure(
    env,
    { issue: loop.marker.issue, pullRequest: loop.pr.number, what: `a ${event} event` },
    async () => {
      const config = await configOrLog(env);
      if (!config) return { state: 'config-invalid' };
      return evaluate(env, config, loop);
    },
  );
}

export interface PullRequestPayload {
  action: string;
  pull_request: PullRequest & { merged?: boolean | null };
  sender: { login: string; type?: string };
}

/**
 * `pull_request`: `synchronize` (a push to a loop PR) puts the loop's check run on the new head
 * and, in quick mode, proposes plan mode once the change outgrows the quick limits; `closed`
 * frees the lock (the branch) and tells the orchestrator.
 */
export async function onPullRequest(
  env: LoopEnv,
  payload: PullRequestPayload,
): Promise<LoopOutcome> {
  if (payload.action !== 'closed' && payload.action !== 'synchronize')
    return { state: 'ignored', reason: `pull_request.${payload.action}` };
  // A bot's push or close writes nothing: the loop's own (it has said what happened) or another's.
  if (isBot(payload.sender)) return { state: 'ignored', reason: 'pull request event by a bot' };
  const loop = await trustedLoopPull(env, payload.pull_request);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  return tellOnFailure(
    env,
    {
      issue: loop.marker.issue,
      pullRequest: loop.pr.number,
      what: `pull_request.${payload.action}`,
    },
    () => pullRequestEvent(env, payload, loop),
  );
}

async function pullRequestEvent(
  env: LoopEnv,
  payload: PullRequestPayload,
  { pr, marker }: LoopPull,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const outcome: LoopOutcome = {
    state: 'ignored',
    mode: marker.mode,
    branch: pr.head.ref,
    pullRequest: pr.number,
  };

  if (payload.action === 'closed') {
    // Triage can close a pull request; freeing the lock takes write permission.
    // (A push — synchronize — needs no such read: GitHub takes pushes to a branch of the
    // repository only from users with write access.)
    if (!mayCommand(await readPermission(gh, repo, payload.sender.login)))
      return { ...outcome, reason: `closed by @${payload.sender.login}, who lacks write access` };
    const config = await configOrLog(env);
    const merged = payload.pull_request.merged === true;
    const deleteBranch = !merged || (config?.deleteBranchOnMerge ?? true);
    if (deleteBranch) {
      try {
        await gh.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', {
          ...repo,
          ref: `heads/${pr.head.ref}`,
        });
      } catch (error) {
        if (!isHttpError(error, 422) && !isHttpError(error, 404)) throw error;
      }
    }
    await replyOnIssue(
      gh,
      repo,
      marker.issue,
      reply.prClosed(pr.number, merged, pr.head.ref, deleteBranch),
    );
    return { ...outcome, state: merged ? 'merged' : 'closed' };
  }

  if (payload.action === 'synchronize') {
    const checks = await readHeadChecks(gh, repo, pr.head.sha, await env.identity());
    if (!checks.own) {
      await showCheck(env, { sha: pr.head.sha, ref: pr.head.ref }, undefined, {
        view: {
          mode: marker.mode,
          node: 'Verification',
          title: 'Verification: waiting for CI',
          next: 'CI runs on this head; the gate decides when it completes.',
        },
      });
    }
    if (marker.mode === 'quick') {
      const config = await configOrLog(env);
      if (!config) return { ...outcome, state: 'config-invalid' };
      const files = await pullRequestFiles(gh, repo, pr.number);
      const lines = files.reduce((n, f) => n + f.additions + f.deletions, 0);
      const grew = files.length > config.quick.maxFiles || lines >= config.quick.maxLines;
      // One proposal per PR: the marker remembers it.
      if (grew && !(pr.body ?? '').includes('<!-- coder-loop:grew -->')) {
        await gh.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...repo,
          pull_number: pr.number,
          body: `${pr.body ?? ''}\n<!-- coder-loop:grew -->`,
        });
        await replyOnIssue(
          gh,
          repo,
          marker.issue,
          reply.quickGrew(
            pr.number,
            files.length,
            lines,
            config.quick.maxFiles,
            config.quick.maxLines,
          ),
        );
        return { ...outcome, state: 'quick-grew' };
      }
    }
    return { ...outcome, state: 'verification' };
  }
  return { ...outcome, reason: `pull_request.${payload.action}` };
}
