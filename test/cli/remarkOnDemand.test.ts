import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { jest } from '@jest/globals';
import { freshBuild } from '../helpers/build.js';
import { bin, inProcess, type Run } from '../helpers/cli.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { repoRoot } from '../paths.js';

// The bundled CLI loads remark only when a file needs it (scripts/bundle-cli.js): a call whose
// plans the line scanners read alone never loads it, and one that needs it reads as the
// unbundled CLI does.
beforeAll(() => freshBuild('lib'));
jest.setTimeout(60_000);

const bundleDir = dirname(bin);

/** The built binary in `cwd`, with Node's module log (which names every CommonJS file loaded). */
function traced(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { PATH: process.env.PATH, USER: 'tester', NODE_DEBUG: 'module' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const loadsRemark = (run: Run) => /Module\._load REQUEST \.\/remark\.cjs/.test(run.stderr);
/** The CLI's own lines of stderr, without the module log. */
const ownStderr = (run: Run) =>
  run.stderr
    .split('\n')
    .filter((l) => l && !/^MODULE \d+:/.test(l))
    .join('\n');

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-remark-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the bundled CLI loads remark on demand', () => {
  it("keeps remark out of the bundle's chunks: it is remark.cjs alone", () => {
    // A token type of micromark's, as its code names it: in the parser, nowhere else.
    const holding = readdirSync(bundleDir).filter((name) =>
      readFileSync(join(bundleDir, name), 'utf8').includes('codeFencedFence'),
    );
    expect(holding).toEqual(['remark.cjs']);
  });

  it('status on a plan the line scanners read alone never loads remark, and reads as unbundled', async () => {
    for (const [path, text] of Object.entries(examplePlanFiles())) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), text);
    }
    const run = await traced(work, 'status', 'Example');
    expect(run.code).toBe(0);
    expect(loadsRemark(run)).toBe(false);
    const unbundled = await inProcess(work, 'status', 'Example');
    expect(run.stdout.trimEnd()).toBe(unbundled.stdout);
  });

  it('status on a plan that needs remark (a tab-indented task) loads it, and reads as unbundled', async () => {
    await cp(
      join(repoRoot, 'test', 'fixtures', 'plans', 'Sample'),
      join(work, 'docs', 'plans', 'Sample'),
      { recursive: true },
    );
    const run = await traced(work, 'status', 'Sample');
    expect(loadsRemark(run)).toBe(true);
    const unbundled = await inProcess(work, 'status', 'Sample');
    expect([run.code, run.stdout.trimEnd(), ownStderr(run)]).toEqual([
      unbundled.code,
      unbundled.stdout,
      unbundled.stderr,
    ]);
  });

  it('a spec-kit plan with an HTML block is read by remark, loaded then', async () => {
    const tasks = join(work, 'specs', '001-x', 'tasks.md');
    await mkdir(dirname(tasks), { recursive: true });
    await writeFile(
      tasks,
      '# Tasks\n\n<div>\n- [ ] T009 not a task: HTML\n</div>\n\n## Phase 1: Setup\n\n- [ ] T001 Create the project\n- [x] T002 Done\n',
    );
    const run = await traced(work, 'status');
    expect(loadsRemark(run)).toBe(true);
    const unbundled = await inProcess(work, 'status');
    expect(run.stdout.trimEnd()).toBe(unbundled.stdout);
    expect(run.stdout).toContain('T001');
    expect(run.stdout).not.toContain('T009');
  });
});
