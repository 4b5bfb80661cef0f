import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
