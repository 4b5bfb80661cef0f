import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentChange } from '../../core/index.js';

/**
 * git in `cwd`, its stdout as bytes. After the agent ran, the checkout's `.git` is the agent's
 * too: git gets no credential in its environment, no system or global config, and neither an
 * fsmonitor nor hooks it could have planted.
 */
function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', ...args],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? tmpdir(),
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          ...env,
        },
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(`git ${args[0]} failed: ${stderr.toString('utf8').trim() || error.message}`),
          );
        else resolve(stdout);
      },
    );
  });
}

/** The commit the checkout's HEAD is at. */
export async function headOf(cwd: string): Promise<string> {
  return (await git(cwd, ['rev-parse', 'HEAD'])).toString('utf8').trim();
}

/**
 * Every file added, changed or deleted in the working tree of `cwd` against `base`, with its mode
 * and its bytes (base64): the working tree is staged into a temporary index (`git add -A`, so
 * .gitignore holds) and compared with `base`'s tree. Commits the agent made itself are covered:
 * the comparison is of files, not of history. Renames are a delete and an add.
 *
 * The checkout's `.git` is the agent's after it ran: its config could name a clean filter or a
 * textconv (commands git would run here, after the agent's processes were ended) and its replace
 * refs could swap `base`. So git works in a fresh repository of its own, borrowing only the
 * checkout's objects (content-addressed) as alternates, with replace refs off.
 */
export async function collectChanges(cwd: string, base: string): Promise<AgentChange[]> {
  const dir = await mkdtemp(join(tmpdir(), 'coder-loop-index-'));
  const objects = resolve(
    cwd,
    (await git(cwd, ['rev-parse', '--git-path', 'objects'])).toString('utf8').trim(),
  );
  await git(dir, ['init', '-q', '--bare', join(dir, 'repo.git')]);
  const env = {
    GIT_DIR: join(dir, 'repo.git'),
    GIT_WORK_TREE: cwd,
    GIT_INDEX_FILE: join(dir, 'index'),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
    GIT_NO_REPLACE_OBJECTS: '1',
  };
  try {
    await git(cwd, ['read-tree', base], env);
    await git(cwd, ['add', '-A', '--', '.'], env);
    const raw = await git(
      cwd,
      ['diff', '--cached', '--raw', '-z', '--no-renames', '--no-ext-diff', base, '--'],
      env,
    );
    // `:old-mode new-mode old-sha new-sha status\0path\0`, repeated.
    const fields = raw.toString('utf8').split('\0');
    const changes: AgentChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, newMode, , newSha, status] = fields[i]!.slice(1).split(' ');
      const path = fields[i + 1]!;
      if (status === 'D') {
        changes.push({ path, deleted: true });
        continue;
      }
      // A submodule (160000) has no blob; validation refuses its mode.
      if (newMode === '160000') {
        changes.push({ path, mode: newMode, content: '' });
        continue;
      }
      const bytes = await git(cwd, ['cat-file', 'blob', newSha!], env);
      changes.push({ path, mode: newMode!, content: bytes.toString('base64') });
    }
    return changes;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
