import { formatProblem, planSlug, slugConflicts } from '../../core/index.js';
import { InputError, listPlans } from '../files.js';
import { discoverPlans, kindContextProblems, viewPlan } from '../kinds.js';
import { type NamedPlan } from '../../core/plan/kinds/index.js';
import {
  type CliIo,
  EXIT,
  DIR_OPTION,
  type CommandSpec,
  planDirShown,
  needPlanName,
  loadContext,
  plansDirFromRoot,
  otherKindPlan,
  sortProblems,
} from './shared.js';

/** Lints one plan of another kind; true when it is valid. */
async function kindLint(io: CliIo, plan: NamedPlan, wholeFile = false): Promise<boolean> {
  const view = await viewPlan(io.cwd, plan);
  // Named, a Task Master tag is linted alone; the file, unnamed, with every tag's problems.
  const problems = [
    ...(await kindContextProblems(io.cwd, plan)),
    ...(wholeFile ? view.fileProblems : view.problems),
  ];
  for (const p of sortProblems(problems)) {
    (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p));
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  io.stdout(`${plan.path}: ${errors} error(s), ${problems.length - errors} warning(s).`);
  return errors === 0;
}

export const lint: CommandSpec = {
  usage: 'coder-loop lint [PlanName | path of its tasks file] [--dir <plansDir>]',
  summary: 'validate; file:line messages; exit 1 when invalid',
  options: DIR_OPTION,
  async run(args, io) {
    const wanted = args.positionals[0];
    const other = await otherKindPlan(args, io, wanted);
    if (other) return (await kindLint(io, other)) ? EXIT.ok : EXIT.invalid;
    // Without a name: every coder plan, then every plan of the other kinds.
    const others =
      wanted === undefined
        ? await discoverPlans(io.cwd, plansDirFromRoot(args, io)).then((found) =>
            [...found.plans, ...found.unnamed].filter((p) => p.kind !== 'coder'),
          )
        : [];
    const names = wanted ? [needPlanName(wanted)] : await listPlans(args.plansDir);
    if (names.length === 0 && others.length === 0) {
      throw new InputError(`${args.shownPlansDir}: no plans here.`);
    }
    let invalid = false;
    // A Task Master file's problems are the file's: lint it once, whatever its tags.
    const linted = new Set<string>();
    for (const plan of others) {
      if (linted.has(plan.path)) continue;
      linted.add(plan.path);
      invalid = !(await kindLint(io, plan, true)) || invalid;
    }
    const all = await listPlans(args.plansDir);
    for (const name of names) {
      const context = await loadContext(args, name);
      const clash = slugConflicts(all).get(name);
      if (clash) {
        context.problems.push({
          severity: 'error',
          path: planDirShown(args, name),
          message: `"${name}" and "${clash}" share the plan slug "${planSlug(name)}", so their lock branches would collide.`,
          fix: 'Rename one of the plans.',
        });
        context.valid = false;
      }
      const sorted = [...context.problems].sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
      );
      for (const p of sorted) (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p));
      const errors = context.problems.filter((p) => p.severity === 'error').length;
      const warnings = context.problems.length - errors;
      io.stdout(`${planDirShown(args, name)}: ${errors} error(s), ${warnings} warning(s).`);
      invalid ||= !context.valid;
    }
    return invalid ? EXIT.invalid : EXIT.ok;
  },
};
