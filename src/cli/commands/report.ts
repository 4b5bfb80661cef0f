import { join } from 'node:path';
import {
  detectEol,
  formatProblem,
  kindReportTasks,
  renderPhaseReport,
  reportPath,
} from '../../core/index.js';
import { InputError, readText, writeInPlan } from '../files.js';
import { openPlan, tasksFileErrors, type FoundPlan, type Repo } from '../repo.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  planDirShown,
  loadChecklist,
  parseCount,
  checklistPath,
  findPlan,
  sortProblems,
} from './shared.js';

/** The phase report in the plan's sidecar (`<plan folder>/coder-loop/Reports/`), as the loop writes it. */
async function reportKind(
  repo: Repo,
  io: CliIo,
  found: Extract<FoundPlan, { kind: 'other' }>,
  number: string,
): Promise<string> {
  const opened = await openPlan(repo, found.plan);
  const blocking = tasksFileErrors(opened);
  if (opened.source === undefined || blocking.length > 0) {
    for (const p of sortProblems(blocking)) io.stderr(formatProblem(p));
    throw new InputError(`${found.plan.path}: fix the tasks file first.`);
  }
  const { kp } = opened;
  const phase = kp.phases.find((p) => p.number === number);
  if (!phase) {
    throw new InputError(
      `${found.label}: there is no Phase ${number}. Phases: ${kp.phases.map((p) => p.number).join(', ')}.`,
    );
  }
  const eol = detectEol(opened.source);
  const lines = renderPhaseReport({
    plan: found.label,
    phase: { number: phase.number, name: phase.name },
    tasks: kindReportTasks(phase),
    completedAt: io.now().toISOString(),
  });
  const path = kp.sidecar.report(phase);
  const folder = found.plan.folder;
  await writeInPlan(
    join(repo.root, folder),
    folder ? path.slice(folder.length + 1) : path,
    lines.join(eol) + eol,
  );
  return path;
}

export const report: CommandSpec = {
  usage: 'coder-loop report <PlanName | path> --phase <N> [--dir <plansDir>]',
  summary: 'write the phase report',
  options: { ...DIR_OPTION, phase: { type: 'string' } },
  async run(args, io) {
    if (args.positionals.length !== 1) {
      throw new UsageError(
        args.positionals.length === 0 ? 'name a plan' : 'wrong number of arguments',
      );
    }
    const phaseArg = args.values.phase;
    if (typeof phaseArg !== 'string' || phaseArg === '') {
      throw new UsageError('--phase <N> is required');
    }
    const found = await findPlan(args, io, args.positionals[0]);
    if (found.kind === 'other') {
      io.stdout(`Wrote ${await reportKind(args.repo, io, found, phaseArg)}`);
      return EXIT.ok;
    }
    const { name } = found;
    const phaseNumber = parseCount(phaseArg, 'phase')!;
    const checklist = await loadChecklist(args, name, io);
    const phase = checklist.phases.find((p) => p.number === phaseNumber);
    if (!phase) throw new InputError(`${name}: there is no Phase ${phaseNumber}.`);
    const eol = detectEol(await readText(checklistPath(args, name)));
    const lines = renderPhaseReport({
      plan: name,
      phase: { number: phase.number, name: phase.name },
      tasks: phase.tasks,
      completedAt: io.now().toISOString(),
    });
    const path = reportPath(phase.number, phase.name);
    await writeInPlan(join(args.plansDir, name), path, lines.join(eol) + eol);
    io.stdout(`Wrote ${planDirShown(args, name)}/${path}`);
    return EXIT.ok;
  },
};
