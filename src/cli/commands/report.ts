import { join } from 'node:path';
import { detectEol, renderPhaseReport, reportPath } from '../../core/index.js';
import { InputError, readText, writeInPlan } from '../files.js';
import {
  DIR_OPTION,
  EXIT,
  UsageError,
  type CommandSpec,
  planDirShown,
  needPlanName,
  loadChecklist,
  parseCount,
  checklistPath,
  refuseOtherKinds,
} from './shared.js';

export const report: CommandSpec = {
  usage: 'coder-loop report <PlanName> --phase <N> [--dir <plansDir>]',
  summary: 'write the phase report',
  options: { ...DIR_OPTION, phase: { type: 'string' } },
  async run(args, io) {
    await refuseOtherKinds(args, io, 'report', args.positionals[0]);
    const name = needPlanName(args.positionals[0]);
    const phaseNumber = parseCount(args.values.phase, 'phase');
    if (phaseNumber === undefined) throw new UsageError('--phase <N> is required');
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
