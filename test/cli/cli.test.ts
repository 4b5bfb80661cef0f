import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { repoRoot } from '../paths.js';

const repo = repoRoot;
const bin = join(repo, 'lib', 'cli', 'index.js');
const fixtures = join(repo, 'test', 'fixtures', 'plans');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built binary, as a user would. */
function cli(cwd: string, ...args: string[]): Promise<Run> {
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

let work: string;
const plans = () => join(work, 'docs', 'plans');
const checklist = (plan = 'Sample') => join(plans(), plan, '01_Master Plan', '01_Checklist.md');

beforeAll(() => {
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run "npm run build" first (npm test does).`);
});

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-cli-'));
  await cp(join(fixtures, 'Sample'), join(plans(), 'Sample'), { recursive: true });
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

// Each case starts the built binary as a process (0.2 s for Node alone on the shared machines).
jest.setTimeout(60_000);

describe('coder-loop CLI (built binary)', () => {
  it('init writes a plan that lint accepts, and will not overwrite it', async () => {
    const init = await cli(work, 'init', 'My Plan');
    expect(init).toMatchObject({ code: 0, stderr: '' });
    expect(init.stdout).toContain('Created docs/plans/My Plan:');
    const files = (await readdir(join(plans(), 'My Plan'), { recursive: true })).sort();
    expect(files).toEqual(
      [
        '00_context.md',
        '01_Master Plan',
        '01_Master Plan/01_Checklist.md',
        '01_Master Plan/03_Requirements_Core.md',
        '01_Master Plan/10_Master_Codemap.mmd',
        'Reports',
        'Reports/01_Master_Log.md',
        'Task Plans',
        'Task Plans/Phase 1 - Foundation.md',
        'Task Plans/Phase 2 - Hardening.md',
      ].sort(),
    );
    expect(await cli(work, 'lint', 'My Plan')).toEqual({
      code: 0,
      stdout: 'docs/plans/My Plan: 0 error(s), 0 warning(s).\n',
      stderr: '',
    });
    const again = await cli(work, 'init', 'My Plan');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'coder-loop init: docs/plans/My Plan: already exists; coder-loop init will not overwrite it.\n',
    );
    expect((await readdir(plans())).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('init refuses a plan name with a path in it', async () => {
    const run = await cli(work, 'init', '../escape');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'coder-loop init: "../escape" cannot be a plan name: the plan name contains a path separator (/ or \\).\n',
    );
    expect(existsSync(join(work, 'docs', 'escape'))).toBe(false);
  });

  it('lint prints file:line messages and exits 1 for an invalid plan', async () => {
    await cp(join(fixtures, 'Broken'), join(plans(), 'Broken'), { recursive: true });
    const run = await cli(work, 'lint', 'Broken');
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toEqual([
      'docs/plans/Broken/01_Master Plan/01_Checklist.md:7: error: Phase 1 is defined twice, and both hold tasks (first on line 5). Give each phase its own number.',
      'docs/plans/Broken/01_Master Plan/01_Checklist.md:8: error: Task id 1.1 is used twice (first on line 6). Write a unique id at the start of each task, like "1.2" or "T003".',
      'docs/plans/Broken/Task Plans/Phase 1.md: error: Phase 1 has no task plan, and it is the current phase. Write its steps in "Task Plans/Phase 1.md" (any name with "Phase 1" or a leading 1 works).',
      '',
    ]);
    expect(run.stdout).toContain(
      'docs/plans/Broken/01_Master Plan/01_Checklist.md:3: warning: This task is not tracked by the loop: it comes before the first "Phase <N>" heading.',
    );
    expect(run.stdout).toContain('docs/plans/Broken: 3 error(s), 4 warning(s).');
  });

  it('lint with no name checks every plan', async () => {
    await cp(join(fixtures, 'Broken'), join(plans(), 'Broken'), { recursive: true });
    const run = await cli(work, 'lint');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('docs/plans/Sample: 0 error(s), 0 warning(s).');
    expect(run.stdout).toContain('docs/plans/Broken: 3 error(s)');
  });

  it('status --json has the documented shape', async () => {
    const run = await cli(work, 'status', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      plan: 'Sample',
      currentPhase: 1,
      phases: [
        {
          number: 1,
          name: 'Setup',
          tasks: [
            { id: '1.1', state: 'done', text: '1.1 Done already' },
            { id: '1.2', state: 'todo', text: '1.2 Tabbed' },
            { id: '1.2.1', state: 'todo', text: '1.2.1 Nested star' },
          ],
        },
        {
          number: 2,
          name: 'Build ✓',
          tasks: [
            { id: 'T001', state: 'todo', text: 'T001 First' },
            { id: 'T002', state: 'done', text: 'T002 Second' },
          ],
        },
      ],
    });
  });

  it('mark changes one byte of a CRLF checklist and keeps its missing final newline', async () => {
    const before = await readFile(checklist());
    const run = await cli(work, 'mark', 'Sample', '1.2', 'doing');
    expect(run).toEqual({ code: 0, stdout: '1.2: todo → doing\n', stderr: '' });
    const after = await readFile(checklist());
    const at = before.indexOf('[ ] 1.2 Tabbed') + 1;
    const expected = Buffer.from(before);
    expected[at] = '~'.charCodeAt(0);
    expect(after.equals(expected)).toBe(true);
  });

  it('mark --phase sets every task of the phase, X kept', async () => {
    const run = await cli(work, 'mark', 'Sample', '--phase', '2', 'done');
    expect(run).toEqual({ code: 0, stdout: 'T001: todo → done\n', stderr: '' });
    const text = await readFile(checklist(), 'utf8');
    expect(text.endsWith('1. [x] T001 First\r\n2. [X] T002 Second')).toBe(true);
    const again = await cli(work, 'mark', 'Sample', '--phase', '2', 'done');
    expect(again.stdout).toBe('Nothing to change: already done.\n');
  });

  it('mark answers unknown tasks, phases and states with exit codes 1 and 2', async () => {
    const before = await readFile(checklist());
    expect((await cli(work, 'mark', 'Sample', '9.9', 'done')).code).toBe(1);
    expect((await cli(work, 'mark', 'Sample', '--phase', '7', 'done')).code).toBe(1);
    const badState = await cli(work, 'mark', 'Sample', '1.2', 'finished');
    expect(badState.code).toBe(2);
    expect(badState.stderr).toContain('"finished" is not a state: use todo, doing or done');
    expect((await cli(work, 'mark', 'Sample', '1.2')).code).toBe(2);
    expect((await readFile(checklist())).equals(before)).toBe(true);
  });

  it("log appends one line at the end, in the file's line ending", async () => {
    const logFile = join(plans(), 'Sample', 'Reports', '01_Master_Log.md');
    const before = await readFile(logFile, 'utf8');
    const run = await cli(work, 'log', 'Sample', 'Coder started', '--phase', '1');
    expect(run.code).toBe(0);
    const after = await readFile(logFile, 'utf8');
    expect(after.startsWith(`${before}\r\n- `)).toBe(true);
    expect(after).toMatch(
      /\r\n- \d{4}-\d\d-\d\dT[\d:.]+Z — \*\*Coder started\*\* — Sample, Phase 1: Setup — @tester\r\n$/,
    );
  });

  it('report writes Reports/{NN}_{Phase_Name}.md', async () => {
    const run = await cli(work, 'report', 'Sample', '--phase', '2');
    expect(run.code).toBe(0);
    const report = await readFile(join(plans(), 'Sample', 'Reports', '02_Build_✓.md'), 'utf8');
    expect(report.split('\r\n').slice(0, 3)).toEqual([
      '# Phase 2: Build ✓ — report',
      '',
      '- Plan: Sample',
    ]);
    expect(report).toContain('- [ ] T001 First\r\n- [x] T002 Second\r\n');
    expect((await cli(work, 'report', 'Sample')).code).toBe(2);
  });

  it('assess says quick or plan, with reasons, and reads the quick limits from the config', async () => {
    const quick = await cli(
      work,
      'assess',
      '--title',
      'Fix typo',
      '--files',
      '1',
      '--lines',
      '4',
      '--json',
    );
    expect(JSON.parse(quick.stdout).mode).toBe('quick');
    await mkdir(join(work, '.github'));
    await writeFile(join(work, '.github', 'coder.yml'), 'quick:\n  maxLines: 3\n');
    const plan = await cli(work, 'assess', '--title', 'Fix typo', '--files', '1', '--lines', '4');
    expect(plan.stdout).toContain('Assessment: **plan mode**.');
    await writeFile(join(work, '.github', 'coder.yml'), 'quick:\n  maxLine: 3\n');
    const broken = await cli(work, 'assess', '--title', 'x');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(
      '.github/coder.yml:2: error: `quick` has unknown key `maxLine`.',
    );
  });

  it('has --help for each command and exit 2 for usage errors', async () => {
    for (const command of ['init', 'lint', 'status', 'mark', 'log', 'report', 'assess']) {
      const run = await cli(work, command, '--help');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: coder-loop ${command}`));
    }
    expect((await cli(work)).code).toBe(2);
    expect((await cli(work, 'frobnicate')).code).toBe(2);
    expect((await cli(work, 'status', '--bogus')).code).toBe(2);
  });

  it('--dir points at another plans folder', async () => {
    const run = await cli(work, 'status', 'Sample', '--dir', 'elsewhere');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('coder-loop status: elsewhere/Sample: no such plan.\n');
    expect((await cli(join(work, 'docs'), 'status', 'Sample', '--dir', 'plans')).code).toBe(0);
  });
});
