import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';

/** The built CLI (lib/), as `npx coder-loop` runs it. */
export const bin = join(repoRoot, 'lib', 'cli', 'index.js');

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
