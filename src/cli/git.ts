import { realpath, stat } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * What git says about the working copy the CLI runs in: the default branch as the clone knows it
 * (`origin/HEAD`). Undefined outside a git working copy, or without git.
 */

async function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  try {
    // Loaded when git is run: node:child_process (and node:net under it) cost every call that
    // does not run git some 10 ms of start-up.
    const run = promisify((await import('node:child_process')).execFile);
    const { stdout } = await run('git', [...args], { cwd, windowsHide: true });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The remote's default branch as the clone recorded it (`refs/remotes/origin/HEAD`). */
export async function gitDefaultBranch(cwd: string): Promise<string | undefined> {
  const ref = await git(cwd, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  return ref?.replace(/^[^/]+\//, '');
}

/**
 * The root of the working copy `cwd` is in, found as git finds it: the nearest folder, `cwd` or
 * above, that holds `.git` (a folder, or a file as in a worktree or submodule), never going up
 * into a folder `GIT_CEILING_DIRECTORIES` names (git's list of absolute paths, whose folders it
 * does not look in unless it starts there). Undefined when no folder up to the file system's root,
 * or to a ceiling, holds one.
 */
export async function workingCopyRoot(
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<string | undefined> {
  const ceilings = await ceilingDirectories(env.GIT_CEILING_DIRECTORIES);
  for (let dir = cwd; ;) {
    const entry = await stat(join(dir, '.git')).catch(() => undefined);
    if (entry?.isDirectory() || entry?.isFile()) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    // Compared as git compares them: with symbolic links resolved.
    if (ceilings.length > 0 && ceilings.includes(await realpath(up).catch(() => up)))
      return undefined;
    dir = up;
  }
}

/**
 * `GIT_CEILING_DIRECTORIES` as git reads it: absolute paths, each with its symbolic links resolved
 * up to an empty entry, and as written after one; relative paths are ignored.
 */
async function ceilingDirectories(list: string | undefined): Promise<string[]> {
  if (list === undefined || list === '') return [];
  const ceilings: string[] = [];
  let resolveLinks = true;
  for (const entry of list.split(delimiter)) {
    if (entry === '') resolveLinks = false;
    else if (isAbsolute(entry)) {
      const path = entry.length > 1 ? entry.replace(/[/\\]+$/, '') : entry;
      ceilings.push(resolveLinks ? await realpath(path).catch(() => path) : path);
    }
  }
  return ceilings;
}
