import type { Problem } from '../../problem.js';
import { member, parseJsonWithOffsets, type JsonNode } from './jsonOffsets.js';
import {
  currentDialectPhase,
  dialectPhaseFinished,
  setDialectStates,
  type DialectPhase,
  type DialectTask,
} from './markdownDialect.js';
import {
  readTaskmaster,
  taskmasterPhaseFinished,
  taskmasterProgress,
  type TaskmasterPhase,
  type TaskmasterTask,
} from './taskmaster.js';
import { kindOfPath, validateKindContext, type NamedPlan, type PlanKind } from './discovery.js';
import { readMarkdownPlan, type MarkdownKind } from './dialects.js';

/**
 * One kind-neutral view of a spec-kit, Kiro or Task Master plan, for the loop (SPEC §2b): its
 * phases and the current one, what its context lacks, the marks a start and a completion write
 * in the kind's own dialect, the context a phase's PR and agent are given, and the loop's sidecar
 * (`<plan folder>/coder-loop/`) where its log, reports and checkpoint live. Nothing else in the
 * loop knows which kind it runs.
 */
export type KindState = 'todo' | 'doing' | 'done' | 'set-aside';

export interface KindTask {
  id: string;
  text: string;
  state: KindState;
  /** 1-based line of the task's mark (markdown) or `status` value (Task Master). */
  line: number;
  /** Kiro's `[ ]*`: not required for the phase to complete; the loop never marks it. */
  optional: boolean;
  /**
   * What the state alone does not say: `optional` (Kiro), or Task Master's `blocked` (not
   * started over a person's block), `review`, `deferred`, `cancelled`.
   */
  note?: KindNote;
  /** Requirement ids the task cites (Kiro's `_Requirements: 1.2_`, spec-kit's `[US1]`). */
  requirements?: string[];
  /** Task Master's details and test strategy (Passes Spec? reads paths and ids in them). */
  details?: string;
  testStrategy?: string;
}

export type KindNote = 'optional' | 'blocked' | 'review' | 'deferred' | 'cancelled';

export interface KindPhase {
  /** `3`, `3.1` (spec-kit); a top-level task's number (Kiro) or id (Task Master). */
  number: string;
  name: string;
  line: number;
  tasks: KindTask[];
  /**
   * Nothing is left to do in it, as its tool counts: every required task done (spec-kit, Kiro),
   * or the task's own status `done`, `cancelled` or `deferred` (Task Master).
   */
  finished: boolean;
}

/** A link the PR body and the agent get, and text quoted for them. */
export interface KindContext {
  links: { label: string; path: string }[];
  sections: { title: string; text: string }[];
}

export interface KindSidecar {
  dir: string;
  masterLog: string;
  checkpoint: string;
  /** The folder of the phase reports. */
  reportsDir: string;
  report: (phase: Pick<KindPhase, 'number' | 'name'> & Partial<KindPhase>) => string;
}

export interface KindPlan {
  plan: NamedPlan;
  phases: KindPhase[];
  /** The phase the loop starts next; undefined when the plan is complete or must wait. */
  current: KindPhase | undefined;
  /**
   * Every phase finished, and the plan read without an error: a plan from which no task could be
   * read is never complete.
   */
  complete: boolean;
  /** Work remains and no phase can start (Task Master: blocked, in review, a dependency): why. */
  waiting: string | undefined;
  /** Errors (context missing, a file the reader refuses): nothing may start. */
  problems: Problem[];
  /** Lookalike tasks and other warnings: named in the reply, the start goes on. */
  warnings: Problem[];
  sidecar: KindSidecar;
  /** The tasks file with the phase's open tasks marked in progress (spec-kit: unchanged). */
  markStart: (phase: KindPhase) => string;
  /** The tasks file with the phase's tasks marked done. */
  markDone: (phase: KindPhase) => string;
  context: (phase: KindPhase) => KindContext;
}

/**
 * Each kind's marks, as docs/plan-format.md lists them: what a start writes on the phase's open
 * tasks (none where the tool has no in-progress mark) and what a completion writes.
 */
export const KIND_MARKS: Readonly<
  Record<PlanKind, { readonly start: string | undefined; readonly done: string }>
> = {
  coder: { start: '[~]', done: '[x]' },
  speckit: { start: undefined, done: '[X]' },
  kiro: { start: '[-]', done: '[x]' },
  taskmaster: { start: '"in-progress"', done: '"done"' },
  openspec: { start: undefined, done: '[x]' },
};

/** A kind other than the coder layout's. */
export type OtherKind = Exclude<PlanKind, 'coder'>;

