import { isBot, type Actor } from './actors.js';
import { CHECK_NAME } from '../record/checkRun.js';

/**
 * Who may move the loop, decided before anything is written (SPEC §6). Pure: the facts come from
 * GitHub (the collaborator-permission endpoint, the PR, the check run's app); the rules live here.
 */

/** The identity the loop acts as: the App's bot, or the Action token's user or app. */
export interface LoopIdentity {
  /** The login its pull requests and commits carry, e.g. `coder-loop[bot]`. */
  login: string;
  /** The app whose check runs are the loop's own (App mode: the App; Action: the token's app). */
  app?: { id?: number; slug?: string };
}

/** A repository permission as the collaborator-permission endpoint names it. */
export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

const WRITE = new Set<string>(['admin', 'maintain', 'write']);

/** Write, maintain or admin: the roles that may command the loop and whose reviews count. */
export function mayCommand(permission: Permission | string): boolean {
  return WRITE.has(permission);
}

const sameLogin = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** The login every GitHub Actions job's default `GITHUB_TOKEN` acts as. */
export const ACTIONS_BOT = 'github-actions[bot]';

/**
 * Whether the loop's identity is shared with every writer: acting with a workflow's default
 * `GITHUB_TOKEN`, the loop is `github-actions[bot]`, and so is every job of every workflow a
 * writer can push: its check runs, statuses and pull requests look like the loop's own. Then
 * the loop refuses what depends on its identity being its own (docs/security.md): it merges
 * nothing (`autoMerge`), and completes nothing that needs an architect.
 */
export function identityShared(identity: LoopIdentity): boolean {
  return sameLogin(identity.login, ACTIONS_BOT) || sameLogin(identity.app?.slug, 'github-actions');
}

/** The fields of a pull request (REST or webhook) that tell whether it is a loop PR. */
export interface PullFacts {
  user?: Actor | null;
  head: { ref: string; repo?: { full_name?: string; id?: number | bigint } | null };
  base: { repo?: { full_name?: string; id?: number | bigint } | null };
}

/**
 * A loop PR is one the loop opened (its author is the loop's identity) from a `coder/` branch of
 * the same repository. Only such a PR's body is read for the loop's marker; anything else is
 * somebody else's pull request, whatever its body says.
 */
export function loopPullProblem(pr: PullFacts, identity: LoopIdentity): string | undefined {
  if (!pr.head.ref.startsWith('coder/')) return 'not a coder/ branch';
  const head = pr.head.repo;
  const base = pr.base.repo;
  const same =
    head !== null &&
    head !== undefined &&
    base !== null &&
    base !== undefined &&
    (head.id !== undefined && base.id !== undefined
      ? String(head.id) === String(base.id)
      : head.full_name !== undefined && sameLogin(head.full_name, base.full_name));
  if (!same) return 'its head is in another repository (a fork)';
  if (!sameLogin(pr.user?.login, identity.login))
    return `opened by ${pr.user?.login ? `@${pr.user.login}` : 'an unknown user'}, not by the loop (${identity.login})`;
  return undefined;
}

/**
 * The branch a loop PR must be based on: the one the loop's record names (`recorded`), or the
 * default branch, the only base the loop opens against. With a shared identity (`shared`: the
 * default `GITHUB_TOKEN`) the record is any job's to write, so it names no base: the default
 * branch is the base, whatever the record says — a job's record naming the branch a writer
 * switched the PR to, which holds a locked change, would otherwise have it compared there.
 */
export function loopBase(
  recorded: string | undefined,
  defaultBranch: string,
  shared: boolean,
): string {
  return shared ? defaultBranch : (recorded ?? defaultBranch);
}

/**
 * Why a loop PR is not judged as its base now stands, or undefined when it is: its base must be
 * the branch the loop opened it against (`recorded`, from the loop's record; a record written
 * before the loop kept it names none, and the default branch — the only base the loop opens
 * against — stands in). Any writer can switch a PR's base; against another base GitHub lists
 * another diff, one that can leave out a change to a locked item, so nothing is decided on it —
 * no completion, no merge — until the base is set back.
 */
