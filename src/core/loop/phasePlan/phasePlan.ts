import type { PromptInput } from '../../agent/prompt.js';
import type { Config } from '../../config.js';
import { codeSpan, encodePath } from '../../markdown.js';
import type { PlanKind } from '../../plan/kinds/discovery.js';
import { KIND_MARKS } from '../../plan/kinds/plan.js';
import { appendLogEntry } from '../../plan/masterLog.js';
import { oneLine } from '../../plan/text.js';
import type { TaskState } from '../../plan/checklistModel.js';
import type { PhaseReport } from '../../plan/report.js';
import type { Problem } from '../../problem.js';
import type { Answer } from './choose.js';
import { renderMarker, type LoopMarker } from '../record/marker.js';
import { phaseTitle } from '../messages/phaseName.js';
import type { Marked, MarkTarget, NamedPhase, PlanReading, Refusal } from './planReading.js';
import type { ProgressPhase } from '../record/progress.js';
import type { SpecTask } from '../snapshot/pullSnapshot.js';
import type { RunPlanState } from '../nodes/run.js';
import type { FileChange, Orchestrator, PullRequestText } from '../snapshot/startSnapshot.js';

/** A phase as the start and the completion name it. */
export interface PhaseRef {
  number: number | string;
  name: string;
}

/** A link the PR body, the check run and the agent get. */
export interface PlanLink {
  label: string;
  path: string;
}

/**
 * The loop's own files of a plan, known from its name alone, before the plan is read: where the
 * start and the completion write the marks, the log entry, the checkpoint and the phase reports.
 */
export interface OwnFiles {
  tasks: string;
  masterLog: string;
  checkpoint: string;
  /** The folder of the phase reports (`<NN>_<Phase_Name>.md`). */
  reportsDir: string;
}

/** A file of the plan and its text on the tree it was read from (undefined: not there). */
export interface PlanText {
  path: string;
  text: string | undefined;
}

/**
 * One plan of any kind — the coder layout (`docs/plans/<Plan>/`) or a kind of the registry
 * (src/core/plan/kinds/registry.ts) — as the loop's start, completion and PR body see it. Each
 * kind is one adapter (`coderPlan.ts`, `kindPlan.ts`); the start (`markInProgress`,
 * `pullRequest`) and the completion (`markComplete`) are written once over this interface.
 */
export interface PhasePlan<P extends PhaseRef = PhaseRef> {
  readonly kind: PlanKind;
  /** The name the loop writes: the plan's name, or its tasks file's path when two share it. */
  readonly label: string;
  /** The file the kind's marks go in (the checklist, tasks.md, tasks.json). */
  readonly tasks: { path: string; text: string };
  /** The loop's master log: in the plan folder (coder) or the plan's sidecar. */
  readonly masterLog: PlanText;
  /** The loop's checkpoint: the plan's context file (coder) or the sidecar's Checkpoint.md. */
  readonly checkpoint: PlanText;
  /** Lookalike tasks and other warnings of the kind's reader: named in the start's replies. */
  readonly warnings: readonly Problem[];

  // ——— Start
  /**
   * Context valid? → the phase a start takes; or Plan Required, complete, waiting. `cli`: how
   * users run the CLI here (cliCommand.ts), for a command a problem's fix names.
   */
  toStart(cli?: string): { phase: P } | Answer;
  /** The phase's lock branch. */
  branch(phase: P): string;
  /** How the loop's record names the phase (and, for another kind, its tasks file). */
  record(phase: P): Pick<LoopMarker, 'phase' | 'planFile' | 'phaseId'>;
  /** The tasks file with the phase's open tasks marked in progress (unchanged: no such mark). */
  markStart(phase: P): string;
  /**
   * The files beside the tasks file a start or a completion changes (a story file's boxes
   * and `Status:`), each with its new text; none for most kinds.
   */
  beside(phase: P, at: 'start' | 'done'): FileChange[];
  /** The start reply once the PR is open. */
  started(phase: P, branch: string, pr: { number: number }): string;
  /** The check run's and the PR's links for the phase (the tasks file, the documents). */
  links(phase: P): PlanLink[];
  /** The plan's phases as the run's progress comment lists them. */
  progress(): ProgressPhase[];
  /** The PR body's parts that say what the plan is: its first line, the task list, the context. */
  pullText(
    phase: P,
    link: (l: PlanLink) => string,
  ): { intro: string; tasks: string[]; context: string[]; completes: string };

  // ——— Completion
  /** The phase a loop record names, as the tasks file has it now; or why it cannot complete. */
  phaseOf(marker: LoopMarker): P | { problems: Problem[] };
  /** The tasks file with the phase's tasks marked done. */
  markDone(phase: P): string;
  /**
   * The plan with `marked` as its tasks file (and `beside`'s files, a completion's other changes):
   * the phase's tasks as its report lists them, and the next phase.
   */
  afterDone(
    phase: P,
    marked: string,
    beside?: readonly FileChange[],
  ): { tasks: PhaseReport['tasks']; next: PhaseRef | undefined };
  /** The phase's tasks as Passes Spec? reads them. */
  specTasks(phase: P): SpecTask[];
  /** Where the phase report is written. */
  reportPath(phase: P): string;

  // ——— `/coder status`
  /** The phase whose lock the status shows: the current one of a plan read without an error. */
  statusPhase(): P | undefined;
  /** The plan's section of the status reply: its phases and tasks, the lock, what is wrong. */
  /** `cli`: how users run the CLI here (cliCommand.ts), for the commands the section names. */
  statusSection(lock: StatusLock | undefined, cli?: string): string;

