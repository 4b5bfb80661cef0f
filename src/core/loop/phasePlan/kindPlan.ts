import { codeSpan } from '../../markdown.js';
import {
  KIND_MARKS,
  kindSidecar,
  openKindPlan,
  planRef,
  type KindPhase,
  type KindPlan,
} from '../../plan/kinds/plan.js';
import type { NamedPlan } from '../../plan/kinds/discovery.js';
import type { PhaseReport } from '../../plan/report.js';
import { oneLine, opensWithId } from '../../plan/text.js';
import { kindAgentContext, kindAgentLinks } from './agentPlan.js';
import { specTasksOfKindPhase } from './specTasks.js';
import { phaseInteger } from '../messages/phaseName.js';
import { restoreOnBranch, type OwnFiles, type PhasePlan } from './phasePlan.js';
import { kindPlanLocal } from './kindPlanLocal.js';
import { kindProgressPhases } from '../record/progress.js';
import { reply } from '../messages/replies.js';
import { kindStatusSection } from '../messages/statusSection.js';
import { KIND_LABELS } from '../../plan/kinds/discovery.js';
import { kindPhaseBranch, kindPhaseToStart, kindRunState } from './startKind.js';

/** A phase's tasks as its report lists them: the id once, set-aside and optional ones noted. */
function kindReportTasks(phase: KindPhase): PhaseReport['tasks'] {
  return phase.tasks.map((t) => ({
    depth: 0,
    state: t.state === 'set-aside' ? 'todo' : t.state,
    text: `${opensWithId(t.text, t.id) ? t.text : `${t.id} ${t.text}`}${t.state === 'set-aside' ? ' (set aside)' : ''}${t.optional ? ' (optional)' : ''}`,
  }));
}

/** The loop's own files of a plan of another kind: its tasks file, and its sidecar's. */
export function kindOwnFiles(plan: Pick<NamedPlan, 'path' | 'sidecar'>): OwnFiles {
  const sidecar = kindSidecar(plan);
  return {
    tasks: plan.path,
    masterLog: sidecar.masterLog,
    checkpoint: sidecar.checkpoint,
    reportsDir: sidecar.reportsDir,
  };
}

const BOX = { todo: '[ ]', doing: '[~]', done: '[x]', 'set-aside': '[ ]' } as const;

/**
 * A plan of another kind (a kind of the registry) as a `PhasePlan`, over its
 * kind-neutral view (`KindPlan`): the kind's own marks in its tasks file, the sidecar's log,
 * checkpoint and reports, the documents the kind has as the phase's context. `paths` is every
 * path of the tree, `texts` the text of those `kindPlanReads` names.
 */
export function kindPlan(
  kp: KindPlan,
  label: string,
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
): PhasePlan<KindPhase> {
  const { plan, sidecar } = kp;
  const kind = plan.kind;
  // The files a completion marks: those beside the tasks file (a story file), then the tasks file.
  const marked = (phase: KindPhase) =>
    [...new Set([...(kp.beside?.done(phase) ?? []).map((e) => e.path), plan.path])]
      .map(codeSpan)
      .join(' and ');
  const missing = (message: string) => restoreOnBranch(planRef(plan), message);
  return {
    kind,
    label,
    tasks: { path: plan.path, text: texts.get(plan.path) ?? '' },
    masterLog: { path: sidecar.masterLog, text: texts.get(sidecar.masterLog) },
    checkpoint: { path: sidecar.checkpoint, text: texts.get(sidecar.checkpoint) },
    warnings: kp.warnings,

    toStart: (cli) => kindPhaseToStart(label, kp, cli),
    branch: (phase) => kindPhaseBranch(label, phase),
    record: (phase) => ({
      phase: phaseInteger(phase.number),
      planFile: planRef(plan),
      phaseId: phase.number,
    }),
    markStart: kp.markStart,
    started: (phase, branch, pr) =>
      reply.kindStarted(label, { number: phase.number, name: phase.name }, branch, pr, {
        mark: KIND_MARKS[kind].start,
        on: KIND_MARKS[kind].starts,
        path: plan.path,
        tool: KIND_LABELS[kind],
      }),
    links: (phase) => [
      { label: 'Tasks', path: plan.path },
      ...kp.context(phase).links.filter((l) => l.path !== plan.path),
    ],
    progress: () => kindProgressPhases(kp.phases),
    pullText(phase, link) {
      const context = kp.context(phase);
      const tasks = phase.tasks.map((t) => {
        const box = t.state === 'done' ? '[x]' : t.optional ? BOX[t.state] : '[~]';
        return `- ${box} ${oneLine(t.text)}${t.optional ? ' (optional)' : ''}${t.state === 'set-aside' ? ' (set aside)' : ''}`;
      });
      const lines = ['', '### Context', ''];
      for (const l of context.links) lines.push(`- ${oneLine(l.label)}: ${link(l)}`);
      lines.push(`- Loop log: ${link({ label: sidecar.masterLog, path: sidecar.masterLog })}`);
      for (const section of context.sections) {
        lines.push(
          '',
          `#### ${oneLine(section.title)}`,
          '',
          ...section.text.split(/\r?\n/).map((l) => `> ${l}`),
        );
      }
      return {
        intro: `Phase ${phase.number} of the ${KIND_LABELS[kind]} plan ${codeSpan(label)}${phase.name ? `: ${oneLine(phase.name)}` : ''} (${codeSpan(plan.path)}).`,
        tasks,
        context: lines,
        completes: `marks the tasks done in ${marked(phase)} and writes the phase report, the checkpoint and the log under ${codeSpan(`${sidecar.dir}/`)}`,
      };
    },

    phaseOf(marker) {
      if (!texts.has(plan.path)) return missing('The tasks file is missing on the lock branch.');
      const phaseId = marker.phaseId ?? String(marker.phase ?? '');
      const phase = kp.phases.find((p) => p.number === phaseId);
      if (phase) return phase;
      if (kp.problems.length) return { problems: kp.problems };
      return restoreOnBranch(
        plan.path,
        `Phase ${phaseId} is no longer in the plan on the lock branch.`,
      );
    },
    markDone: kp.markDone,
    beside: (phase, at) =>
      (kp.beside?.[at](phase) ?? []).map((e) => ({ path: e.path, content: e.text })),
    afterDone(phase, marked, beside = []) {
      const after = openKindPlan(
        plan,
        paths,
        new Map([
          ...texts,
          ...beside.map((c) => [c.path, c.content] as const),
          [plan.path, marked],
        ]),
      );
      const done = after.phases.find((p) => p.number === phase.number) ?? phase;
      return { tasks: kindReportTasks(done), next: after.current };
    },
    specTasks: specTasksOfKindPhase,
    reportPath: (phase) => sidecar.report(phase, paths),

    statusPhase: () => (kp.problems.length === 0 ? kp.current : undefined),
    statusSection: (lock, cli) =>
      kindStatusSection(label, KIND_LABELS[kind], plan.path, kp, lock, cli),

    ...kindPlanLocal(kp, label, paths, texts),

    phaseAt: (marker) => kp.phases.find((p) => p.number === marker.phaseId),
    runState: (marker) => kindRunState(kp, marker.phaseId),
    // Every document a kind's PR quotes was read before the plan opened.
    pullReads: () => [],
    agentReads: (phase) =>
      kindAgentLinks(plan, kp.context(phase))
        .map((l) => l.path)
        .filter((path) => !texts.has(path)),
    agentContext: (phase, more) =>
      kindAgentContext(plan, phase, kp.context(phase), (path) => texts.get(path) ?? more.get(path)),
  };
}
