import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { PlanFiles } from '../core/index.js';

/** Input the CLI refuses: it becomes exit code 1 with the message. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Reads a UTF-8 text file, refusing one that would not survive a decode/encode round trip. */
export async function readText(path: string): Promise<string> {
  const bytes = await readFile(path);
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new InputError(`${path}: not valid UTF-8; coder-loop will not rewrite it.`);
  }
  return text;
}

/** Writes through a temporary file in the same folder and a rename: never half a file. */
export async function writeAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, 'utf8');
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** Every plan folder under the plans directory. */
export async function listPlans(plansDir: string): Promise<string[]> {
  try {
    const entries = await readdir(plansDir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Reads a plan folder: every path, and the content of every markdown file. */
export async function readPlan(
  plansDir: string,
  name: string,
  shownDir: string,
): Promise<PlanFiles> {
  const root = join(plansDir, name);
  let paths: string[];
  try {
    paths = await listFiles(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new InputError(`${shownDir}: no such plan.`);
    }
    throw error;
  }
  const files = new Map<string, string>();
  for (const path of paths) {
    if (path.endsWith('.md')) files.set(path, await readText(join(root, path)));
  }
  return { name, dir: shownDir, paths, files };
}
