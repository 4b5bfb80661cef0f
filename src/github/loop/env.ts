import { type AgentNode, type Config, type LoopIdentity, type Problem } from '../../core/index.js';
import type { GitHub, Repo } from '../client.js';
import { GitReader } from '../git.js';

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
  /**
   * Wakes the loop for a loop PR's head at a time (a pause's end): the App's delayed job in the
   * shared Redis (src/app/wake.ts). Absent in the Action, whose scheduled sweep reads the
   * records, and in an App without Redis, which says it has no wake-up queue. Resolves true when
   * this call is the first to ask for that wake-up (it says so on the issue), false when another
   * replica or an earlier delivery asked already (the job is one either way).
   */
  wake?: (job: WakeJob) => Promise<boolean>;
  /**
   * The Action: its workflow file on the default branch (from GITHUB_WORKFLOW_REF), whose
   * `workflow_run` names the CI a start checks exists. Absent in the App.
   */
  loopWorkflow?: string;
  /**
   * How users run coder-loop's CLI here (`npx github:<owner>/coder-loop`, core/cliCommand.ts):
   * the commands the replies print. The Action's from its `uses:` reference, the App's from its
   * clone or CODER_LOOP_REPOSITORY.
   */
  cli?: string;
}

/** The hand-off `step: apply` reports a run of (its payload's fields the loop reads back). */
export interface ReportedHandOff {
  branch: string;
  headSha: string;
  node: AgentNode;
  attempt: number;
  /** The hand-off's id, as the payload carried it (none from an older loop). */
  agent?: { handOffId?: string | undefined };
}

/** A wake-up the host keeps: which PR head, and when. */
export interface WakeJob {
  owner: string;
  repo: string;
  pullRequest: number;
  branch: string;
  sha: string;
  at: string;
}

/** What a handled event came to (src/core/loop/record/outcome.ts). */
export type { LoopOutcome } from '../../core/index.js';

const readers = new WeakMap<LoopEnv, GitReader>();

/**
 * The event's one GitReader: every handler of an event reads through it, so no branch, tree or
 * blob is read twice in one event (a run's next phase reads the default branch its decision read).
 */
export function readerFor(env: LoopEnv): GitReader {
  let reader = readers.get(env);
  if (!reader) {
    reader = new GitReader(env.gh, env.repo);
    readers.set(env, reader);
  }
  return reader;
}

/** Where a failed event is said, and how: a command's, a label's or a loop PR's event. */
export type Thread =
  | { issue: number; command: string }
  | { issue: number; label: string }
  | { issue: number; pullRequest: number; what: string };

const threads = new WeakMap<object, Thread>();

/**
 * For an event whose payload does not name the thread (a CI result: the loop PR, and with it the
 * orchestrator's issue, is found by reading): an error out of `handle` carries the thread to
 * `dispatch`'s boundary, which says it there. Nothing is written here.
 */
export async function onThread<T>(thread: Thread, handle: () => Promise<T>): Promise<T> {
  try {
    return await handle();
  } catch (error) {
    if (typeof error === 'object' && error !== null && !threads.has(error))
      threads.set(error, thread);
    throw error;
  }
}

/** The thread an error was given by `onThread`, if any. */
export function threadOfError(error: unknown): Thread | undefined {
  return typeof error === 'object' && error !== null ? threads.get(error) : undefined;
}
