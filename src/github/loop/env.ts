import {
  reply,
  type Config,
  type LoopIdentity,
  type LoopOutcome,
  type Problem,
} from '../../core/index.js';
import type { GitHub, Repo } from '../client.js';
import { keepsStatus, writeCheckRun, type CheckRunWrite, type OwnCheckRun } from '../checks.js';
import { GitReader } from '../git.js';
import { replyOnIssue } from '../issues.js';

export interface Logger {
  info: (message: string) => void;
  warn: (message: string) => void;
}

/** What every handler gets from its adapter (the App or the Action). */
export interface LoopEnv {
  gh: GitHub;
  repo: Repo;
  /** `https://github.com/owner/repo` (or the GHES equivalent), from the payload. */
  repoUrl: string;
  defaultBranch: string;
  /** Reads `.github/coder.yml` from the default branch and validates it. */
  loadConfig: () => Promise<{ config?: Config; problems: Problem[] }>;
  /**
   * Who the loop is (the App's bot; the Action token's user or app): its PRs and its check runs
   * are recognised by it. Memoized by the adapter: at most one request per process or run.
   */
  identity: () => Promise<LoopIdentity>;
  log: Logger;
  now: () => Date;
}

/** What a handled event came to (src/core/loop/outcome.ts). */
export type { LoopOutcome } from '../../core/index.js';

export function readerFor(env: LoopEnv): GitReader {
  return new GitReader(env.gh, env.repo);
}

/** Shows where a PR head stands: the loop's check run on that head, updated or created. */
export function showCheck(
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
 * The error boundary of a loop PR's events: a handler that fails (GitHub answered 5xx past the
 * retries, or not at all) says so once on the orchestrator's thread, then the error goes on to
 * the adapter (the App logs it, the Action fails the step). The reply itself may fail too: then
 * the log is all there is.
 */
export async function tellOnFailure<T = LoopOutcome>(
  env: LoopEnv,
  where: { issue: number; pullRequest: number; what: string },
  handle: () => Promise<T>,
): Promise<T> {
  try {
    return await handle();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await replyOnIssue(
      env.gh,
      env.repo,
      where.issue,
      reply.eventFailed(where.what, where.pullRequest, message),
    ).catch(() => undefined);
    throw error;
  }
}
