import {
  kindModule,
  kindOfPath,
  planName,
  validateKindContext,
  type NamedPlan,
  type PlanKind,
} from './discovery.js';
import { reportFileName } from '../layout.js';
import { KINDS } from './registry.js';
import type { PlanKindModule } from './kindModule.js';
import { emptyReading, type KindReading, type KindSidecar } from './view.js';

export type {
  KindContext,
  KindNote,
  KindPhase,
  KindReading,
  KindSidecar,
  KindState,
  KindTask,
} from './view.js';

/** A plan of another kind as the loop sees it: its kind's reading, the plan, its sidecar. */
export interface KindPlan extends KindReading {
  plan: NamedPlan;
  sidecar: KindSidecar;
}

/**
 * One kind-neutral view of a plan of another kind, for the loop (SPEC §2b): its
 * phases and the current one, what its context lacks, the marks a start and a completion write
 * in the kind's own dialect, the context a phase's PR and agent are given, and the loop's sidecar
 * (`<plan folder>/coder-loop/`) where its log, reports and checkpoint live. Nothing else in the
 * loop knows which kind it runs.
 */

/**
 * Each kind's marks, as docs/plan-format.md lists them: what a start writes on the phase's open
 * tasks (none where the tool has no in-progress mark) and what a completion writes.
 */
export const KIND_MARKS = Object.fromEntries([
  ['coder', { start: '[~]', done: '[x]' }],
  ...KINDS.map((k) => [k.id, k.marks]),
]) as Readonly<Record<PlanKind, PlanKindModule['marks']>>;

/** The sidecar of a plan: the loop's own files, beside (never inside) the user's. */
export function kindSidecar(plan: Pick<NamedPlan, 'sidecar'>): KindSidecar {
  const dir = plan.sidecar;
  const reportsDir = `${dir}/Reports`;
  return {
    dir,
    masterLog: `${dir}/Master_Log.md`,
    checkpoint: `${dir}/Checkpoint.md`,
    reportsDir,
    report: (phase, existing = []) =>
      `${reportsDir}/${reportFileName(phase.number, phase.name, (name) => existing.includes(`${reportsDir}/${name}`))}`,
  };
}

/**
 * The paths of the tree a kind's plan reads the text of: its tasks file, its sidecar, and what its
 * kind `reads` (given the `texts` read so far).
 */
export function kindPlanReads(
  plan: NamedPlan,
  paths: Iterable<string>,
  texts: ReadonlyMap<string, string> = new Map(),
): string[] {
  const present = new Set(paths);
  const sidecar = kindSidecar(plan);
  const wanted = [plan.path, sidecar.masterLog, sidecar.checkpoint];
  if (plan.kind !== 'coder') wanted.push(...(kindModule(plan.kind).reads?.(plan, texts) ?? []));
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
    return {
      plan,
      sidecar,
      ...emptyReading({
        severity: 'error',
        path: plan.path,
        message: 'the tasks file is missing.',
        fix: 'Restore it on the default branch.',
      }),
    };
  }
  if (plan.kind === 'coder') throw new Error('coder plans are read by readPlan');
  const context = validateKindContext(plan, (p) => present.has(p), source);
  return { plan, sidecar, ...kindModule(plan.kind).open(plan, source, context, present, files) };
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
  if (!kind || kind === 'coder' || (kindModule(kind).tagged === true) !== (tag !== undefined))
    return undefined;
  const slash = path!.lastIndexOf('/');
  const folder = slash === -1 ? '' : path!.slice(0, slash);
  const sidecar = `${folder}/coder-loop`.replace(/^\//, '');
  return tag !== undefined
    ? { kind, path: path!, folder, sidecar: `${sidecar}/${tag}`, name: tag, tag }
    : { kind, path: path!, folder, sidecar, name: planName(kind, path!) };
}

/** How a loop record names a plan of another kind: its tasks file, and its tag if tagged. */
export function planRef(plan: Pick<NamedPlan, 'path' | 'tag'>): string {
  return plan.tag !== undefined ? `${plan.path}#${plan.tag}` : plan.path;
}
