import { access, chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  appendLogEntry,
  assessComplexity,
  checkPlanName,
  CONFIG_PATH,
  currentPhase,
  DEFAULT_CONFIG,
  describeAssessment,
  detectEol,
  findTask,
  formatProblem,
  markPhase,
  parseConfigText,
  PLAN_FILES,
  planSlug,
  slugConflicts,
  planSkeleton,
  renderPhaseReport,
  reportPath,
  setTaskStates,
  validateContext,
  type Checklist,
  type PlanContext,
  type Problem,
  type TaskState,
} from '../core/index.js';
import {
  closest,
  describeFsError,
  InputError,
  listPlans,
  readPlan,
  readText,
  withLock,
  writeAtomic,
  writeInPlan,
} from './files.js';
import {
  discoverPlans,
  KIND_NAMES,
  kindContextProblems,
  phaseDone,
  viewPlan,
  type PlanView,
} from './kinds.js';
import { resolvePlan, type NamedPlan } from '../core/plan/kinds/index.js';

export interface CliIo {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now: () => Date;
  env: Record<string, string | undefined>;
}

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

class UsageError extends Error {
  override name = 'UsageError';
}

const DIR_OPTION = { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

interface CommandSpec {
  usage: string;
  summary: string;
  options: ParseArgsConfig['options'];
  run: (args: Parsed, io: CliIo) => Promise<number>;
}

interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  plansDir: string;
  shownPlansDir: string;
}

const STATES: readonly TaskState[] = ['todo', 'doing', 'done'];

function planDirShown(args: Parsed, name: string): string {
  return `${args.shownPlansDir}/${name}`;
}

function needPlanName(name: string | undefined): string {
  if (name === undefined) throw new UsageError('name a plan');
  const problem = checkPlanName(name);
  if (problem) throw new InputError(`"${name}" cannot be a plan name: ${problem}.`);
  return name;
}

/** The named plan, else the only plan under the plans directory. */
async function pickPlan(args: Parsed, name: string | undefined): Promise<string> {
  if (name !== undefined) return needPlanName(name);
  const plans = await listPlans(args.plansDir);
  if (plans.length === 1) return plans[0]!;
  if (plans.length === 0) throw new InputError(`${args.shownPlansDir}: no plans here.`);
  throw new UsageError(`name a plan: ${plans.join(', ')}`);
}

async function loadContext(args: Parsed, name: string): Promise<PlanContext> {
  return validateContext(await readPlan(args.plansDir, name, planDirShown(args, name)));
}

/** The errors that make a checklist untrustworthy for edits (all errors when it has none). */
function checklistErrors(context: PlanContext): Problem[] {
  return (context.checklist?.problems ?? context.problems).filter((p) => p.severity === 'error');
}

/** The checklist's warnings: lines that look like tasks and are not, tasks outside every phase. */
function checklistWarnings(context: PlanContext): Problem[] {
  return sortProblems((context.checklist?.problems ?? []).filter((p) => p.severity === 'warning'));
}

/** The checklist, or exit 1 with its problems when it cannot be trusted for edits. */
async function loadChecklist(args: Parsed, name: string, io: CliIo): Promise<Checklist> {
  const context = await loadContext(args, name);
  const blocking = checklistErrors(context);
  if (!context.checklist || blocking.length > 0) {
    for (const p of blocking) io.stderr(formatProblem(p));
    throw new InputError(`${planDirShown(args, name)}: fix the checklist first.`);
  }
  return context.checklist;
}

function parseState(word: string | undefined): TaskState {
  if (word === undefined) throw new UsageError('name a state: todo, doing or done');
  const state = STATES.find((s) => s === word);
  if (!state) throw new UsageError(`"${word}" is not a state: use todo, doing or done`);
  return state;
}

function parseCount(value: string | boolean | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) {
    throw new UsageError(`--${option} takes a whole number`);
  }
  return Number(value);
}

const checklistPath = (args: Parsed, name: string) =>
  join(args.plansDir, name, PLAN_FILES.checklist);

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

/** The plans directory as the kinds' globs name it: relative to the current directory. */
function plansDirFromRoot(args: Parsed, io: CliIo): string {
  return relative(io.cwd, args.plansDir).split('\\').join('/') || '.';
}

/**
 * The plan of another kind (spec-kit, Kiro, Task Master) a user named, by name or by the path of
 * its tasks file; undefined for a coder plan or a name no plan has (the coder reader answers).
 */
