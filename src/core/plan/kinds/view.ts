import type { Problem } from '../../problem.js';

/**
 * The kind-neutral view of a plan of another kind (`KindReading`, what a kind's `open` returns;
 * `openKindPlan` in plan.ts adds the plan and its sidecar), and what the kinds' openers share: the
 * view of a plan that could not be read, errors told from warnings, the quoted sections' bound.
 */

export type KindState = 'todo' | 'doing' | 'done' | 'set-aside';

export interface KindTask {
  id: string;
  text: string;
  state: KindState;
  /** 1-based line of the task's mark (markdown) or `status` value (JSON). */
  line: number;
  /** An optional task (`[ ]*`): not required for the phase to complete; the loop never marks it. */
  optional: boolean;
  /** How deep it is nested under the phase's other tasks (a subtask: 1); absent: 0. */
  depth?: number;
  /**
   * What the state alone does not say: `optional`, or a status a person set: `blocked` (not
   * started over a person's block), `review`, `deferred`, `cancelled`.
   */
  note?: KindNote;
  /** Requirement ids the task cites (`_Requirements: 1.2_`, a user story's `[US1]`). */
  requirements?: string[];
  /** A task's details and test strategy (Passes Spec? reads paths and ids in them). */
  details?: string;
  testStrategy?: string;
}

export type KindNote =
  | 'optional'
  | 'blocked'
  | 'review'
  | 'deferred'
  | 'cancelled'
  // A status its tool does not define (`planned`, `wont-do`): left out, as the tool leaves it.
  | 'unknown status';

export interface KindPhase {
  /** `3`, `3.1` (a heading's number); a top-level task's number or id. */
  number: string;
  name: string;
  line: number;
  tasks: KindTask[];
  /**
   * Nothing is left to do in it, as its tool counts: every required task done, or (a kind of
   * statuses) the task's own status `done`, `cancelled` or `deferred`.
   */
  finished: boolean;
  /**
   * Why a finished phase has work left in it: its own status sets it aside (a task `deferred` or
   * `cancelled` over subtasks still pending).
   */
  note?: KindNote;
  /**
   * The file that holds its tasks when that is not the plan's tasks file (a story's own file),
   * the first of the places looked in that exists; undefined when none does.
   */
  file?: string;
}

/** A link the PR body and the agent get, and text quoted for them. */
export interface KindContext {
  links: { label: string; path: string }[];
  sections: { title: string; text: string }[];
}

export interface KindSidecar {
  dir: string;
  masterLog: string;
  checkpoint: string;
  /** The folder of the phase reports. */
  reportsDir: string;
  /** A phase's report; `existing`: the paths there now (a report an earlier version named keeps its name). */
  report: (
    phase: Pick<KindPhase, 'number' | 'name'> & Partial<KindPhase>,
    existing?: readonly string[],
  ) => string;
}

/** A plan of another kind as its kind's `open` reads it. */
export interface KindReading {
  phases: KindPhase[];
  /** The phase the loop starts next; undefined when the plan is complete or must wait. */
  current: KindPhase | undefined;
  /**
   * Every phase finished, and the plan read without an error: a plan from which no task could be
   * read is never complete.
   */
  complete: boolean;
  /** Work remains and no phase can start (blocked, in review, a dependency): why. */
  waiting: string | undefined;
  /** Errors (context missing, a file the reader refuses): nothing may start. */
  problems: Problem[];
  /** Lookalike tasks and other warnings: named in the reply, the start goes on. */
  warnings: Problem[];
  /** The tasks file with the phase's open tasks marked in progress (unchanged without a mark). */
  markStart: (phase: KindPhase) => string;
  /**
   * A kind whose tasks live in files beside its tasks file (boxes and a `Status:` line in story
   * files): what a start, a completion, or tasks set to a state change there, each file with its
   * new text. Absent: the tasks file is the only file a mark changes.
   */
  beside?: {
    start(phase: KindPhase): KindFileEdit[];
    done(phase: KindPhase): KindFileEdit[];
    tasks(ids: ReadonlySet<string>, state: Exclude<KindState, 'set-aside'>): KindFileEdit[];
  };
  /** The tasks file with the phase's tasks marked done. */
  markDone: (phase: KindPhase) => string;
  /**
   * Why a phase may not be marked `state` (a `mark` of it or of one of its tasks): the reason and
   * the fix, and nothing is written; undefined (or absent) when it may.
   */
  refuseMark?: (phase: KindPhase, state: Exclude<KindState, 'set-aside'>) => string | undefined;
  context: (phase: KindPhase) => KindContext;
  /**
   * A file the reader asked for that the plan can go without when it cannot be read (a tool's
   * config that only says where files are): what the reader did instead, said after the file's
   * problem, which is then a warning; undefined (or absent) for a file the plan needs.
   */
  withoutFile?: (path: string) => string | undefined;
}

/** A file a mark changes beside the tasks file, with its new text. */
export interface KindFileEdit {
  path: string;
  text: string;
}

/** Most characters of a document's text quoted for a phase's PR and agent. */
export const QUOTE_LIMIT = 20_000;

/** The reading of a plan that could not be read: no phase, and why. */
export function emptyReading(problem: Problem): KindReading {
  return {
    phases: [],
    current: undefined,
    complete: false,
    waiting: undefined,
    problems: [problem],
    warnings: [],
    markStart: () => '',
    markDone: () => '',
    context: () => ({ links: [], sections: [] }),
  };
}

export function splitProblems(problems: readonly Problem[]): {
  errors: Problem[];
  warnings: Problem[];
} {
  return {
    errors: problems.filter((p) => p.severity === 'error'),
    warnings: problems.filter((p) => p.severity !== 'error'),
  };
}

export function noPhase(path: string, fix: string): Problem {
  return { severity: 'error', path, line: 1, message: 'no phase with a task was found.', fix };
}