/** The sidecar of a plan: the loop's own files, beside (never inside) the user's. */
export function kindSidecar(plan: Pick<NamedPlan, 'sidecar'>): KindSidecar {
  const dir = plan.sidecar;
  const reportsDir = `${dir}/Reports`;
  return {
    dir,
    masterLog: `${dir}/Master_Log.md`,
    checkpoint: `${dir}/Checkpoint.md`,
    reportsDir,
    report: (phase) => {
      const name =
        phase.name
          // eslint-disable-next-line no-control-regex
          .replace(/[/\\\u0000-\u001f\u007f]/g, '')
          .trim()
          .replace(/\s+/g, '_') || `Phase_${phase.number}`;
      return `${reportsDir}/${phase.number.padStart(2, '0')}_${name}.md`;
    },
  };
}

const SPECKIT_LINKS = [
  ['Spec', 'spec.md'],
  ['Plan', 'plan.md'],
  ['Data model', 'data-model.md'],
  ['Research', 'research.md'],
  ['Quickstart', 'quickstart.md'],
] as const;

/** The paths of the tree a kind's plan reads the text of: its tasks file, its context, its sidecar. */
export function kindPlanReads(plan: NamedPlan, paths: Iterable<string>): string[] {
  const present = new Set(paths);
  const sidecar = kindSidecar(plan);
  const wanted = [plan.path, sidecar.masterLog, sidecar.checkpoint];
  if (plan.kind === 'kiro') {
    for (const f of ['requirements.md', 'bugfix.md', 'design.md'])
      wanted.push(`${plan.folder}/${f}`);
  }
  return [...new Set(wanted)].filter((p) => present.has(p));
}

/**
 * Opens a plan of another kind from a tree: `paths` is every path of the tree (what exists),
 * `files` the text of the paths `kindPlanReads` named.
 */
export function openKindPlan(
  plan: NamedPlan,
  paths: Iterable<string>,
  files: ReadonlyMap<string, string>,
): KindPlan {
  const present = new Set(paths);
  const source = files.get(plan.path);
  const sidecar = kindSidecar(plan);
  if (source === undefined) {
    return empty(plan, sidecar, {
      severity: 'error',
      path: plan.path,
      message: 'the tasks file is missing.',
      fix: 'Restore it on the default branch.',
    });
  }
  const context = validateKindContext(plan, (p) => present.has(p), source);
  if (plan.kind === 'taskmaster') return openTaskmaster(plan, source, context, sidecar);
  if (plan.kind === 'coder') throw new Error('coder plans are read by readPlan');
  return openDialect(plan, plan.kind, source, context, sidecar, present, files);
}

function empty(plan: NamedPlan, sidecar: KindSidecar, problem: Problem): KindPlan {
  return {
    plan,
    phases: [],
    current: undefined,
    complete: false,
    waiting: undefined,
    problems: [problem],
    warnings: [],
    sidecar,
    markStart: () => '',
    markDone: () => '',
    context: () => ({ links: [], sections: [] }),
  };
}

function split(problems: readonly Problem[]): { errors: Problem[]; warnings: Problem[] } {
  return {
    errors: problems.filter((p) => p.severity === 'error'),
    warnings: problems.filter((p) => p.severity !== 'error'),
  };
}

function noPhase(path: string, fix: string): Problem {
  return { severity: 'error', path, line: 1, message: 'no phase with a task was found.', fix };
}

// ---------------------------------------------------------------- spec-kit and Kiro

function readDialectTasks(plan: NamedPlan, kind: MarkdownKind, source: string) {
  const read = readMarkdownPlan(kind, source, plan.path);
  const { errors, warnings } = split(read.problems);
  const tasked = read.phases.filter((p) => p.tasks.length > 0);
  if (tasked.length === 0 && errors.length === 0) {
    errors.push(
      noPhase(
        plan.path,
        kind === 'kiro'
          ? 'Write a task as "- [ ] 1. Title" with sub-tasks "- [ ] 1.1 Title".'
          : kind === 'openspec'
            ? 'Write tasks as "- [ ] 1.1 Description" under a "## 1. Group" heading.'
            : 'Write tasks as "- [ ] T001 Description" under a "## Phase 1: Name" heading.',
      ),
    );
  }
  const view = (p: DialectPhase): KindPhase => ({
    number: p.number,
    name: p.name,
    line: p.line,
    tasks: p.tasks.map((t) => ({
      id: t.id,
      text: t.text,
      state: t.state,
      line: t.line,
      optional: t.optional,
      ...(t.optional ? { note: 'optional' as const } : {}),
      requirements: t.requirements,
    })),
    finished: dialectPhaseFinished(p),
  });
  const phases = tasked.map(view);
  const current = currentDialectPhase({ phases: tasked, problems: [] });
  return {
    tasked,
    phases,
    current: current ? phases[tasked.indexOf(current)] : undefined,
    complete: errors.length === 0 && phases.length > 0 && phases.every((p) => p.finished),
    waiting: undefined,
    problems: errors,
    warnings,
  };
}

