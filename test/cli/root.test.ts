import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { workingCopyRoot } from '../../src/cli/git.js';
import { main } from '../../src/cli/main.js';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';

/**
 * Run from a folder inside the repository, the CLI works on the repository, as git does: its root
 * is the nearest folder up that holds `.git` (a folder, or a file in a worktree).
 */
let work: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-root-'));
  await cp(join(repoRoot, 'test', 'fixtures', 'plans', 'Sample'), join(work, 'docs/plans/Sample'), {
    recursive: true,
  });
  await mkdir(join(work, 'src', 'deep'), { recursive: true });
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the repository root, found from a subfolder', () => {
  it('in a git repository (a .git folder): plans finds the plans, init writes under the root', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: work });
    const sub = join(work, 'src', 'deep');
    const plans = await inProcess(sub, 'plans');
    expect(plans.stderr).toBe('');
    expect(plans.code).toBe(0);
    expect(plans.stdout).toContain('Sample');
    const init = await inProcess(sub, 'init', 'New Plan');
    expect(init.code).toBe(0);
    expect(existsSync(join(work, 'docs/plans/New Plan/00_context.md'))).toBe(true);
    expect(existsSync(join(sub, 'docs'))).toBe(false);
  });

  it('in a worktree (a .git file), with the config at the root naming the plans folder', async () => {
    await writeFile(join(work, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n');
    await mkdir(join(work, '.github'));
    await writeFile(join(work, '.github/coder.yml'), 'plansDir: plans\n');
    await cp(join(work, 'docs/plans/Sample'), join(work, 'plans/Other'), { recursive: true });
    const run = await inProcess(join(work, 'src'), 'plans');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Other');
  });

  it('--dir is a path from the current folder, as a path typed on the command line is', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: work });
    const run = await inProcess(join(work, 'docs'), 'plans', '--dir', 'plans');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Sample');
  });
});

describe('GIT_CEILING_DIRECTORIES, as git reads it', () => {
  /** What git itself takes as the root from `cwd` with `ceilings` (undefined: no repository). */
  function gitRoot(cwd: string, ceilings: string): string | undefined {
    try {
      return execFileSync('git', ['rev-parse', '--show-toplevel'], {
        cwd,
        env: { PATH: process.env.PATH, GIT_CEILING_DIRECTORIES: ceilings },
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    } catch {
      return undefined;
    }
  }

  it('stops where git stops: the same root, or none, from each folder with each list', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: work });
    await symlink(join(work, 'src'), join(work, 'link'));
    const at = (path: string) => join(work, path);
    const cases: [string, string][] = [
      [at('src/deep'), ''],
      [at('src/deep'), work],
      [at('src/deep'), `${work}/`],
      [at('src/deep'), at('src')],
      [at('src/deep'), at('src/deep')],
      [at('src'), at('src/deep')],
      [work, work],
      [at('src/deep'), `relative${delimiter}${work}`],
      [at('link/deep'), at('link')],
      [at('link/deep'), `${delimiter}${at('link')}`],
      [at('src/deep'), `/nowhere${delimiter}${at('src')}`],
    ];
    for (const [cwd, ceilings] of cases) {
      const expected = gitRoot(cwd, ceilings);
      const ours = await workingCopyRoot(cwd, { GIT_CEILING_DIRECTORIES: ceilings });
      // git names the root with symbolic links resolved; the CLI keeps the path it was given.
      const shown =
        ours === undefined ? undefined : execFileSync('realpath', [ours]).toString().trim();
      expect({ cwd, ceilings, root: shown }).toEqual({ cwd, ceilings, root: expected });
    }
    // Six of the cases stop before the repository; the link's does not only because its ceiling
    // comes after an empty entry, which tells git to take it as written.
    expect(cases.filter(([cwd, c]) => gitRoot(cwd, c) === undefined)).toHaveLength(6);
  });

  it('a repository above the ceiling is not the root: the CLI works in the current folder', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: work });
    const sub = join(work, 'src', 'deep');
    const out: string[] = [];
    const run = (env: Record<string, string>) =>
      main(['init', 'Here'], {
        cwd: sub,
        cli: 'coder-loop',
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
        now: () => new Date('2025-01-01T00:00:00Z'),
        env,
      });
    expect(await run({ GIT_CEILING_DIRECTORIES: join(work, 'src') })).toBe(0);
    expect(existsSync(join(sub, 'docs/plans/Here/00_context.md'))).toBe(true);
    expect(existsSync(join(work, 'docs/plans/Here'))).toBe(false);
    expect(await run({})).toBe(0);
    expect(existsSync(join(work, 'docs/plans/Here/00_context.md'))).toBe(true);
  });
});
