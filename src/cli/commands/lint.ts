import {
  CONFIG_PATH,
  formatProblem,
  planSlug,
  slugConflicts,
  type Problem,
} from '../../core/index.js';
import { NotUtf8Error } from '../files.js';
import { choose, discoverNamed, notUtf8Problem, type FoundPlan } from '../repo.js';
import {
  type CliIo,
  EXIT,
  DIR_OPTION,
  type CommandSpec,
  type Parsed,
  openFound,
  planDirShown,
  sortProblems,
} from './shared.js';

function print(io: CliIo, subject: string, problems: readonly Problem[]): boolean {
  for (const p of sortProblems(problems)) {
    (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p, io.cli));
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  io.stdout(`${subject}: ${errors} error(s), ${problems.length - errors} warning(s).`);
  return errors === 0;
}

/** What lint names for one plan, and under what: its reading, or the file it cannot read. */
async function lintOne(
  args: Parsed,
  found: FoundPlan,
  clash: string | undefined,
): Promise<{ subject: string; byFile: boolean; problems: Problem[] }> {
  let read: { subject: string; byFile: boolean; problems: Problem[] };
  try {
    const plan = await openFound(args, found);
    const { subject, problems } = plan.reading();
    read = { subject, byFile: subject === plan.tasks.path, problems: [...problems] };
  } catch (error) {
    // A plan folder with a file that is not UTF-8: that is its problem, and lint goes on.
    if (!(error instanceof NotUtf8Error)) throw error;
    const subject = planDirShown(args, found.name);
    read = { subject, byFile: false, problems: [notUtf8Problem(error)] };
  }
  if (clash) {
    read.problems.push({
      severity: 'error',
      path: read.subject,
      message: `"${found.label}" and "${clash}" share the plan slug "${planSlug(found.label)}", so their lock branches would collide.`,
      fix: 'Rename one of the plans.',
    });
  }
  return read;
}

export const lint: CommandSpec = {
  usage: 'lint [PlanName | path of its tasks file or folder] [--dir <plansDir>]',
  summary: 'validate; file:line messages; exit 1 when invalid',
  options: DIR_OPTION,
  async run(args, io) {
    if (args.configProblems.length > 0) {
      // An invalid config stops the loop before it reads a plan: it stops lint the same way.
      print(io, CONFIG_PATH, args.configProblems);
      return EXIT.invalid;
    }
    const wanted = args.positionals[0];
    const found = await discoverNamed(args.repo, wanted);
    // Files where a kind's tasks would be that are not its (another tool's tasks/tasks.json): no
    // plan, said once each as a warning; alone, they leave nothing invalid.
    const notPlans =
      wanted === undefined ? found.problems.filter((p) => p.severity === 'warning') : [];
    const notPlanFiles = [...new Set(notPlans.map((p) => p.path))].sort();
    if (wanted === undefined && found.plans.length === 0 && notPlans.length > 0) {
      for (const path of notPlanFiles)
        print(
          io,
          path,
          notPlans.filter((p) => p.path === path),
        );
      return EXIT.ok;
    }
    // No plan at all: say where the loop looks (choose answers that).
    const chosen =
      wanted === undefined && found.plans.length > 0
        ? found.plans
        : [choose(args.repo, found, wanted)];
    const clashes = slugConflicts([...new Set(found.plans.map((p) => p.label))]);
    // One count per subject: a tasks file's plans together (a problem of the file named once).
    const subjects = new Map<string, { byFile: boolean; problems: Problem[]; seen: Set<string> }>();
    for (const p of chosen) {
      const read = await lintOne(args, p, clashes.get(p.label));
      let subject = subjects.get(read.subject);
      if (!subject)
        subjects.set(read.subject, (subject = { ...read, problems: [], seen: new Set() }));
      for (const problem of read.problems) {
        const key = `${problem.path}:${problem.line ?? ''}:${problem.severity}:${problem.message}`;
        if (!subject.seen.has(key)) subject.problems.push(problem);
        subject.seen.add(key);
      }
    }
    // Every tasks file first, by path; then every plan folder, in the order plans are found.
    const files = [...subjects].filter(([, s]) => s.byFile).sort(([a], [b]) => (a < b ? -1 : 1));
    const folders = [...subjects].filter(([, s]) => !s.byFile);
    let valid = true;
    for (const [subject, s] of [...files, ...folders]) {
      valid = print(io, subject, s.problems) && valid;
    }
    for (const path of notPlanFiles.filter((f) => !subjects.has(f))) {
      print(
        io,
        path,
        notPlans.filter((p) => p.path === path),
      );
    }
    return valid ? EXIT.ok : EXIT.invalid;
  },
};
