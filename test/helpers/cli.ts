import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { CLI_NAME } from '../../src/core/index.js';
import { repoRoot } from '../paths.js';

/** The built CLI (package.json's `bin`: the bundle in lib/bundle/), as `npx coder-loop` runs it. */
export const bin = join(
  repoRoot,
  (
    JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    }
  ).bin['coder-loop']!,
);

/**
 * The temporary folder as a ceiling for the CLI's search for its repository's root (and git's):
 * a scratch repository under it is its own root, whatever another process leaves in it at that
 * moment (a `.git` in the temporary folder itself, made and removed by some other program while
 * the suites run, made one CI run's `init` write there).
 */
export const SCRATCH_ENV = { GIT_CEILING_DIRECTORIES: realpathSync(tmpdir()) };

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A folder on PATH holding `coder-loop`, a link to the built binary, as `npm install -g` leaves
 * it: the CLI run from there calls itself `coder-loop` in what it prints (src/cli/invocation.ts).
 * One per checkout, made once and shared by the suites.
 */
export function installedBin(): string {
  const dir = join(
    tmpdir(),
    `coder-loop-bin-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 12)}`,
  );
  mkdirSync(dir, { recursive: true });
  try {
    symlinkSync(bin, join(dir, 'coder-loop'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return dir;
}

/**
 * Runs the built binary in `cwd` as a user runs the installed CLI (`coder-loop …` from PATH, the
 * shell starting Node on the link as the binary's `#!` line asks): its exit code and both outputs.
 */
export function cli(cwd: string, ...args: string[]): Promise<Run> {
  const dir = installedBin();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(dir, 'coder-loop'), ...args],
      {
        cwd,
        env: { PATH: `${dir}${delimiter}${process.env.PATH}`, USER: 'tester', ...SCRATCH_ENV },
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the CLI's `main` in this process, in `cwd`, its clock at `now`: its exit code, both
 * outputs as `cli` gives them, and `out`, everything it wrote in the order it wrote it (as a
 * terminal shows the two).
 */
export function inProcessAt(
  now: string,
): (cwd: string, ...args: string[]) => Promise<Run & { out: string }> {
  return async (cwd, ...args) => {
    const out: string[] = [];
    const err: string[] = [];
    const all: string[] = [];
    const code = await main(args, {
      cwd,
      cli: CLI_NAME,
      stdout: (t) => (out.push(t), all.push(t)),
      stderr: (t) => (err.push(t), all.push(t)),
      now: () => new Date(now),
      env: { ...SCRATCH_ENV },
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n'), out: all.join('\n') };
  };
}

const atNewYear = inProcessAt('2025-01-01T00:00:00Z');

/** Runs the CLI's `main` in this process, in `cwd`: its exit code and both outputs, as `cli` gives them. */
export async function inProcess(cwd: string, ...args: string[]): Promise<Run> {
  const { code, stdout, stderr } = await atNewYear(cwd, ...args);
  return { code, stdout, stderr };
}