async function otherKindPlan(
  args: Parsed,
  io: CliIo,
  wanted: string | undefined,
): Promise<NamedPlan | undefined> {
  if (wanted === undefined) return undefined;
  const { plans, unnamed } = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
  const path = wanted.split('\\').join('/').replace(/^\.\//, '');
  const found = resolvePlan(plans, path);
  if ('error' in found) {
    const broken = unnamed.find((p) => p.path === path);
    if (broken) return broken;
    // Two plans of one name: say so, whatever their kinds.
    if (found.error.startsWith('Two plans') || found.error.includes(' holds the tags ')) {
      throw new InputError(found.error);
    }
    return undefined;
  }
  return found.plan.kind === 'coder' ? undefined : found.plan;
}

/** Commands that write handle coder plans only, for now: refuse another kind by name. */
async function refuseOtherKinds(
  args: Parsed,
  io: CliIo,
  command: string,
  wanted: string | undefined,
): Promise<void> {
  const plan = await otherKindPlan(args, io, wanted);
  if (!plan) return;
  throw new InputError(
    `"${wanted}" is a ${KIND_NAMES[plan.kind]} plan (${plan.path}); coder-loop ${command} writes coder plans only. Nothing was written.`,
  );
}

function planLabel(plan: NamedPlan): string {
  return `${plan.name} (${KIND_NAMES[plan.kind]}, ${planRef(plan)})`;
}

const BOX: Record<PlanView['phases'][number]['tasks'][number]['state'], string> = {
  todo: '[ ]',
  doing: '[~]',
  done: '[x]',
  'set-aside': '[-]',
};

function countTasks(view: PlanView): {
  done: number;
  doing: number;
  open: number;
  setAside: number;
} {
  const all = view.phases.flatMap((p) => p.tasks);
  return {
    done: all.filter((t) => t.state === 'done').length,
    doing: all.filter((t) => t.state === 'doing').length,
    open: all.filter((t) => t.state === 'todo').length,
    setAside: all.filter((t) => t.state === 'set-aside').length,
  };
}

/** How people name a plan on the command line: its tasks file, with the tag for Task Master. */
function planRef(plan: NamedPlan): string {
  return plan.tag === undefined ? plan.path : `${plan.path}#${plan.tag}`;
}

function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
  );
}

