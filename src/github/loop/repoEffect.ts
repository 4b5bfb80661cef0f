import type { LoopMarker, ProgressInput } from '../../core/index.js';
import type { OwnCheckRun } from '../checks.js';

/** A write that needs no loop PR's snapshot: an answer on a thread, a lock given up. */
export type RepoEffect =
  /** A reply on an issue or pull request thread. */
  | { kind: 'reply'; to: number; body: string }
  /** A pull request closed (a lock given up with its branch). */
  | { kind: 'closePull'; pr: number }
  /** A lock freed: the branch deleted (already gone counts as done). */
  | { kind: 'deleteBranch'; branch: string }
  /** The loop's record written on its own check run of `sha` (a stopped run written off). */
  | { kind: 'record'; own: OwnCheckRun; marker: LoopMarker; sha: string }
  /** Acting as a person (no check runs): the record is the marker in the PR's body. */
  | { kind: 'bodyRecord'; pr: number; body: string | null; marker: LoopMarker }
  /** A run's progress comment shown (the plan's phases read again if it must be made anew). */
  | {
      kind: 'progress';
      input: ProgressInput;
      id: number | undefined;
      plan: string;
      plansDir: string;
      /** A plan of another kind: its tasks file (the record's `planFile`). */
      planFile?: string;
    };
