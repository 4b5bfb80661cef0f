import type { Config, Problem } from '../../core/index.js';
import type { GitHub, Repo } from '../client.js';
import { writeCheckRun, type CheckRunWrite, type OwnCheckRun } from '../checks.js';
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
  log: Logger;
  now: () => Date;
}

/** What a handled event came to: the Action turns it into outputs, the App logs it. */
export interface LoopOutcome {
  state: string;
  mode?: 'plan' | 'quick';
  plan?: string;
  phase?: number;
  branch?: string;
  pullRequest?: number;
  reason?: string;
}

export function readerFor(env: LoopEnv): GitReader {
  return new GitReader(env.gh, env.repo);
}

/** Shows where a PR head stands: the loop's check run on that head, updated or created. */
export function showCheck(
  env: LoopEnv,
  head: { sha: string; ref: string },
  own: OwnCheckRun | undefined,
  write: CheckRunWrite,
): Promise<void> {
  return writeCheckRun(env.gh, env.repo, head.sha, own, write, env.repoUrl, head.ref);
}
