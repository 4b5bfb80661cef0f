import { join } from 'node:path';
import {
  findTask,
  markPhase,
  PLAN_FILES,
  setTaskStates,
  type TaskState,
} from '../../core/index.js';
import { InputError, readText, withLock, writeInPlan } from '../files.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  type Parsed,
  needPlanName,
  loadChecklist,
  parseCount,
  checklistPath,
  refuseOtherKinds,
} from './shared.js';

const STATES: readonly TaskState[] = ['todo', 'doing', 'done'];

function parseState(word: string | undefined): TaskState {
  if (word === undefined) throw new UsageError('name a state: todo, doing or done');
  const state = STATES.find((s) => s === word);
  if (!state) throw new UsageError(`"${word}" is not a state: use todo, doing or done`);
  return state;
}

async function markLocked(
  args: Parsed,
  io: CliIo,
  name: string,
  file: string,
  state: TaskState,
  phaseNumber: number | undefined,
): Promise<number> {
  const checklist = await loadChecklist(args, name, io);
  const source = await readText(file);
  let result;
  if (phaseNumber !== undefined) {
    const phase = checklist.phases.find((p) => p.number === phaseNumber);
    if (!phase) throw new InputError(`${name}: there is no Phase ${phaseNumber}.`);
    result = markPhase(source, phase, state);
  } else {
    const id = args.positionals[1]!;
    const task = findTask(checklist, id);
    if (!task) throw new InputError(`${name}: there is no task ${id}.`);
    result = setTaskStates(source, [task], state);
  }
  if (result.changed.length === 0) {
    io.stdout(`Nothing to change: already ${state}.`);
    return EXIT.ok;
  }
  await writeInPlan(join(args.plansDir, name), PLAN_FILES.checklist, result.source);
  for (const t of result.changed) io.stdout(`${t.id}: ${t.state} → ${state}`);
  return EXIT.ok;
}
export const mark: CommandSpec = {
  usage:
    'coder-loop mark <PlanName> <taskId> <todo|doing|done> [--dir <plansDir>]\n' +
    '       coder-loop mark <PlanName> --phase <N> <todo|doing|done> [--dir <plansDir>]',
  summary: 'set one task, or every task of a phase, to a state (one byte per task)',
  options: { ...DIR_OPTION, phase: { type: 'string' } },
  async run(args, io) {
    await refuseOtherKinds(args, io, 'mark', args.positionals[0]);
    const name = needPlanName(args.positionals[0]);
    const phaseNumber = parseCount(args.values.phase, 'phase');
    const expected = phaseNumber === undefined ? 3 : 2;
    if (args.positionals.length !== expected) throw new UsageError('wrong number of arguments');
    const state = parseState(args.positionals[expected - 1]);
    const file = checklistPath(args, name);
    // Read, change and write under the lock: two marks at once take turns, none is lost.
    return withLock(file, () => markLocked(args, io, name, file, state, phaseNumber));
  },
};
