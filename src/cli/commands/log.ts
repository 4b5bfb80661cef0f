import { appendLogEntry } from '../../core/index.js';
import { readText, withLock } from '../files.js';
import {
  DIR_OPTION,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  findPlan,
  namedPhase,
  openFound,
  writeForPlan,
  inRepo,
} from './shared.js';

/**
 * A file's text, or undefined when there is none yet (a folder in its place included: the write
 * then says what is wrong with the path).
 */
async function readIfThere(path: string, shown: string): Promise<string | undefined> {
  try {
    return await readText(path, shown);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    throw error;
  }
}

export const log: CommandSpec = {
  usage: 'log <PlanName | path> <message> [--phase <N>] [--actor <name>] [--dir <plansDir>]',
  summary: "append an entry to the plan's master log",
  options: { ...DIR_OPTION, phase: { type: 'string' }, actor: { type: 'string' } },
  async run(args: Parsed, io) {
    if (args.positionals[0] === undefined) throw new UsageError('name a plan');
    const message = args.positionals.slice(1).join(' ').trim();
    if (message === '') throw new UsageError('say what to log');
    const actor = (args.values.actor as string | undefined) ?? io.env.USER;
    const found = await findPlan(args, io, args.positionals[0]);
    const plan = await openFound(args, found);
    const number = args.values.phase as string | undefined;
    const phase = number === undefined ? undefined : namedPhase(io, plan.phaseNamed(number));
    // The master log the loop writes: in the plan folder, or the plan's sidecar.
    const { path } = plan.masterLog;
    await withLock(inRepo(args, path), async () => {
      const log = appendLogEntry(await readIfThere(inRepo(args, path), path), {
        timestamp: io.now().toISOString(),
        event: message,
        plan: plan.label,
        ...(phase ? { phase: { number: phase.number, name: phase.name } } : {}),
        ...(actor ? { actor } : {}),
      });
      await writeForPlan(args, found, path, log);
    });
    io.stdout(`Logged to ${path}`);
    return EXIT.ok;
  },
};