async function kindStatus(args: Parsed, io: CliIo, plan: NamedPlan): Promise<number> {
  const view = await viewPlan(io.cwd, plan);
  const errors = view.problems.filter((p) => p.severity === 'error');
  const warnings = sortProblems(view.problems.filter((p) => p.severity === 'warning'));
  if (args.values.json) {
    io.stdout(
      JSON.stringify({
        plan: plan.name,
        kind: plan.kind,
        path: plan.path,
        ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
        currentPhase: errors.length === 0 ? (view.current ?? null) : null,
        phases: view.phases.map((p) => ({
          number: p.number,
          name: p.name,
          tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
        })),
        ...(errors.length > 0 ? { valid: false, problems: errors } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      }),
    );
    return errors.length > 0 ? EXIT.invalid : EXIT.ok;
  }
  if (errors.length > 0) {
    for (const p of sortProblems(errors)) io.stderr(formatProblem(p));
    throw new InputError(`${plan.path}: fix the tasks file first.`);
  }
  // Lines that look like tasks and are not one: named on every status, never dropped silently.
  for (const p of warnings) io.stderr(formatProblem(p));
  const counts = countTasks(view);
  io.stdout(
    `${planLabel(plan)}: ${view.current !== undefined ? `current phase ${view.current}` : 'complete'}`,
  );
  io.stdout(
    `Tasks: ${counts.done} done, ${counts.doing} in progress, ${counts.open} open${counts.setAside ? `, ${counts.setAside} set aside` : ''}`,
  );
  for (const p of view.phases) {
    const done = p.tasks.filter((t) => t.state === 'done').length;
    const marker = p.number === view.current ? ' ← current' : '';
    io.stdout(
      `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
    );
    for (const t of p.tasks) {
      const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
      io.stdout(`  ${BOX[t.state]} ${label}${t.note ? ` (${t.note})` : ''}`);
    }
  }
  return EXIT.ok;
}

/** Lints one plan of another kind; true when it is valid. */
async function kindLint(io: CliIo, plan: NamedPlan): Promise<boolean> {
  const view = await viewPlan(io.cwd, plan);
  const problems = [...(await kindContextProblems(io.cwd, plan)), ...view.problems];
  for (const p of sortProblems(problems)) {
    (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p));
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  io.stdout(`${plan.path}: ${errors} error(s), ${problems.length - errors} warning(s).`);
  return errors === 0;
}

/** Phases done/total and task counts of a coder plan, for `plans`; undefined when invalid. */
async function coderCounts(
  args: Parsed,
  name: string,
): Promise<
  { phases: { done: number; total: number }; tasks: ReturnType<typeof countTasks> } | undefined
> {
  const context = await loadContext(args, name);
  const checklist = context.checklist;
  if (!checklist || checklistErrors(context).length > 0) return undefined;
  const view: PlanView = {
    phases: checklist.phases.map((p) => ({
      number: String(p.number),
      name: p.name,
      tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
    })),
    current: undefined,
    problems: [],
  };
  return {
    phases: { done: view.phases.filter(phaseDone).length, total: view.phases.length },
    tasks: countTasks(view),
  };
}

async function kindCounts(
  io: CliIo,
  plan: NamedPlan,
): Promise<
  { phases: { done: number; total: number }; tasks: ReturnType<typeof countTasks> } | undefined
> {
  // A file that cannot be read (not UTF-8) is listed as invalid; lint says why.
  const view = await viewPlan(io.cwd, plan).catch((error: unknown) => {
    if (error instanceof InputError) return undefined;
    throw error;
  });
  if (!view || view.problems.some((p) => p.severity === 'error')) return undefined;
  return {
    phases: { done: view.phases.filter(phaseDone).length, total: view.phases.length },
    tasks: countTasks(view),
  };
}

export const COMMANDS: Record<string, CommandSpec> = {
  plans: {
    usage: 'coder-loop plans [--json] [--dir <plansDir>]',
    summary: 'every plan found (coder, spec-kit, Kiro, Task Master): kind, name, path, phases',
    options: { ...DIR_OPTION, json: { type: 'boolean' } },
    async run(args, io) {
      if (args.positionals.length > 0) throw new UsageError('plans takes options only');
      const found = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
      const { problems } = found;
      const plans = [...found.plans, ...found.unnamed];
      const rows = [];
      for (const plan of plans) {
        const counts =
          plan.kind === 'coder' ? await coderCounts(args, plan.name) : await kindCounts(io, plan);
        rows.push({ plan, counts });
      }
      if (args.values.json) {
        io.stdout(
          JSON.stringify(
            rows.map(({ plan, counts }) => ({
              name: plan.name,
              kind: plan.kind,
              path: plan.path,
              ...(plan.tag !== undefined ? { tag: plan.tag } : {}),
              phases: counts?.phases ?? null,
              tasks: counts?.tasks ?? null,
              ...(counts ? {} : { valid: false }),
            })),
          ),
        );
        return EXIT.ok;
      }
      if (plans.length === 0) {
        io.stdout('No plans found.');
        return EXIT.ok;
      }
      for (const { plan, counts } of rows) {
        const summary = counts
          ? `${counts.phases.done}/${counts.phases.total} phases done`
          : 'invalid: run coder-loop lint';
        io.stdout(`${plan.kind.padEnd(10)} ${plan.name}  ${planRef(plan)}  (${summary})`);
      }
      for (const p of problems) io.stdout(formatProblem(p));
      return EXIT.ok;
    },
  },

  init: {
    usage: 'coder-loop init <PlanName> [--dir <plansDir>]',
    summary: 'scaffold the plan directory from templates',
    options: DIR_OPTION,
    async run(args, io) {
      const name = needPlanName(args.positionals[0]);
      const target = join(args.plansDir, name);
      const shown = planDirShown(args, name);
      const exists = await access(target).then(
        () => true,
        () => false,
      );
      if (exists)
        throw new InputError(`${shown}: already exists; coder-loop init will not overwrite it.`);
      await mkdir(args.plansDir, { recursive: true });
      // Build the plan in a hidden folder beside it, then rename: all of it or none of it.
      const temp = await mkdtemp(join(args.plansDir, `.${name.replace(/\s+/g, '_')}-`));
      try {
        const files = planSkeleton(name, io.now().toISOString().slice(0, 10));
        for (const [path, content] of files) await writeAtomic(join(temp, path), content);
        await chmod(temp, 0o777 & ~process.umask()); // mkdtemp makes it private
        await rename(temp, target);
        io.stdout(`Created ${shown}:`);
        for (const path of files.keys()) io.stdout(`  ${path}`);
        io.stdout(`Next: edit the plan, then run "coder-loop lint ${name}".`);
      } catch (error) {
        await rm(temp, { recursive: true, force: true });
        throw error;
      }
      return EXIT.ok;
    },
  },

  lint: {
    usage: 'coder-loop lint [PlanName | path of its tasks file] [--dir <plansDir>]',
    summary: 'validate; file:line messages; exit 1 when invalid',
    options: DIR_OPTION,
    async run(args, io) {
      const wanted = args.positionals[0];
      const other = await otherKindPlan(args, io, wanted);
      if (other) return (await kindLint(io, other)) ? EXIT.ok : EXIT.invalid;
      // Without a name: every coder plan, then every plan of the other kinds.
      const others =
        wanted === undefined
          ? await discoverPlans(io.cwd, plansDirFromRoot(args, io)).then((found) =>
              [...found.plans, ...found.unnamed].filter((p) => p.kind !== 'coder'),
            )
          : [];
      const names = wanted ? [needPlanName(wanted)] : await listPlans(args.plansDir);
      if (names.length === 0 && others.length === 0) {
        throw new InputError(`${args.shownPlansDir}: no plans here.`);
      }
      let invalid = false;
      // A Task Master file's problems are the file's: lint it once, whatever its tags.
      const linted = new Set<string>();
      for (const plan of others) {
        if (linted.has(plan.path)) continue;
        linted.add(plan.path);
        invalid = !(await kindLint(io, plan)) || invalid;
      }
      const all = await listPlans(args.plansDir);
      for (const name of names) {
        const context = await loadContext(args, name);
        const clash = slugConflicts(all).get(name);
        if (clash) {
          context.problems.push({
            severity: 'error',
            path: planDirShown(args, name),
            message: `"${name}" and "${clash}" share the plan slug "${planSlug(name)}", so their lock branches would collide.`,
            fix: 'Rename one of the plans.',
          });
          context.valid = false;
        }
        const sorted = [...context.problems].sort((a, b) =>
          a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0),
        );
        for (const p of sorted) (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p));
        const errors = context.problems.filter((p) => p.severity === 'error').length;
        const warnings = context.problems.length - errors;
        io.stdout(`${planDirShown(args, name)}: ${errors} error(s), ${warnings} warning(s).`);
        invalid ||= !context.valid;
      }
      return invalid ? EXIT.invalid : EXIT.ok;
    },
  },

  status: {
    usage: 'coder-loop status [PlanName | path of its tasks file] [--json] [--dir <plansDir>]',
    summary: 'phases, tasks and states, current phase',
    options: { ...DIR_OPTION, json: { type: 'boolean' } },
    async run(args, io) {
      const other = await otherKindPlan(args, io, args.positionals[0]);
      if (other) return kindStatus(args, io, other);
      if (args.positionals[0] === undefined) {
        // Without a name: the only plan there is, of any kind.
        const found = await discoverPlans(io.cwd, plansDirFromRoot(args, io));
        const others = found.plans.filter((p) => p.kind !== 'coder');
        const coder = await listPlans(args.plansDir);
        if (others.length === 1 && coder.length === 0) return kindStatus(args, io, others[0]!);
        if (others.length > 0 && coder.length + others.length > 1) {
          throw new UsageError(`name a plan: ${[...coder, ...others.map(planRef)].join(', ')}`);
        }
      }
      const name = await pickPlan(args, args.positionals[0]);
      if (args.values.json) {
        // JSON either way: a caller reads the problems of an invalid plan from it too.
        const context = await loadContext(args, name);
        const problems = checklistErrors(context);
        const checklist = context.checklist;
        const current = problems.length === 0 && checklist ? currentPhase(checklist) : undefined;
        const warnings = checklistWarnings(context);
        io.stdout(
          JSON.stringify({
            plan: name,
            currentPhase: current?.number ?? null,
            phases: (checklist?.phases ?? []).map((p) => ({
              number: p.number,
              name: p.name,
              tasks: p.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text })),
            })),
            ...(problems.length > 0 ? { valid: false, problems } : {}),
            ...(warnings.length > 0 ? { warnings } : {}),
          }),
        );
        return problems.length > 0 ? EXIT.invalid : EXIT.ok;
      }
      const checklist = await loadChecklist(args, name, io);
      for (const p of sortProblems(checklist.problems.filter((q) => q.severity === 'warning'))) {
        io.stderr(formatProblem(p));
      }
      const current = currentPhase(checklist);
      io.stdout(`${name}: ${current ? `current phase ${current.number}` : 'complete'}`);
      const box = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;
      for (const p of checklist.phases) {
        const done = p.tasks.filter((t) => t.state === 'done').length;
        const marker = p === current ? ' ← current' : '';
        io.stdout(
          `Phase ${p.number}${p.name ? `: ${p.name}` : ''} (${done}/${p.tasks.length} done)${marker}`,
        );
        for (const t of p.tasks) {
          // Show the id once: most tasks write it at the start of their text.
          const label = t.text.startsWith(t.id) ? t.text : `${t.id}  ${t.text}`;
          io.stdout(`  ${'  '.repeat(t.depth)}${box[t.state]} ${label}`);
        }
      }
      return EXIT.ok;
    },
  },

  mark: {
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
  },

  log: {
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
  },

  report: {
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
  },

  assess: {
    usage: 'coder-loop assess [--title T] [--body B] [--files N] [--lines N] [--json]',
    summary: 'quick or plan, with reasons (limits from .github/coder.yml when present)',
    options: {
      help: { type: 'boolean', short: 'h' },
      dir: { type: 'string' },
      title: { type: 'string' },
      body: { type: 'string' },
      files: { type: 'string' },
      lines: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, io) {
      if (args.positionals.length > 0) throw new UsageError('assess takes options only');
      let { quick } = DEFAULT_CONFIG;
      const configFile = join(io.cwd, CONFIG_PATH);
      const text = await readText(configFile).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (text !== undefined) {
        const { config, problems } = parseConfigText(text, CONFIG_PATH);
        if (!config) {
          for (const p of problems) io.stderr(formatProblem(p));
          throw new InputError(`${CONFIG_PATH} is invalid.`);
        }
        quick = config.quick;
      }
      const files = parseCount(args.values.files, 'files');
      const lines = parseCount(args.values.lines, 'lines');
      const assessment = assessComplexity(
        {
          title: (args.values.title as string | undefined) ?? '',
          body: (args.values.body as string | undefined) ?? '',
          ...(files !== undefined ? { files } : {}),
          ...(lines !== undefined ? { lines } : {}),
        },
        quick,
      );
      io.stdout(args.values.json ? JSON.stringify(assessment) : describeAssessment(assessment));
      return EXIT.ok;
    },
  },
};

/** The package's version, from its package.json (two folders up from here, in src/ and lib/). */
async function version(): Promise<string> {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export function usage(): string {
  const lines = ['Usage: coder-loop <command> [options]', '', 'Commands:'];
  for (const [name, spec] of Object.entries(COMMANDS))
    lines.push(`  ${name.padEnd(8)} ${spec.summary}`);
  lines.push(
    '',
    'Every command takes --dir <plansDir> (default: docs/plans under the current directory).',
    'coder-loop --version prints the version.',
    'Exit codes: 0 ok, 1 invalid plan or input, 2 usage error.',
    'Run "coder-loop <command> --help" for a command\'s usage.',
  );
  return lines.join('\n');
}

/** Runs one CLI invocation; returns the exit code. The only error boundary of the CLI. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout)(usage());
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    io.stdout(await version());
    return EXIT.ok;
  }
  const spec = COMMANDS[command];
  if (!spec || !Object.hasOwn(COMMANDS, command)) {
    const near = closest(command, Object.keys(COMMANDS));
    const hint = near ? ` Did you mean "${near}"?` : '';
    io.stderr(`coder-loop: unknown command "${command}".${hint}\n\n${usage()}`);
    return EXIT.usage;
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: spec.options ?? {},
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout(`Usage: ${spec.usage}\n\n${spec.summary}`);
      return EXIT.ok;
    }
    const dirOption = typeof values.dir === 'string' ? values.dir : 'docs/plans';
    const plansDir = resolve(io.cwd, dirOption);
    const shownPlansDir = isAbsolute(dirOption)
      ? plansDir
      : relative(io.cwd, plansDir).split('\\').join('/') || '.';
    const flat = values as Parsed['values']; // no option is declared `multiple`
    return await spec.run({ positionals, values: flat, plansDir, shownPlansDir }, io);
  } catch (error) {
    if (error instanceof InputError) {
      io.stderr(`coder-loop ${command}: ${error.message}`);
      return EXIT.invalid;
    }
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.stderr(`coder-loop ${command}: ${(error as Error).message}\nUsage: ${spec.usage}`);
      return EXIT.usage;
    }
    if (error instanceof Error && error.name === 'StaleChecklistError') {
      io.stderr(`coder-loop ${command}: ${error.message}`);
      return EXIT.invalid;
    }
    const fsProblem = describeFsError(error, io.cwd);
    if (fsProblem !== undefined) {
      io.stderr(`coder-loop ${command}: ${fsProblem}`);
      return EXIT.invalid;
    }
    throw error;
  }
}
