import {
  baseNoteKey,
  baseProblem,
  identityShared,
  loopBase,
  loopPullProblem,
  modeOfBranch,
  readMarker,
  reply,
  type LoopIdentity,
  type LoopMarker,
} from '../../core/index.js';
import { keepsStatus, readHeadChecks, recordOn } from '../checks.js';
import { hasOwnComment } from '../issues.js';
import { findPullRequest, pullCommits, type PullCommits, type PullRequest } from '../pulls.js';
import type { Whole } from '../pages.js';
import { onThread, type LoopEnv } from './env.js';
import { applyRepo } from './apply.js';
import type { LoopPull } from './loopPull.js';

/** Why a PR is not judged; `base`: the loop's own PR, met with a base other than the recorded one. */
interface NotJudged {
  ignored: string;
  base?: { expected: string; actual: string };
}

/** How many earlier commits of a PR are searched for the loop's record at once. */
const RECORD_SEARCH = 5;

/**
 * The loop's own PR, or why this one is not: opened by the loop's identity from a `coder/` branch
 * of the same repository, with the loop's record on its head or, for a head the loop has not
 * judged yet, on the newest earlier commit of the PR that has one. The record is read only from
 * check runs the loop wrote (record.ts); the PR body, its labels and commit messages are what
 * people see, and never decide. Acting as a person (a personal token, which GitHub lets write no
 * check runs) the loop has no such place: it then reads the marker of its own PR's body — see
 * docs/security.md for what that costs.
 */
export async function trustedLoopPull(
  env: LoopEnv,
  pr: PullRequest,
  /** What event reads it: a failure to read the record is then told on the PR's own thread. */
  what?: string,
): Promise<LoopPull | { ignored: string }> {
  const notOurs = await notLoopPull(env, pr);
  if (notOurs) return notOurs;
  const identity = await env.identity();
  if (what === undefined) return readLoopPull(env, pr, identity);
  // The record names the issue; until it is read, the PR's own thread is the one to tell.
  return onThread({ issue: pr.number, pullRequest: pr.number, what }, async () => {
    const loop = await readLoopPull(env, pr, identity);
    // An event the loop acts on (a writer's, CI's) meets its PR with another base: said once.
    if ('base' in loop && loop.base) await sayBase(env, pr, loop.base, identity);
    return loop;
  });
}

/**
 * The loop's own PR met with a base other than the one it opened it against: nothing is judged
 * (`baseProblem`), and the loop says so on the PR once for that base and head — a redelivery or
 * any later event on the same head finds the reply among the loop's own comments (read whole).
 */
async function sayBase(
  env: LoopEnv,
  pr: PullRequest,
  base: { expected: string; actual: string },
  identity: LoopIdentity,
): Promise<void> {
  const key = baseNoteKey(base.actual, pr.head.sha);
  if (await hasOwnComment(env.gh, env.repo, pr.number, identity.login, key)) return;
  await applyRepo(env, [
    {
      kind: 'reply',
      to: pr.number,
      body: `${reply.baseSwitched(pr.number, base.actual, base.expected)}\n\n${key}`,
    },
  ]);
}

/**
 * Why a PR is not the loop's, from what the event carries (no request but the loop's identity):
 * the checks to make before anything else, even before asking who acts.
 */
export async function notLoopPull(
  env: LoopEnv,
  pr: PullRequest,
): Promise<{ ignored: string } | undefined> {
  // The cheap checks first: most pull requests are not on a coder/ branch at all.
  if (!pr.head.ref.startsWith('coder/')) return { ignored: 'not a coder-loop branch' };
  const problem = loopPullProblem(pr, await env.identity());
  if (problem) return { ignored: `pull request #${pr.number} is not the loop's: ${problem}` };
  return undefined;
}

async function readLoopPull(
  env: LoopEnv,
  pr: PullRequest,
  identity: LoopIdentity,
): Promise<LoopPull | NotJudged> {
  const checks = await readHeadChecks(env.gh, env.repo, pr.head.sha, identity, {
    branch: pr.head.ref,
  });
  let marker: LoopMarker | undefined;
  let commits: Whole<PullCommits[number]> | undefined;
  if (keepsStatus(identity)) {
    // Acting as a person, the record is the PR body's marker, which any writer can edit: its base
    // is not taken (another base shows another diff). The loop opens every PR against the default
    // branch, so that is the base it judges against.
    marker = readMarker(pr.body);
    if (marker) marker = { ...marker, base: undefined };
  } else if (checks.own?.record) marker = checks.own.record;
  else {
    // A head the loop has not written on yet: the record goes on from the newest earlier one.
    commits = await pullCommits(env.gh, env.repo, pr.number);
    // Newest first, a few commits at a time: one push may bring many commits the loop never saw
    // as heads, and the record is on the last head it judged.
    const earlier = commits.items
      .map((c) => c.sha)
      .filter((sha) => sha !== pr.head.sha)
      .reverse();
    // The parent first (usually the last head the loop judged), then more at a time.
    for (let i = 0, n = 1; i < earlier.length && !marker; i += n, n = RECORD_SEARCH) {
      const found = await Promise.all(
        earlier.slice(i, i + n).map((sha) => recordOn(env.gh, env.repo, sha, identity)),
      );
      marker = found.find((f) => f !== undefined)?.record;
    }
  }
  if (!marker)
    return {
      ignored: `pull request #${pr.number} carries no record of the loop (its check runs on the branch's commits hold none)`,
    };
  // A record names its PR and lock branch: one read on a commit another loop PR brought in (a
  // branch rebuilt on that PR's head) is that PR's, never this one's.
  if (!keepsStatus(identity) && (marker.pr !== pr.number || marker.branch !== pr.head.ref))
    return {
      ignored: `pull request #${pr.number}: the loop's record on its commits is ${marker.pr ? `pull request #${marker.pr}'s` : 'no pull request’s'} (${marker.branch ?? 'no branch'}), not this one's`,
    };
  // The mode follows from the branch: a record cannot turn a phase PR into a quick one.
  if (marker.mode !== modeOfBranch(pr.head.ref))
    return {
      ignored: `pull request #${pr.number}: the record says ${marker.mode} mode, the branch ${pr.head.ref} does not`,
    };
  // Another base shows another diff (one that can hide a locked change): not judged until set back.
  const shared = identityShared(identity);
  const base = baseProblem(marker.base, env.defaultBranch, pr.base.ref, shared);
  if (base)
    return {
      ignored: `pull request #${pr.number}: ${base}`,
      base: {
        expected: loopBase(marker.base, env.defaultBranch, shared),
        actual: String(pr.base.ref),
      },
    };
  return {
    pr,
    marker,
    checks,
    ...(commits ? { commits } : {}),
    ...(shared ? { shared: true as const } : {}),
  };
}

/** The open loop PR whose head is `branch`, when `sha` is still its head (else: an old head). */
export async function loopPullForHead(
  env: LoopEnv,
  branch: string | null | undefined,
  sha: string,
  what?: string,
): Promise<LoopPull | { ignored: string }> {
  if (!branch || !branch.startsWith('coder/')) return { ignored: 'not a coder-loop branch' };
  const pr = await findPullRequest(env.gh, env.repo, branch, (await env.identity()).login);
  if (!pr) return { ignored: `no open pull request for ${branch}` };
  if (pr.head.sha !== sha)
    return { ignored: `old head ${sha.slice(0, 7)} (the head is ${pr.head.sha.slice(0, 7)})` };
  return trustedLoopPull(env, pr, what);
}
