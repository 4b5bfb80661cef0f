import { detectEol, renderPhaseReport } from '../../core/index.js';
import {
  DIR_OPTION,
  EXIT,
  UsageError,
  type CommandSpec,
  findPlan,
  namedPhase,
  openFound,
  refuse,
  writeForPlan,
} from './shared.js';

export const report: CommandSpec = {
  usage: 'report <PlanName | path> --phase <N> [--dir <plansDir>]',
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
    const plan = await openFound(args, found);
    const named = plan.phaseNamed(phaseArg);
    if ('usage' in named) throw new UsageError(named.usage);
    refuse(io, plan.refusal());
    const phase = namedPhase(io, named);
    // The report the loop writes at the completion: in the plan folder, or the plan's sidecar.
    const eol = detectEol(plan.tasks.text);
    const lines = renderPhaseReport({
      plan: plan.label,
      phase: { number: phase.number, name: phase.name },
      tasks: plan.afterDone(phase, plan.tasks.text).tasks,
      completedAt: io.now().toISOString(),
    });
    const path = plan.reportPath(phase);
    await writeForPlan(args, found, path, lines.join(eol) + eol);
    io.stdout(`Wrote ${path}`);
    return EXIT.ok;
  },
};
