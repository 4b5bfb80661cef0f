import { createHash } from 'node:crypto';
import picomatch from 'picomatch';
import type { Config } from '../../config.js';
import {
  defaultPlanGlobs,
  isPlanDocument,
  mayBePlanDocument,
  type GuardedPlanFile,
} from '../../plan/kinds/discovery.js';
import { PLAN_FILES } from '../../plan/layout.js';
import type { LoopFile, LoopMarker } from '../record/marker.js';
import { recordedFiles } from '../phasePlan/openPlan.js';
import {
  touchedPaths,
  type Need,
  type PullFile,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';

/**
 * "Touched Locked Items?" — what only an architect's approval may let through: paths matching
 * `locked`, and every plan's documents, of every kind, with every sidecar. The loop's own plan
 * files (its tasks file or checklist, log, checkpoint and this phase's report) are plan documents
 * too, except where the head holds exactly the bytes the loop's own last commit wrote there (the
 * start's marks and log entry, the completion's): the record keeps each such file's blob
 * (`loopFiles`), and GitHub names the head's. Anything else in them — a later phase marked done,
 * a line of the log rewritten, a line appended that looks like the loop's — is a plan change.
 * With a shared identity the record is anyone's, so the loop owns no bytes at all: every plan
 * phase (whose checklist the loop marks) is an architect's, reviewed and merged by hand.
 */

/** The part the loop writes of one of its own plan files. */
export type LoopFileRole = 'tasks' | 'log' | 'checkpoint' | 'report';

/** The `plans` globs in force: the config's, else every kind's default places. */
export function planGlobs(config: Pick<Config, 'plans' | 'plansDir'>): readonly string[] {
  return config.plans ?? defaultPlanGlobs(config.plansDir);
}

/** Which of the loop's own plan files `path` is for this PR, if any. */
export function loopFileRole(
  path: string,
  marker: LoopMarker,
  config: Pick<Config, 'plansDir' | 'quick'>,
): LoopFileRole | undefined {
  const plans = config.plansDir.replace(/\/+$/, '');
  if (marker.mode === 'quick') {
    // `quick.log`: one entry in a plan's master log.
    if (!config.quick.log || !path.startsWith(`${plans}/`)) return undefined;
    const rest = path.slice(plans.length + 1);
    const slash = rest.indexOf('/');
    return slash > 0 && rest.slice(slash + 1) === PLAN_FILES.masterLog ? 'log' : undefined;
  }
  const own = recordedFiles(config, marker);
  if (!own) return undefined;
  if (path === own.tasks) return 'tasks';
  if (path === own.masterLog) return 'log';
  if (path === own.checkpoint) return 'checkpoint';
  const reports = `${own.reportsDir}/`;
  return path.startsWith(`${reports}${own.phase.padStart(2, '0')}_`) &&
    path.endsWith('.md') &&
    !path.slice(reports.length).includes('/')
    ? 'report'
    : undefined;
}

/**
 * The git blob id of a file's text (`git hash-object`): what GitHub's tree and files list name
 * the file's bytes by, so the loop can tell its own bytes from anyone else's without reading them.
 */
export function gitBlobSha(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Most of its own files the record keeps (a commit of the loop's writes four at most). */
const LOOP_FILES = 20;

/**
 * The record's own files after one of the loop's commits: each file the commit wrote, as the blob
 * it left (replacing what an earlier commit of the loop's left at that path).
 */
export function withLoopFiles(
  files: readonly LoopFile[] | undefined,
  changes: readonly { path: string; content: string }[],
): LoopFile[] {
  const wrote = new Map((files ?? []).map((f) => [f.path, f.blob]));
  for (const c of changes) {
    wrote.delete(c.path);
    wrote.set(c.path, gitBlobSha(c.content));
  }
  return [...wrote].map(([path, blob]) => ({ path, blob })).slice(-LOOP_FILES);
}

/**
 * Whether the PR's change to a file is exactly what the loop's own last commit left there: the
 * head's blob (GitHub's `sha` of the changed file) is the one the record keeps for its path. A
 * rename or a deletion never is (the loop does neither), and a record without the loop's files
 * (one written before the loop kept them, or on a start whose commit an earlier delivery made)
 * owns nothing: each of its own files the PR changes is then a plan change, for an architect.
 */
export function loopWroteExactly(file: PullFile, marker: Pick<LoopMarker, 'loopFiles'>): boolean {
  if (file.deleted || file.previous !== undefined || file.sha === undefined) return false;
  return marker.loopFiles?.some((f) => f.path === file.path && f.blob === file.sha) ?? false;
}

/**
 * The paths a PR touches that need an architect: `locked` ones, and plan documents — every
 * plan's files under `plansDir`, or of a plan of any kind the `plans` globs find (`found`, the
 * tasks files of the base and head trees, with what each reads beyond its folder: a tool's config
 * that places its files, a story file so placed), and every sidecar — but for what `loopWrote`.
 */
export function touchedLockedItems(
  files: readonly string[],
  config: Pick<Config, 'locked' | 'plansDir'>,
  found: readonly GuardedPlanFile[],
  loopWrote: (path: string) => boolean = () => false,
): { locked: string[]; planDocuments: string[] } {
  const isLocked = config.locked.length ? picomatch(config.locked, { dot: true }) : () => false;
  const plans = `${config.plansDir.replace(/\/+$/, '')}/`;
  const unique = [...new Set(files)];
  const locked = unique.filter((f) => isLocked(f));
  const planDocuments = unique.filter(
    (f) => (f.startsWith(plans) || found.some((p) => isPlanDocument(f, p))) && !loopWrote(f),
  );
  return { locked, planDocuments };
}

/**
 * The PR's items that need an architect, from the snapshot; or the read it needs first: the
 * plans of the base and head trees (only when a touched path could be in a plan's folder).
 */
export function architectItems(
  snap: PullSnapshot,
  config: Config,
): { locked: string[]; planDocuments: string[] } | { need: Need } {
  const files = snap.files ?? [];
  const touched = touchedPaths(files);
  const plans = `${config.plansDir.replace(/\/+$/, '')}/`;
  const globs = planGlobs(config);
  if (!snap.plans && touched.some((p) => !p.startsWith(plans) && mayBePlanDocument(p, globs)))
    return { need: 'plans' };
  // With a shared identity (the default `GITHUB_TOKEN`) the record naming the loop's own bytes
  // may be any writer's job's: nothing in it exempts a plan document.
  const loopWrote = (path: string) =>
    !snap.shared &&
    loopFileRole(path, snap.marker, config) !== undefined &&
    files.some((f) => f.path === path && loopWroteExactly(f, snap.marker));
  return touchedLockedItems(touched, config, snap.plans ?? [], loopWrote);
}

/**
 * The locked paths the completion commit would write (a story file a tool's config places under a
 * `locked` glob, a plan folder a glob covers): in plan mode, with `locked` set, read once asked
 * (`need: 'writes'`). The loop's own write is a change to that path as a PR's is: an architect's.
 */
export function lockedCompletionWrites(
  snap: PullSnapshot,
  config: Pick<Config, 'locked'>,
): string[] | { need: Need } {
  if (snap.marker.mode !== 'plan' || config.locked.length === 0) return [];
  if (!snap.completionWrites) return { need: 'writes' };
  const isLocked = picomatch(config.locked, { dot: true });
  return snap.completionWrites.filter((p) => isLocked(p));
}
