import { formatProblem } from '../../core/index.js';
import { discover, openPlan, refOf } from '../repo.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  type PlanView,
  loadContext,
  checklistErrors,
  countTasks,
  kindView,
  needValidConfig,
  phaseDone,
} from './shared.js';

interface Counts {
  phases: { done: number; total: number };
  tasks: ReturnType<typeof countTasks>;
}

function counts(view: Pick<PlanView, 'phases'>): Counts {
  return {
    phases: { done: view.phases.filter(phaseDone).length, total: view.phases.length },
    tasks: countTasks(view),
  };
}

/** A coder plan's counts (undefined when its checklist cannot be read), and whether it is valid. */
async function coderCounts(
  args: Parsed,
  name: string,
): Promise<{ counts?: Counts; valid: boolean }> {
  const context = await loadContext(args, name);
  const checklist = context.checklist;
  if (!checklist || checklistErrors(context).length > 0) return { valid: false };
  const phases = checklist.phases.map((p) => ({
    number: String(p.number),
    name: p.name,
    tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
  }));
  return { counts: counts({ phases }), valid: context.valid };
}

export const plans: CommandSpec = {
  usage: 'coder-loop plans [--json] [--dir <plansDir>]',
  summary: 'every plan found (coder, spec-kit, Kiro, Task Master): kind, name, path, phases',
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io: CliIo) {
    if (args.positionals.length > 0) throw new UsageError('plans takes options only');
    needValidConfig(args, io);
    const found = await discover(args.repo);
    const rows = [];
    for (const plan of found.plans) {
      const path = refOf(args.repo, plan).replace(/#[^/]*$/, '');
      if (plan.kind === 'coder') {
        rows.push({
          name: plan.name,
          kind: 'coder',
          path,
          ...(await coderCounts(args, plan.name)),
        });
        continue;
      }
      // The loop's own reading: a plan it would refuse is listed as invalid, with what it read.
      const opened = await openPlan(args.repo, plan.plan);
      rows.push({
        name: plan.name,
        kind: plan.plan.kind,
        path,
        ...(plan.plan.tag !== undefined ? { tag: plan.plan.tag } : {}),
        ...(opened.source !== undefined ? { counts: counts(kindView(opened)) } : {}),
        valid: !opened.kp.problems.some((p) => p.severity === 'error'),
      });
    }
    // Sorted by the path of the tasks file; one file's tags in the file's order.
    rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (args.values.json) {
      io.stdout(
        JSON.stringify(
          rows.map((r) => ({
            name: r.name,
            kind: r.kind,
            path: r.path,
            ...('tag' in r ? { tag: r.tag } : {}),
            phases: r.counts?.phases ?? null,
            tasks: r.counts?.tasks ?? null,
            ...(r.valid ? {} : { valid: false }),
          })),
        ),
      );
      return EXIT.ok;
    }
    if (rows.length === 0) {
      io.stdout('No plans found.');
      return EXIT.ok;
    }
    for (const r of rows) {
      const done = r.counts ? `${r.counts.phases.done}/${r.counts.phases.total} phases done` : '';
      const summary = r.valid ? done : `${done ? `${done}; ` : ''}invalid: run coder-loop lint`;
      const ref = 'tag' in r ? `${r.path}#${r.tag}` : r.path;
      io.stdout(`${r.kind.padEnd(10)} ${r.name}  ${ref}  (${summary})`);
    }
    for (const p of found.problems) io.stdout(formatProblem(p));
    return EXIT.ok;
  },
};
