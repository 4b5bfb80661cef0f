import { formatProblem, type PlanReading, type ReadingTask } from '../../core/index.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  type CommandSpec,
  countTasks,
  findPlan,
  openFound,
  refuse,
  sortProblems,
} from './shared.js';

const BOX: Record<ReadingTask['state'], string> = {
  todo: '[ ]',
  doing: '[~]',
  done: '[x]',
  'set-aside': '[-]',
};

const REFUSED = 'the loop will not run this plan until the errors above are fixed';

/** `status --json`: the plan's names, its phases as people read them, what the loop refuses. */
function statusJson(reading: PlanReading, errors: readonly unknown[]): string {
  const warnings = sortProblems(reading.warnings);
  return JSON.stringify({
    ...reading.names,
    currentPhase: errors.length === 0 ? (reading.current ?? null) : null,
    phases: reading.phases.map((p) => ({
      number: p.number,
      name: p.name,
      tasks: p.tasks.map((t) => ({
        id: t.id,
        state: t.state,
        text: t.text,
        ...(t.note !== undefined ? { note: t.note } : {}),
      })),
    })),
    ...(errors.length > 0 ? { valid: false, problems: errors } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  });
}

function statusText(io: CliIo, reading: PlanReading, errors: readonly unknown[]): void {
  // Lines that look like tasks and are not one: named on every status, never dropped silently.
  for (const p of sortProblems(reading.problems)) io.stderr(formatProblem(p, io.cli));
  const { phases, current } = reading;
  const where =
    errors.length > 0
      ? `invalid: ${REFUSED}`
      : current !== undefined
        ? `current phase ${current}`
        : reading.complete
          ? 'complete'
          : `no phase can start: ${reading.waiting ?? 'work is left'}`;
  io.stdout(`${reading.title}: ${where}`);
  if (reading.tally && phases.length > 0) {
    const counts = countTasks(phases);
    io.stdout(
      `Tasks: ${counts.done} done, ${counts.doing} in progress, ${counts.open} open${counts.setAside ? `, ${counts.setAside} set aside` : ''}`,
    );
  }
  for (const p of phases) {
    const done = p.tasks.filter((t) => t.state === 'done').length;
    // An optional task (a kind's `[ ]*`) left open does not hold a phase back: not counted as due.
    const optional = p.tasks.filter((t) => t.note === 'optional' && t.state !== 'done').length;
    const tally = `${done}/${p.tasks.length - optional} done${optional ? `, ${optional} optional` : ''}`;
    const marker = errors.length === 0 && p.number === current ? ' ← current' : '';
    // A phase set aside by its own status, over tasks that say nothing of it themselves.
    const aside =
      p.note && (p.tasks.length === 0 || !p.tasks.every((t) => t.note === p.note))
        ? `; ${p.note}, set aside`
        : '';
    io.stdout(`Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${tally}${aside})${marker}`);
    for (const t of p.tasks) {
      // Show the id once: most tasks write it at the start of their text.
      const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
      io.stdout(`  ${'  '.repeat(t.depth)}${BOX[t.state]} ${label}${t.note ? ` (${t.note})` : ''}`);
    }
  }
}

export const status: CommandSpec = {
  usage: 'status [PlanName | path of its tasks file or folder] [--json] [--dir <plansDir>]',
  summary: 'phases, tasks and states, current phase, and what the loop would refuse',
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io) {
    const plan = await openFound(args, await findPlan(args, io, args.positionals[0]));
    const reading = plan.reading();
    // What the loop would refuse: the tasks file's errors and the context's (Context valid?).
    const errors = sortProblems(reading.problems.filter((p) => p.severity === 'error'));
    // JSON either way: a caller reads the problems of an invalid plan from it too.
    if (args.values.json) io.stdout(statusJson(reading, errors));
    else {
      refuse(io, reading.stop);
      statusText(io, reading, errors);
    }
    return errors.length > 0 ? EXIT.invalid : EXIT.ok;
  },
};
