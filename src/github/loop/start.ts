import {
  askHandOff,
  decideStart,
  identityShared,
  readMarker,
  updateMarker,
  type StartEffect,
  type StartNeed,
  type StartRequest,
  type StartSnapshot,
  type StartWrite,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import { createCheckRun, keepsStatus } from '../checks.js';
import { commitMessage, createCommit, createLockRef, type GitReader } from '../git.js';
import { loopLogin, replyOnIssue } from '../issues.js';
import { answerPlanRead, readTexts } from '../openPlan.js';
import { findPullRequest, getPull, openPullRequest, setPullBody } from '../pulls.js';
import { readerFor, type LoopEnv, type LoopOutcome } from './env.js';
import { writeProgress } from '../progress.js';

/** More rounds than any start takes (base, plan, commit, lock, holder, PR): a decision loop. */
const MOST_STEPS = 12;

/**
 * The start side (`/coder next`, quick mode by command or label): `decideStart` asks for each
 * read and write in turn, each answer becomes one more fact of a new snapshot, and the effects it
 * ends with are carried out here, in order. Who acts was established by the caller.
 */
export async function start(
  env: LoopEnv,
  req: StartRequest,
  onHeld?: (pr: number, locked: () => Promise<LoopOutcome>) => Promise<LoopOutcome>,
): Promise<LoopOutcome> {
  const reader = readerFor(env);
  req = { ...req, shared: identityShared(await env.identity()) };
  let snap: StartSnapshot = {};
  for (let steps = 0; steps < MOST_STEPS; steps++) {
    const step = decideStart(req, snap);
    if ('done' in step) {
      if (step.note) env.log.info(step.note);
      if (step.held !== undefined && onHeld) {
        const locked = async () => {
          await applyStart(env, step.effects);
          return step.done;
        };
        return onHeld(step.held, locked);
      }
      await applyStart(env, step.effects);
      return step.done;
    }
    snap = {
      ...snap,
      ...('need' in step
        ? await read(env, reader, step, snap)
        : await write(env, reader, step, snap)),
    };
  }
  throw new Error(`The start decision did not finish in ${MOST_STEPS} steps.`);
}

/** One read the decision asked for, as the fact it adds. */
async function read(
  env: LoopEnv,
  reader: GitReader,
  need: StartNeed,
  snap: StartSnapshot,
): Promise<StartSnapshot> {
  switch (need.need) {
    case 'base': {
      const base = await reader.base(env.defaultBranch);
      if (!base) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
      return { base };
    }
    case 'plan':
    case 'texts':
      // The task plan is read beside the start commit (`alongside`): the commit does not need it.
      return answerPlanRead(reader, snap.base!, need, snap, { taskPlan: false });
    case 'masterLog':
      return { masterLog: { text: await reader.blob(need.sha) } };
    case 'holder': {
      const pr = await findPullRequest(env.gh, env.repo, need.branch, (await env.identity()).login);
      const marker = pr
        ? readMarker(pr.body)
        : readMarker(await commitMessage(env.gh, env.repo, need.sha));
      return { holder: { ...(pr ? { pr } : {}), comment: marker?.comment } };
    }
  }
}

/** One write the decision needs the answer of, as the fact it adds. */
async function write(
  env: LoopEnv,
  reader: GitReader,
  step: StartWrite,
  snap: StartSnapshot,
): Promise<StartSnapshot> {
  const { gh, repo } = env;
  switch (step.write) {
    case 'commit': {
      // The reads asked for alongside go out with the commit's first request: no round of their own.
      // Both settle before the event goes on or fails: nothing still on its way.
      const [made, read] = await Promise.allSettled([
        createCommit(gh, repo, step.parent, step.changes, step.message),
        readTexts(reader, snap.base!, step.alongside ?? []),
      ]);
      if (made.status === 'rejected') throw made.reason;
      if (read.status === 'rejected') throw read.reason;
      const [commit, texts] = [made.value, read.value];
      return {
        commit,
        ...(texts.length ? { texts: new Map([...(snap.texts ?? []), ...texts]) } : {}),
      };
    }
    case 'createLockRef':
      return { lock: await createLockRef(gh, repo, step.branch, step.sha) };
    case 'openPull': {
      const { head, base, title, body } = step;
      const opener = (await env.identity()).login;
      return { pull: await openPullRequest(gh, repo, { head, base, title, body }, opener) };
    }
  }
}

/**
 * The start's last effects: the reply beside the rest, which go in order (the progress comment,
 * whose id the check run's record keeps; the check run, whose record asks for the hand-off; the
 * hand-off). The reply depends on none of them, so it costs no round of its own. Both settle
 * before this returns: no reply still on its way after a failure.
 */
async function applyStart(env: LoopEnv, decided: readonly StartEffect[]): Promise<void> {
  const effects = askedHandOffs(decided, env.now());
  const replies = effects.filter((e) => e.kind === 'reply');
  const rest = effects.filter((e) => e.kind !== 'reply');
  const settled = await Promise.allSettled([applyInOrder(env, replies), applyInOrder(env, rest)]);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}

/**
 * The hand-off a start sends gets its id here (the decision's time, the PR's count of hand-offs),
 * and the record of the check run on the head it names asks for it: the payload and the record
 * carry the same id.
 */
function askedHandOffs(effects: readonly StartEffect[], now: Date): StartEffect[] {
  const asked = new Map<string, ReturnType<typeof askHandOff>>();
  for (const effect of effects) {
    if (effect.kind !== 'dispatch') continue;
    const check = effects.find(
      (e): e is Extract<StartEffect, { kind: 'check' }> =>
        e.kind === 'check' && e.sha === effect.payload.headSha,
    );
    if (check) asked.set(effect.payload.headSha, askHandOff(check.record, effect.payload, now));
  }
  return effects.map((effect) => {
    if (effect.kind === 'dispatch') {
      const sent = asked.get(effect.payload.headSha);
      return sent ? { ...effect, payload: sent.payload } : effect;
    }
    if (effect.kind === 'check') {
      const sent = asked.get(effect.sha);
      return sent ? { ...effect, record: sent.marker } : effect;
    }
    return effect;
  });
}

async function applyInOrder(env: LoopEnv, effects: readonly StartEffect[]): Promise<void> {
  const { gh, repo } = env;
  /** The run's progress comment written just before: the check run's record keeps its id. */
  let progress: number | undefined;
  let progressPr: number | undefined;
  for (const effect of effects) {
    switch (effect.kind) {
      case 'reply':
        await replyOnIssue(gh, repo, effect.to, effect.body, loopLogin(env));
        break;
      case 'progress':
        progress = await writeProgress(env, effect.progress, effect.id);
        progressPr = effect.progress.current?.pr;
        break;
      case 'check': {
        // The hand-off this start sends is asked for in the record first (`askedHandOffs`).
        const sent = effects.some((e) => e.kind === 'dispatch' && e.payload.headSha === effect.sha);
        let record = effect.record;
        const withProgress = progress !== undefined && progressPr !== undefined && record.run;
        if (withProgress) record = { ...record, run: { ...record.run!, progress } };
        const number = record.pr ?? progressPr;
        const wrote = record.loopFiles !== undefined;
        if (
          (withProgress || sent || wrote) &&
          number !== undefined &&
          keepsStatus(await env.identity())
        ) {
          // Acting as a person, the record is the PR body's marker: the comment's id, the
          // hand-off and the start commit's files go there.
          const pr = await getPull(gh, repo, number);
          await setPullBody(gh, repo, pr.number, updateMarker(pr.body ?? '', record), pr.body);
        }
        await createCheckRun(
          gh,
          repo,
          effect.sha,
          effect.view,
          record,
          env.repoUrl,
          effect.branch,
          async () => keepsStatus(await env.identity()),
        );
        break;
      }
      case 'dispatch':
        await sendAgentDispatch(gh, repo, effect.payload);
        break;
    }
  }
}