  // ——— The CLI, on a working copy
  /** The plan as `coder-loop status`, `plans` and `lint` show it. */
  reading(): PlanReading;
  /** The tasks file's own errors (not its context's), which stop an edit; undefined: none. */
  refusal(): Refusal | undefined;
  /** The phase a user names by its number (`--phase`), or why there is none. */
  phaseNamed(number: string): NamedPhase<P>;
  /** The phase with work left, the one `coder-loop spec` checks; or why there is none. */
  workPhase(): { phase: P } | { missing: string };
  /** The tasks file with a task, or a phase's tasks, set to `state` in the kind's own marks. */
  mark(target: MarkTarget<P>, state: TaskState): Marked | { missing: string };

  // ——— The plan a loop record names, read again (Passes Spec?, `/coder run`, the agent)
  /** The phase a record names, as this plan has it now (undefined: not there). */
  phaseAt(marker: Pick<LoopMarker, 'phase' | 'phaseId'>): P | undefined;
  /** `/coder run` after a merge: the next phase on the default branch, complete or waiting. */
  runState(marker: Pick<LoopMarker, 'phaseId'>): RunPlanState;
  /** The repository paths the agent's context for the phase needs that were not read yet. */
  agentReads(phase: P): string[];
  /** The agent's context for the phase, with `texts` holding what `agentReads` named. */
  agentContext(phase: P, texts: ReadonlyMap<string, string>): AgentPlanContext;
}

/** What the agent gets of a plan: the prompt's plan section and the context folder's files. */
export interface AgentPlanContext {
  /** The prompt's plan section, but its name (the hand-off's). */
  plan: Omit<NonNullable<PromptInput['plan']>, 'name'>;
  /** A plan of another kind: the folder of its documents, which the agent must not edit. */
  documentsDir?: string;
  /** The context folder's files, by name under it, in the order they are written. */
  files: { name: string; text: string }[];
}

/** Why a recorded phase cannot complete: a file of the plan missing or changed on the lock branch. */
export function restoreOnBranch(path: string, message: string): { problems: Problem[] } {
  return {
    problems: [
      { severity: 'error', path, message, fix: 'Restore it on the branch, then approve again.' },
    ],
  };
}

/** The lock of the phase `/coder status` shows: its branch, held or not, and its open PR. */
export interface StatusLock {
  branch: string;
  held: boolean;
  pr?: number;
}

export interface PhaseStart {
  branch: string;
  marker: LoopMarker;
  changes: FileChange[];
  message: string;
}

/**
 * Mark in progress, for every kind: the phase's open tasks get the kind's own in-progress mark
 * (coder `[~]`, another kind's `marks.start`; a kind without one leaves the tasks file as it is,
 * and the lock branch and its PR are the record) and "Coder started" is appended to the master
 * log — the file changes of the one start commit on the lock branch.
 */
export function markInProgress<P extends PhaseRef>(
  plan: PhasePlan<P>,
  phase: P,
  who: Orchestrator,
  now: string,
): PhaseStart {
  const { label } = plan;
  const marked = plan.markStart(phase);
  const log = appendLogEntry(plan.masterLog.text, {
    timestamp: now,
    event: 'Coder started',
    plan: label,
    phase: { number: phase.number, name: phase.name },
    actor: who.actor,
    links: [{ label: `#${who.issue}`, url: who.issueUrl }],
  });
  const changes: FileChange[] = [];
  if (marked !== plan.tasks.text) changes.push({ path: plan.tasks.path, content: marked });
  changes.push(...plan.beside(phase, 'start'));
  changes.push({ path: plan.masterLog.path, content: log });
  const marker: LoopMarker = {
    mode: 'plan',
    plan: label,
    ...plan.record(phase),
    issue: who.issue,
    ...(who.comment !== undefined ? { comment: who.comment } : {}),
    ...(who.run ? { run: { ...who.run, plan: label } } : {}),
  };
  const mark = KIND_MARKS[plan.kind].start;
  return {
    branch: plan.branch(phase),
    marker,
    changes,
    message: `coder-loop: ${label} ${phaseTitle(phase)} — Coder started\n\n${mark ? `Mark the phase's tasks ${mark} and log` : 'Log'} "Coder started" (#${who.issue}).\n\n${renderMarker(marker)}\n`,
  };
}

/** Automatic PR per phase: the phase's tasks, the plan's context, `Refs #issue`. */
export function pullRequest<P extends PhaseRef>(
  config: Pick<Config, 'maxRetries'>,
  plan: PhasePlan<P>,
  phase: P,
  start: PhaseStart,
  repoUrl: string,
): PullRequestText {
  const { branch } = start;
  const link = (l: PlanLink) =>
    `[${oneLine(l.label)}](${repoUrl}/blob/${encodePath(branch)}/${encodePath(l.path)})`;
  const text = plan.pullText(phase, link);
  const lines = [
    renderMarker(start.marker),
    text.intro,
    '',
    `Refs #${start.marker.issue}`,
    '',
    '### Tasks',
    '',
    ...text.tasks,
    ...text.context,
    '',
    '### How this pull request moves',
    '',
    `Push the implementation to ${codeSpan(branch)}, test first. CI on this pull request is the verification gate (up to ${config.maxRetries} failed attempts before escalation); an approving review ${text.completes}. The \`coder-loop\` check shows where the phase stands.`,
  ];
  return { title: `[coder] ${plan.label}: ${phaseTitle(phase)}`, body: lines.join('\n') };
}
