import {
  askHandOff,
  baseProblem,
  pullProgress,
  reply,
  updateMarker,
  withLoopFiles,
  withProgress,
  type AgentPayload,
  type Effect,
  type NodeId,
  type RunState,
  type LoopFile,
  type LoopMarker,
  type LoopOutcome,
  type Phase,
  type Problem,
  type PullSnapshot,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import {
  keepsStatus,
  recordOn,
  rerunWorkflow,
  writeCheckRun,
  writeRecord,
  type CheckRunWrite,
  type OwnCheckRun,
} from '../checks.js';
import { advanceBranch, createCommit, deleteBranch, readCommit } from '../git.js';
import { loopLogin, reactEyes, replyOnIssue } from '../issues.js';
import {
  closePull,
  clearEscalated,
  getPull,
  labelEscalated,
  mergePull,
  requestReviews,
  setPullBody,
} from '../pulls.js';
import { completionCommit, type Completion } from './complete.js';
import { continueRun } from './continue.js';
import { readerFor, type LoopEnv } from './env.js';
import { planPhases } from './runProgress.js';
import { commitsOf, reviewsOf, type PullContext } from './snapshot.js';
import type { RepoEffect } from './repoEffect.js';
import { writeProgress } from '../progress.js';

/**
 * The one applier of every side but the start (`start.ts`): a decision's effects carried out on
 * GitHub, each once. The handlers under `src/github/loop/` decide and read; only this file and
 * `start.ts` write (test/github/writes.test.ts keeps it so).
 */

/** Carries out effects that need no loop PR's snapshot, in order. */
export async function applyRepo(env: LoopEnv, effects: readonly RepoEffect[]): Promise<void> {
  const { gh, repo } = env;
  for (const effect of effects) {
    switch (effect.kind) {
      case 'reply':
        await replyOnIssue(gh, repo, effect.to, effect.body, loopLogin(env));
        break;
      case 'closePull':
        await closePull(gh, repo, effect.pr);
        break;
      case 'deleteBranch':
        await deleteBranch(gh, repo, effect.branch);
        break;
      case 'record':
        await writeRecord(gh, repo, effect.own, effect.marker, effect.sha);
        break;
      case 'bodyRecord':
        await setPullBody(
          gh,
          repo,
          effect.pr,
          updateMarker(effect.body ?? '', effect.marker),
          effect.body,
        );
        break;
      case 'progress':
        await writeProgress(
          env,
          effect.input,
          effect.id,
          planPhases(env, effect.plansDir, effect.plan, effect.planFile),
        );
        break;
    }
  }
}

/**
 * 👀 on a command, the loop's claim on it: true when this delivery is the first to take it
 * (`reactEyes`), false when the comment was taken already.
 */
export function claimCommand(env: LoopEnv, comment: number): Promise<boolean> {
  return reactEyes(env.gh, env.repo, comment);
}

/** Shows where a PR head stands: the loop's check run on that head, updated or created. */
function showCheck(
  env: LoopEnv,
  head: { sha: string; ref: string },
  own: OwnCheckRun | undefined,
  write: CheckRunWrite,
): Promise<OwnCheckRun> {
  return writeCheckRun(env.gh, env.repo, head.sha, own, write, env.repoUrl, head.ref, async () =>
    keepsStatus(await env.identity()),
  );
}

/**
 * The completion commit written: its parent the approved head, the loop's record on it (`mark`)
 * before the ref moves compare-and-swap on that head, so that whoever finds the branch there
 * knows it for the loop's completion. When anyone pushed in between nothing is written (`moved`:
 * the branch's new head); when the branch holds this head's completion already — another
 * delivery of the same approval, handled at the same time, wrote it — nothing more (`done`).
 */
async function writeCompletion(
  env: LoopEnv,
  branch: string,
  completion: Completion,
  marker: LoopMarker,
  headNow: string,
  mark: (commit: string, loopFiles: LoopFile[]) => Promise<void>,
): Promise<
  | {
      ok: true;
      commit: string;
      phase: Pick<Phase, 'number' | 'name'>;
      next?: { number: number };
      loopFiles: LoopFile[];
    }
  | { ok: false; problems: Problem[] }
  | { ok: false; moved: string }
  | { ok: false; done: string }
> {
  if (!completion.ok) return completion;
  const { gh, repo } = env;
  const { parent } = completion;
  // `headNow`: the PR's head as GitHub gave it after every read the verdict took. GitHub lists a
  // PR's files and commits as of its head when asked, and the ref update below only refuses a
  // commit that does not descend from the branch (one moved back to an ancestor of the approved
  // head takes it). A PR not at the approved head now (pushed to, or force-pushed back past a
  // change the files then did not show) gets nothing: its head is judged on its own.
  if (headNow !== parent.sha) {
    // A delivery of the same approval handled before this one wrote the completion already.
    if (await completes(env, headNow, parent.sha, marker)) {
      env.log.info(
        `completion of ${parent.sha.slice(0, 7)} not written again: the pull request holds it already (${headNow.slice(0, 7)})`,
      );
      return { ok: false, done: headNow };
    }
    env.log.info(
      `completion of ${parent.sha.slice(0, 7)} not written: the pull request is at ${headNow.slice(0, 7)}`,
    );
    return { ok: false, moved: headNow };
  }
  const commit = await createCommit(gh, repo, parent, completion.changes, completion.message);
  const loopFiles = withLoopFiles(marker.loopFiles, completion.changes);
  await mark(commit, loopFiles);
  if (!(await advanceBranch(gh, repo, branch, commit))) {
    const head = await readerFor(env).branchHead(branch);
    if (!head || head === parent.sha)
      throw new Error(`The lock branch ${branch} refused the completion commit.`);
    if (await completes(env, head, parent.sha, marker)) {
      env.log.info(
        `completion of ${parent.sha.slice(0, 7)} not written again: the branch holds it already (${head.slice(0, 7)})`,
      );
      return { ok: false, done: head };
    }
    env.log.info(
      `completion of ${parent.sha.slice(0, 7)} not written: the branch moved to ${head.slice(0, 7)}`,
    );
    return { ok: false, moved: head };
  }
  return {
    ok: true,
    commit,
    loopFiles,
    phase: completion.phase,
    ...(completion.next ? { next: completion.next } : {}),
  };
}

/**
 * Whether `head` is the loop's completion commit of `approved` on this PR: a child of that head
 * holding the loop's own record of final verification (its app's check run, which the completion
 * writes before it moves the ref; no writer's job can write one).
 */
async function completes(
  env: LoopEnv,
  head: string,
  approved: string,
  marker: LoopMarker,
): Promise<boolean> {
  const own = await recordOn(env.gh, env.repo, head, await env.identity());
  if (own?.node !== 'FinalVerify' || own.record?.pr !== marker.pr) return false;
  const { parents } = await readCommit(env.gh, env.repo, head);
  return parents.length === 1 && parents[0] === approved;
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
    await setPullBody(env.gh, env.repo, pr.number, body, pr.body);
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
function remember(ctx: PullContext, marker: PullSnapshot['marker']): void {
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
  const escalated =
    ctx.snap.marker.escalation ??
    (ctx.snap.escalatedBefore
      ? { reason: 'escalated before this head', sha: ctx.snap.pr.head.sha }
      : undefined);
  let merged: boolean | undefined;
  /** The host had been asked for this decision's wake-up already: its reply was said then. */
  let told = false;
  let result = outcome;
  for (const effect of withProgress(ctx.snap.marker, effects)) {
    if ('when' in effect && effect.when && effect.when !== (merged ? 'merged' : 'not-merged'))
      continue;
    // A hand-off is asked for in the record, on the head it names, before it is sent: the
    // agent's jobs run only a dispatch the record asked for. It gets its id here (the decision's
    // time and the PR's count of hand-offs), which the record and the payload both carry.
    let payload: AgentPayload | undefined;
    if (effect.kind === 'dispatch') {
      const asked = askHandOff(ctx.snap.marker, effect.payload, env.now());
      payload = asked.payload;
      if (effect.payload.headSha === pr.head.sha) remember(ctx, asked.marker);
    }
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
        if (!told)
          await replyOnIssue(gh, repo, effect.to ?? marker.issue, effect.body, loopLogin(env));
        break;
      case 'marker': {
        const attemptsShown =
          JSON.stringify(effect.marker.attempts ?? []) !== JSON.stringify(marker.attempts ?? []);
        remember(ctx, effect.marker);
        // People see the attempts in the PR body too; the loop never reads them back from there.
        if (attemptsShown && !(await keepsBody(ctx))) {
          const body = updateMarker(ctx.snap.pr.body, effect.marker);
          await setPullBody(gh, repo, pr.number, body, ctx.snap.pr.body);
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
        await sendAgentDispatch(gh, repo, payload ?? effect.payload);
        break;
      case 'wake':
        // Asked for already (two replicas read the record before either wrote it): the one that
        // asked first tells the issue; this decision's reply is not said twice.
        if (!(await wakeAt(ctx, effect.at))) told = true;
        break;
      case 'rerun': {
        // Refused (no `actions: write`, a run too old, running already): the rest of this
        // decision is undone, and triage's decision for a refusal is carried out instead.
        const answer = await rerunWorkflow(gh, repo, effect.run, effect.whole);
        if (answer) {
          env.log.warn(`re-run of workflow run ${effect.run} refused: ${answer.refused}`);
          const instead = effect.refused(answer.refused);
          return apply(ctx, instead.effects, instead.outcome);
        }
        break;
      }
      case 'merge': {
        // GitHub's merge takes the head's sha, not the base: the base is read again just before
        // (a writer may have switched it since this event's read) and must be the recorded one.
        const now = await getPull(gh, repo, pr.number);
        const base = baseProblem(marker.base, env.defaultBranch, now.base.ref, ctx.snap.shared);
        if (base) {
          merged = false;
          env.log.warn(`auto-merge of #${pr.number} not asked: ${base}`);
          break;
        }
        // Named by the verified sha: GitHub refuses the merge if the head moved since.
        const answer = await mergePull(gh, repo, pr.number, pr.head.sha);
        merged = answer.merged;
        if (!answer.merged) env.log.warn(`auto-merge of #${pr.number} refused: ${answer.message}`);
        break;
      }
      case 'deleteBranch': {
        // Only while the branch is still this PR's head: an old close delivered again (a
        // redelivery, a re-run of the Action's run) after the phase started over on a branch of
        // the same name, or a push after the close, leaves the branch as it is.
        const head = await readerFor(env).branchHead(pr.head.ref);
        if (head === pr.head.sha) await deleteBranch(gh, repo, pr.head.ref);
        else if (head)
          env.log.info(
            `${pr.head.ref} not deleted: it is at ${head.slice(0, 7)}, not #${pr.number}'s head ${pr.head.sha.slice(0, 7)}`,
          );
        break;
      }
      case 'progress': {
        const kept = await showRunProgress(ctx, effect.run, effect.node);
        if (kept) remember(ctx, kept);
        break;
      }
      case 'complete': {
        // The approval was judged on the diff against the base this event read: the PR is read
        // again before the phase is marked done, after every read of the verdict (a writer may
        // have switched its base, or moved its head, meanwhile).
        const now = await getPull(gh, repo, pr.number);
        const base = baseProblem(marker.base, env.defaultBranch, now.base.ref, ctx.snap.shared);
        if (base) {
          env.log.warn(`completion of #${pr.number} not written: ${base}`);
          return { state: 'ignored', reason: `pull request #${pr.number}: ${base}` };
        }
        const completion = await completionCommit(env, ctx.config, ctx.snap, effect.approver, {
          reviews: await reviewsOf(ctx),
          commits: await commitsOf(ctx),
        });
        const done = await writeCompletion(
          env,
          pr.head.ref,
          completion,
          ctx.snap.marker,
          now.head.sha,
          // Final verification's run on the completion commit, with the record, before the ref
          // moves: a delivery of the same approval handled meanwhile knows the commit for this one.
          async (commit, loopFiles) => {
            await showCheck(env, { sha: commit, ref: pr.head.ref }, undefined, {
              view: {
                mode: 'plan',
                node: 'FinalVerify',
                title: 'Final verification',
                next: 'CI on the completion commit decides: green completes the phase, red goes back to implementation.',
              },
              // The completion commit's files, as the blobs it left: the loop's own from here on.
              record: { ...ctx.snap.marker, loopFiles },
              ...(completion.ok && completion.next ? { next: completion.next.number } : {}),
            });
          },
        );
        if (!done.ok && 'done' in done)
          return {
            state: 'ignored',
            reason: `the completion of ${pr.head.sha.slice(0, 7)} is on the branch already (${done.done.slice(0, 7)}): another delivery of this approval wrote it`,
          };
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
            loopLogin(env),
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
            reply.planRequired(marker.plan ?? '', done.problems, env.cli),
            loopLogin(env),
          );
          return {
            state: 'plan-required',
            node: 'ValidateContext',
            mode: 'plan',
            pullRequest: pr.number,
          };
        }
        // Acting as a person, the record is the PR body's marker: the completion's files go there.
        if (await keepsBody(ctx)) remember(ctx, { ...ctx.snap.marker, loopFiles: done.loopFiles });
        await replyOnIssue(
          gh,
          repo,
          marker.issue,
          reply.completing(pr.number, done.phase),
          loopLogin(env),
        );
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
    if (next) {
      await applyRepo(env, next.effects);
      return next.outcome;
    }
  }
  return result;
}

/**
 * A pause's end handed to the host's scheduler (the App's Redis); without one, it is said in the
 * log. False when the host had been asked for that wake-up already (another replica, a redelivery):
 * then the issue was told already too.
 */
async function wakeAt(ctx: PullContext, at: string): Promise<boolean> {
  const { env } = ctx;
  const { pr } = ctx.snap;
  if (!env.wake) {
    env.log.info(
      `#${pr.number} paused until ${at}: resumed by the scheduled sweep or \`/coder resume\` (no delayed job here)`,
    );
    return true;
  }
  return env.wake({
    owner: env.repo.owner,
    repo: env.repo.repo,
    pullRequest: pr.number,
    branch: pr.head.ref,
    sha: pr.head.sha,
    at,
  });
}

/**
 * The `progress` effect of the PR side: the run's comment shown as the PR stands now (the record
 * as this event left it, the node on its head); `/coder stop` shows the run stopped. A comment
 * made anew (none yet, deleted, not the loop's) has its id kept in the record: the returned
 * marker, for the applier to remember.
 */
async function showRunProgress(
  ctx: PullContext,
  run: RunState,
  shown?: NodeId,
): Promise<LoopMarker | undefined> {
  const { marker, pr } = ctx.snap;
  const stopped = !marker.run;
  const node = shown ?? ctx.ownRun?.node ?? ctx.snap.own?.node;
  const input = pullProgress(
    marker,
    run,
    pr.number,
    node,
    stopped ? { reason: reply.progressStopped(pr.number), merged: false } : undefined,
  );
  const id = await writeProgress(
    ctx.env,
    input,
    run.progress,
    planPhases(ctx.env, ctx.config.plansDir, run.plan, ctx.snap.marker.planFile),
  );
  if (stopped || id === marker.run?.progress) return undefined;
  return { ...marker, run: { ...marker.run!, progress: id } };
}
