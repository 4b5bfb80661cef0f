import type { AgentPayload } from '../../agent/payload.js';
import type { Config } from '../../config.js';
import type { CheckRunView } from '../record/checkRun.js';
import type { NodeId } from '../flowchart.js';
import type { CheckResult } from '../nodes/gate.js';
import { agentHandOff } from '../record/handoff.js';
import type { LoopMarker, RunState } from '../record/marker.js';
import type { LoopOutcome, LoopState } from '../record/outcome.js';
import type { Permission } from './trust.js';
import type { GuardedPlanFile } from '../../plan/kinds/discovery.js';

/**
 * The PR side of the loop, from Verification to Final Verification, as pure decisions: a
 * snapshot of the loop PR read from GitHub goes in, an outcome and the list of effects to carry
 * out come out (XState's `transition()`, release-please's build-then-create). This file holds the
 * snapshot, the effects and the helpers every node shares; each node of the flowchart has its own
 * file beside it (`verification.ts`, `debugFix.ts`, …), and `src/github/loop` reads the snapshot
 * and applies the effects.
 *
 * Where a decision needs a fact the snapshot does not hold yet (the PR's files, the approvals of
 * the head, whether an approver is an architect), it says so (`need`), so each resource is read
 * only when a branch needs it — the request counts stay those of the straight code.
 */

/** A file the PR changes; a rename names its old path too (it touches both). */
export interface PullFile {
  path: string;
  previous?: string;
  additions: number;
  deletions: number;
  /** The diff GitHub lists for the file (absent for binary files and very large diffs). */
  patch?: string;
  /** GitHub's `removed`: the head no longer has it. */
  deleted?: true;
  /** The git blob of the file at the head (GitHub's `sha`), when GitHub names one. */
  sha?: string;
}

/** Every path a list of changed files touches: a rename's old and new path alike. */
export function touchedPaths(files: readonly PullFile[]): string[] {
  return files.flatMap((f) => (f.previous ? [f.path, f.previous] : [f.path]));
}

/** The loop's own state on a head, as its check run (or commit status) keeps it. */
export interface OwnState {
  node: NodeId | undefined;
  /** Final verification: the next phase's number, written by the completion step. */
  next?: number;
  conclusion: string | null;
}

/** An approval of the head by a user with write permission, with what the rules need to know. */
export interface Approval {
  login: string;
  permission: Permission | string;
  /** Authored or committed a commit of the PR (the loop's own excluded). */
  pushed: boolean;
  /** Known once asked (`need: 'architects'`); only asked when the PR touches locked items. */
  architect?: boolean;
}

/** A task of the phase, as Passes Spec? reads it. */
export interface SpecTask {
  id: string;
  /** The task's text as the plan writes it (its first line, or its title). */
  text: string;
  state: 'todo' | 'doing' | 'done' | 'set-aside';
  /** An optional task (`[ ]*`): never lacks evidence. */
  optional?: boolean;
  /** Requirement ids the task cites (`_Requirements: 1.2_`); ids in `text` are read too. */
  requirements?: readonly string[];
  /** A task's details and test strategy: more text that may name paths and ids. */
  detail?: string;
  /** A task's test strategy: a criterion only a changed test can show. */
  criterion?: string;
  /** The plan writes the id (`T012`, `1.2`), rather than the loop numbering the task. */
  writtenId: boolean;
}

/** What the PR side reads of GitHub before deciding. */
export interface PullSnapshot {
  repo: { owner: string; repo: string };
  repoUrl: string;
  pr: {
    number: number;
    url: string;
    body: string;
    head: { sha: string; ref: string };
    /**
     * The base branch's head, whose tree's plans count (`need: 'plans'`): the PR's `base.sha`,
     * and once the files are read, the branch's head they were compared with (read then, by its
     * ref: GitHub does not move `base.sha` as the branch moves). What the PR changes is against
     * the merge base: what the base gained since is not the PR's.
     */
    base?: string;
    /** From the loop's record (`marker.escalation`), never from the label people can change. */
    escalated: boolean;
  };
  /**
   * The loop's identity is shared with every writer's workflow (the default `GITHUB_TOKEN`,
   * `identityShared`): the record may be anyone's, so nothing that depends on it being the loop's
   * is done — no merge, no architect's resolution.
   */
  shared?: true;
  /** The loop's record of the PR (record.ts), as of this head. */
  marker: LoopMarker;
  /** The loop's check run on the head; absent before the loop showed anything there. */
  own?: OwnState;
  /**
   * Every check run and commit status of the head but the loop's own, once read
   * (`need: 'checks'`; `own` is known from then on too).
   */
  checks?: readonly CheckResult[];
  /** The PR's files, once read (`need: 'files'`). */
  files?: readonly PullFile[];
  /**
   * The phase's tasks as the plan at the head writes them, once read (`need: 'tasks'`), for
   * Passes Spec?; `problem` when they cannot be read there.
   */
  tasks?: { tasks: readonly SpecTask[] } | { problem: string };
  /**
   * The plans of every kind in the base and head trees, once read (`need: 'plans'`): asked only
   * when a path the PR touches could lie in a plan's folder, or be a file a plan reads beyond it
   * (then what each such plan reads there is read too: `GuardedPlanFile.reads`).
   */
  plans?: readonly GuardedPlanFile[];
  /**
   * The paths the completion commit would write on the head, once read (`need: 'writes'`), from
   * the plan there: asked in plan mode only when `locked` is set and nothing else needs an
   * architect, since a completion that writes a locked path needs one too.
   */
  completionWrites?: readonly string[];
  /** GitHub stopped listing the files (3,000): what the PR touches cannot be known whole. */
  filesIncomplete?: true;
  /** GitHub stopped listing the commits (250): who pushed cannot be known whole. */
  commitsIncomplete?: true;
  /**
   * Apps or workflows other than the loop that pushed to the lock branch (GitHub's record of its
   * ref updates), read with the approvals: GitHub does not name who ran them, so any writer may
   * be the pusher. `['?']` when that record could not be read whole.
   */
  automationPushed?: readonly string[];
  /**
   * The approvals of the head by users with write permission, once read (`need: 'approvals'`):
   * the one a review event brings, else each reviewer's latest verdict on the head. Whether each
   * approver is an architect is filled in only when asked (`need: 'architects'`).
   */
  approvals?: readonly Approval[];
  /**
   * Whether an escalation stands by the PR's history (the loop's own label events), once read
   * (`need: 'escalation'`): a push that brings back a head whose record predates the escalation
   * does not end it.
   */
  escalatedBefore?: boolean;
}

