import type { Config } from '../../config.js';
import { codeSpan } from '../../markdown.js';
import { parseChecklist } from '../../plan/checklist.js';
import type { Phase } from '../../plan/checklistModel.js';
import { PLAN_FILES, phaseBranch, planPath, reportPath } from '../../plan/layout.js';
import { markPhase } from '../../plan/mark.js';
import { oneLine } from '../../plan/text.js';
import { validateContext, type PlanContext, type PlanFiles } from '../../plan/validate.js';
import { coderAgentContext, coderAgentFiles } from './agentPlan.js';
import { phaseToStart } from './choose.js';
import { coderPlanLocal } from './coderPlanLocal.js';
import { specTasksOfPhase } from './specTasks.js';
import { restoreOnBranch, type OwnFiles, type PhasePlan } from './phasePlan.js';
import { progressPhases } from '../record/progress.js';
import { reply } from '../messages/replies.js';
import { statusSection } from '../messages/statusSection.js';

/** The loop's own files of a coder plan: in its plan folder. */
export function coderOwnFiles(plansDir: string, name: string): OwnFiles {
  const at = (file: string) => planPath(plansDir, name, file);
  return {
    tasks: at(PLAN_FILES.checklist),
    masterLog: at(PLAN_FILES.masterLog),
    checkpoint: at(PLAN_FILES.context),
    reportsDir: at(PLAN_FILES.reportsDir),
  };
}

/**
 * The coder layout (`<plansDir>/<Plan>/`) as a `PhasePlan`: the checklist's `[~]` and `[x]`, the
 * plan folder's master log, context checkpoint and reports, the task plan, codemap and
 * requirements as the phase's context. `files` holds the plan's files by plan-relative path;
 * `context` is Context valid?'s answer when the caller has it (the start reads it with the plan).
 */
export function coderPlan(
  config: Pick<Config, 'plansDir'>,
  files: PlanFiles,
  context?: PlanContext,
): PhasePlan<Phase> {
  const { name } = files;
  const at = (file: string) => planPath(config.plansDir, name, file);
  const text = (file: string) => files.files.get(file);
  const validated = () => (context ??= validateContext(files));
  const own = coderOwnFiles(config.plansDir, name);
  const checklistPath = own.tasks;
  const missing = (file: string, message: string) => restoreOnBranch(at(file), message);
  return {
    kind: 'coder',
    label: name,
    tasks: { path: checklistPath, text: text(PLAN_FILES.checklist) ?? '' },
    masterLog: { path: own.masterLog, text: text(PLAN_FILES.masterLog) },
    checkpoint: { path: own.checkpoint, text: text(PLAN_FILES.context) },
    warnings: [],

    toStart(cli) {
      const chosen = phaseToStart(name, validated(), cli);
      return 'reply' in chosen ? chosen : { phase: chosen.context.current };
    },
    branch: (phase) => phaseBranch(name, phase.number),
    record: (phase) => ({ phase: phase.number }),
    markStart: (phase) => markPhase(text(PLAN_FILES.checklist)!, phase, 'doing', ['todo']).source,
    started: (phase, branch, pr) => reply.started(name, phase, branch, pr),
    links() {
      const { taskPlan, codemap, requirements } = validated();
      return [
        ...(taskPlan ? [{ label: 'Task plan', path: at(taskPlan) }] : []),
        { label: 'Checklist', path: checklistPath },
        ...(codemap ? [{ label: 'Codemap', path: at(codemap) }] : []),
        ...requirements.map((r) => ({ label: r.split('/').pop()!, path: at(r) })),
      ];
    },
    progress: () => progressPhases(validated().checklist?.phases ?? []),
    pullText(phase, link) {
      const { taskPlan, codemap, requirements } = validated();
      const file = (f: string) => link({ label: f, path: at(f) });
      const tasks = phase.tasks.map(
        (t) => `${'  '.repeat(t.depth)}- ${t.state === 'done' ? '[x]' : '[~]'} ${oneLine(t.text)}`,
      );
      const context = ['', '### Task plan', ''];
      if (taskPlan) {
        context.push(`From ${file(taskPlan)}:`, '');
        const plan = text(taskPlan) ?? '';
        context.push(
          ...plan
            .slice(0, 20_000)
            .split(/\r?\n/)
            .map((l) => `> ${l}`),
        );
      }
      context.push('', '### Guidance', '');
      if (codemap) context.push(`- Codemap: ${file(codemap)}`);
      for (const r of requirements) context.push(`- Requirements: ${file(r)}`);
      context.push(
        `- Context: ${file(PLAN_FILES.context)}`,
        `- Checklist: ${file(PLAN_FILES.checklist)}`,
      );
      return {
        intro: `Phase ${phase.number} of plan ${codeSpan(name)}${phase.name ? `: ${oneLine(phase.name)}` : ''}.`,
        tasks,
        context,
        completes:
          'marks the tasks `[x]`, writes the phase report and updates the context and the master log',
      };
    },

    phaseOf(marker) {
      const checklist = text(PLAN_FILES.checklist);
      if (checklist === undefined || text(PLAN_FILES.context) === undefined)
        return missing(
          checklist === undefined ? PLAN_FILES.checklist : PLAN_FILES.context,
          'The file is missing on the lock branch.',
        );
      const phase = parseChecklist(checklist, checklistPath).phases.find(
        (p) => p.number === marker.phase,
      );
      return (
        phase ??
        missing(
          PLAN_FILES.checklist,
          `Phase ${marker.phase} is no longer in the checklist on the lock branch.`,
        )
      );
    },
    markDone: (phase) => markPhase(text(PLAN_FILES.checklist)!, phase, 'done').source,
    beside: () => [],
    afterDone(phase, marked) {
      const done = parseChecklist(marked, checklistPath);
      return {
        tasks: done.phases.find((p) => p.number === phase.number)!.tasks,
        next: done.phases.find((p) => p.tasks.some((t) => t.state !== 'done')),
      };
    },
    specTasks: specTasksOfPhase,
    reportPath: (phase) => at(reportPath(phase.number, phase.name, files.paths)),

    statusPhase() {
      const { checklist, current } = validated();
      return checklist ? current : undefined;
    },
    statusSection: (lock, cli) => statusSection(name, validated(), lock, cli),

    ...coderPlanLocal(name, files.dir, text(PLAN_FILES.checklist), validated),

    phaseAt(marker) {
      const checklist = text(PLAN_FILES.checklist);
      const phases = checklist === undefined ? [] : parseChecklist(checklist, checklistPath).phases;
      return phases.find((p) => p.number === marker.phase);
    },
    runState() {
      const { checklist, current } = validated();
      return {
        nextPhase: current?.number,
        planComplete: checklist !== undefined && current === undefined,
      };
    },
    agentReads: () =>
      coderAgentFiles(validated())
        .filter((file) => text(file) === undefined)
        .map((file) => `${files.dir}/${file}`),
    agentContext: (phase, texts) =>
      coderAgentContext(
        phase,
        validated(),
        files.dir,
        (file) => text(file) ?? texts.get(`${files.dir}/${file}`),
      ),
  };
}
