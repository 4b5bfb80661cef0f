import {
  CONTEXT_FILES,
  PLAN_FILES,
  validateContext,
  type PlanContext,
  type PlanFiles,
} from '../core/index.js';
import type { GitReader } from './git.js';

/**
 * How much of the folder is read: `contents: false` (a read-only caller) answers a plan validated
 * before at the same blobs without reading them again; `taskPlan: false` leaves the current
 * phase's task plan unread (a completion needs only the files it writes); `tasksOnly` reads the
 * checklist alone, unvalidated (Passes Spec? needs only the phase's tasks).
 */
export interface ReadPlanOptions {
  contents?: boolean;
  taskPlan?: boolean;
  tasksOnly?: boolean;
}

/** The plan folder's files read, and Context valid?'s answer (absent: `tasksOnly`, not known). */
export interface ReadPlan {
  files: PlanFiles;
  context?: PlanContext;
}

/**
 * Plans already validated in this process, by content: the key names the plan's folder, its file
 * list and the blob sha of every file ValidateContext reads, so a hit is exactly the answer a new
 * parse would give (git objects never change). Bounded in entries and in source size, so a busy
 * App keeps a few hundred KiB of parsed checklists, not every plan it ever saw.
 */
const validated = new Map<string, PlanContext>();
const PLAN_CACHE = { entries: 32, maxSourceBytes: 1 << 20 } as const;

function remember(key: string, context: PlanContext): void {
  validated.delete(key);
  validated.set(key, context);
  while (validated.size > PLAN_CACHE.entries) validated.delete(validated.keys().next().value!);
}

/**
 * Reads what ValidateContext needs (context, checklist, master log) in one batch, validates,
 * then reads the current phase's task plan: four blobs at most, none twice. With
 * `contents: false` (a read-only caller such as `/coder status`) a plan validated before at the
 * same blobs is answered without reading them again (`files.files` then stays empty).
 */
export async function readPlan(
  reader: GitReader,
  tree: { files: ReadonlyMap<string, string> },
  plansDir: string,
  name: string,
  { contents: wanted = true, taskPlan = wanted, tasksOnly = false }: ReadPlanOptions = {},
): Promise<ReadPlan> {
  const dir = `${plansDir.replace(/\/+$/, '')}/${name}`;
  const prefix = `${dir}/`;
  const shas = new Map<string, string>();
  for (const [path, sha] of tree.files)
    if (path.startsWith(prefix)) shas.set(path.slice(prefix.length), sha);
  const paths = [...shas.keys()].sort();
  const read = [...CONTEXT_FILES, PLAN_FILES.masterLog];
  // JSON, not a separator: git paths may hold any character but NUL, newlines included.
  const key = JSON.stringify([dir, paths, read.map((file) => shas.get(file) ?? null)]);
  const contents = new Map<string, string>();
  const files: PlanFiles = { name, dir, paths, files: contents };
  const load = async (file: string) => {
    const sha = shas.get(file);
    if (sha !== undefined) contents.set(file, await reader.blob(sha));
  };
  const known = validated.get(key);
  if (tasksOnly) {
    await load(PLAN_FILES.checklist);
    return { files, ...(known ? { context: known } : {}) };
  }
  if (known && !wanted) return { files, context: known };
  await Promise.all(read.map(load));
  const context = known ?? validateContext(files);
  let size = 0;
  for (const text of contents.values()) size += text.length;
  if (size <= PLAN_CACHE.maxSourceBytes) remember(key, context);
  if (wanted && taskPlan && context.valid && context.taskPlan) await load(context.taskPlan);
  return { files, context };
}
