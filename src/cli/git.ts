import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * What git says about the working copy the CLI runs in: the default branch as the clone knows it
 * (`origin/HEAD`). Undefined outside a git working copy, or without git.
 */

const run = promisify(execFile);

async function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  try {
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