function openDialect(
  plan: NamedPlan,
  kind: MarkdownKind,
  source: string,
  contextProblems: Problem[],
  sidecar: KindSidecar,
  present: ReadonlySet<string>,
  files: ReadonlyMap<string, string>,
): KindPlan {
  const read = readDialectTasks(plan, kind, source);
  const byNumber = new Map(read.tasked.map((p) => [p.number, p]));
  const own = (phase: KindPhase): DialectPhase => {
    const p = byNumber.get(phase.number);
    if (!p) throw new Error(`Phase ${phase.number} is not in ${plan.path}.`);
    return p;
  };
  const mark = (phase: KindPhase, state: 'doing' | 'done'): string => {
    const p = own(phase);
    const tasks: DialectTask[] = p.tasks.filter((t) => !t.optional);
    // Kiro's top-level task, when its sub-tasks are the phase's tasks, is marked with them;
    // an optional one never is.
    if (p.self && !p.self.optional && !p.tasks.includes(p.self)) tasks.push(p.self);
    return setDialectStates(source, kind, tasks, state);
  };
  return {
    plan,
    phases: read.phases,
    current: read.current,
    complete: read.complete && contextProblems.length === 0,
    waiting: read.waiting,
    problems: [...contextProblems, ...read.problems],
    warnings: read.warnings,
    sidecar,
    markStart: (phase) => mark(phase, 'doing'),
    markDone: (phase) => mark(phase, 'done'),
    context: (phase) =>
      kind === 'kiro'
        ? kiroContext(plan, own(phase), present, files)
        : kind === 'openspec'
          ? openspecContext(plan, present)
          : speckitContext(plan, present),
  };
}

/** OpenSpec's change documents: the proposal, the design, and the change's delta specs. */
function openspecContext(plan: NamedPlan, present: ReadonlySet<string>): KindContext {
  const links: KindContext['links'] = [];
  for (const [label, file] of [
    ['Proposal', 'proposal.md'],
    ['Design', 'design.md'],
  ] as const) {
    const path = `${plan.folder}/${file}`;
    if (present.has(path)) links.push({ label, path });
  }
  const specs = `${plan.folder}/specs/`;
  for (const path of [...present]
    .filter((p) => p.startsWith(specs) && p.endsWith('/spec.md'))
    .sort()) {
    links.push({ label: `Spec delta ${path.slice(specs.length, -'/spec.md'.length)}`, path });
  }
  return { links, sections: [] };
}

function speckitContext(plan: NamedPlan, present: ReadonlySet<string>): KindContext {
  const links: KindContext['links'] = [];
  for (const [label, file] of SPECKIT_LINKS) {
    const path = `${plan.folder}/${file}`;
    if (present.has(path)) links.push({ label, path });
  }
  const contracts = `${plan.folder}/contracts/`;
  for (const path of [...present].filter((p) => p.startsWith(contracts)).sort()) {
    links.push({ label: `Contract ${path.slice(contracts.length)}`, path });
  }
  return { links, sections: [] };
}

/** Kiro's `### Requirement N` blocks of requirements.md, by number. */
function requirementBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  let number: string | undefined;
  let level = 0;
  let body: string[] = [];
  const flush = () => {
    if (number !== undefined) blocks.set(number, body.join('\n').trim());
  };
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const m = /^requirement\s+(\d+)\b/i.exec(heading[2]!.trim());
      if (m) {
        flush();
        number = m[1]!;
        level = heading[1]!.length;
        body = [line];
        continue;
      }
      if (number !== undefined && heading[1]!.length <= level) {
        flush();
        number = undefined;
      }
    }
    if (number !== undefined) body.push(line);
  }
  flush();
  return blocks;
}

const QUOTE_LIMIT = 20_000;

