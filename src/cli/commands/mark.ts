import { KIND_LABELS } from '../../core/plan/kinds/index.js';
import { type TaskState, withArticle } from '../../core/index.js';
import { KIND_MARKS } from '../../core/plan/kinds/plan.js';
import { InputError, withLock } from '../files.js';
import {
  DIR_OPTION,
  EXIT,
  UsageError,
  type CommandSpec,
  findPlan,
  inRepo,
  namedPhase,
  openFound,
  refuse,
  writeBesideForPlan,
  writeForPlan,
} from './shared.js';

const STATES: readonly TaskState[] = ['todo', 'doing', 'done'];

function parseState(word: string | undefined): TaskState {
  if (word === undefined) throw new UsageError('name a state: todo, doing or done');
  const state = STATES.find((s) => s === word);
  if (!state) throw new UsageError(`"${word}" is not a state: use todo, doing or done`);
  return state;
}

export const mark: CommandSpec = {
  usage:
    'mark <PlanName | path> <taskId> <todo|doing|done> [--dir <plansDir>]\n' +
    'mark <PlanName | path> --phase <N> <todo|doing|done> [--dir <plansDir>]',
  summary: "set one task, or every task of a phase, to a state in the plan's own marks",
  options: { ...DIR_OPTION, phase: { type: 'string' } },
  async run(args, io) {
    const phaseArg = args.values.phase as string | undefined;
    const expected = phaseArg === undefined ? 3 : 2;
    if (args.positionals.length !== expected) {
      throw new UsageError(
        args.positionals.length === 0 ? 'name a plan' : 'wrong number of arguments',
      );
    }
    const state = parseState(args.positionals[expected - 1]);
    const found = await findPlan(args, io, args.positionals[0]);
    // Read, change and write under the lock: two marks at once take turns, none is lost.
    return withLock(inRepo(args, found.path), async () => {
      const plan = await openFound(args, found);
      const named = phaseArg === undefined ? undefined : plan.phaseNamed(phaseArg);
      if (named && 'usage' in named) throw new UsageError(named.usage);
      if (state === 'doing' && KIND_MARKS[plan.kind].start === undefined) {
        const tool = KIND_LABELS[plan.kind];
        throw new InputError(
          `${plan.label} is ${withArticle(tool)} plan: ${tool} has no in-progress mark (the loop's lock branch and pull request are the record of a phase under way). Nothing was written.`,
        );
      }
      refuse(io, plan.refusal());
      const target = named ? { phase: namedPhase(io, named) } : { task: args.positionals[1]! };
      const marked = plan.mark(target, state);
      if ('missing' in marked) throw new InputError(marked.missing);
      const beside = marked.beside ?? [];
      if (marked.text === plan.tasks.text && beside.length === 0) {
        io.stdout(`Nothing to change: already ${state}.`);
        return EXIT.ok;
      }
      for (const file of beside) await writeBesideForPlan(args, file.path, file.text);
      if (marked.text !== plan.tasks.text)
        await writeForPlan(args, found, plan.tasks.path, marked.text);
      for (const change of marked.changes) io.stdout(change);
      return EXIT.ok;
    });
  },
};
