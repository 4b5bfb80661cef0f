import type { LoopMarker } from '../../core/index.js';
import type { HeadChecks } from '../checks.js';
import type { PullCommits, PullRequest } from '../pulls.js';
import type { Whole } from '../pages.js';

/** A loop PR, the loop's record of it, and the head's checks read beside it. */
export interface LoopPull {
  pr: PullRequest;
  /** The loop's record (record.ts), read from the loop's own check runs — never from the body. */
  marker: LoopMarker;
  /** The head's check runs and statuses, every page, and the loop's own run among them. */
  checks: HeadChecks;
  /** The PR's commits, when finding the record needed them. */
  commits?: Whole<PullCommits[number]>;
  /** The loop's identity is every writer's too (`identityShared`: the default GITHUB_TOKEN). */
  shared?: true;
}
