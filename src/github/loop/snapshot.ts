import {
  planGlobs,
  approversOf,
  completionWrites,
  loopBase,
  mayCommand,
  pushers,
  splitLogins,
  touchedPaths,
  type Approval,
  type Config,
  type Need,
  type PullSnapshot,
} from '../../core/index.js';
import { branchPushers } from '../activity.js';
import { readHeadChecks, type HeadChecks, type OwnCheckRun } from '../checks.js';
import { GitReader, type Tree } from '../git.js';
import { isTeamMember, readPermission } from '../identity.js';
import { guardedPlans, openRecordedOnTree } from '../openPlan.js';
import {
  escalationStands,
  pullCommits,
  pinnedFiles,
  pullReviews,
  type PullCommits,
  type PullReviews,
} from '../pulls.js';
import { readerFor, type LoopEnv } from './env.js';
import type { LoopPull } from './loopPull.js';

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
        ...(pr.base.sha ? { base: pr.base.sha } : {}),
        escalated: marker.escalation !== undefined,
      },
      marker,
      ...(loop.commits && !loop.commits.complete ? { commitsIncomplete: true as const } : {}),
      ...(loop.shared ? { shared: true as const } : {}),
    },
    ...(loop.commits ? { commits: loop.commits.items } : {}),
  };
  return withChecks(ctx, loop.checks);
}

/** The context with the head's checks and statuses, and the loop's own state among them. */
function withChecks(ctx: PullContext, checks: HeadChecks): PullContext {
  return {
    ...ctx,
    ownRun: checks.own,
    snap: {
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
    },
  };
}

/** The PR's commits: as read already, or read now (every page, up to GitHub's 250). */
async function withCommits(ctx: PullContext): Promise<PullContext> {
  if (ctx.commits) return ctx;
  const read = await pullCommits(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number);
  return {
    ...ctx,
    commits: read.items,
    ...(read.complete ? {} : { snap: { ...ctx.snap, commitsIncomplete: true as const } }),
  };
}

/** The PR's reviews: as read already, or read now (every page). */
async function withReviews(ctx: PullContext): Promise<PullContext> {
  if (ctx.reviews) return ctx;
  return { ...ctx, reviews: await pullReviews(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number) };
}

/** The PR's commits, for the applier (the completion's report): read once per event. */
export async function commitsOf(ctx: PullContext): Promise<PullCommits> {
  return (await withCommits(ctx)).commits!;
}

/** The PR's reviews, for the applier (the completion's report): read once per event. */
export async function reviewsOf(ctx: PullContext): Promise<PullReviews> {
  return (await withReviews(ctx)).reviews!;
}

/** Whether a login is an architect: listed by login, or an active member of a listed team. */
export async function isArchitect(env: LoopEnv, config: Config, login: string): Promise<boolean> {
  const { users, teams } = splitLogins(config.architects);
  if (users.some((u) => u.toLowerCase() === login.toLowerCase())) return true;
  for (const team of teams) if (await isTeamMember(env.gh, team, login)) return true;
  return false;
}

/**
 * What a decision said it needs, read: a new context whose snapshot holds it (nothing is changed
 * in place). `given`: the approval the event brings (a review), for `need: 'approvals'`.
 */
export async function read(
  ctx: PullContext,
  need: Need,
  given?: GivenApproval,
): Promise<PullContext> {
  switch (need) {
    case 'checks': {
      const { env } = ctx;
      const checks = await readHeadChecks(
        env.gh,
        env.repo,
        ctx.snap.pr.head.sha,
        await env.identity(),
        { branch: ctx.snap.pr.head.ref },
      );
      return withChecks(ctx, checks);
    }
    case 'files': {
      // The files of the head judged, not of whatever the branch is when GitHub is asked; against
      // the base branch's head now (`baseHead`), not the PR's `base.sha`.
      const { pr } = ctx.snap;
      const base = await baseHead(ctx);
      const files = await pinnedFiles(ctx.env.gh, ctx.env.repo, pr.number, base, pr.head.sha);
      return {
        ...ctx,
        snap: {
          ...ctx.snap,
          pr: { ...pr, base },
          files: files.items,
          ...(files.complete ? {} : { filesIncomplete: true as const }),
        },
      };
    }
    case 'tasks':
      return { ...ctx, snap: { ...ctx.snap, tasks: await phaseTasks(ctx) } };
    case 'approvals':
      return withApprovals(ctx, given);
    case 'escalation': {
      const login = (await ctx.env.identity()).login;
      const stands = await escalationStands(
        ctx.env.gh,
        ctx.env.repo,
        ctx.snap.pr.number,
        login,
        ctx.snap.shared === true,
      );
      return { ...ctx, snap: { ...ctx.snap, escalatedBefore: stands } };
    }
    case 'plans': {
      const reader = new GitReader(ctx.env.gh, ctx.env.repo);
      const trees: Tree[] = [];
      for (const sha of treesOf(ctx.snap)) trees.push(await reader.tree(sha));
      // What a plan reads beyond its folder (a story file its tool's config places), read on
      // each tree only when a touched path may be such a file: its config and tasks file.
      const touched = touchedPaths(ctx.snap.files ?? []);
      const plans = await guardedPlans(reader, trees, planGlobs(ctx.config), touched);
      return { ...ctx, snap: { ...ctx.snap, plans } };
    }
    case 'writes': {
      // The plan the record names, on the head, as the completion would read it.
      const reader = new GitReader(ctx.env.gh, ctx.env.repo);
      const tree = await reader.tree(ctx.snap.pr.head.sha);
      const { marker } = ctx.snap;
      const plan = await openRecordedOnTree(reader, tree, ctx.config, marker, { taskPlan: false });
      const writes = 'problems' in plan ? [] : completionWrites(plan, marker);
      return { ...ctx, snap: { ...ctx.snap, completionWrites: writes } };
    }
    case 'architects': {
      const approvals: Approval[] = [];
      for (const a of ctx.snap.approvals ?? [])
        approvals.push(
          a.architect === undefined
            ? { ...a, architect: await isArchitect(ctx.env, ctx.config, a.login) }
            : a,
        );
      return { ...ctx, snap: { ...ctx.snap, approvals } };
    }
  }
}

