import type { Config } from '../config.js';
import { parseChecklist, type Phase } from '../plan/checklist.js';
import { renderCheckpoint, writeCheckpoint } from '../plan/checkpoint.js';
import { PLAN_FILES, planPath, reportPath } from '../plan/layout.js';
import { markPhase } from '../plan/mark.js';
import { appendLogEntry, loggedSinceStart } from '../plan/masterLog.js';
import {
  renderPhaseReport,
  type ReportAttempt,
  type ReportCommit,
  type ReportFile,
  type ReportReviewer,
} from '../plan/report.js';
import { detectEol } from '../plan/text.js';
import type { Problem } from '../problem.js';
import { renderMarker, type LoopMarker } from './marker.js';
import {
  passesSpec,
  specTasksOfPhase,
  specTrace,
  type SpecFile,
  type SpecOptions,
} from './passesSpec.js';
import type { SpecTask } from './pullSnapshot.js';
import type { FileChange } from './startSnapshot.js';

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

export type Completion =
  | { ok: true; phase: Phase; next?: Phase; changes: FileChange[]; message: string }
  | { ok: false; problems: Problem[] };

/**
 * Mark [x] → Report → Update context → Log "Coder completed": the file changes of the ONE
 * completion commit, computed from the plan files as they are on the lock branch head (so a
 * human's edits there are kept: only the phase's boxes, the report, the checkpoint block and the
 * end of the log change).
 */
export function markComplete(
  config: Config,
  plan: string,
  files: { checklist?: string; context?: string; masterLog?: string },
  marker: LoopMarker,
  facts: CompletionFacts,
): Completion {
  const at = (file: string) => planPath(config.plansDir, plan, file);
  if (files.checklist === undefined || files.context === undefined) {
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          path: at(files.checklist === undefined ? PLAN_FILES.checklist : PLAN_FILES.context),
          message: 'The file is missing on the lock branch.',
          fix: 'Restore it on the branch, then approve again.',
        },
      ],
    };
  }
  const checklist = parseChecklist(files.checklist, at(PLAN_FILES.checklist));
  const phase = checklist.phases.find((p) => p.number === marker.phase);
  if (!phase) {
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          path: at(PLAN_FILES.checklist),
          message: `Phase ${marker.phase} is no longer in the checklist on the lock branch.`,
          fix: 'Restore the phase heading on the branch, then approve again.',
        },
      ],
    };
  }
  const marked = markPhase(files.checklist, phase, 'done').source;
  const done = parseChecklist(marked, at(PLAN_FILES.checklist));
  const next = done.phases.find((p) => p.tasks.some((t) => t.state !== 'done'));
  const eol = detectEol(files.checklist);
  const report = renderPhaseReport({
    plan,
    phase: { number: phase.number, name: phase.name },
    tasks: done.phases.find((p) => p.number === phase.number)!.tasks,
    ...reportFacts(marker, facts, specTasksOfPhase(phase)),
  });
  const context = writeCheckpoint(
    files.context,
    at(PLAN_FILES.context),
    renderCheckpoint({
      plan,
      updated: facts.now,
      completed: { number: phase.number, name: phase.name },
      ...(next ? { next: { number: next.number, name: next.name } } : {}),
      pullRequest: facts.pullRequest,
      by: facts.approver,
    }),
  );
  const already = loggedSinceStart(files.masterLog, 'Coder completed', plan, phase.number);
  const log = already
    ? files.masterLog
    : appendLogEntry(files.masterLog, {
        timestamp: facts.now,
        event: 'Coder completed',
        plan,
        phase: { number: phase.number, name: phase.name },
        actor: facts.approver,
        links: [
          { label: `PR #${facts.pullRequest.number}`, url: facts.pullRequest.url },
          { label: `#${marker.issue}`, url: facts.issueUrl },
        ],
      });
  const changes: FileChange[] = [
    { path: at(PLAN_FILES.checklist), content: marked },
    { path: at(reportPath(phase.number, phase.name)), content: report.join(eol) + eol },
    { path: at(PLAN_FILES.context), content: context },
    ...(log !== undefined && log !== files.masterLog
      ? [{ path: at(PLAN_FILES.masterLog), content: log }]
      : []),
  ];
  return {
    ok: true,
    phase,
    ...(next ? { next } : {}),
    changes,
    message: `coder-loop: ${plan} Phase ${phase.number} — Coder completed\n\nMark the phase's tasks [x], write the phase report, update the checkpoint and log "Coder completed" (approved by @${facts.approver}).\n\n${renderMarker({ mode: 'plan', plan, phase: phase.number, issue: marker.issue })}\n`,
  };
}

/**
 * What a phase report says of the PR, its review, CI and agent runs (every plan kind alike), and
 * its traceability: Passes Spec?'s verdict recomputed from the phase's tasks on the approved head
 * (before they are marked) and the PR's files, with the commits naming each task and requirement.
 */
export function reportFacts(
  marker: LoopMarker,
  facts: CompletionFacts,
  tasks: readonly SpecTask[],
) {
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
      reruns: marker.reruns ?? [],
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
