import {
  CONFIG_PATH,
  formatProblem,
  planSlug,
  slugConflicts,
  type PlanContext,
  type Problem,
} from '../../core/index.js';
import type { NamedPlan } from '../../core/plan/kinds/index.js';
import { NotUtf8Error } from '../files.js';
import { choose, discover, notUtf8Problem, openPlan } from '../repo.js';
import {
  type CliIo,
  EXIT,
  DIR_OPTION,
  type CommandSpec,
  type Parsed,
  planDirShown,
  loadContext,
  sortProblems,
} from './shared.js';

function print(io: CliIo, subject: string, problems: readonly Problem[]): boolean {
  for (const p of sortProblems(problems)) {
    (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p));
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  io.stdout(`${subject}: ${errors} error(s), ${problems.length - errors} warning(s).`);
  return errors === 0;
}

/**
 * Lints the plans of one tasks file (a Task Master file's tags together: a problem of the file
 * is named once); true when valid. What the loop's reader refuses is an error here.
 */
async function kindLint(args: Parsed, io: CliIo, plans: readonly NamedPlan[]): Promise<boolean> {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const plan of plans) {
    const { kp } = await openPlan(args.repo, plan);
    for (const p of [...kp.problems, ...kp.warnings]) {
      const key = `${p.path}:${p.line ?? ''}:${p.severity}:${p.message}`;
      if (!seen.has(key)) problems.push(p);
      seen.add(key);
    }
  }
  return print(io, plans[0]!.path, problems);
}

/** Lints one coder plan; a file of it that is not UTF-8 is its problem, and lint goes on. */
async function coderLint(
  args: Parsed,
  io: CliIo,
  name: string,
  clash: string | undefined,
): Promise<boolean> {
  let context: Pick<PlanContext, 'problems' | 'valid'>;
  try {
    context = await loadContext(args, name);
  } catch (error) {
    if (!(error instanceof NotUtf8Error)) throw error;
    context = { problems: [notUtf8Problem(error)], valid: false };
  }
  if (clash) {
    context.problems.push({
      severity: 'error',
      path: planDirShown(args, name),
      message: `"${name}" and "${clash}" share the plan slug "${planSlug(name)}", so their lock branches would collide.`,
      fix: 'Rename one of the plans.',
    });
  }
  return print(io, planDirShown(args, name), context.problems) && context.valid;
}

export const lint: CommandSpec = {
  usage: 'coder-loop lint [PlanName | path of its tasks file or folder] [--dir <plansDir>]',
  summary: 'validate; file:line messages; exit 1 when invalid',
  options: DIR_OPTION,
  async run(args, io) {
    if (args.configProblems.length > 0) {
      // An invalid config stops the loop before it reads a plan: it stops lint the same way.
      print(io, CONFIG_PATH, args.configProblems);
      return EXIT.invalid;
    }
    const found = await discover(args.repo);
    const wanted = args.positionals[0];
    // No plan at all: say where the loop looks (choose answers that).
    const chosen =
      wanted === undefined && found.plans.length > 0
        ? found.plans
        : [choose(args.repo, found, wanted)];
    const coder = found.plans.flatMap((p) => (p.kind === 'coder' ? [p.name] : []));
    // Every plan of the other kinds (one tasks file at a time), then every coder plan.
    const files = new Map<string, NamedPlan[]>();
    for (const p of chosen) {
      if (p.kind === 'other') files.set(p.plan.path, [...(files.get(p.plan.path) ?? []), p.plan]);
    }
    let valid = true;
    for (const path of [...files.keys()].sort()) {
      valid = (await kindLint(args, io, files.get(path)!)) && valid;
    }
    const clashes = slugConflicts(coder);
    for (const p of chosen) {
      if (p.kind === 'coder')
        valid = (await coderLint(args, io, p.name, clashes.get(p.name))) && valid;
    }
    return valid ? EXIT.ok : EXIT.invalid;
  },
};