/**
 * The head of the branch the PR is based on, now, read by the branch's ref (`heads/…`: a tag of
 * the same name is not it): what the head would bring to that branch is what it changes against
 * their merge base. Not the PR's `base.sha`: GitHub records that when the PR is opened or its base
 * changed, and does not move it as the branch moves, so a head that merged the branch's later
 * commits and undid one of them would show no change there. The branch is the one the loop
 * opened the PR against, which the PR's base was found to be (`baseProblem`).
 */
async function baseHead(ctx: PullContext): Promise<string> {
  const branch = loopBase(ctx.snap.marker.base, ctx.env.defaultBranch, ctx.snap.shared === true);
  const head = await readerFor(ctx.env).branchHead(branch);
  if (!head) throw new Error(`The base branch ${branch} of #${ctx.snap.pr.number} is not there.`);
  return head;
}

/** The trees whose plans count: the PR's base and its head. */
function treesOf(snap: PullSnapshot): string[] {
  return [...new Set([snap.pr.base, snap.pr.head.sha].filter((s): s is string => !!s))];
}

/**
 * The phase's tasks as the plan on the head writes them (Passes Spec?): the head's tree and the
 * plan's tasks file (with what its kind reads beside it) — a few reads per head, none per task.
 */
async function phaseTasks(ctx: PullContext): Promise<NonNullable<PullSnapshot['tasks']>> {
  const { env, config } = ctx;
  const { marker, pr } = ctx.snap;
  const reader = new GitReader(env.gh, env.repo);
  const tree = await reader.tree(pr.head.sha);
  const plan = await openRecordedOnTree(reader, tree, config, marker, { tasksOnly: true });
  if ('problems' in plan)
    return { problem: `the record names no plan the loop reads (${marker.planFile}).` };
  const path = plan.tasks.path;
  if (!tree.files.has(path)) return { problem: `${path} is missing.` };
  const phase = plan.phaseAt(marker);
  if (!phase) return { problem: `${path} has no phase ${marker.phaseId ?? marker.phase ?? '?'}.` };
  return { tasks: plan.specTasks(phase) };
}

/** The approval a review event brings: its author, as the handler established them. */
export interface GivenApproval {
  login: string;
  permission: string;
  architect?: boolean;
}

/**
 * The approvals of the head, as the rules need them. `given`: the approval an event brings (a
 * review), while the reviewer's latest review of the PR still approves the head; otherwise each
 * reviewer's latest review of the PR, when it approves the head — and only from users with write
 * permission (an outsider's approval is not even mentioned).
 */
async function withApprovals(ctx: PullContext, given?: GivenApproval): Promise<PullContext> {
  const candidates: GivenApproval[] = [];
  ctx = await withReviews(ctx);
  const approvers = approversOf(ctx.reviews!, ctx.snap.pr.head.sha);
  if (given) {
    // The event's approval counts while it is still the reviewer's latest verdict on the head, as
    // GitHub lists the reviews now: one heard late — delivered again, or after the same reviewer
    // asked for changes on that head — is not (the relay reads the newest already).
    if (approvers.some((login) => login.toLowerCase() === given.login.toLowerCase()))
      candidates.push(given);
  } else {
    for (const login of approvers) {
      const permission = await readPermission(ctx.env.gh, ctx.env.repo, login);
      if (mayCommand(permission)) candidates.push({ login, permission });
    }
  }
  if (candidates.length === 0) return { ...ctx, snap: { ...ctx.snap, approvals: [] } };
  // Who pushed: GitHub's record of the lock branch's ref updates and their actors (read now, at
  // the approval: no dropped or cancelled event leaves anyone out), the commits' matched users,
  // and every pusher the loop recorded from the events.
  ctx = await withCommits(ctx);
  const identity = await ctx.env.identity();
  const pushed = pushers(ctx.commits!, identity);
  for (const login of ctx.snap.marker.pushers ?? []) pushed.add(login.toLowerCase());
  const activity = await branchPushers(
    ctx.env.gh,
    ctx.env.repo,
    ctx.snap.pr.head.ref,
    identity.login,
  );
  for (const login of activity.people) pushed.add(login);
  const automation = activity.incomplete ? ['?'] : activity.automation;
  const approvals = candidates.map((c) => ({ ...c, pushed: pushed.has(c.login.toLowerCase()) }));
  return {
    ...ctx,
    snap: {
      ...ctx.snap,
      approvals,
      ...(automation.length ? { automationPushed: automation } : {}),
    },
  };
}
