import type { AgentPayload } from '../../agent/payload.js';
import type { Config } from '../../config.js';
import type { PlanContext, PlanFiles } from '../../plan/validate.js';
import type { CheckRunView } from '../record/checkRun.js';
import type { LoopMarker, RunState } from '../record/marker.js';
import type { LoopOutcome } from '../record/outcome.js';
import type { ProgressInput, ProgressPhase } from '../record/progress.js';

/**
 * The start side's vocabulary, for every kind of plan: what a start was asked, what it knows so
 * far (the snapshot), the reads, writes and effects it answers with, and what a plotted start
 * commits. The decision is `decideStart` (start.ts); a kind plots its phase over these types.
 */

export interface Orchestrator {
  issue: number;
  issueUrl: string;
  actor: string;
  comment?: number;
  /** A `/coder run` this start belongs to: kept in the phase's record (its plan is the plan's). */
  run?: Omit<RunState, 'plan'>;
}

export interface FileChange {
  /** Repository path. */
  path: string;
  content: string;
}

export interface PullRequestText {
  title: string;
  body: string;
}

/** The issue quick mode works on. */
export interface QuickIssue {
  number: number;
  title: string;
  body: string | null;
}

/** What a start was asked: `/coder next [PlanName]` (plan mode), or quick mode on an issue. */
export type StartRequest = {
  config: Config;
  who: Orchestrator;
  /** A command (a redelivery finds its own comment in the lock) or the quick label. */
  via: 'command' | 'label';
  repo: { owner: string; repo: string };
  repoUrl: string;
  defaultBranch: string;
  /** The time the log entry is written with (ISO 8601). */
  now: string;
  /** The loop's identity is every writer's too (`identityShared`): the start reply says so. */
  shared?: boolean;
  /**
   * The Action's own workflow file on the default branch: the start checks that the CI it waits
   * for exists (ciGate.ts). Absent in the App, which hears every check suite.
   */
  loopWorkflow?: string;
  /** How users run the CLI here (cliCommand.ts): the replies' commands run as printed. */
  cli?: string;
  /**
   * Said last in the start's reply (a run's merged phase: "merged; branch deleted"), so one
   * comment tells both; said alone when the start has nothing to say (a redelivery).
   */
  note?: string;
} & ({ mode: 'plan'; plan: string | undefined } | { mode: 'quick'; issue: QuickIssue });

/** A PR as the start side sees it. */
export interface StartPull {
  number: number;
  body: string | null;
}

/** The lock's answer: this event created the ref, or it exists (at `sha`). */
export type LockAnswer = { acquired: true } | { acquired: false; sha: string };

/**
 * What the start side knows so far: each read or write answered adds one fact (a new object —
 * the applier never changes one it was given). Absent: not read or written yet.
 */
export interface StartSnapshot {
  /** The default branch's head commit, its root tree and every file's blob sha. */
  readonly base?: {
    readonly sha: string;
    readonly tree: string;
    readonly files: ReadonlyMap<string, string>;
  };
  /**
   * Plan mode: the chosen plan's files and its validated context (absent only where a reader
   * asked for the tasks file alone: it is validated when asked).
   */
  readonly plan?: { readonly files: PlanFiles; readonly context?: PlanContext };
  /** Texts of the default branch's files read so far, by path (plans of the other kinds). */
  readonly texts?: ReadonlyMap<string, string>;
  /** Quick mode with `quick.log`: the one plan's master log (undefined: no such file). */
  readonly masterLog?: { readonly text: string | undefined };
  /** The start commit, made on the default branch's head. */
  readonly commit?: string;
  readonly lock?: LockAnswer;
  /** The lock was held: its open PR, and the comment that started it (from the PR or commit). */
  readonly holder?: { readonly pr?: StartPull; readonly comment?: number | undefined };
  /** The phase's PR: `created` by this event, or found open (opened by a twin delivery). */
  readonly pull?: StartPull & { readonly created: boolean };
}

/** A read the decision asks for before it can go on. */
export type StartNeed =
  | { need: 'base' }
  | { need: 'plan'; plan: string; plansDir: string }
  | { need: 'masterLog'; sha: string }
  /** The texts of these default-branch paths (added to `texts`). */
  | { need: 'texts'; paths: string[] }
  /** The lock's open PR; without one, the marker in the commit `sha` the lock points at. */
  | { need: 'holder'; branch: string; sha: string };

/** A write whose answer the decision needs next (so the writes go in dependency order). */
export type StartWrite =
  | {
      write: 'commit';
      parent: { sha: string; tree: string };
      changes: readonly FileChange[];
      message: string;
      /**
       * Default-branch paths to read while the commit is written (added to `texts`): what the
       * PR quotes and the commit does not need, so the PR waits on no read of its own.
       */
      alongside?: string[];
    }
  | { write: 'createLockRef'; branch: string; sha: string }
  | { write: 'openPull'; head: string; base: string; title: string; body: string };

/** The last effects of a start, carried out in order once the decision is done. */
export type StartEffect =
  | { kind: 'reply'; to: number; body: string }
  /** The `coder-loop` check run on the start commit. */
  | { kind: 'check'; sha: string; branch: string; view: CheckRunView; record: LoopMarker }
  | { kind: 'dispatch'; payload: AgentPayload }
  /**
   * A run's progress comment (progress.ts), written or made before the check run: the check
   * run's record then keeps its id (`run.progress`). `id`: the comment the run has so far.
   */
  | { kind: 'progress'; progress: ProgressInput; id?: number };

/** The decision's answer: read, write, or done (the effects and the outcome, and a log line). */
export type StartStep =
  | StartNeed
  | StartWrite
  | {
      done: LoopOutcome;
      effects: readonly StartEffect[];
      note?: string;
      /**
       * `/coder run` found the phase locked by this open PR: the run may go on from it
       * (`resumeRunOn`, once the PR is read and is the loop's); `effects` are the locked reply,
       * for when it cannot.
       */
      held?: number;
    };

/** What a start commits, on which lock branch, with which PR and check run. */
export interface Plotted {
  branch: string;
  marker: LoopMarker;
  changes: readonly FileChange[];
  message: string;
  pull: PullRequestText;
  outcome: LoopOutcome;
  locked: (pr: StartPull | undefined) => string;
  started: (pr: StartPull) => string;
  view: CheckRunView;
  /** A plan of another kind: its phases for a run's progress comment (the checklist's otherwise). */
  phases?: ProgressPhase[];
  /** Paths the PR quotes that are not read yet (`PhasePlan.pullReads`). */
  unread?: string[];
}

export type Base = NonNullable<StartSnapshot['base']>;
export type Early = StartNeed | { done: LoopOutcome; effects: readonly StartEffect[] };
