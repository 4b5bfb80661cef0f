import {
  isBot,
  splitLogins,
  evaluateGate,
  markComplete,
  PLAN_FILES,
  planPath,
  readMarker,
  reply,
  type Config,
  touchedLockedItems,
  type ReportAttempt,
} from '../../core/index.js';
import { isHttpError } from '../client.js';
import { readHeadChecks, type HeadChecks } from '../checks.js';
import { createCommit, GitReader } from '../git.js';
import { replyOnIssue } from '../issues.js';
import { isEscalated, pullRequestFiles, type PullRequest } from '../pulls.js';
import { showCheck, type LoopEnv, type LoopOutcome } from './env.js';
import { escalate, type LoopPull } from './verify.js';

export interface ReviewPayload {
  action: string;
  review: {
    id: number;
    state: string;
    commit_id: string;
    user: { login: string; type?: string } | null;
  };
  pull_request: PullRequest & { user?: { login: string } | null };
}

interface Approval {
  login: string;
  commit: string;
}

/** Whether a login is an architect: listed by login, or an active member of a listed team. */
async function isArchitect(env: LoopEnv, config: Config, login: string): Promise<boolean> {
  const { users, teams } = splitLogins(config.architects);
  if (users.some((u) => u.toLowerCase() === login.toLowerCase())) return true;
  for (const team of teams) {
    try {
      const { data } = await env.gh.request(
        'GET /orgs/{org}/teams/{team_slug}/memberships/{username}',
        { org: team.org, team_slug: team.slug, username: login },
      );
      if (data.state === 'active') return true;
    } catch (error) {
      if (!isHttpError(error, 404)) throw error;
    }
  }
  return false;
}

/** `pull_request_review.submitted` on a loop PR: the Code Review node. */
export async function onReview(env: LoopEnv, payload: ReviewPayload): Promise<LoopOutcome> {
  if (payload.action !== 'submitted')
    return { state: 'ignored', reason: `pull_request_review.${payload.action}` };
  const pr = payload.pull_request;
  const marker = readMarker(pr.body);
  if (!pr.head.ref.startsWith('coder/') || !marker)
    return { state: 'ignored', reason: 'not a coder-loop pull request' };
  const reviewer = payload.review.user;
  if (!reviewer || isBot(reviewer)) return { state: 'ignored', reason: 'review by a bot' };
  if (isEscalated(pr))
    return { state: 'escalated', reason: 'escalated: waiting for /coder resume' };
  if (marker.mode === 'quick')
    return { state: 'ignored', reason: 'quick mode: CI is the only gate' };
  const { config, problems } = await env.loadConfig();
  if (!config) {
    await replyOnIssue(env.gh, env.repo, marker.issue, reply.configInvalid(problems));
    return { state: 'config-invalid' };
  }
  const state = payload.review.state.toLowerCase();
  const base: LoopOutcome = {
    state: 'code-review',
    mode: 'plan',
    branch: pr.head.ref,
    pullRequest: pr.number,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };

  if (state === 'changes_requested') {
    const checks = await readHeadChecks(env.gh, env.repo, pr.head.sha);
    await showCheck(env, { sha: pr.head.sha, ref: pr.head.ref }, checks.own, {
      view: {
        mode: 'plan',
        node: 'TDD',
        title: 'Changes requested',
        next: `@${reviewer.login} asked for changes: back to implementation. Push to this branch; CI runs again.`,
      },
    });
    await replyOnIssue(
      env.gh,
      env.repo,
      marker.issue,
      reply.changesRequested(pr.number, reviewer.login),
    );
    return { ...base, state: 'changes-requested' };
  }
  if (state !== 'approved') return { ...base, state: 'ignored', reason: `review ${state}` };
  if (payload.review.commit_id !== pr.head.sha) {
    await replyOnIssue(
      env.gh,
      env.repo,
      marker.issue,
      reply.staleApproval(pr.number, payload.review.commit_id, pr.head.sha),
    );
    return { ...base, state: 'stale-approval' };
  }
  const checks = await readHeadChecks(env.gh, env.repo, pr.head.sha);
  if (checks.own?.node === 'FinalVerify' || checks.own?.node === 'End')
    return { ...base, state: 'ignored', reason: 'the phase is already completing' };
  if (
    evaluateGate(checks.results, config).verdict !== 'passed' ||
    checks.own?.node !== 'CodeReview'
  ) {
    await replyOnIssue(env.gh, env.repo, marker.issue, reply.approvalBeforeGate(pr.number));
    return { ...base, state: 'waiting-for-ci' };
  }
  const files = await pullRequestFiles(env.gh, env.repo, pr.number);
  return approve(env, config, { pr, marker }, checks, files, {
    login: reviewer.login,
    commit: payload.review.commit_id,
  });
}

/** After CI passes: an approval of this head that came earlier completes the phase now. */
export async function completeIfApproved(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  files: { path: string; additions: number; deletions: number }[],
): Promise<LoopOutcome | undefined> {
  const { data } = await env.gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
    ...env.repo,
    pull_number: loop.pr.number,
    per_page: 100,
  });
  const approval = data.find(
    (r) => r.state === 'APPROVED' && r.commit_id === loop.pr.head.sha && !isBot(r.user),
  );
  if (!approval?.user) return undefined;
  const checks = await readHeadChecks(env.gh, env.repo, loop.pr.head.sha);
  return approve(env, config, loop, checks, files, {
    login: approval.user.login,
    commit: loop.pr.head.sha,
  });
}

