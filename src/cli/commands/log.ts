import { join } from 'node:path';
import { appendLogEntry, PLAN_FILES } from '../../core/index.js';
import { InputError, readPlan, readText, withLock, writeInPlan } from '../files.js';
import { openPlan, type FoundPlan, type Repo } from '../repo.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  planDirShown,
  loadChecklist,
  parseCount,
  findPlan,
} from './shared.js';

/** A file's text, or undefined when there is none yet. */
async function readIfThere(path: string, shown: string): Promise<string | undefined> {
  try {
    return await readText(path, shown);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The master log in the plan's sidecar (`<plan folder>/coder-loop/`), the file the loop writes. */
async function logKind(
  repo: Repo,
  io: CliIo,
  found: Extract<FoundPlan, { kind: 'other' }>,
  entry: { message: string; phase: string | undefined; actor: string | undefined },
): Promise<string> {
  const { kp } = await openPlan(repo, found.plan);
  let phase: { number: string; name: string } | undefined;
  if (entry.phase !== undefined) {
    const p = kp.phases.find((q) => q.number === entry.phase);
    if (!p) {
      throw new InputError(
        `${found.label}: there is no Phase ${entry.phase}. Phases: ${kp.phases.map((q) => q.number).join(', ')}.`,
      );
    }
    phase = { number: p.number, name: p.name };
  }
  const path = kp.sidecar.masterLog;
  const folder = found.plan.folder;
  await withLock(join(repo.root, path), async () => {
    const log = appendLogEntry(await readIfThere(join(repo.root, path), path), {
      timestamp: io.now().toISOString(),
      event: entry.message,
      plan: found.label,
      ...(phase ? { phase } : {}),
      ...(entry.actor ? { actor: entry.actor } : {}),
    });
    await writeInPlan(join(repo.root, folder), folder ? path.slice(folder.length + 1) : path, log);
  });
  return path;
}

export const log: CommandSpec = {
  usage:
    'coder-loop log <PlanName | path> <message> [--phase <N>] [--actor <name>] [--dir <plansDir>]',
  summary: "append an entry to the plan's master log",
  options: { ...DIR_OPTION, phase: { type: 'string' }, actor: { type: 'string' } },
  async run(args: Parsed, io) {
    if (args.positionals[0] === undefined) throw new UsageError('name a plan');
    const message = args.positionals.slice(1).join(' ').trim();
    if (message === '') throw new UsageError('say what to log');
    const actor = (args.values.actor as string | undefined) ?? io.env.USER;
    const found = await findPlan(args, io, args.positionals[0]);
    if (found.kind === 'other') {
      const phase = args.values.phase as string | undefined;
      const path = await logKind(args.repo, io, found, { message, phase, actor });
      io.stdout(`Logged to ${path}`);
      return EXIT.ok;
    }
    const { name } = found;
    const phaseNumber = parseCount(args.values.phase, 'phase');
    let phase: { number: number; name: string } | undefined;
    if (phaseNumber !== undefined) {
      const read = (await loadChecklist(args, name, io)).phases.find(
        (p) => p.number === phaseNumber,
      );
      if (!read) throw new InputError(`${name}: there is no Phase ${phaseNumber}.`);
      phase = { number: read.number, name: read.name };
    }
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
