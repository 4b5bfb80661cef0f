import { formatProblem } from '../../core/index.js';
import { InputError } from '../files.js';
import { discoverPlans, phaseDone, viewPlan, type PlanView } from '../kinds.js';
import { type NamedPlan } from '../../core/plan/kinds/index.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  loadContext,
  checklistErrors,
  plansDirFromRoot,
  countTasks,
  planRef,
} from './shared.js';

/** Phases done/total and task counts of a coder plan, for `plans`; undefined when invalid. */
async function coderCounts(
  args: Parsed,
  name: string,
): Promise<
  { phases: { done: number; total: number }; tasks: ReturnType<typeof countTasks> } | undefined
> {
  const context = await loadContext(args, name);
  const checklist = context.checklist;
  if (!checklist || checklistErrors(context).length > 0) return undefined;
  const view: PlanView = {
    phases: checklist.phases.map((p) => ({
      number: String(p.number),
      name: p.name,
      tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
    })),
    current: undefined,
    complete: false,
    problems: [],
    fileProblems: [],
  };
  return {
    phases: { done: view.phases.filter(phaseDone).length, total: view.phases.length },
    tasks: countTasks(view),
  };
}

async function kindCounts(
  io: CliIo,
  plan: NamedPlan,
): Promise<
  { phases: { done: number; total: number }; tasks: ReturnType<typeof countTasks> } | undefined
> {
  // A file that cannot be read (not UTF-8) is listed as invalid; lint says why.
  const view = await viewPlan(io.cwd, plan).catch((error: unknown) => {
    if (error instanceof InputError) return undefined;
    throw error;
  });
  if (!view || view.problems.some((p) => p.severity === 'error')) return undefined;
  return {
    phases: { done: view.phases.filter(phaseDone).length, total: view.phases.length },
    tasks: countTasks(view),
  };
}

export const plans: CommandSpec = {
  usage: 'coder-loop plans [--json] [--dir <plansDir>]',
  summary: 'every plan found (coder, spec-kit, Kiro, Task Master): kind, name, path, phases',
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io) {
    if (args.positionals.length > 0) throw new UsageError('plans takes options only');
    const found = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
    const { problems } = found;
    const plans = [...found.plans, ...found.unnamed];
    const rows = [];
    for (const plan of plans) {
      const counts =
        plan.kind === 'coder' ? await coderCounts(args, plan.name) : await kindCounts(io, plan);
      rows.push({ plan, counts });
    }
    if (args.values.json) {
      io.stdout(
        JSON.stringify(
          rows.map(({ plan, counts }) => ({
            name: plan.name,
            kind: plan.kind,
            path: plan.path,
            ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
            phases: counts?.phases ?? null,
            tasks: counts?.tasks ?? null,
            ...(counts ? {} : { valid: false }),
          })),
        ),
      );
      return EXIT.ok;
    }
    if (plans.length === 0) {
      io.stdout('No plans found.');
      return EXIT.ok;
    }
    for (const { plan, counts } of rows) {
      const summary = counts
        ? `${counts.phases.done}/${counts.phases.total} phases done`
        : 'invalid: run coder-loop lint';
      io.stdout(`${plan.kind.padEnd(10)} ${plan.name}  ${planRef(plan)}  (${summary})`);
    }
    for (const p of problems) io.stdout(formatProblem(p));
    return EXIT.ok;
  },
};
