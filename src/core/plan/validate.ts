import { hasErrors, type Problem } from '../problem.js';
import { parseChecklist } from './checklist.js';
import { currentPhase, type Checklist, type Phase } from './checklistModel.js';
import { findCheckpoint } from './checkpoint.js';
import { checkPlanName, indexTaskPlans, isRequirementsFile, PLAN_FILES } from './layout.js';

/** What a reader found of one plan directory: every path in it, and the files it read. */
export interface PlanFiles {
  name: string;
  /** The plan directory as users see it (`docs/plans/Example`), for messages. */
  dir: string;
  /** Every file under the plan directory, relative to it (`01_Master Plan/01_Checklist.md`). */
  paths: readonly string[];
  /** Contents of the files read so far, by plan-relative path. */
  files: ReadonlyMap<string, string>;
}

/** The files ValidateContext reads before it knows the current phase. */
export const CONTEXT_FILES = [PLAN_FILES.context, PLAN_FILES.checklist] as const;

export interface PlanContext {
  /** No error among the problems: the loop may go on. */
  valid: boolean;
  problems: Problem[];
  checklist?: Checklist;
  /** The first phase with a task not done; undefined when the plan is complete. */
  current?: Phase;
  /** Plan-relative path of the current phase's task plan. */
  taskPlan?: string;
  requirements: string[];
  codemap?: string;
}

/**
 * The seed's "Context valid?": 00_context.md and the checklist exist and parse, and the current
 * phase has exactly one task plan. Missing guidance (codemap, requirements, log) is a warning.
 */
export function validateContext(plan: PlanFiles): PlanContext {
  const problems: Problem[] = [];
  const at = (file: string) => `${plan.dir}/${file}`;
  const has = new Set(plan.paths);
  const requirements = plan.paths.filter(isRequirementsFile).sort();
  const codemap = has.has(PLAN_FILES.codemap) ? PLAN_FILES.codemap : undefined;
  const result = (extra: Partial<PlanContext> = {}): PlanContext => ({
    valid: !hasErrors(problems),
    problems,
    requirements,
    ...(codemap ? { codemap } : {}),
    ...extra,
  });

  const nameProblem = checkPlanName(plan.name);
  if (nameProblem) {
    problems.push({
      severity: 'error',
      path: plan.dir,
      message: `"${plan.name}" cannot be a plan name: ${nameProblem}.`,
      fix: 'Use a plain folder name under the plans directory.',
    });
    return result();
  }

  const context = plan.files.get(PLAN_FILES.context);
  if (!has.has(PLAN_FILES.context) || context === undefined) {
    problems.push({
      severity: 'error',
      path: at(PLAN_FILES.context),
      message: 'The plan has no 00_context.md (the source of truth).',
      fix: `Create it with the goal, constraints and decisions of the plan (\`coder-loop init "${plan.name}"\` adds it, and leaves the plan's other files as they are).`,
    });
  } else if (context.trim() === '') {
    problems.push({
      severity: 'error',
      path: at(PLAN_FILES.context),
      line: 1,
      message: '00_context.md is empty.',
      fix: 'Describe the goal, constraints and decisions of the plan.',
    });
  } else {
    problems.push(...findCheckpoint(context, at(PLAN_FILES.context)).problems);
  }

  const source = plan.files.get(PLAN_FILES.checklist);
  if (!has.has(PLAN_FILES.checklist) || source === undefined) {
    problems.push({
      severity: 'error',
      path: at(PLAN_FILES.checklist),
      message: 'The plan has no checklist.',
      fix: 'Create "01_Master Plan/01_Checklist.md" with "## Phase 1: …" headings and "- [ ] …" tasks.',
    });
    return result();
  }
  const checklist = parseChecklist(source, at(PLAN_FILES.checklist));
  problems.push(...checklist.problems);
  const current = currentPhase(checklist);

  const taskPlans = indexTaskPlans(plan.paths);
  let taskPlan: string | undefined;
  const known = new Set(checklist.phases.map((p) => p.number));
  const checked = new Set<number>();
  for (const phase of checklist.phases) {
    if (checked.has(phase.number)) continue; // a duplicate number is already an error
    checked.add(phase.number);
    if (phase.tasks.length > 0 && phase.tasks.every((t) => t.state === 'done')) continue;
    const found = taskPlans.byPhase.get(phase.number) ?? [];
    const isCurrent = phase === current;
    if (found.length === 1) {
      if (isCurrent) taskPlan = found[0];
    } else if (found.length === 0) {
      problems.push({
        severity: isCurrent ? 'error' : 'warning',
        path: at(`${PLAN_FILES.taskPlansDir}/Phase ${phase.number}.md`),
        message: `Phase ${phase.number} has no task plan${isCurrent ? ', and it is the current phase' : ''}.`,
        fix: `Write its steps in "${PLAN_FILES.taskPlansDir}/Phase ${phase.number}.md" (any name with "Phase ${phase.number}" or a leading ${phase.number} works).`,
      });
    } else {
      problems.push({
        severity: isCurrent ? 'error' : 'warning',
        path: at(found[1]!),
        message: `Phase ${phase.number} has ${found.length} task plans: ${found.map((f) => `"${f}"`).join(', ')}.`,
        fix: 'Keep one task plan per phase.',
      });
    }
  }
  for (const [number, paths] of taskPlans.byPhase) {
    if (known.has(number)) continue;
    for (const path of paths) {
      problems.push({
        severity: 'warning',
        path: at(path),
        message: `This task plan is for Phase ${number}, which the checklist does not have.`,
        fix: 'Rename it to match a phase number, or add the phase to the checklist.',
      });
    }
  }
  for (const path of taskPlans.unmatched) {
    problems.push({
      severity: 'warning',
      path: at(path),
      message: 'This task plan names no phase number, so no phase uses it.',
      fix: 'Name it like "Phase 2 - API.md" or "02_API.md".',
    });
  }

  if (!codemap) {
    problems.push({
      severity: 'warning',
      path: at(PLAN_FILES.codemap),
      message: 'The plan has no codemap; the loop has no architecture diagram to point coders to.',
      fix: 'Add a mermaid diagram of the architecture.',
    });
  }
  if (requirements.length === 0) {
    problems.push({
      severity: 'warning',
      path: at(`${PLAN_FILES.masterPlanDir}/03_Requirements_*.md`),
      message:
        'The plan has no requirements file; nothing states what the work is validated against.',
      fix: 'Add "01_Master Plan/03_Requirements_<Topic>.md".',
    });
  }
  if (!has.has(PLAN_FILES.masterLog)) {
    problems.push({
      severity: 'warning',
      path: at(PLAN_FILES.masterLog),
      message: 'The plan has no master log yet; the loop creates it on its first entry.',
    });
  }
  return result({ checklist, ...(current ? { current } : {}), ...(taskPlan ? { taskPlan } : {}) });
}
