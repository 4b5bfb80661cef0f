import { renderCheckpoint, writeCheckpoint } from '../plan/checkpoint.js';
import { KIND_MARKS, openKindPlan, type KindPhase, type KindPlan } from '../plan/kinds/plan.js';
import { appendLogEntry, loggedSinceStart } from '../plan/masterLog.js';
import { renderPhaseReport, type PhaseReport } from '../plan/report.js';
import { detectEol } from '../plan/text.js';
import type { Problem } from '../problem.js';
import { reportFacts, type CompletionFacts } from './complete.js';
import { renderMarker, type LoopMarker } from './marker.js';
import { specTasksOfKindPhase } from './passesSpec.js';
import type { FileChange } from './startSnapshot.js';
import { phaseInteger } from './phaseName.js';

export type KindCompletion =
  | { ok: true; phase: KindPhase; next?: KindPhase; changes: FileChange[]; message: string }
  | { ok: false; problems: Problem[] };

/** A phase's tasks as its report lists them: the id once, set-aside and optional ones noted. */
export function kindReportTasks(phase: KindPhase): PhaseReport['tasks'] {
  return phase.tasks.map((t) => ({
    depth: 0,
    state: t.state === 'set-aside' ? 'todo' : t.state,
    text: `${t.text.startsWith(t.id) ? t.text : `${t.id} ${t.text}`}${t.state === 'set-aside' ? ' (set aside)' : ''}${t.optional ? ' (optional)' : ''}`,
  }));
}

/**
 * Mark done → Report → Checkpoint → Log "Coder completed" for a plan of another kind: the file
 * changes of the ONE completion commit, from the files on the approved head. The tasks file gets
 * the kind's own done marks and nothing else; the report, the checkpoint and the log are the
 * loop's, in the plan's sidecar (`<plan folder>/coder-loop/`).
 */
export function markKindComplete(
  kp: KindPlan,
  label: string,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
  marker: LoopMarker,
  facts: CompletionFacts,
): KindCompletion {
  const phaseId = marker.phaseId ?? String(marker.phase ?? '');
  const phase = kp.phases.find((p) => p.number === phaseId);
  if (!phase) {
    const problems = kp.problems.length
      ? kp.problems
      : [
          {
            severity: 'error' as const,
            path: kp.plan.path,
            message: `Phase ${phaseId} is no longer in the plan on the lock branch.`,
            fix: 'Restore it on the branch, then approve again.',
          },
        ];
    return { ok: false, problems };
  }
  const source = texts.get(kp.plan.path)!;
  const marked = kp.markDone(phase);
  const after = openKindPlan(kp.plan, paths, new Map([...texts, [kp.plan.path, marked]]));
  const done = after.phases.find((p) => p.number === phase.number) ?? phase;
  const next = after.current;
  const eol = detectEol(source);
  const report = renderPhaseReport({
    plan: label,
    phase: { number: phase.number, name: phase.name },
    tasks: kindReportTasks(done),
    ...reportFacts(marker, facts, specTasksOfKindPhase(phase)),
  });
  const { sidecar } = kp;
  const checkpoint = writeCheckpoint(
    texts.get(sidecar.checkpoint) ?? '',
    sidecar.checkpoint,
    renderCheckpoint({
      plan: label,
      updated: facts.now,
      completed: { number: phase.number, name: phase.name },
      ...(next ? { next: { number: next.number, name: next.name } } : {}),
      pullRequest: facts.pullRequest,
      by: facts.approver,
    }),
  );
  const log = texts.get(sidecar.masterLog);
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
    ...(marked !== source ? [{ path: kp.plan.path, content: marked }] : []),
    { path: sidecar.report(phase), content: report.join(eol) + eol },
    { path: sidecar.checkpoint, content: checkpoint },
    ...(newLog !== undefined && newLog !== log
      ? [{ path: sidecar.masterLog, content: newLog }]
      : []),
  ];
  const record: LoopMarker = {
    mode: 'plan',
    plan: label,
    phase: phaseInteger(phase.number),
    ...(marker.planFile !== undefined ? { planFile: marker.planFile } : {}),
    phaseId: phase.number,
    issue: marker.issue,
  };
  return {
    ok: true,
    phase,
    ...(next ? { next } : {}),
    changes,
    message: `coder-loop: ${label} Phase ${phase.number} — Coder completed\n\nMark the phase's tasks ${KIND_MARKS[kp.plan.kind].done}, write the phase report, update the checkpoint and log "Coder completed" (approved by @${facts.approver}).\n\n${renderMarker(record)}\n`,
  };
}
