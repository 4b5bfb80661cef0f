import type { KindState } from '../../plan/kinds/plan.js';
import type { Problem } from '../../problem.js';

/**
 * A plan as the CLI reads it from a working copy, whatever its kind: what `status`, `plans` and
 * `lint` show, what stops an edit, and an edit's marks. Each adapter (`coderPlan`, `kindPlan`)
 * answers in these terms; the CLI prints them the one way.
 */

/** A task as `status` shows it: its box, its text, how deep it sits, what its state does not say. */
export interface ReadingTask {
  id: string;
  state: KindState;
  text: string;
  note?: string;
  depth: number;
}

export interface ReadingPhase {
  number: number | string;
  name: string;
  tasks: ReadingTask[];
  /** As the kind's tool counts it (a coder phase: every task done). */
  finished: boolean;
  /** Why a finished phase has work left in it (`deferred`): set aside by its own status. */
  note?: string;
}

export interface PlanReading {
  /** The words that head `status`: the plan's name (another kind's: its tool and tasks file). */
  title: string;
  /** What names the plan in `status --json`, before its phases. */
  names: { plan: string; kind?: string; path?: string; tag?: string };
  /** What `lint` names its count line by: the plan folder, or the tasks file (tags together). */
  subject: string;
  /** The phases read (none when the tasks file could not be read). */
  phases: ReadingPhase[];
  /** Whether `plans` counts the phases: the tasks file was read (a checklist: and trusted). */
  counted: boolean;
  /** The current phase's number: none when the plan is complete or waits. */
  current: number | string | undefined;
  complete: boolean;
  /** Work is left and no phase can start: why. */
  waiting: string | undefined;
  /** Every error (what the loop refuses) and warning: `status` and `lint` print them. */
  problems: Problem[];
  /** The warnings `status --json` lists. */
  warnings: Problem[];
  /** Whether `status` counts the tasks by state under its heading (as the other tools do). */
  tally: boolean;
  /** What stops `status` before the phases: a checklist the loop cannot trust. */
  stop: Refusal | undefined;
}

/** Why a command will not go on with a plan: the problems to print, and what to do. */
export interface Refusal {
  problems: Problem[];
  message: string;
}

/** The phase a user named, or why there is none: a usage error, a refusal, a missing phase. */
export type NamedPhase<P> =
  { phase: P } | { usage: string } | { refused: Refusal } | { missing: string };

/** An edit of the tasks file's marks: its new text, and each change as `id: before → after`. */
export interface Marked {
  text: string;
  changes: string[];
  /** The files beside the tasks file the edit changes (a story file of the kind's), with their new text. */
  beside?: { path: string; text: string }[];
}

export type MarkTarget<P> = { task: string } | { phase: P };