/** Touched Locked Items? → Escalate, or Mark [x] (the completion commit). */
async function approve(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  checks: HeadChecks,
  files: { path: string; additions: number; deletions: number }[],
  approval: Approval,
): Promise<LoopOutcome> {
  const { pr, marker } = loop;
  const { locked, planDocuments } = touchedLockedItemsOf(config, marker.plan, files);
  if (
    (locked.length || planDocuments.length) &&
    !(await isArchitect(env, config, approval.login))
  ) {
    const reason = locked.length ? 'locked paths touched' : 'plan change needed';
    const details = [
      ...locked.map((p) => `locked: \`${p}\``),
      ...planDocuments.map((p) => `plan document: \`${p}\``),
    ];
    await escalate(
      env,
      config,
      loop,
      checks,
      `${reason}, and @${approval.login} is not an architect`,
      details,
    );
    return {
      state: 'escalated',
      mode: 'plan',
      pullRequest: pr.number,
      branch: pr.head.ref,
      reason,
    };
  }
  return complete(env, config, loop, checks, files, approval);
}

function touchedLockedItemsOf(config: Config, plan: string | undefined, files: { path: string }[]) {
  return touchedLockedItems(
    files.map((f) => f.path),
    config,
    plan,
  );
}

/**
 * Mark [x] → Report → Update context → Log: ONE commit on the lock branch, on top of the head
 * the approval was for. The ref moves compare-and-swap (`force: false`); when someone pushed in
 * between, the files are read again at the new head and the edit is applied again.
 */
async function complete(
  env: LoopEnv,
  config: Config,
  { pr, marker }: LoopPull,
  checks: HeadChecks,
  files: { path: string; additions: number; deletions: number }[],
  approval: Approval,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const plan = marker.plan!;
  const at = (file: string) => planPath(config.plansDir, plan, file);
  const [reviews, commits] = await Promise.all([
    gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
      ...repo,
      pull_number: pr.number,
      per_page: 100,
    }),
    gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', {
      ...repo,
      pull_number: pr.number,
      per_page: 100,
    }),
  ]);
  const latest = new Map<string, string>();
  for (const r of reviews.data)
    if (r.user && r.state !== 'COMMENTED') latest.set(r.user.login, r.state);
  const attempts: ReportAttempt[] = (marker.attempts ?? []).map((a, i) => ({
    number: i + 1,
    sha: a.sha,
    outcome: 'failed',
    checks: a.checks.map((c) => ({
      name: c.name,
      conclusion: c.conclusion,
      ...(c.url ? { url: c.url } : {}),
    })),
  }));
  attempts.push({
    number: attempts.length + 1,
    sha: pr.head.sha,
    outcome: 'passed',
    checks: checks.results
      .filter((c) => c.name !== 'coder-loop')
      .map((c) => ({
        name: c.name,
        conclusion: c.conclusion ?? 'pending',
        ...(c.url ? { url: c.url } : {}),
      })),
  });

  const reader = new GitReader(gh, repo);
  let parent = pr.head.sha;
  for (let tries = 0; tries < 3; tries++) {
    const tree = await reader.tree(parent);
    const read = async (file: string) => {
      const sha = tree.files.get(at(file));
      return sha === undefined ? undefined : reader.blob(sha);
    };
    const [checklist, context, masterLog] = await Promise.all([
      read(PLAN_FILES.checklist),
      read(PLAN_FILES.context),
      read(PLAN_FILES.masterLog),
    ]);
    const completion = markComplete(
      config,
      plan,
      {
        ...(checklist !== undefined ? { checklist } : {}),
        ...(context !== undefined ? { context } : {}),
        ...(masterLog !== undefined ? { masterLog } : {}),
      },
      marker,
      {
        pullRequest: { number: pr.number, url: pr.html_url },
        issueUrl: `${env.repoUrl}/issues/${marker.issue}`,
        approver: approval.login,
        reviewers: [...latest].map(([login, state]) => ({ login, state })),
        commits: commits.data.map((c) => ({
          sha: c.sha,
          message: c.commit.message,
          url: c.html_url,
        })),
        attempts,
        files,
        now: env.now().toISOString(),
      },
    );
    if (!completion.ok) {
      await replyOnIssue(gh, repo, marker.issue, reply.planRequired(plan, completion.problems));
      return { state: 'plan-required', mode: 'plan', pullRequest: pr.number };
    }
    const commit = await createCommit(
      gh,
      repo,
      { sha: parent, tree: tree.sha },
      completion.changes,
      completion.message,
    );
    try {
      await gh.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
        ...repo,
        ref: `heads/${pr.head.ref}`,
        sha: commit,
        force: false,
      });
    } catch (error) {
      if (!isHttpError(error, 422)) throw error;
      // Not a fast-forward: someone pushed. Read the branch again and re-apply on its head.
      const head = await reader.branchHead(pr.head.ref);
      if (!head || head === parent) throw error;
      env.log.info(`completion commit met a new head ${head.slice(0, 7)}; applying again`);
      parent = head;
      continue;
    }
    await showCheck(env, { sha: commit, ref: pr.head.ref }, undefined, {
      view: {
        mode: 'plan',
        node: 'FinalVerify',
        title: 'Final verification',
        next: 'CI on the completion commit decides: green completes the phase, red goes back to implementation.',
      },
      data: `;next=${completion.next?.number ?? ''}`,
    });
    await replyOnIssue(gh, repo, marker.issue, reply.completing(pr.number, completion.phase));
    return {
      state: 'completing',
      mode: 'plan',
      plan,
      phase: completion.phase.number,
      branch: pr.head.ref,
      pullRequest: pr.number,
    };
  }
  throw new Error(
    `The lock branch ${pr.head.ref} kept moving; the completion commit was not applied.`,
  );
}