function kiroContext(
  plan: NamedPlan,
  phase: DialectPhase,
  present: ReadonlySet<string>,
  files: ReadonlyMap<string, string>,
): KindContext {
  const links: KindContext['links'] = [];
  const sections: KindContext['sections'] = [];
  const at = (file: string) => `${plan.folder}/${file}`;
  const requirementsFile = ['requirements.md', 'bugfix.md'].map(at).find((p) => present.has(p));
  if (requirementsFile) {
    links.push({ label: 'Requirements', path: requirementsFile });
    const text = files.get(requirementsFile);
    if (text !== undefined) {
      const cited = [
        ...new Set(phase.tasks.flatMap((t) => t.requirements.map((r) => r.split('.')[0]!))),
      ];
      const blocks = requirementBlocks(text);
      const first = cited.filter((n) => blocks.has(n)).map((n) => blocks.get(n)!);
      if (first.length > 0) {
        sections.push({
          title: `Requirements the tasks cite (${cited.map((n) => `Requirement ${n}`).join(', ')})`,
          text: first.join('\n\n').slice(0, QUOTE_LIMIT),
        });
      } else sections.push({ title: 'Requirements', text: text.slice(0, QUOTE_LIMIT) });
    }
  }
  const design = at('design.md');
  if (present.has(design)) {
    links.push({ label: 'Design', path: design });
    const text = files.get(design);
    if (text !== undefined) sections.push({ title: 'Design', text: text.slice(0, QUOTE_LIMIT) });
  }
  return { links, sections };
}

// ---------------------------------------------------------------- Task Master

const TASKMASTER_NOTES: Record<string, KindNote> = {
  blocked: 'blocked',
  review: 'review',
  deferred: 'deferred',
  cancelled: 'cancelled',
};

function readTaskmasterTasks(plan: NamedPlan, source: string) {
  const read = readTaskmaster(source, plan.path);
  const tag = read.tags.find((t) => t.name === plan.tag);
  // The file's own problems, and this tag's: an error inside another tag blocks that tag only.
  const others = new Set(read.tags.filter((t) => t !== tag).flatMap((t) => t.problems));
  const { errors, warnings } = split(read.problems.filter((p) => !others.has(p)));
  if (read.notTaskmaster) errors.push({ ...read.notTaskmaster, severity: 'error' });
  if (!tag && plan.tag !== undefined && !read.notTaskmaster) {
    errors.push({
      severity: 'error',
      path: plan.path,
      line: 1,
      message: `the tag "${plan.tag}" is not in the file.`,
      fix: 'Name a tag the file has.',
    });
  }
  const tasked = (tag?.phases ?? []).filter((p) => p.tasks.length > 0);
  if (tag && tasked.length === 0 && errors.length === 0) {
    errors.push(noPhase(plan.path, 'Add a task with "task-master add-task".'));
  }
  const view = (p: TaskmasterPhase): KindPhase => ({
    number: p.id,
    name: p.title,
    line: p.line,
    tasks: p.tasks.map((t) => {
      const note = TASKMASTER_NOTES[t.status];
      return {
        id: t.id,
        text: t.title,
        state: t.state,
        line: t.line,
        optional: false,
        ...(note ? { note } : {}),
        ...(t.details ? { details: t.details } : {}),
        ...(t.testStrategy ? { testStrategy: t.testStrategy } : {}),
      };
    }),
    finished: taskmasterPhaseFinished(p),
  });
  const phases = tasked.map(view);
  const progress = tag ? taskmasterProgress(tag) : undefined;
  const current = progress?.current ? phases[tasked.indexOf(progress.current)] : undefined;
  return {
    tasked,
    phases,
    current,
    complete: errors.length === 0 && (progress?.complete ?? false),
    waiting: errors.length === 0 ? progress?.waiting : undefined,
    problems: errors,
    warnings,
  };
}

function openTaskmaster(
  plan: NamedPlan,
  source: string,
  contextProblems: Problem[],
  sidecar: KindSidecar,
): KindPlan {
  if (contextProblems.length > 0) {
    return { ...empty(plan, sidecar, contextProblems[0]!), problems: contextProblems };
  }
  const read = readTaskmasterTasks(plan, source);
  const byId = new Map(read.tasked.map((p) => [p.id, p]));
  const own = (phase: KindPhase): TaskmasterPhase => {
    const p = byId.get(phase.number);
    if (!p) throw new Error(`Task ${phase.number} is not in ${plan.path}.`);
    return p;
  };
  const mark = (phase: KindPhase, status: 'in-progress' | 'done'): string => {
    const p = own(phase);
    const edits: { task: Pick<TaskmasterTask, 'statusStart' | 'statusEnd' | 'status'> }[] = [];
    for (const t of p.tasks) {
      // A block a person set is theirs to lift: never written over.
      if (t.state === 'set-aside' || t.status === status || t.status === 'blocked') continue;
      if (status === 'in-progress' && t.state !== 'todo') continue;
      edits.push({ task: t });
    }
    // The top-level task of a phase made of subtasks carries the phase's status too.
    const parent = parentStatus(source, plan.tag, p);
    if (
      parent &&
      parent.status !== status &&
      parent.status !== 'cancelled' &&
      parent.status !== 'blocked'
    ) {
      if (!(status === 'in-progress' && parent.status === 'done')) edits.push({ task: parent });
    }
    return replaceStatuses(source, plan.path, edits, status);
  };
  return {
    plan,
    phases: read.phases,
    current: read.current,
    complete: read.complete,
    waiting: read.waiting,
    problems: read.problems,
    warnings: read.warnings,
    sidecar,
    markStart: (phase) => mark(phase, 'in-progress'),
    markDone: (phase) => mark(phase, 'done'),
    context: (phase) => taskmasterContext(plan, own(phase)),
  };
}

