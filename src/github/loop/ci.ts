import { CHECK_NAME, isBot, readMarker, reply, type Config } from '../../core/index.js';
import { isHttpError } from '../client.js';
import { readHeadChecks } from '../checks.js';
import { replyOnIssue } from '../issues.js';
import { pullRequestFiles, type PullRequest } from '../pulls.js';
import { showCheck, type LoopEnv, type LoopOutcome } from './env.js';
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
      if (payload.check_run!.name === CHECK_NAME) return { ignored: 'the loop’s own check run' };
      return {
        branch: payload.check_run!.check_suite?.head_branch,
        sha: payload.check_run!.head_sha,
      };
    case 'workflow_run':
      if (payload.action !== 'completed') return { ignored: `workflow_run.${payload.action}` };
      return { branch: payload.workflow_run!.head_branch, sha: payload.workflow_run!.head_sha };
    case 'status': {
      if (payload.state === 'pending') return { ignored: 'status pending' };
      if (payload.context === CHECK_NAME) return { ignored: 'the loop’s own commit status' };
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
  const loop = await loopPullForHead(env, head.branch, head.sha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  const config = await configOrLog(env);
  if (!config) return { state: 'config-invalid' };
  return evaluate(env, config, loop);
}

export interface PullRequestPayload {
  action: string;
  pull_request: PullRequest & {
    merged?: boolean | null;
    head: { ref: string; sha: string; repo: { full_name: string } | null };
    base: { repo: { full_name: string } };
  };
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
  const pr = payload.pull_request;
  const marker = readMarker(pr.body);
  const sameRepo = pr.head.repo?.full_name === pr.base.repo.full_name;
  if (!marker || !sameRepo || !pr.head.ref.startsWith('coder/'))
    return { state: 'ignored', reason: 'not a coder-loop pull request' };
  const { gh, repo } = env;
  const outcome: LoopOutcome = {
    state: 'ignored',
    mode: marker.mode,
    branch: pr.head.ref,
    pullRequest: pr.number,
  };

  if (payload.action === 'closed') {
    // The loop's own `/coder release` closes PRs too: it has said what happened.
    if (isBot(payload.sender)) return { ...outcome, reason: 'closed by the loop' };
    const config = await configOrLog(env);
    const merged = pr.merged === true;
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
    const checks = await readHeadChecks(gh, repo, pr.head.sha);
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
