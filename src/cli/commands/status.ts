import { currentPhase, formatProblem } from '../../core/index.js';
import { InputError, listPlans } from '../files.js';
import { discoverPlans, KIND_NAMES, viewPlan, type PlanView } from '../kinds.js';
import { type NamedPlan } from '../../core/plan/kinds/index.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  pickPlan,
  loadContext,
  checklistErrors,
  loadChecklist,
  plansDirFromRoot,
  otherKindPlan,
  countTasks,
  planRef,
  sortProblems,
} from './shared.js';

function planLabel(plan: NamedPlan): string {
  return `${plan.name} (${KIND_NAMES[plan.kind]}, ${planRef(plan)})`;
}

const BOX: Record<PlanView['phases'][number]['tasks'][number]['state'], string> = {
  todo: '[ ]',
  doing: '[~]',
  done: '[x]',
  'set-aside': '[-]',
};

async function kindStatus(args: Parsed, io: CliIo, plan: NamedPlan): Promise<number> {
  const view = await viewPlan(io.cwd, plan);
  const errors = view.problems.filter((p) => p.severity === 'error');
  const warnings = sortProblems(view.problems.filter((p) => p.severity === 'warning'));
  if (args.values.json) {
    io.stdout(
      JSON.stringify({
        plan: plan.name,
        kind: plan.kind,
        path: plan.path,
        ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
        currentPhase: errors.length === 0 ? (view.current ?? null) : null,
        phases: view.phases.map((p) => ({
          number: p.number,
          name: p.name,
          tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
        })),
        ...(errors.length > 0 ? { valid: false, problems: errors } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      }),
    );
    return errors.length > 0 ? EXIT.invalid : EXIT.ok;
  }
  if (errors.length > 0) {
    for (const p of sortProblems(errors)) io.stderr(formatProblem(p));
    throw new InputError(`${plan.path}: fix the tasks file first.`);
  }
  // Lines that look like tasks and are not one: named on every status, never dropped silently.
  for (const p of warnings) io.stderr(formatProblem(p));
  const counts = countTasks(view);
  io.stdout(
    `${planLabel(plan)}: ${view.current !== undefined ? `current phase ${view.current}` : view.complete ? 'complete' : `no phase can start: ${view.waiting ?? 'work is left'}`}`,
  );
  io.stdout(
    `Tasks: ${counts.done} done, ${counts.doing} in progress, ${counts.open} open${counts.setAside ? `, ${counts.setAside} set aside` : ''}`,
  );
  for (const p of view.phases) {
    const done = p.tasks.filter((t) => t.state === 'done').length;
    const marker = p.number === view.current ? ' ← current' : '';
    io.stdout(
      `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
    );
    for (const t of p.tasks) {
      const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
      io.stdout(`  ${BOX[t.state]} ${label}${t.note ? ` (${t.note})` : ''}`);
    }
  }
  return EXIT.ok;
}

export const status: CommandSpec = {
  usage: 'coder-loop status [PlanName | path of its tasks file] [--json] [--dir <plansDir>]',
  summary: 'phases, tasks and states, current phase',
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io) {
    const other = await otherKindPlan(args, io, args.positionals[0]);
    if (other) return kindStatus(args, io, other);
    if (args.positionals[0] === undefined) {
      // Without a name: the only plan there is, of any kind.
      const found = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
      const others = found.plans.filter((p) => p.kind !== 'coder');
      const coder = await listPlans(args.plansDir);
      if (others.length === 1 && coder.length === 0) return kindStatus(args, io, others[0]!);
      if (others.length > 0 && coder.length + others.length > 1) {
        throw new UsageError(`name a plan: ${[...coder, ...others.map(planRef)].join(', ')}`);
      }
    }
    const name = await pickPlan(args, args.positionals[0]);
    if (args.values.json) {
      // JSON either way: a caller reads the problems of an invalid plan from it too.
      const context = await loadContext(args, name);
      const problems = checklistErrors(context);
      const checklist = context.checklist;
      const current = problems.length === 0 && checklist ? currentPhase(checklist) : undefined;
      const warnings = sortProblems(
        (checklist?.problems ?? []).filter((p) => p.severity === 'warning'),
      );
      io.stdout(
        JSON.stringify({
          plan: name,
          currentPhase: current?.number ?? null,
          phases: (checklist?.phases ?? []).map((p) => ({
            number: p.number,
            name: p.name,
            tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
          })),
          ...(problems.length > 0 ? { valid: false, problems } : {}),
          ...(warnings.length > 0 ? { warnings } : {}),
        }),
      );
      return problems.length > 0 ? EXIT.invalid : EXIT.ok;
    }
    const checklist = await loadChecklist(args, name, io);
    for (const p of sortProblems(checklist.problems.filter((q) => q.severity === 'warning'))) {
      io.stderr(formatProblem(p));
    }
    const current = currentPhase(checklist);
    io.stdout(`${name}: ${current ? `current phase ${current.number}` : 'complete'}`);
    const box = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;
    for (const p of checklist.phases) {
      const done = p.tasks.filter((t) => t.state === 'done').length;
      const marker = p === current ? ' ← current' : '';
      io.stdout(
        `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
      );
      for (const t of p.tasks) {
        // Show the id once: most tasks write it at the start of their text.
        const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
        io.stdout(`  ${'  '.repeat(t.depth)}${box[t.state]} ${label}`);
      }
    }
    return EXIT.ok;
  },
};
