import {
  changesATest,
  chooseApproval,
  isBot,
  mayCommand,
  pushers,
  reviewStanding,
  splitLogins,
  evaluateGate,
  markComplete,
  PLAN_FILES,
  planPath,
  reply,
  type Config,
  type Permission,
  touchedLockedItems,
  type ReportAttempt,
  agentHandOff,
  reviewRound,
  withAgent,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import { isHttpError } from '../client.js';
import { readHeadChecks, type HeadChecks } from '../checks.js';
import { createCommit, GitReader } from '../git.js';
import { readPermission } from '../identity.js';
import { replyOnIssue } from '../issues.js';
import { clearEscalated, isEscalated, pullRequestFiles, type PullRequest } from '../pulls.js';
import { showCheck, tellOnFailure, type LoopEnv, type LoopOutcome } from './env.js';
import { trustedLoopPull, type LoopPull } from './trust.js';
import { escalate, setMarker } from './verify.js';

export interface ReviewPayload {
  action: string;
  review: {
    id: number;
    state: string;
    commit_id: string;
    user: { login: string; type?: string } | null;
  };
  pull_request: PullRequest;
}

interface Approval {
  login: string;
  commit: string;
}

/** A PR's commits as the completion commit's report and the self-approval rule read them. */
type PullCommits = Awaited<ReturnType<typeof readPullCommits>>;

async function readPullCommits(env: LoopEnv, pr: number) {
  const { data } = await env.gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', {
    ...env.repo,
    pull_number: pr,
    per_page: 100,
  });
  return data;
}

type PullReviews = Awaited<ReturnType<typeof readPullReviews>>;

async function readPullReviews(env: LoopEnv, pr: number) {
  const { data } = await env.gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
    ...env.repo,
    pull_number: pr,
    per_page: 100,
  });
  return data;
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

/**
 * `pull_request_review.submitted` on a loop PR: the Code Review node. Who reviews is established
 * first: a review from a bot, or from anyone without write permission, writes nothing at all.
 */
export async function onReview(env: LoopEnv, payload: ReviewPayload): Promise<LoopOutcome> {
  if (payload.action !== 'submitted')
    return { state: 'ignored', reason: `pull_request_review.${payload.action}` };
  const reviewer = payload.review.user;
  if (!reviewer || isBot(reviewer)) return { state: 'ignored', reason: 'review by a bot' };
  const state = payload.review.state.toLowerCase();
  if (state !== 'approved' && state !== 'changes_requested')
    return { state: 'ignored', reason: `review ${state}` };
  const loop = await trustedLoopPull(env, payload.pull_request);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  const { pr, marker } = loop;
  if (marker.mode === 'quick')
    return { state: 'ignored', reason: 'quick mode: CI is the only gate' };
  const kind = state === 'approved' ? 'approval' : 'changes';
  // Who acts, once, before anything is written.
  const permission = await readPermission(env.gh, env.repo, reviewer.login);
  const standing = reviewStanding({ ...reviewer, permission, pushed: false }, kind, true);
  if (!standing.counts) return { state: 'ignored', reason: standing.why };
  return tellOnFailure(
    env,
    { issue: marker.issue, pullRequest: pr.number, what: `@${reviewer.login}'s review` },
    () => review(env, payload, loop, { login: reviewer.login, permission }, kind),
  );
}

