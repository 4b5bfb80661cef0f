import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
 * above, that holds `.git` (a folder, or a file as in a worktree or submodule). Undefined when no
 * folder up to the file system's root holds one.
 */
export async function workingCopyRoot(cwd: string): Promise<string | undefined> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const entry = await stat(join(dir, '.git')).catch(() => undefined);
    if (entry?.isDirectory() || entry?.isFile()) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
