import { join } from 'node:path';
import { appendLogEntry, PLAN_FILES } from '../../core/index.js';
import { InputError, readPlan, withLock, writeInPlan } from '../files.js';
import {
  DIR_OPTION,
  EXIT,
  UsageError,
  type CommandSpec,
  planDirShown,
  needPlanName,
  loadChecklist,
  parseCount,
  refuseOtherKinds,
} from './shared.js';

export const log: CommandSpec = {
  usage: 'coder-loop log <PlanName> <message> [--phase <N>] [--actor <name>] [--dir <plansDir>]',
  summary: 'append an entry to the master log',
  options: { ...DIR_OPTION, phase: { type: 'string' }, actor: { type: 'string' } },
  async run(args, io) {
    await refuseOtherKinds(args, io, 'log', args.positionals[0]);
    const name = needPlanName(args.positionals[0]);
    const message = args.positionals.slice(1).join(' ').trim();
    if (message === '') throw new UsageError('say what to log');
    const phaseNumber = parseCount(args.values.phase, 'phase');
    let phase: { number: number; name: string } | undefined;
    if (phaseNumber !== undefined) {
      const found = (await loadChecklist(args, name, io)).phases.find(
        (p) => p.number === phaseNumber,
      );
      if (!found) throw new InputError(`${name}: there is no Phase ${phaseNumber}.`);
      phase = { number: found.number, name: found.name };
    }
    const actor = (args.values.actor as string | undefined) ?? io.env.USER;
    await withLock(join(args.plansDir, name, PLAN_FILES.masterLog), async () => {
      const plan = await readPlan(args.plansDir, name, planDirShown(args, name));
      const log = appendLogEntry(plan.files.get(PLAN_FILES.masterLog), {
        timestamp: io.now().toISOString(),
        event: message,
        plan: name,
        ...(phase ? { phase } : {}),
        ...(actor ? { actor } : {}),
      });
      await writeInPlan(join(args.plansDir, name), PLAN_FILES.masterLog, log);
    });
    io.stdout(`Logged to ${planDirShown(args, name)}/${PLAN_FILES.masterLog}`);
    return EXIT.ok;
  },
};
