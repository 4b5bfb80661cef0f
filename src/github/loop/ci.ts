import {
  CHECK_NAME,
  ciHead,
  type CiPayload,
  closed,
  DEFAULT_CONFIG,
  isBot,
  isOwnCheckRun,
  mayCommand,
  pushed,
  startedNoJob,
  type Config,
  type LoopOutcome,
} from '../../core/index.js';
export type { CiPayload } from '../../core/index.js';
import { keepsStatus, readHeadChecks } from '../checks.js';
import { readPermission } from '../identity.js';
import type { PullRequest } from '../pulls.js';
import { onThread, type LoopEnv } from './env.js';
import { applyRepo } from './apply.js';
import { continueRun } from './continue.js';
import { evaluate, run, runTo } from './pull.js';
import { pullContext } from './snapshot.js';
import { loopPullForHead, notLoopPull, trustedLoopPull } from './trust.js';

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
  const found = await loopPullForHead(env, head.branch, head.sha, `a ${event} event`);
  if ('ignored' in found) return { state: 'ignored', reason: found.ignored };
  // A run that started no job shows no check run: the head's workflow runs are read for it.
  const loop = startedNoJob(event, payload)
    ? {
        ...found,
        checks: await readHeadChecks(env.gh, env.repo, head.sha, await env.identity(), {
          unstarted: true,
          branch: found.pr.head.ref,
        }),
      }
    : found;
  return onThread(
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
  /** `edited`: what changed; `base` when the PR's base branch was switched (GitHub's webhook). */
  changes?: { base?: { ref?: { from?: string } } | null } | null;
}

/**
 * `pull_request`: `synchronize` (a push to a loop PR) and `closed` (the lock freed), decided by
 * `pushed` and `closed`; `edited` with a new base: switched away, the loop says once that it
 * judges nothing (`trustedLoopPull`); set back, the head is judged as a CI event would have it.
 * A bot's push, close or edit writes nothing; the sender's permission is read first, and only
 * write, maintain or admin moves anything (triage can close a PR; a push to the repository needs
 * write access, but the event is taken at its word only once checked).
 */
export async function onPullRequest(
  env: LoopEnv,
  payload: PullRequestPayload,
): Promise<LoopOutcome> {
  const baseEdited = payload.action === 'edited' && !!payload.changes?.base;
  if (payload.action !== 'closed' && payload.action !== 'synchronize' && !baseEdited)
    return { state: 'ignored', reason: `pull_request.${payload.action}` };
  if (isBot(payload.sender)) return { state: 'ignored', reason: 'pull request event by a bot' };
  const notOurs = await notLoopPull(env, payload.pull_request);
  if (notOurs) return { state: 'ignored', reason: notOurs.ignored };
  // Who acts, first: a close or push by someone without write access reads and writes nothing.
  if (!mayCommand(await readPermission(env.gh, env.repo, payload.sender.login)))
    return {
      state: 'ignored',
      reason: `pull_request.${payload.action} by @${payload.sender.login}, who lacks write access`,
    };
  // The base set back is judged on the PR as it stands now, not as the event carried it: heard
  // late — GitHub delivering it again, or the Action's run of it re-run — the payload may hold a
  // head the branch has left, or a base switched away again since.
  const loop = baseEdited
    ? await currentLoopPull(env, payload.pull_request)
    : await trustedLoopPull(env, payload.pull_request, `pull_request.${payload.action}`);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  const where = {
    issue: loop.marker.issue,
    pullRequest: loop.pr.number,
    what: `pull_request.${payload.action}`,
  };
  // The base set back to the recorded one: what came meanwhile (CI, reviews) is judged now.
  if (baseEdited)
    return onThread(where, async () => {
      const config = await configOrLog(env);
      if (!config) return { state: 'config-invalid' };
      return evaluate(env, config, loop);
    });
  if (payload.action === 'closed') {
    return onThread(where, async () => {
      const config = await configOrLog(env);
      const merged = payload.pull_request.merged === true;
      // A phase of a run: what the close says waits for the run's next step, and is said in the
      // same comment (one write, one notification); said alone when the run does not go on.
      const said: string[] = [];
      const { outcome, ctx } = await runTo(
        pullContext(env, config ?? DEFAULT_CONFIG, loop),
        (snap) => {
          const decided = closed(snap, config, merged);
          if (!config || !snap.marker.run) return decided;
          const [reply] = decided.effects.filter((e) => e.kind === 'reply');
          if (reply?.kind === 'reply') said[0] = reply.body;
          return { ...decided, effects: decided.effects.filter((e) => e.kind !== 'reply') };
        },
      );
      const alone = async () => {
        if (said.length)
          await applyRepo(env, [{ kind: 'reply', to: ctx.snap.marker.issue, body: said[0]! }]);
      };
      if (!config) return outcome;
      // A phase of `/coder run`: the next one starts, or the run stops and says why (run.ts).
      const own = ctx.ownRun ?? loop.checks.own;
      const next = await continueRun(env, config, {
        pr: loop.pr,
        marker: ctx.snap.marker,
        own,
        merged,
        verified: own?.node === 'End' && own.conclusion === 'success',
        ...(said.length ? { said: said[0]! } : {}),
      });
      if (!next) {
        await alone();
        return outcome;
      }
      await applyRepo(env, next.effects);
      return next.outcome;
    });
  }
  return onThread(where, async () => {
    // Only quick mode reads the config on a push (its limits); plan mode needs none.
    const config = loop.marker.mode === 'quick' ? await configOrLog(env) : DEFAULT_CONFIG;
    const pusher = payload.sender.login;
    return run(pullContext(env, config ?? DEFAULT_CONFIG, loop), (snap) =>
      pushed(snap, config, pusher),
    );
  });
}

/** The loop PR of an event, read again: ignored when it is another PR now, or at another head. */
async function currentLoopPull(env: LoopEnv, pr: PullRequest) {
  const found = await loopPullForHead(env, pr.head.ref, pr.head.sha, 'pull_request.edited');
  if (!('ignored' in found) && found.pr.number !== pr.number)
    return {
      ignored: `pull request #${pr.number} is closed: #${found.pr.number} holds its branch`,
    };
  return found;
}