/** Code Review, for a review whose author counts. */
async function review(
  env: LoopEnv,
  payload: ReviewPayload,
  loop: LoopPull,
  reviewer: { login: string; permission: Permission },
  kind: 'approval' | 'changes',
): Promise<LoopOutcome> {
  const { pr, marker } = loop;
  const { permission } = reviewer;

  const { config, problems } = await env.loadConfig();
  if (!config) {
    await replyOnIssue(env.gh, env.repo, marker.issue, reply.configInvalid(problems));
    return { state: 'config-invalid' };
  }
  const base: LoopOutcome = {
    state: 'code-review',
    mode: 'plan',
    branch: pr.head.ref,
    pullRequest: pr.number,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
  const escalated = isEscalated(pr);
  // While escalated nothing advances by itself — but an architect's approval is what it waits for.
  if (escalated && (kind !== 'approval' || !(await isArchitect(env, config, reviewer.login))))
    return { ...base, state: 'escalated', reason: 'escalated: waiting for an architect' };
  const identity = await env.identity();

  if (kind === 'changes') {
    const checks = await readHeadChecks(env.gh, env.repo, pr.head.sha, identity);
    // Code Review → Issues with a coding agent: one review-fix round per head, at most
    // `agent.maxReviewRounds` of them; past that, the architects decide.
    const round = config.agent ? reviewRound(marker, pr.head.sha, config) : undefined;
    if (round && !round.repeat && round.exhausted) {
      const max = config.agent!.maxReviewRounds;
      await escalate(
        env,
        config,
        loop,
        checks,
        `${max} review round${max === 1 ? '' : 's'} handed to the coding agent (the limit is ${max}), and @${reviewer.login} asked for changes again`,
        [],
      );
      return { ...base, state: 'escalated', reason: 'review rounds exhausted' };
    }
    const handOff =
      round && !round.repeat
        ? agentHandOff(config, {
            node: 'review-fix',
            repo: env.repo,
            branch: pr.head.ref,
            headSha: pr.head.sha,
            pullRequest: pr.number,
            marker,
            attempt: round.round,
          })
        : undefined;
    await showCheck(env, { sha: pr.head.sha, ref: pr.head.ref }, checks.own, {
      view: withAgent(
        {
          mode: 'plan',
          node: 'TDD',
          title: 'Changes requested',
          next: `@${reviewer.login} asked for changes: back to implementation. Push to this branch; CI runs again.`,
        },
        handOff,
        env.repoUrl,
      ),
    });
    await replyOnIssue(
      env.gh,
      env.repo,
      marker.issue,
      reply.changesRequested(pr.number, reviewer.login),
    );
    if (handOff) {
      // The round is recorded before the hand-off: a redelivery finds it and sends no second one.
      const updated = { ...marker, reviewRounds: [...(marker.reviewRounds ?? []), pr.head.sha] };
      await setMarker(env, pr, updated);
      await sendAgentDispatch(env.gh, env.repo, handOff);
    }
    return { ...base, state: 'changes-requested' };
  }
  if (payload.review.commit_id !== pr.head.sha) {
    await replyOnIssue(
      env.gh,
      env.repo,
      marker.issue,
      reply.staleApproval(pr.number, payload.review.commit_id, pr.head.sha),
    );
    return { ...base, state: 'stale-approval' };
  }
  const checks = await readHeadChecks(env.gh, env.repo, pr.head.sha, identity);
  if (checks.own?.node === 'FinalVerify' || checks.own?.node === 'End')
    return { ...base, state: 'ignored', reason: 'the phase is already completing' };
  const passed = evaluateGate(checks.results, config).verdict === 'passed';
  if (escalated) {
    // The architect decides the escalation, but not CI: the head must pass the gate.
    const files = passed ? await pullRequestFiles(env.gh, env.repo, pr.number) : [];
    if (
      !passed ||
      !changesATest(
        files.map((f) => f.path),
        config,
      )
    ) {
      await replyOnIssue(
        env.gh,
        env.repo,
        marker.issue,
        reply.architectApprovalBeforeGate(pr.number, reviewer.login),
      );
      return { ...base, state: 'escalated', reason: 'CI has not passed on the head' };
    }
    return approve(env, config, loop, checks, files, [
      { login: reviewer.login, permission, escalated: true },
    ]);
  }
  if (!passed || checks.own?.node !== 'CodeReview') {
    await replyOnIssue(env.gh, env.repo, marker.issue, reply.approvalBeforeGate(pr.number));
    return { ...base, state: 'waiting-for-ci' };
  }
  const files = await pullRequestFiles(env.gh, env.repo, pr.number);
  return approve(env, config, loop, checks, files, [{ login: reviewer.login, permission }]);
}

/**
 * After CI passes: approvals of this head that came earlier complete the phase now. Each
 * reviewer's latest review counts, and only from someone with write permission.
 */
export async function completeIfApproved(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  files: { path: string; additions: number; deletions: number }[],
): Promise<LoopOutcome | undefined> {
  const reviews = await readPullReviews(env, loop.pr.number);
  const latest = new Map<string, PullReviews[number]>();
  for (const r of reviews)
    if (r.user && r.state !== 'COMMENTED' && r.state !== 'PENDING')
      latest.set(r.user.login.toLowerCase(), r);
  const approvals = [...latest.values()].filter(
    (r) => r.state === 'APPROVED' && r.commit_id === loop.pr.head.sha && !isBot(r.user),
  );
  if (approvals.length === 0) return undefined;
  const candidates: Candidate[] = [];
  for (const r of approvals) {
    const login = r.user!.login;
    const permission = await readPermission(env.gh, env.repo, login);
    // An outsider's approval is not even mentioned: it causes no write.
    if (mayCommand(permission)) candidates.push({ login, permission });
  }
  if (candidates.length === 0) return undefined;
  const checks = await readHeadChecks(env.gh, env.repo, loop.pr.head.sha, await env.identity());
  return approve(env, config, loop, checks, files, candidates, reviews);
}

/** An approval of the head from a user with write permission, not yet checked for self-approval. */
interface Candidate {
  login: string;
  permission: Permission;
  /** The PR is escalated and this is an architect's approval: it clears the escalation. */
  escalated?: boolean;
}

/**
 * The approvals that count (none from someone who pushed to the branch, unless
 * `allowSelfApproval`) → Touched Locked Items? → Escalate, or Mark [x] (the completion commit).
 * The approval that decides is the one whose role the decision needs: an architect's when the PR
 * touches locked items.
 */
async function approve(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  checks: HeadChecks,
  files: { path: string; additions: number; deletions: number }[],
  candidates: Candidate[],
  reviews?: PullReviews,
): Promise<LoopOutcome> {
  const { pr, marker } = loop;
  const outcome = { mode: 'plan' as const, pullRequest: pr.number, branch: pr.head.ref };
  const commits = await readPullCommits(env, pr.number);
  const pushed = pushers(commits, await env.identity());
  const counting: Candidate[] = [];
  const refused: string[] = [];
  for (const c of candidates) {
    const standing = reviewStanding(
      { login: c.login, permission: c.permission, pushed: pushed.has(c.login.toLowerCase()) },
      'approval',
      config.allowSelfApproval,
    );
    if (standing.counts) counting.push(c);
    else refused.push(standing.why);
  }
  if (counting.length === 0) {
    await replyOnIssue(
      env.gh,
      env.repo,
      marker.issue,
      reply.approvalNotCounted(pr.number, refused.join('; ')),
    );
    return { ...outcome, state: 'approval-not-counted', reason: refused.join('; ') };
  }
  const { locked, planDocuments } = touchedLockedItemsOf(config, marker.plan, files);
  const needsArchitect = locked.length > 0 || planDocuments.length > 0;
  const ranked = [];
  for (const c of counting)
    ranked.push({
      ...c,
      architect: needsArchitect && (c.escalated || (await isArchitect(env, config, c.login))),
    });
  const chosen = chooseApproval(ranked, needsArchitect)!;
  if (chosen.escalate) {
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
      `${reason}, and @${chosen.approval.login} is not an architect`,
      details,
    );
    return { ...outcome, state: 'escalated', reason };
  }
  if (chosen.approval.escalated) await clearEscalated(env.gh, env.repo, [pr.number, marker.issue]);
  return complete(
    env,
    config,
    loop,
    checks,
    files,
    { login: chosen.approval.login, commit: pr.head.sha },
    commits,
    reviews,
  );
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
  commits: PullCommits,
  known?: PullReviews,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const plan = marker.plan!;
  const at = (file: string) => planPath(config.plansDir, plan, file);
  const reviews = known ?? (await readPullReviews(env, pr.number));
  const latest = new Map<string, string>();
  for (const r of reviews) if (r.user && r.state !== 'COMMENTED') latest.set(r.user.login, r.state);
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
    checks: checks.results.map((c) => ({
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
        commits: commits.map((c) => ({
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
