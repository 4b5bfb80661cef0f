import { renderCheckpoint, writeCheckpoint } from '../../plan/checkpoint.js';
import { KIND_MARKS } from '../../plan/kinds/plan.js';
import { appendLogEntry, loggedSinceStart } from '../../plan/masterLog.js';
import {
  renderPhaseReport,
  type ReportAttempt,
  type ReportCommit,
  type ReportFile,
  type ReportReviewer,
} from '../../plan/report.js';
import { detectEol } from '../../plan/text.js';
import type { Problem } from '../../problem.js';
import { renderMarker, type LoopMarker } from '../record/marker.js';
import { passesSpec, specTrace, type SpecOptions } from './passesSpec.js';
import type { SpecFile } from './specEvidence.js';
import type { PhasePlan, PhaseRef } from '../phasePlan/phasePlan.js';
import type { SpecTask } from '../snapshot/pullSnapshot.js';
import type { FileChange } from '../snapshot/startSnapshot.js';

/** What GitHub knows about the phase's PR when it is approved. */
export interface CompletionFacts {
  pullRequest: { number: number; url: string };
  issueUrl: string;
  approver: string;
  reviewers: ReportReviewer[];
  commits: ReportCommit[];
  attempts: ReportAttempt[];
  /** The PR's files, with the patch GitHub lists for each (Passes Spec?'s evidence). */
  files: (ReportFile & SpecFile)[];
  now: string;
  /** Passes Spec?'s options; absent with `specCheck: off` (no traceability section). */
  spec?: SpecOptions;
}

export type Completion<P extends PhaseRef = PhaseRef> =
  | { ok: true; phase: P; next?: PhaseRef; changes: FileChange[]; message: string }
  | { ok: false; problems: Problem[] };

/**
 * Mark done → Report → Update context → Log "Coder completed", for every kind: the file changes
 * of the ONE completion commit, computed from the plan's files as they are on the approved head
 * (so a human's edits there are kept: only the phase's marks in the tasks file, the report, the
 * checkpoint block and the end of the log change). The tasks file gets the kind's own done marks;
 * the report, checkpoint and log are the loop's (the plan folder, or the plan's sidecar).
 */
export function markComplete<P extends PhaseRef>(
  plan: PhasePlan<P>,
  marker: LoopMarker,
  facts: CompletionFacts,
): Completion<P> {
  const phase = plan.phaseOf(marker);
  if ('problems' in phase) return { ok: false, problems: phase.problems };
  const { label, tasks, checkpoint, masterLog } = plan;
  const marked = plan.markDone(phase);
  const beside = plan.beside(phase, 'done');
  const after = plan.afterDone(phase, marked, beside);
  const { next } = after;
  const eol = detectEol(tasks.text);
  const report = renderPhaseReport({
    plan: label,
    phase: { number: phase.number, name: phase.name },
    tasks: after.tasks,
    ...reportFacts(marker, facts, plan.specTasks(phase)),
  });
  const context = writeCheckpoint(
    checkpoint.text ?? '',
    checkpoint.path,
    renderCheckpoint({
      plan: label,
      updated: facts.now,
      completed: { number: phase.number, name: phase.name },
      ...(next ? { next: { number: next.number, name: next.name } } : {}),
      pullRequest: facts.pullRequest,
      by: facts.approver,
    }),
  );
  const log = masterLog.text;
  const already = loggedSinceStart(log, 'Coder completed', label, phase.number);
  const newLog = already
    ? log
    : appendLogEntry(log, {
        timestamp: facts.now,
        event: 'Coder completed',
        plan: label,
        phase: { number: phase.number, name: phase.name },
        actor: facts.approver,
        links: [
          { label: `PR #${facts.pullRequest.number}`, url: facts.pullRequest.url },
          { label: `#${marker.issue}`, url: facts.issueUrl },
        ],
      });
  const changes: FileChange[] = [
    ...(marked !== tasks.text ? [{ path: tasks.path, content: marked }] : []),
    ...beside,
    { path: plan.reportPath(phase), content: report.join(eol) + eol },
    { path: checkpoint.path, content: context },
    ...(newLog !== undefined && newLog !== log ? [{ path: masterLog.path, content: newLog }] : []),
  ];
  const record: LoopMarker = {
    mode: 'plan',
    plan: label,
    ...plan.record(phase),
    issue: marker.issue,
  };
  return {
    ok: true,
    phase,
    ...(next ? { next } : {}),
    changes,
    message: `coder-loop: ${label} Phase ${phase.number} — Coder completed\n\nMark the phase's tasks ${KIND_MARKS[plan.kind].done}, write the phase report, update the checkpoint and log "Coder completed" (approved by @${facts.approver}).\n\n${renderMarker(record)}\n`,
  };
}

/**
 * The paths the completion commit of the phase a record names writes, from the plan on the head
 * (`markComplete`'s files, without its report's text): its marks, the files beside them it ticks
 * (a story file where its tool's config puts it), the report, the checkpoint and the log. None
 * when the record names no phase of the plan: the completion writes nothing then.
 */
export function completionWrites(plan: PhasePlan, marker: LoopMarker): string[] {
  const phase = plan.phaseOf(marker);
  if ('problems' in phase) return [];
  const marked = plan.markDone(phase);
  return [
    ...new Set([
      ...(marked !== plan.tasks.text ? [plan.tasks.path] : []),
      ...plan.beside(phase, 'done').map((c) => c.path),
      plan.reportPath(phase),
      plan.checkpoint.path,
      plan.masterLog.path,
    ]),
  ];
}

/**
 * What a phase report says of the PR, its review, CI and agent runs (every plan kind alike), and
 * its traceability: Passes Spec?'s verdict recomputed from the phase's tasks on the approved head
 * (before they are marked) and the PR's files, with the commits naming each task and requirement.
 */
function reportFacts(marker: LoopMarker, facts: CompletionFacts, tasks: readonly SpecTask[]) {
  return {
    completedAt: facts.now,
    pullRequest: facts.pullRequest,
    issue: { number: marker.issue, url: facts.issueUrl },
    approver: facts.approver,
    commits: facts.commits,
    attempts: facts.attempts,
    reviewers: facts.reviewers,
    files: facts.files,
    ...(marker.agentRuns?.length ? { agentRuns: marker.agentRuns } : {}),
    cost: {
      failedAttempts: (marker.attempts ?? []).length,
      pauses: marker.pauses ?? [],
      reruns: (marker.reruns ?? []).filter((r) => !r.refused),
      flaky: marker.flaky ?? [],
    },
    ...(facts.spec
      ? { trace: specTrace(passesSpec(tasks, facts.files, facts.spec), facts.commits) }
      : {}),
  };
}

/** Logins and `org/team` names (config `architects`, `reviewers`) apart. */
export function splitLogins(names: readonly string[]): {
  users: string[];
  teams: { org: string; slug: string }[];
} {
  const users: string[] = [];
  const teams: { org: string; slug: string }[] = [];
  for (const name of names) {
    const [org, slug] = name.split('/');
    if (slug) teams.push({ org: org!, slug });
    else users.push(name);
  }
  return { users, teams };
}