/** The `status` value of the top-level task of a phase made of subtasks. */
function parentStatus(
  source: string,
  tag: string | undefined,
  phase: TaskmasterPhase,
): { statusStart: number; statusEnd: number; status: string } | undefined {
  if (phase.tasks.length === 1 && phase.tasks[0]!.id === phase.id) return undefined;
  const root = parseJsonWithOffsets(source);
  const legacy = member(root, 'tasks');
  const list = legacy?.kind === 'array' ? legacy : member(member(root, tag ?? '') ?? root, 'tasks');
  if (list?.kind !== 'array') return undefined;
  const idOf = (n: JsonNode | undefined) =>
    n?.kind === 'number' ? String(n.value) : n?.kind === 'string' ? n.value.trim() : undefined;
  const node = list.items.find((item) => idOf(member(item, 'id')) === phase.id);
  const status = node ? member(node, 'status') : undefined;
  if (status?.kind !== 'string') return undefined;
  return { statusStart: status.start, statusEnd: status.end, status: status.value };
}

/** Replaces status string values, last first so earlier offsets hold; each must read as read. */
function replaceStatuses(
  source: string,
  path: string,
  edits: readonly { task: Pick<TaskmasterTask, 'statusStart' | 'statusEnd' | 'status'> }[],
  status: string,
): string {
  let out = source;
  for (const { task } of [...edits].sort((a, b) => b.task.statusStart - a.task.statusStart)) {
    const literal = out.slice(task.statusStart, task.statusEnd);
    let value: unknown;
    try {
      value = JSON.parse(literal);
    } catch {
      value = undefined;
    }
    if (value !== task.status) {
      throw new Error(`${path}: a status no longer reads "${task.status}"; read the file again.`);
    }
    out = out.slice(0, task.statusStart) + JSON.stringify(status) + out.slice(task.statusEnd);
  }
  return out;
}

function taskmasterContext(plan: NamedPlan, phase: TaskmasterPhase): KindContext {
  const lines: string[] = [];
  for (const t of phase.tasks) {
    if (!t.details && !t.testStrategy) continue;
    lines.push(`**${t.id} ${t.title}**`);
    if (t.details) lines.push(`- Details: ${t.details}`);
    if (t.testStrategy) lines.push(`- Test strategy: ${t.testStrategy}`);
    lines.push('');
  }
  return {
    links: [{ label: 'Tasks', path: plan.path }],
    sections: lines.length
      ? [
          {
            title: 'Details and test strategy',
            text: lines.join('\n').trim().slice(0, QUOTE_LIMIT),
          },
        ]
      : [],
  };
}

/**
 * The plan a loop record's `planFile` names (`<tasks file>` or `<tasks file>#<tag>`), as
 * discovery names it; undefined for a path no kind reads.
 */
export function planFromRef(ref: string): NamedPlan | undefined {
  const hash = ref.lastIndexOf('#');
  const [path, tag] =
    hash > ref.lastIndexOf('/') ? [ref.slice(0, hash), ref.slice(hash + 1)] : [ref];
  const kind = kindOfPath(path!);
  if (!kind || kind === 'coder' || (kind === 'taskmaster') !== (tag !== undefined))
    return undefined;
  const slash = path!.lastIndexOf('/');
  const folder = slash === -1 ? '' : path!.slice(0, slash);
  const sidecar = `${folder}/coder-loop`.replace(/^\//, '');
  return tag !== undefined
    ? { kind, path: path!, folder, sidecar: `${sidecar}/${tag}`, name: tag, tag }
    : { kind, path: path!, folder, sidecar, name: folder.slice(folder.lastIndexOf('/') + 1) };
}

/** How a loop record names a plan of another kind: its tasks file, and its tag for Task Master. */
export function planRef(plan: Pick<NamedPlan, 'path' | 'tag'>): string {
  return plan.tag !== undefined ? `${plan.path}#${plan.tag}` : plan.path;
}
