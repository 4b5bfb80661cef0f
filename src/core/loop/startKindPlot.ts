import type { NamedPlan } from '../plan/kinds/index.js';
import { KIND_MARKS, type OtherKind } from '../plan/kinds/plan.js';
import { kindProgressPhases } from './progress.js';
import { reply } from './replies.js';
import type { Base, Early, Plotted, StartRequest } from './startSnapshot.js';
import {
  KIND_LABELS,
  kindPhaseToStart,
  kindPullRequest,
  markKindInProgress,
  openWhenRead,
  treePaths,
  warningsNote,
} from './startKind.js';

/**
 * Plan mode on a plan of another kind: read its files → Context valid? (file:line) → the current
 * phase → the kind's in-progress marks and the sidecar's "Coder started" (one start commit) → the
 * phase PR with the context the kind has. The rest of the start (lock, PR, reply, check run,
 * hand-off) is the coder kind's, in `decideStart`.
 */
export function plotKindPhase(
  req: StartRequest & { mode: 'plan' },
  base: Base,
  plan: NamedPlan,
  label: string,
  texts: ReadonlyMap<string, string>,
): Plotted | Early {
  const { config, who } = req;
  const opened = openWhenRead(plan, treePaths(base.files), texts);
  if ('need' in opened) return { need: 'texts', paths: opened.need };
  const kp = opened.open;
  const chosen = kindPhaseToStart(label, kp);
  if ('reply' in chosen)
    return {
      done: chosen.outcome,
      effects: [{ kind: 'reply', to: who.issue, body: chosen.reply + warningsNote(kp.warnings) }],
    };
  const { phase } = chosen;
  const kind = plan.kind as OtherKind;
  const start = markKindInProgress(kp, label, phase, texts, who, req.now);
  const context = kp.context(phase);
  const title = { number: phase.number, name: phase.name };
  return {
    branch: start.branch,
    marker: start.marker,
    changes: start.changes,
    message: start.message,
    pull: kindPullRequest(config, kp, label, phase, start, req.repoUrl),
    outcome: {
      state: 'started',
      node: 'TDD',
      mode: 'plan',
      plan: label,
      phase: start.marker.phase!,
      branch: start.branch,
    },
    // The run's progress comment lists the plan's phases in the kind's own order.
    phases: kindProgressPhases(kp.phases),
    locked: (pr) => reply.locked(label, title, start.branch, pr),
    started: (pr) =>
      reply.kindStarted(label, title, start.branch, pr, {
        mark: KIND_MARKS[kind].start,
        path: plan.path,
        tool: KIND_LABELS[kind],
      }) + warningsNote(kp.warnings),
    view: {
      mode: 'plan',
      node: 'TDD',
      title: `Phase ${phase.number}: implementation (TDD)`,
      next: 'Write a failing test, then the minimal code, and push both to this branch. CI on the pull request is the verification gate.',
      links: [
        { label: 'Tasks', path: plan.path },
        ...context.links.filter((l) => l.path !== plan.path),
      ],
    },
  };
}
