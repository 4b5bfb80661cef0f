import { currentPhase, formatProblem, KIND_LABELS } from '../../core/index.js';
import { planRef } from '../../core/plan/kinds/plan.js';
import { InputError } from '../files.js';
import { openPlan, type FoundPlan } from '../repo.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  type CommandSpec,
  type Parsed,
  type PlanView,
  loadContext,
  checklistErrors,
  countTasks,
  findPlan,
  kindView,
  sortProblems,
} from './shared.js';

const BOX: Record<PlanView['phases'][number]['tasks'][number]['state'], string> = {
  todo: '[ ]',
  doing: '[~]',
  done: '[x]',
  'set-aside': '[-]',
};

const REFUSED = 'the loop will not run this plan until the errors above are fixed';

async function kindStatus(
  args: Parsed,
  io: CliIo,
  found: Extract<FoundPlan, { kind: 'other' }>,
): Promise<number> {
  const { plan } = found;
  const opened = await openPlan(args.repo, plan);
  const view = kindView(opened);
  // What the loop would refuse: the tasks file's errors and the context's (Context valid?).
  const errors = sortProblems(opened.kp.problems.filter((p) => p.severity === 'error'));
  const warnings = sortProblems(opened.kp.warnings);
  if (args.values.json) {
    io.stdout(
      JSON.stringify({
        plan: plan.name,
        kind: plan.kind,
        path: plan.path,
        ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
        currentPhase: errors.length === 0 ? (view.current ?? null) : null,
        // The phases as people read them; `finished` is the view's, for the counts.
        phases: view.phases.map((p) => ({ number: p.number, name: p.name, tasks: p.tasks })),
        ...(errors.length > 0 ? { valid: false, problems: errors } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      }),
    );
    return errors.length > 0 ? EXIT.invalid : EXIT.ok;
  }
  // Lines that look like tasks and are not one: named on every status, never dropped silently.
  for (const p of sortProblems([...errors, ...warnings])) io.stderr(formatProblem(p));
  const counts = countTasks(view);
  const where =
    errors.length > 0
      ? `invalid: ${REFUSED}`
      : view.current !== undefined
        ? `current phase ${view.current}`
        : view.complete
          ? 'complete'
          : `no phase can start: ${view.waiting ?? 'work is left'}`;
  io.stdout(`${plan.name} (${KIND_LABELS[plan.kind]}, ${planRef(plan)}): ${where}`);
  if (view.phases.length > 0) {
    io.stdout(
      `Tasks: ${counts.done} done, ${counts.doing} in progress, ${counts.open} open${counts.setAside ? `, ${counts.setAside} set aside` : ''}`,
    );
  }
  for (const p of view.phases) {
    const done = p.tasks.filter((t) => t.state === 'done').length;
    const marker = errors.length === 0 && p.number === view.current ? ' ← current' : '';
    io.stdout(
      `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
    );
    for (const t of p.tasks) {
      const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
      io.stdout(`  ${BOX[t.state]} ${label}${t.note ? ` (${t.note})` : ''}`);
    }
  }
  return errors.length > 0 ? EXIT.invalid : EXIT.ok;
}

async function coderStatus(args: Parsed, io: CliIo, name: string): Promise<number> {
  const context = await loadContext(args, name);
  const problems = checklistErrors(context);
  const checklist = context.checklist;
  // What the loop would refuse besides the checklist: the plan's other files (Context valid?).
  const errors = sortProblems(context.problems.filter((p) => p.severity === 'error'));
  if (args.values.json) {
    // JSON either way: a caller reads the problems of an invalid plan from it too.
    const current = errors.length === 0 && checklist ? currentPhase(checklist) : undefined;
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
        ...(errors.length > 0 ? { valid: false, problems: errors } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      }),
    );
    return errors.length > 0 ? EXIT.invalid : EXIT.ok;
  }
  if (!checklist || problems.length > 0) {
    for (const p of sortProblems(problems)) io.stderr(formatProblem(p));
    throw new InputError(`${args.shownPlansDir}/${name}: fix the checklist first.`);
  }
  for (const p of sortProblems(context.problems)) io.stderr(formatProblem(p));
  const current = currentPhase(checklist);
  const where =
    errors.length > 0
      ? `invalid: ${REFUSED}`
      : current
        ? `current phase ${current.number}`
        : 'complete';
  io.stdout(`${name}: ${where}`);
  const box = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;
  for (const p of checklist.phases) {
    const done = p.tasks.filter((t) => t.state === 'done').length;
    const marker = errors.length === 0 && p === current ? ' ← current' : '';
    io.stdout(
      `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
    );
    for (const t of p.tasks) {
      // Show the id once: most tasks write it at the start of their text.
      const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
      io.stdout(`  ${'  '.repeat(t.depth)}${box[t.state]} ${label}`);
    }
  }
  return errors.length > 0 ? EXIT.invalid : EXIT.ok;
}

export const status: CommandSpec = {
  usage:
    'coder-loop status [PlanName | path of its tasks file or folder] [--json] [--dir <plansDir>]',
  summary: 'phases, tasks and states, current phase, and what the loop would refuse',
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io) {
    const found = await findPlan(args, io, args.positionals[0]);
    return found.kind === 'coder' ? coderStatus(args, io, found.name) : kindStatus(args, io, found);
  },
};
