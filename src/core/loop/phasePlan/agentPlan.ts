import type { PromptDocument } from '../../agent/prompt.js';
import type { Phase } from '../../plan/checklistModel.js';
import type { NamedPlan } from '../../plan/kinds/discovery.js';
import type { KindContext, KindPhase } from '../../plan/kinds/plan.js';
import { PLAN_FILES } from '../../plan/layout.js';
import type { PlanContext } from '../../plan/validate.js';
import type { AgentPlanContext, PlanLink } from './phasePlan.js';

/**
 * What the agent gets of a plan (`agentReads`, `agentContext` of each adapter): the documents the
 * phase's PR links, as the plan is at the head, and the phase's tasks. `text` answers a
 * document's text (undefined: no such file).
 */

/** The coder layout's documents, by plan-relative path: the task plan, the checklist and so on. */
export function coderAgentFiles(context: PlanContext): string[] {
  const { taskPlan, codemap, requirements } = context;
  return [taskPlan, PLAN_FILES.checklist, PLAN_FILES.context, codemap, ...requirements].filter(
    (f): f is string => f !== undefined,
  );
}

/**
 * A coder plan's phase for the agent: the task plan, checklist, context, codemap and
 * requirements in the prompt, and each in the context folder under a name of its own.
 */
export function coderAgentContext(
  phase: Phase,
  context: PlanContext,
  dir: string,
  text: (file: string) => string | undefined,
): AgentPlanContext {
  const doc = (file: string | undefined): PromptDocument | undefined => {
    const found = file === undefined ? undefined : text(file);
    return found === undefined ? undefined : { path: `${dir}/${file}`, text: found };
  };
  const taskPlan = doc(context.taskPlan);
  const checklist = doc(PLAN_FILES.checklist);
  const contextDoc = doc(PLAN_FILES.context);
  const codemap = doc(context.codemap);
  const requirements = context.requirements
    .map(doc)
    .filter((r): r is PromptDocument => r !== undefined);
  const files: AgentPlanContext['files'] = [];
  const add = (name: string, d: PromptDocument | undefined) => {
    if (d) files.push({ name, text: d.text });
  };
  add('context.md', contextDoc);
  add('checklist.md', checklist);
  add('task-plan.md', taskPlan);
  add('codemap.mmd', codemap);
  for (const r of requirements) add(`requirements/${r.path.split('/').pop()}`, r);
  return {
    plan: {
      phase: { number: phase.number, name: phase.name },
      tasks: phase.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
      ...(taskPlan ? { taskPlan } : {}),
      ...(checklist ? { checklist } : {}),
      ...(contextDoc ? { context: contextDoc } : {}),
      ...(codemap ? { codemap } : {}),
      requirements,
    },
    files,
  };
}

/** Another kind's documents for the agent: its tasks file first, then what its PR links. */
export function kindAgentLinks(plan: NamedPlan, context: KindContext): PlanLink[] {
  const links: PlanLink[] = [];
  for (const link of [{ label: 'Tasks', path: plan.path }, ...context.links])
    if (!links.some((l) => l.path === link.path)) links.push(link);
  return links;
}

/**
 * A phase of another kind for the agent: the documents its PR links (the kind's `context`: a
 * spec, a plan, a design, contracts), the text the kind gives the phase (the requirements its
 * tasks cite, their details and test strategy), and the documents under `plan/` in the context
 * folder.
 */
export function kindAgentContext(
  plan: NamedPlan,
  phase: KindPhase,
  context: KindContext,
  text: (path: string) => string | undefined,
): AgentPlanContext {
  const documents: { label: string; doc: PromptDocument }[] = [];
  for (const link of kindAgentLinks(plan, context)) {
    const found = text(link.path);
    if (found !== undefined)
      documents.push({ label: link.label, doc: { path: link.path, text: found } });
  }
  for (const section of context.sections)
    documents.push({ label: section.title, doc: { path: plan.path, text: section.text } });
  const files: AgentPlanContext['files'] = [];
  for (const { doc } of documents)
    if (doc.path !== plan.path)
      files.push({ name: `plan/${doc.path.slice(plan.folder.length + 1)}`, text: doc.text });
  files.push({ name: `plan/${plan.path.split('/').pop()}`, text: text(plan.path) ?? '' });
  return {
    plan: {
      phase: { number: phase.number, name: phase.name },
      tasks: phase.tasks.map((t) => ({
        id: t.id,
        state: t.state === 'set-aside' ? ('done' as const) : t.state,
        text: t.text,
      })),
      requirements: [],
      documents,
    },
    documentsDir: plan.folder,
    files,
  };
}
