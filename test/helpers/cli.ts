import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
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

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built binary in `cwd`, as a user would: its exit code and both outputs. */
export function cli(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { PATH: process.env.PATH, USER: 'tester' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs the CLI's `main` in this process, in `cwd`: its exit code and both outputs, as `cli` gives them. */
export async function inProcess(cwd: string, ...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    cwd,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    now: () => new Date('2025-01-01T00:00:00Z'),
    env: {},
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
