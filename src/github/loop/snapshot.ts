import {
  isBot,
  mayCommand,
  pushers,
  splitLogins,
  type Approval,
  type Config,
  type Need,
  type PullSnapshot,
} from '../../core/index.js';
import { readHeadChecks, type HeadChecks, type OwnCheckRun } from '../checks.js';
import { isTeamMember, readPermission } from '../identity.js';
import {
  pullCommits,
  pullRequestFiles,
  pullReviews,
  type PullCommits,
  type PullReviews,
} from '../pulls.js';
import type { LoopEnv } from './env.js';
import type { LoopPull } from './trust.js';

/**
 * The PR side's reader: the snapshot of a loop PR from what the event carried, and each further
 * read a decision asks for (src/core/loop/pull.ts).
 */

/** One event's view of a loop PR: the snapshot, and what was read beside it. */
export interface PullContext {
  env: LoopEnv;
  config: Config;
  loop: LoopPull;
  snap: PullSnapshot;
  /** The loop's check run on the head (its id, for updates). */
  ownRun?: OwnCheckRun;
  reviews?: PullReviews;
  commits?: PullCommits;
  /** The record changed in this event and is not yet written on the head. */
  unwritten?: true;
}

/** The snapshot of a loop PR, from what the event carried; the rest is read as decisions ask. */
export function pullContext(env: LoopEnv, config: Config, loop: LoopPull): PullContext {
  const { pr, marker } = loop;
  const ctx: PullContext = {
    env,
    config,
    loop,
    snap: {
      repo: env.repo,
      repoUrl: env.repoUrl,
      pr: {
        number: pr.number,
        url: pr.html_url,
        body: pr.body ?? '',
        head: { sha: pr.head.sha, ref: pr.head.ref },
        escalated: marker.escalation !== undefined,
      },
      marker,
    },
  };
  if (loop.commits) {
    ctx.commits = loop.commits.items;
    if (!loop.commits.complete) ctx.snap = { ...ctx.snap, commitsIncomplete: true };
  }
  withChecks(ctx, loop.checks);
  return ctx;
}

/** The head's checks and statuses (every page), and the loop's own state among them. */
async function readChecks(ctx: PullContext): Promise<void> {
  const { env } = ctx;
  withChecks(
    ctx,
    await readHeadChecks(env.gh, env.repo, ctx.snap.pr.head.sha, await env.identity()),
  );
}

function withChecks(ctx: PullContext, checks: HeadChecks): void {
  ctx.ownRun = checks.own;
  ctx.snap = {
    ...ctx.snap,
    ...(checks.own
      ? {
          own: {
            node: checks.own.node,
            ...(checks.own.next !== undefined ? { next: checks.own.next } : {}),
            conclusion: checks.own.conclusion,
          },
        }
      : {}),
    checks: checks.results,
  };
}

export async function commitsOf(ctx: PullContext): Promise<PullCommits> {
  if (!ctx.commits) {
    const read = await pullCommits(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number);
    ctx.commits = read.items;
    if (!read.complete) ctx.snap = { ...ctx.snap, commitsIncomplete: true };
  }
  return ctx.commits;
}

export async function reviewsOf(ctx: PullContext): Promise<PullReviews> {
  ctx.reviews ??= await pullReviews(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number);
  return ctx.reviews;
}

/** Whether a login is an architect: listed by login, or an active member of a listed team. */
export async function isArchitect(env: LoopEnv, config: Config, login: string): Promise<boolean> {
  const { users, teams } = splitLogins(config.architects);
  if (users.some((u) => u.toLowerCase() === login.toLowerCase())) return true;
  for (const team of teams) if (await isTeamMember(env.gh, team, login)) return true;
  return false;
}

/** Reads what a decision said it needs. */
export async function fill(ctx: PullContext, need: Need, found: Approval[]): Promise<void> {
  switch (need) {
    case 'checks':
      return readChecks(ctx);
    case 'files': {
      const files = await pullRequestFiles(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number);
      ctx.snap = {
        ...ctx.snap,
        files: files.items,
        ...(files.complete ? {} : { filesIncomplete: true as const }),
      };
      return;
    }
    case 'architects':
      for (const a of found) a.architect ??= await isArchitect(ctx.env, ctx.config, a.login);
      return;
  }
}

/**
 * The approvals of the head, as the rules need them. `given`: the approval an event brings (a
 * review); otherwise each reviewer's latest review of the PR, when it approves the head — and
 * only from users with write permission (an outsider's approval is not even mentioned).
 */
export async function approvalsOf(
  ctx: PullContext,
  given?: { login: string; permission: string; architect?: boolean },
): Promise<Approval[]> {
  const candidates: { login: string; permission: string; architect?: boolean }[] = [];
  if (given) candidates.push(given);
  else {
    const latest = new Map<string, PullReviews[number]>();
    for (const r of await reviewsOf(ctx))
      if (r.user && r.state !== 'COMMENTED' && r.state !== 'PENDING')
        latest.set(r.user.login.toLowerCase(), r);
    for (const r of latest.values()) {
      if (r.state !== 'APPROVED' || r.commit_id !== ctx.snap.pr.head.sha || isBot(r.user)) continue;
      const permission = await readPermission(ctx.env.gh, ctx.env.repo, r.user!.login);
      if (mayCommand(permission)) candidates.push({ login: r.user!.login, permission });
    }
  }
  if (candidates.length === 0) return [];
  // Who pushed: the commits' matched users, and every pusher the loop recorded from the events
  // (a commit made with an email linked to no account names nobody).
  const pushed = pushers(await commitsOf(ctx), await ctx.env.identity());
  for (const login of ctx.snap.marker.pushers ?? []) pushed.add(login.toLowerCase());
  return candidates.map((c) => ({ ...c, pushed: pushed.has(c.login.toLowerCase()) }));
}
