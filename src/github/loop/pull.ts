import {
  approvals as decideApprovals,
  debugFix,
  verification,
  withProgress,
  isBot,
  mayCommand,
  pushers,
  reply,
  splitLogins,
  updateMarker,
  type Approval,
  type Config,
  type Decision,
  type Effect,
  type LoopOutcome,
  type Need,
  type PullSnapshot,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import {
  keepsStatus,
  readHeadChecks,
  writeRecord,
  type HeadChecks,
  type OwnCheckRun,
} from '../checks.js';
import { deleteBranch } from '../git.js';
import { isTeamMember, readPermission } from '../identity.js';
import { replyOnIssue } from '../issues.js';
import {
  clearEscalated,
  labelEscalated,
  mergePull,
  pullCommits,
  pullRequestFiles,
  pullReviews,
  requestReviews,
  setPullBody,
  type PullCommits,
  type PullReviews,
} from '../pulls.js';
import { completionCommit } from './complete.js';
import { continueRun } from './continue.js';
import { showCheck, type LoopEnv } from './env.js';
import { showRunProgress } from './runProgress.js';
import { loopPullForHead, type LoopPull } from './trust.js';

/**
 * The PR side's shell: read a snapshot of the loop PR → a pure decision (src/core/loop/pull.ts)
 * → apply its effects. Every `if` here is about I/O: what to read, how to write it once.
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

async function commitsOf(ctx: PullContext): Promise<PullCommits> {
  if (!ctx.commits) {
    const read = await pullCommits(ctx.env.gh, ctx.env.repo, ctx.snap.pr.number);
    ctx.commits = read.items;
    if (!read.complete) ctx.snap = { ...ctx.snap, commitsIncomplete: true };
  }
  return ctx.commits;
}

async function reviewsOf(ctx: PullContext): Promise<PullReviews> {
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
async function fill(ctx: PullContext, need: Need, found: Approval[]): Promise<void> {
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
async function approvalsOf(
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

/**
 * Runs a decision to its end: reads what it needs, applies its effects, and — after Code Review
 * is reached, or an approval arrives — decides on the approvals of the head.
 */
export async function run(
  ctx: PullContext,
  decide: (snap: PullSnapshot) => Decision,
  given?: { login: string; permission: string; architect?: boolean },
): Promise<LoopOutcome> {
  let decision = decide(ctx.snap);
  while ('need' in decision) {
    await fill(ctx, decision.need, []);
    decision = decide(ctx.snap);
  }
  const first = await apply(ctx, decision.effects, decision.outcome);
  if (decision.then !== 'approvals') return first;
  const found = await approvalsOf(ctx, given);
  let next = decideApprovals(ctx.snap, ctx.config, found);
  while ('need' in next) {
    await fill(ctx, next.need, found);
    next = decideApprovals(ctx.snap, ctx.config, found);
  }
  // No approval to act on: the first decision's outcome stands (Code Review reached).
  if (next.effects.length === 0) return first;
  return apply(ctx, next.effects, next.outcome);
}

/**
 * Writes the record where the loop keeps it, when this event changed it and no check-run write
 * carried it yet: on the head's own check run (created, showing Verification, if the loop has
 * shown nothing there), or — acting as a person, without check runs — in its PR's body.
 */
async function writeUnwritten(ctx: PullContext): Promise<void> {
  if (!ctx.unwritten) return;
  const { env } = ctx;
  const { pr, marker } = ctx.snap;
  if (await keepsBody(ctx)) {
    const body = updateMarker(pr.body, marker);
    await setPullBody(env.gh, env.repo, pr.number, body);
    ctx.snap = { ...ctx.snap, pr: { ...pr, body } };
  } else if (ctx.ownRun) {
    ctx.ownRun = await writeRecord(env.gh, env.repo, ctx.ownRun, marker, pr.head.sha);
  } else {
    ctx.ownRun = await showCheck(env, pr.head, undefined, {
      view: {
        mode: marker.mode,
        node: 'Verification',
        title: 'Verification',
        next: 'CI runs on this head; the gate decides when it completes.',
      },
      record: marker,
    });
  }
  delete ctx.unwritten;
}

/** Whether the record lives in the PR body: the loop acts as a person and has no check runs. */
async function keepsBody(ctx: PullContext): Promise<boolean> {
  return ctx.ownRun?.commitStatus === true || keepsStatus(await ctx.env.identity());
}

/** A new record for this event: kept in memory until a check-run write (or the flush) stores it. */
export function remember(ctx: PullContext, marker: PullSnapshot['marker']): void {
  ctx.snap = { ...ctx.snap, marker, pr: { ...ctx.snap.pr, escalated: !!marker.escalation } };
  ctx.unwritten = true;
}

/**
 * Carries out effects in order, each once: creates that may already exist count as done (the
 * label), refusals GitHub explains are answers (a merge). What the loop comes to believe (the
 * record) is written on the head before anything leaves the PR — a reply, a hand-off, a
 * completion — so a redelivered event finds it. Returns the outcome, which the completion commit
 * completes (its phase) or replaces (the branch moved, or the plan needs fixing first).
 */
export async function apply(
  ctx: PullContext,
  effects: readonly Effect[],
  outcome: LoopOutcome,
): Promise<LoopOutcome> {
  const { env } = ctx;
  const { gh, repo } = env;
  const { pr } = ctx.snap;
  /** The escalation as this event found it: an approval's completion ends it, nothing less. */
  const escalated = ctx.snap.marker.escalation;
  let merged: boolean | undefined;
  let result = outcome;
  for (const effect of withProgress(ctx.snap.marker, effects)) {
    if ('when' in effect && effect.when && effect.when !== (merged ? 'merged' : 'not-merged'))
      continue;
    const { marker } = ctx.snap;
    // An escalation ends with the completion commit, not before: until the commit is in place the
    // head's record keeps it (a completion GitHub refuses, or whose head moved, leaves it standing).
    const ending = effect.kind === 'complete' && escalated !== undefined && !marker.escalation;
    if (effect.kind !== 'marker' && effect.kind !== 'label' && effect.kind !== 'unlabel' && !ending)
      if (effect.kind !== 'check' || effect.sha) await writeUnwritten(ctx);
    switch (effect.kind) {
      case 'check': {
        if (effect.sha) {
          // Another commit's run (the completion commit's): a record of its own, about it.
          await showCheck(env, { sha: effect.sha, ref: pr.head.ref }, undefined, {
            view: effect.view,
            record: marker,
            ...(effect.conclusion ? { conclusion: effect.conclusion } : {}),
            ...(effect.next !== undefined ? { next: effect.next } : {}),
          });
          break;
        }
        // The head's check run now, with the record: a later effect of this event updates it.
        ctx.ownRun = await showCheck(env, pr.head, ctx.ownRun, {
          view: effect.view,
          record: marker,
          ...(effect.conclusion ? { conclusion: effect.conclusion } : {}),
          ...(effect.next !== undefined ? { next: effect.next } : {}),
        });
        // A commit status cannot hold the record: it still goes to the body (`writeUnwritten`).
        if (!ctx.ownRun.commitStatus) delete ctx.unwritten;
        break;
      }
      case 'reply':
        await replyOnIssue(gh, repo, effect.to ?? marker.issue, effect.body);
        break;
      case 'marker': {
        const attemptsShown =
          JSON.stringify(effect.marker.attempts ?? []) !== JSON.stringify(marker.attempts ?? []);
        remember(ctx, effect.marker);
        // People see the attempts in the PR body too; the loop never reads them back from there.
        if (attemptsShown && !(await keepsBody(ctx))) {
          const body = updateMarker(ctx.snap.pr.body, effect.marker);
          await setPullBody(gh, repo, pr.number, body);
          ctx.snap = { ...ctx.snap, pr: { ...ctx.snap.pr, body } };
        }
        break;
      }
      case 'requestReviews':
        await requestReviews(gh, repo, pr.number, effect.names);
        break;
      case 'label':
        remember(ctx, { ...marker, escalation: { reason: effect.reason, sha: pr.head.sha } });
        // The label only shows it: removing it (anyone with triage can) changes nothing.
        await labelEscalated(gh, repo, [pr.number, marker.issue]);
        break;
      case 'unlabel': {
        const rest = { ...marker };
        delete rest.escalation;
        remember(ctx, rest);
        await clearEscalated(gh, repo, [pr.number, marker.issue]);
        break;
      }
      case 'dispatch':
        await sendAgentDispatch(gh, repo, effect.payload);
        break;
      case 'merge': {
        // Named by the verified sha: GitHub refuses the merge if the head moved since.
        const answer = await mergePull(gh, repo, pr.number, pr.head.sha);
        merged = answer.merged;
        if (!answer.merged) env.log.warn(`auto-merge of #${pr.number} refused: ${answer.message}`);
        break;
      }
      case 'deleteBranch':
        await deleteBranch(gh, repo, pr.head.ref);
        break;
      case 'progress': {
        const kept = await showRunProgress(ctx, effect.run, effect.node);
        if (kept) remember(ctx, kept);
        break;
      }
      case 'complete': {
        const done = await completionCommit(env, ctx.config, ctx.snap, effect.approver, {
          reviews: await reviewsOf(ctx),
          commits: await commitsOf(ctx),
        });
        if (!done.ok && 'moved' in done) {
          // The approval was for this head only: nothing is written on the new one, and an
          // escalation the architect's approval was to end stands (it ends with the completion).
          if (escalated && !ctx.snap.marker.escalation) {
            remember(ctx, { ...ctx.snap.marker, escalation: escalated });
            await labelEscalated(gh, repo, [pr.number, marker.issue]);
          }
          ctx.ownRun = await showCheck(env, pr.head, ctx.ownRun, {
            view: {
              mode: 'plan',
              node: 'CodeReview',
              title: 'The branch moved after the approval',
              next: `The approved head is ${pr.head.sha.slice(0, 7)}, the branch is at ${done.moved.slice(0, 7)} now: the new head needs CI and an approval.`,
            },
            record: ctx.snap.marker,
          });
          await replyOnIssue(
            gh,
            repo,
            marker.issue,
            reply.branchMoved(pr.number, pr.head.sha, done.moved),
          );
          return {
            ...result,
            state: 'branch-moved',
            node: 'CodeReview',
            reason: `the branch moved to ${done.moved.slice(0, 7)}`,
          };
        }
        if (!done.ok) {
          await replyOnIssue(
            gh,
            repo,
            marker.issue,
            reply.planRequired(marker.plan ?? '', done.problems),
          );
          return {
            state: 'plan-required',
            node: 'ValidateContext',
            mode: 'plan',
            pullRequest: pr.number,
          };
        }
        await showCheck(env, { sha: done.commit, ref: pr.head.ref }, undefined, {
          view: {
            mode: 'plan',
            node: 'FinalVerify',
            title: 'Final verification',
            next: 'CI on the completion commit decides: green completes the phase, red goes back to implementation.',
          },
          record: ctx.snap.marker,
          ...(done.next ? { next: done.next.number } : {}),
        });
        await replyOnIssue(gh, repo, marker.issue, reply.completing(pr.number, done.phase));
        result = { ...result, phase: done.phase.number };
        break;
      }
    }
  }
  await writeUnwritten(ctx);
  if (merged) {
    // The loop merged it (`autoMerge`): GitHub's `closed` event comes from the loop's own
    // identity and is ignored, so a run goes on from here, after final verification passed.
    const next = await continueRun(env, ctx.config, {
      pr,
      marker: ctx.snap.marker,
      own: ctx.ownRun,
      merged: true,
      verified: true,
    });
    if (next) return next;
  }
  return result;
}

/**
 * Verification on a loop PR's head (a CI event, `/coder retry`, `/coder resume`): read, decide,
 * apply — Debug & Fix, escalation, Code Review and the approvals waiting for it, or Final
 * Verification.
 */
export async function evaluate(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  options: { again?: boolean } = {},
): Promise<LoopOutcome> {
  return run(pullContext(env, config, loop), (snap) => verification(snap, config, options));
}

/**
 * A failed agent run (`step: apply` found no change, refused changes, or the agent failed or
 * timed out): one more failed attempt on the head it was handed, then Debug & Fix again or, at
 * `maxRetries`, escalation — as for a red CI.
 */
export async function agentRunFailed(
  env: LoopEnv,
  config: Config,
  handOff: { branch: string; headSha: string; node: string; attempt: number },
  reason: string,
): Promise<LoopOutcome> {
  const loop = await loopPullForHead(env, handOff.branch, handOff.headSha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  if (loop.marker.escalation) return { state: 'escalated', node: 'Escalate', reason: 'escalated' };
  return run(pullContext(env, config, loop), (snap) =>
    debugFix(
      snap,
      config,
      [],
      `The coding agent (${handOff.node}, attempt ${handOff.attempt}) produced no commit: ${reason}`,
      `${handOff.node}#${handOff.attempt}`,
    ),
  );
}