export function baseProblem(
  recorded: string | undefined,
  defaultBranch: string,
  actual: string | undefined,
  shared = false,
): string | undefined {
  const expected = loopBase(recorded, defaultBranch, shared);
  if (actual === undefined || actual === expected) return undefined;
  return `its base is ${actual}, not ${expected}, the branch the loop opened it against: nothing is judged on it until the base is set back to ${expected}`;
}

/**
 * The hidden key of the loop's one reply about a loop PR met with another base: that base and the
 * head it was met on. The loop says so once per key (a redelivery, and every later event on the
 * same head and base, find it among the loop's own comments and say nothing more).
 */
export const baseNoteKey = (actual: string, head: string): string =>
  `<!-- coder-loop base ${JSON.stringify(actual)} ${head} -->`;

/** The app of a check run as the REST API and webhook payloads show it (`app` may be null). */
export interface CheckRunFacts {
  name: string;
  app?: { id?: number | bigint; slug?: string } | null;
}

/**
 * The loop's own check run: named `coder-loop` AND created by the loop's app. A CI job that is
 * also called `coder-loop` is CI, and counts in the gate.
 */
export function isOwnCheckRun(run: CheckRunFacts, identity: LoopIdentity): boolean {
  if (run.name !== CHECK_NAME || !run.app || !identity.app) return false;
  if (identity.app.id !== undefined && run.app.id !== undefined)
    return String(run.app.id) === String(identity.app.id);
  return identity.app.slug !== undefined && sameLogin(run.app.slug, identity.app.slug);
}

/** What is known of one review's author, for deciding whether the review counts. */
export interface Reviewer {
  login: string;
  type?: string;
  permission: Permission | string;
  /** The reviewer authored or committed a commit of the PR (not the loop's own commits). */
  pushed: boolean;
  architect: boolean;
}

export type ReviewStanding =
  | { counts: true }
  /** `quiet`: nothing may be written for it (an outsider, a bot); else the reply says why. */
  | { counts: false; quiet: true; why: string }
  | { counts: false; quiet: false; why: string };

/**
 * Whether a review counts (SPEC §3.8): from a human with write, maintain or admin permission; an
 * approval also only from someone who pushed no commit to the branch, unless `allowSelfApproval`.
 * An outsider's or a bot's review is `quiet`: it causes no write at all.
 */
export function reviewStanding(
  reviewer: Pick<Reviewer, 'login' | 'type' | 'permission' | 'pushed'>,
  kind: 'approval' | 'changes',
  allowSelfApproval: boolean,
): ReviewStanding {
  if (isBot(reviewer)) return { counts: false, quiet: true, why: `@${reviewer.login} is a bot` };
  if (!mayCommand(reviewer.permission))
    return {
      counts: false,
      quiet: true,
      why: `@${reviewer.login} has ${reviewer.permission} permission, not write`,
    };
  if (kind === 'approval' && reviewer.pushed && !allowSelfApproval)
    return {
      counts: false,
      quiet: false,
      why: `@${reviewer.login} pushed commits to this branch, and an approval must come from someone else (config \`allowSelfApproval\`)`,
    };
  return { counts: true };
}

/**
 * Touched Locked Items? with several approvals of one head: the approval that counts is the one
 * whose role the decision needs. When the PR touches locked items, an architect's approval
 * completes it; other approvals escalate. Candidates must already count (`reviewStanding`).
 */
export function chooseApproval<T extends Pick<Reviewer, 'architect'>>(
  approvals: readonly T[],
  needsArchitect: boolean,
): { approval: T; escalate: boolean } | undefined {
  if (approvals.length === 0) return undefined;
  if (!needsArchitect) return { approval: approvals[0]!, escalate: false };
  const architect = approvals.find((a) => a.architect);
  return architect
    ? { approval: architect, escalate: false }
    : { approval: approvals[0]!, escalate: true };
}

/** Logins that authored or committed a PR's commits (GitHub's matched users; the loop excluded). */
export function pushers(
  commits: readonly {
    author?: { login?: string } | null;
    committer?: { login?: string } | null;
  }[],
  identity: LoopIdentity,
): Set<string> {
  const out = new Set<string>();
  for (const c of commits)
    for (const who of [c.author, c.committer])
      if (who?.login && !sameLogin(who.login, identity.login)) out.add(who.login.toLowerCase());
  return out;
}