/** Escalated, by the head's record or by the PR's history (once read). */
export const isEscalated = (snap: PullSnapshot) =>
  snap.pr.escalated || snap.escalatedBefore === true;

/** One thing to do on GitHub. The applier (src/github/loop/apply.ts) carries each out once. */
export type Effect =
  /** Show where the head stands: the loop's check run on the PR head (or on `sha`). */
  | {
      kind: 'check';
      view: CheckRunView;
      conclusion?: 'success' | 'failure';
      /** Data kept beside the node for a later event (the next phase). */
      next?: number;
      sha?: string;
      when?: 'merged' | 'not-merged';
    }
  /** A reply on the orchestrator's issue; `when` ties it to the outcome of a `merge`. */
  | { kind: 'reply'; body: string; when?: 'merged' | 'not-merged'; to?: number }
  /** The PR body's marker (and its attempts section) rewritten. */
  | { kind: 'marker'; marker: LoopMarker }
  | { kind: 'requestReviews'; names: readonly string[] }
  /**
   * Escalate: the record notes it (with the head and the reason), and the `coder:escalated` label
   * shows it on the PR and its issue (created in the repository if missing).
   */
  | { kind: 'label'; reason: string }
  /** The escalation cleared in the record, and its label removed. */
  | { kind: 'unlabel' }
  /** The hand-off to the coding agent (`repository_dispatch`). */
  | { kind: 'dispatch'; payload: AgentPayload }
  /** Merge the PR at its head (autoMerge); refused merges are not errors. */
  | { kind: 'merge' }
  /** Free the lock: delete the PR's branch (`when`: only once the loop's merge went through). */
  | { kind: 'deleteBranch'; when?: 'merged' }
  /** Mark [x] → Report → Update context → Log: ONE commit, compare-and-swap, by `approver`. */
  | { kind: 'complete'; approver: string }
  /**
   * Wake the loop at `at` for this PR's head (a pause's end, pause.ts): the App's delayed job in
   * the shared Redis; the Action's scheduled sweep finds it in the record without being told.
   */
  | { kind: 'wake'; at: string }
  /**
   * Triage (triage.ts): re-run a GitHub Actions workflow run's failed jobs (`whole`: the whole
   * run, which started no job). GitHub refusing it (no `actions: write`, the run over a month
   * old, running already) leaves the rest of the decision undone: triage's decision for the
   * refusal, given GitHub's message, is carried out instead (`refused`).
   */
  | { kind: 'rerun'; run: number; whole: boolean; refused: (message: string) => Decided }
  /** The run's progress comment on the issue, shown again (progress.ts: `withProgress`). */
  | { kind: 'progress'; run: RunState; node?: NodeId; when?: 'not-merged' };

/**
 * One more fact a decision needs before it can decide: the head's checks, the PR's files, the
 * phase's tasks at the head (Passes Spec?), the plans of the trees (Touched Locked Items?), the
 * paths the completion would write (`writes`), the approvals of the head (`approvals`), whether each
 * approver is an architect, whether the PR's history says it is escalated (`escalation`). The
 * reader answers with a new snapshot that holds it, and the same decision is asked again.
 */
export type Need =
  'checks' | 'files' | 'tasks' | 'approvals' | 'architects' | 'escalation' | 'plans' | 'writes';

/** A decision made: the outcome, and the effects the applier carries out, in order. */
export interface Decided {
  outcome: LoopOutcome;
  effects: Effect[];
}

export type Decision = Decided | { need: Need };

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function outcomeOf(snap: PullSnapshot, state: LoopState, node?: NodeId): LoopOutcome {
  const { marker, pr } = snap;
  return {
    state,
    ...(node ? { node } : {}),
    mode: marker.mode,
    branch: pr.head.ref,
    pullRequest: pr.number,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
}

export const done = (
  snap: PullSnapshot,
  state: LoopState,
  node: NodeId | undefined,
  effects: Effect[],
  extra: Partial<LoopOutcome> = {},
): Decided => ({ outcome: { ...outcomeOf(snap, state, node), ...extra }, effects });

/** A hand-off at a node of the Implementation Track, for this snapshot's head. */
export function handOff(
  snap: PullSnapshot,
  config: Pick<Config, 'agent'>,
  node: AgentPayload['node'],
  attempt: number,
  marker: LoopMarker = snap.marker,
): AgentPayload | undefined {
  return agentHandOff(config, {
    node,
    repo: snap.repo,
    branch: snap.pr.head.ref,
    headSha: snap.pr.head.sha,
    pullRequest: snap.pr.number,
    marker,
    attempt,
  });
}

/** Verification shown on a head the loop has shown nothing on yet. */
export function waitingForCi(snap: PullSnapshot, next: string): Effect[] {
  if (snap.own) return [];
  const view: CheckRunView = {
    mode: snap.marker.mode,
    node: 'Verification',
    title: 'Verification: waiting for CI',
    next,
  };
  return [{ kind: 'check', view }];
}
