import { KIND_LABELS, skippedSentence } from '../../core/plan/kinds/index.js';
import { formatProblem, type ReadingPhase } from '../../core/index.js';
import { discover, noPlansHere } from '../repo.js';
import { shellWord } from '../invocation.js';
import {
  DIR_OPTION,
  type CliIo,
  EXIT,
  UsageError,
  type CommandSpec,
  countTasks,
  needValidConfig,
  planSummary,
} from './shared.js';

interface Counts {
  phases: { done: number; total: number };
  tasks: ReturnType<typeof countTasks>;
  /** Of the phases done, those set aside by their own status (`deferred`) with work left. */
  setAside: number;
}

function counts(phases: readonly ReadingPhase[]): Counts {
  return {
    phases: { done: phases.filter((p) => p.finished).length, total: phases.length },
    tasks: countTasks(phases),
    setAside: phases.filter((p) => p.finished && p.note !== undefined).length,
  };
}

export const plans: CommandSpec = {
  usage: 'plans [--json] [--dir <plansDir>]',
  summary: `every plan found (${Object.values(KIND_LABELS).join(', ')}): kind, name, path, phases`,
  options: { ...DIR_OPTION, json: { type: 'boolean' } },
  async run(args, io: CliIo) {
    if (args.positionals.length > 0) throw new UsageError('plans takes options only');
    needValidConfig(args, io);
    const found = await discover(args.repo, true);
    const rows = [];
    for (const plan of found.plans) {
      const { reading, valid } = await planSummary(args, plan);
      const { tag } = reading.names;
      rows.push({
        name: plan.name,
        kind: plan.planKind,
        path: plan.path,
        ...(tag !== undefined ? { tag } : {}),
        ...(reading.counted ? { counts: counts(reading.phases) } : {}),
        valid,
      });
    }
    // Sorted by the path of the tasks file; one file's tags in the file's order.
    rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (args.values.json) {
      io.stdout(
        JSON.stringify(
          rows.map((r) => ({
            name: r.name,
            kind: r.kind,
            path: r.path,
            ...('tag' in r ? { tag: r.tag } : {}),
            phases: r.counts?.phases ?? null,
            tasks: r.counts?.tasks ?? null,
            ...(r.valid ? {} : { valid: false }),
          })),
        ),
      );
      return EXIT.ok;
    }
    // What was found but is not run (completed plans, a tool not read): said, never in silence.
    const skipped = skippedSentence(found.skipped);
    if (rows.length === 0) {
      io.stdout(`No plans found. ${noPlansHere(args.repo)}${skipped ? ` ${skipped}` : ''}`);
      for (const p of found.problems) io.stdout(formatProblem(p, io.cli));
      return EXIT.ok;
    }
    // One column each: kind, name, path, summary, aligned across the rows.
    const refOf = (r: { path: string; tag?: string }) =>
      r.tag !== undefined ? `${r.path}#${r.tag}` : r.path;
    const widths = [
      Math.max(...rows.map((r) => r.kind.length)),
      Math.max(...rows.map((r) => r.name.length)),
      Math.max(...rows.map((r) => refOf(r).length)),
    ];
    // lint names the plan by its name, or by its path where another plan has that name too.
    const names = rows.map((r) => r.name);
    const lintable = (r: { name: string; path: string; tag?: string }) =>
      shellWord(names.indexOf(r.name) === names.lastIndexOf(r.name) ? r.name : refOf(r), true);
    for (const r of rows) {
      const aside = r.counts?.setAside ? `, ${r.counts.setAside} of them set aside` : '';
      const done = r.counts
        ? `${r.counts.phases.done}/${r.counts.phases.total} phases done${aside}`
        : '';
      const invalid = `invalid: run ${io.cli} lint ${lintable(r)}`;
      const summary = r.valid ? done : `${done ? `${done}; ` : ''}${invalid}`;
      const cells = [r.kind, r.name, refOf(r)].map((c, i) => c.padEnd(widths[i]!));
      io.stdout(`${cells.join('  ')}  (${summary})`);
    }
    for (const p of found.problems) io.stdout(formatProblem(p, io.cli));
    if (skipped) io.stdout(skipped);
    return EXIT.ok;
  },
};
