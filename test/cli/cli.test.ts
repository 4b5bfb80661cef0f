import { existsSync, readFileSync } from 'node:fs';
import {
  chmod,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { repoRoot } from '../paths.js';
import { bin, cli } from '../helpers/cli.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built CLI (lib/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

const repo = repoRoot;
const fixtures = join(repo, 'test', 'fixtures', 'plans');

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
  it("lint's hint for a missing 00_context.md is true: init adds it to the plan, and touches nothing else", async () => {
    await rm(join(plans(), 'Sample', '00_context.md'));
    const before = await readdir(join(plans(), 'Sample'), { recursive: true });
    const checklist = await readFile(join(plans(), 'Sample/01_Master Plan/01_Checklist.md'));
    const lint = await cli(work, 'lint', 'Sample');
    expect(lint.stderr).toContain(
      '(`coder-loop init "Sample"` adds it, and leaves the plan\'s other files as they are).',
    );
    const init = await cli(work, 'init', 'Sample');
    expect(init).toMatchObject({ code: 0, stderr: '' });
    expect(init.stdout).toBe(
      'Added to docs/plans/Sample the documents it lacked (the others are untouched):\n  00_context.md\nNext: edit them, then run: coder-loop lint "Sample"\n',
    );
    expect((await readdir(join(plans(), 'Sample'), { recursive: true })).sort()).toEqual(
      [...before, '00_context.md'].sort(),
    );
    expect(await readFile(join(plans(), 'Sample/01_Master Plan/01_Checklist.md'))).toEqual(
      checklist,
    );
    expect((await cli(work, 'lint', 'Sample')).stderr).not.toContain('00_context.md');
  });

  it('plans left in docs/plans after plansDir changed are named by plans and doctor, not lost without a word', async () => {
    await mkdir(join(work, '.github'), { recursive: true });
    await writeFile(join(work, '.github/coder.yml'), 'plansDir: planning\n');
    const warning =
      'docs/plans: warning: docs/plans/ holds plans (Sample) that are not read: the plans folder is planning/ (`plansDir` in .github/coder.yml, or --dir), and the loop looks only there. Move them into planning/, or set `plansDir: docs/plans` in .github/coder.yml again.';
    const run = await cli(work, 'plans');
    expect(run).toEqual({
      code: 0,
      stdout: `No plans found. There are no plans here: none under planning/, and no spec-kit, Kiro, Task Master, OpenSpec or BMAD tasks file where those tools write them.\n${warning}\n`,
      stderr: '',
    });
    const doctor = await cli(work, 'doctor');
    expect(doctor.stdout).toContain(warning);
    // Moved: nothing to say.
    await rename(join(work, 'docs/plans'), join(work, 'planning'));
    expect((await cli(work, 'plans')).stdout).not.toContain('warning');
  });

  it('plans anywhere else in the repository are named with their folder and the plansDir that reads them', async () => {
    // The plans folder holds none; plans sit in another folder, one in node_modules (never a
    // repository's plans), and one deeper than the search goes.
    await rename(join(work, 'docs/plans'), join(work, 'notes'));
    await cp(join(work, 'notes/Sample'), join(work, 'notes/Second'), { recursive: true });
    const deep = join(work, 'a/b/c/d/e/f');
    await cp(join(work, 'notes/Sample'), join(deep, 'Deep'), { recursive: true });
    await cp(join(work, 'notes/Sample'), join(work, 'node_modules/pkg/Vendored'), {
      recursive: true,
    });
    const run = await cli(work, 'plans');
    expect(run.stdout.split('\n').filter((l) => l.includes('warning'))).toEqual([
      'notes: warning: notes/ holds plans (Sample, Second) that are not read: the plans folder is docs/plans/ (`plansDir` in .github/coder.yml, or --dir), and the loop looks only there. Move them into docs/plans/, or set `plansDir: notes` in .github/coder.yml.',
    ]);
    expect((await cli(work, 'doctor')).stdout).toContain('notes: warning: notes/ holds plans');
    // As the fix says: then they are read, and nothing is said.
    await mkdir(join(work, '.github'), { recursive: true });
    await writeFile(join(work, '.github/coder.yml'), 'plansDir: notes\n');
    const read = await cli(work, 'plans');
    expect(read.stdout).toMatch(/^coder {2}Sample {2}/);
    expect(read.stdout).not.toContain('warning');
  });

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
      'coder-loop init: docs/plans/My Plan: already exists with every document init writes, and init overwrites none.\n',
    );
    expect((await readdir(plans())).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('init refuses a plan name with a path in it', async () => {
    const run = await cli(work, 'init', '../escape');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'coder-loop init: "../escape" cannot be a plan name: the plan name contains a path separator (`/` or `\\`).\n',
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
    expect(plan.stdout).toContain('Assessment: plan mode.');
    await writeFile(join(work, '.github', 'coder.yml'), 'quick:\n  maxLine: 3\n');
    const broken = await cli(work, 'assess', '--title', 'x');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(
      '.github/coder.yml:2: error: `quick` has unknown key `maxLine`. Did you mean `maxLines`?',
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
    expect(run.stderr).toBe(
      'coder-loop status: There are no plans here: none under elsewhere/, and no spec-kit, Kiro, Task Master, OpenSpec or BMAD tasks file where those tools write them.\n',
    );
    expect((await cli(join(work, 'docs'), 'status', 'Sample', '--dir', 'plans')).code).toBe(0);
  });
});

describe('coder-loop CLI never loses an edit (built binary)', () => {
  const sampleDir = () => join(plans(), 'Sample');

  it('two marks at once take turns: twenty concurrent processes, twenty edits kept', async () => {
    const lines = ['## Phase 1: Many', ''];
    for (let i = 1; i <= 20; i++) lines.push(`- [ ] 1.${i} task ${i}`);
    await writeFile(checklist(), `${lines.join('\n')}\n`);
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cli(work, 'mark', 'Sample', `1.${i + 1}`, 'done')),
    );
    expect(runs.map((r) => r.code)).toEqual(Array(20).fill(0));
    const after = await readFile(checklist(), 'utf8');
    expect(after).toBe(`${lines.join('\n').replaceAll('[ ]', '[x]')}\n`);
    expect(await readdir(join(sampleDir(), '01_Master Plan'))).not.toContain(
      '01_Checklist.md.lock',
    );
  });

  it('writes through a symbolic link inside the plan, and keeps it a link', async () => {
    const log = join(sampleDir(), 'Reports', '01_Master_Log.md');
    const real = join(sampleDir(), 'Reports', 'real-log.md');
    await cp(log, real);
    await rm(log);
    await symlink('real-log.md', log);
    const before = await readFile(real, 'utf8');
    expect((await cli(work, 'log', 'Sample', 'Coder started')).code).toBe(0);
    expect((await lstat(log)).isSymbolicLink()).toBe(true);
    expect(await readlink(log)).toBe('real-log.md');
    const after = await readFile(real, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/^\r\n- .*Coder started.*\r\n$/);
  });

  it('refuses to write through a symbolic link that leaves the plan directory', async () => {
    const outside = join(work, 'outside.md');
    await cp(checklist(), outside);
    await rm(checklist());
    await symlink(outside, checklist());
    const before = await readFile(outside);
    const run = await cli(work, 'mark', 'Sample', '1.2', 'done');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'a symbolic link out of the plan directory; coder-loop will not write through it.',
    );
    expect((await readFile(outside)).equals(before)).toBe(true);
    expect((await lstat(checklist())).isSymbolicLink()).toBe(true);
  });

  it("keeps a checklist's mode", async () => {
    await chmod(checklist(), 0o640);
    expect((await cli(work, 'mark', 'Sample', '1.2', 'done')).code).toBe(0);
    expect((await stat(checklist())).mode & 0o777).toBe(0o640);
    await chmod(checklist(), 0o444);
    const readOnly = await cli(work, 'mark', 'Sample', '1.2', 'todo');
    expect((await stat(checklist())).mode & 0o777).toBe(0o444);
    // root may write a read-only file; anyone else gets "permission denied", and no stack.
    if (process.getuid?.() !== 0) {
      expect(readOnly).toMatchObject({ code: 1 });
      expect(readOnly.stderr).toBe(
        'coder-loop mark: docs/plans/Sample/01_Master Plan/01_Checklist.md: permission denied\n',
      );
    }
  });

  it('turns file-system errors into "path: problem" and exit 1, without a stack', async () => {
    const log = join(sampleDir(), 'Reports', '01_Master_Log.md');
    await rm(log);
    await mkdir(log);
    const isDir = await cli(work, 'log', 'Sample', 'x');
    expect(isDir).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop log: docs/plans/Sample/Reports/01_Master_Log.md: is a directory, not a file\n',
    });
    const long = 'n'.repeat(300);
    const tooLong = await cli(work, 'lint', '--dir', long);
    expect(tooLong).toEqual({
      code: 1,
      stdout: '',
      stderr: `coder-loop lint: ${long}: the name is too long for the file system\n`,
    });
    await writeFile(join(work, 'file'), '');
    const notDir = await cli(work, 'lint', '--dir', 'file/plans');
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toBe(
      'coder-loop lint: file/plans: a part of the path is not a directory\n',
    );
  });

  it('resolves an absolute --dir instead of joining it under the current directory', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'coder-loop-abs-'));
    try {
      const run = await cli(work, 'init', 'Abs', '--dir', elsewhere);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Created ${elsewhere}/Abs:`);
      expect(existsSync(join(elsewhere, 'Abs', '00_context.md'))).toBe(true);
      expect(existsSync(join(work, elsewhere))).toBe(false);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('coder-loop CLI small answers (built binary)', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(await cli(work, '--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('says "did you mean" for a command and a plan, and lists the plans', async () => {
    const command = await cli(work, 'statsu');
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(
      /^coder-loop: unknown command "statsu". Did you mean "status"\?\n/,
    );
    const plan = await cli(work, 'status', 'Sampel');
    expect(plan).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop status: No plan is named "Sampel". Did you mean "Sample"? Plans here: Sample.\n',
    });
  });

  it('status --json prints JSON with the problems of an invalid plan', async () => {
    await cp(join(fixtures, 'Broken'), join(plans(), 'Broken'), { recursive: true });
    const run = await cli(work, 'status', 'Broken', '--json');
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { valid: boolean; problems: { line: number }[] };
    expect(json).toMatchObject({ plan: 'Broken', currentPhase: null, valid: false });
    expect(json.problems.map((p) => p.line)).toEqual([7, 8]);
  });

  it('lint prints problems sorted by file and line', async () => {
    await writeFile(checklist(), '## Phase 1\n## Phase 2\n- [ ]\n');
    const run = await cli(work, 'lint', 'Sample');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').map((l) => l.split(': ')[0])).toEqual([
      'docs/plans/Sample/01_Master Plan/01_Checklist.md:1',
      'docs/plans/Sample/01_Master Plan/01_Checklist.md:3',
      'docs/plans/Sample',
      '',
    ]);
  });

  it('refuses two plans with one slug (NFC and NFD "Café")', async () => {
    await cp(join(plans(), 'Sample'), join(plans(), 'Caf\u00e9'), { recursive: true });
    await cp(join(plans(), 'Sample'), join(plans(), 'Cafe\u0301'), { recursive: true });
    const run = await cli(work, 'lint');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `docs/plans/Caf\u00e9: error: "Caf\u00e9" and "Cafe\u0301" share the plan slug "cafe", so their lock branches would collide. Rename one of the plans.`,
    );
    expect(run.stdout).toContain('docs/plans/Sample: 0 error(s), 0 warning(s).');
  });
});

describe('coder-loop CLI on plans of other tools (spec-kit, Kiro, Task Master)', () => {
  const speckitTasks = 'specs/001-photo-albums/tasks.md';
  const kiroTasks = '.kiro/specs/user-auth/tasks.md';
  const tasksJson = '.taskmaster/tasks/tasks.json';

  /** The repository layout each tool writes, from the fixtures, with the files beside the tasks. */
  beforeEach(async () => {
    const kinds = join(repo, 'test', 'fixtures');
    await mkdir(join(work, 'specs', '001-photo-albums'), { recursive: true });
    await cp(join(kinds, 'speckit', '001-photo-albums', 'tasks.md'), join(work, speckitTasks));
    for (const f of ['spec.md', 'plan.md']) {
      await writeFile(join(work, 'specs', '001-photo-albums', f), `# ${f}\n`);
    }
    await mkdir(join(work, '.kiro', 'specs', 'user-auth'), { recursive: true });
    await cp(join(kinds, 'kiro', 'user-auth', 'tasks.md'), join(work, kiroTasks));
    for (const f of ['requirements.md', 'design.md']) {
      await writeFile(join(work, '.kiro', 'specs', 'user-auth', f), `# ${f}\n`);
    }
    await mkdir(join(work, '.taskmaster', 'tasks'), { recursive: true });
    await cp(join(kinds, 'taskmaster', 'tagged.json'), join(work, tasksJson));
  });

  it('plans lists every plan of every kind, with its tasks file and phases done', async () => {
    const run = await cli(work, 'plans');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'kiro        user-auth         .kiro/specs/user-auth/tasks.md                    (1/3 phases done)',
        'taskmaster  master            .taskmaster/tasks/tasks.json#master               (1/3 phases done)',
        'taskmaster  feature-x         .taskmaster/tasks/tasks.json#feature-x            (1/1 phases done, 1 of them set aside)',
        'coder       Sample            docs/plans/Sample/01_Master Plan/01_Checklist.md  (0/2 phases done)',
        'speckit     001-photo-albums  specs/001-photo-albums/tasks.md                   (1/4 phases done)',
        '',
      ].join('\n'),
    });
  });

  it('plans --json gives kind, name, path, phases and task counts', async () => {
    const run = await cli(work, 'plans', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        name: 'user-auth',
        kind: 'kiro',
        path: kiroTasks,
        phases: { done: 1, total: 3 },
        tasks: { done: 1, doing: 1, open: 4, setAside: 0 },
      },
      {
        name: 'master',
        kind: 'taskmaster',
        path: tasksJson,
        tag: 'master',
        phases: { done: 1, total: 3 },
        tasks: { done: 1, doing: 0, open: 3, setAside: 0 },
      },
      {
        name: 'feature-x',
        kind: 'taskmaster',
        path: tasksJson,
        tag: 'feature-x',
        phases: { done: 1, total: 1 },
        tasks: { done: 0, doing: 0, open: 0, setAside: 1 },
      },
      {
        name: 'Sample',
        kind: 'coder',
        path: 'docs/plans/Sample/01_Master Plan/01_Checklist.md',
        phases: { done: 0, total: 2 },
        tasks: { done: 2, doing: 0, open: 3, setAside: 0 },
      },
      {
        name: '001-photo-albums',
        kind: 'speckit',
        path: speckitTasks,
        phases: { done: 1, total: 4 },
        tasks: { done: 3, doing: 0, open: 6, setAside: 0 },
      },
    ]);
  });

  it('plans names both paths of two plans with one name; status asks for the path', async () => {
    await mkdir(join(work, '.kiro', 'specs', '001-photo-albums'), { recursive: true });
    await cp(join(work, kiroTasks), join(work, '.kiro/specs/001-photo-albums/tasks.md'));
    const run = await cli(work, 'plans');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '.kiro/specs/001-photo-albums/tasks.md: warning: Two plans are named "001-photo-albums": .kiro/specs/001-photo-albums/tasks.md and specs/001-photo-albums/tasks.md. Name the plan by the path of its tasks file.',
    );
    const status = await cli(work, 'status', '001-photo-albums');
    expect(status).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop status: Two plans are named "001-photo-albums": .kiro/specs/001-photo-albums/tasks.md and specs/001-photo-albums/tasks.md. Name one by the path of its tasks file.\n',
    });
    const byPath = await cli(work, 'status', speckitTasks);
    expect(byPath.code).toBe(0);
    expect(byPath.stdout.split('\n')[0]).toBe(
      '001-photo-albums (spec-kit, specs/001-photo-albums/tasks.md): current phase 2',
    );
  });

  it('status reads a spec-kit plan by name: phases in number order, tasks done and open', async () => {
    const run = await cli(work, 'status', '001-photo-albums');
    expect(run).toEqual({
      code: 0,
      // The lookalike line lint names is named on status too: never dropped silently.
      stderr:
        'specs/001-photo-albums/tasks.md:58: warning: The box under "## Phase N: Polish & Cross-Cutting Concerns" (line 60) is not read as a task: "N" is no phase number (spec-kit\'s template leaves it for you to fill in). Number the phase to run it: "## Phase 4: Polish & Cross-Cutting Concerns".\n',
      stdout: [
        '001-photo-albums (spec-kit, specs/001-photo-albums/tasks.md): current phase 2',
        'Tasks: 3 done, 0 in progress, 6 open',
        'Phase 1: Setup (Shared Infrastructure) (3/3 done)',
        '  [x] T001 Create project structure per implementation plan',
        '  [x] T002 Initialize TypeScript project with Vite dependencies',
        '  [x] T003 [P] Configure linting and formatting tools',
        'Phase 2: Foundational (Blocking Prerequisites) (0/2 done) ← current',
        '  [ ] T004 Setup database schema and migrations framework',
        '  [ ] T005 [P] Implement authentication/authorization framework',
        'Phase 3: User Story 1 - Organise photos in albums (Priority: P1) 🎯 MVP (0/3 done)',
        '  [ ] T006 [P] [US1] Contract test for POST /albums in tests/contract/test_albums.ts',
        '  [ ] T007 [P] [US1] Create Album model in src/models/album.ts',
        '  [ ] T008 [US1] Implement AlbumService in src/services/album.ts (depends on T007)',
        'Phase 3.1: Review fixes (0/1 done)',
        '  [ ] T009 [US1] Address review feedback on album ordering',
        '',
      ].join('\n'),
    });
  });

  it('status reads a Kiro plan by the path of its tasks file: in progress and optional tasks', async () => {
    const run = await cli(work, 'status', `./${kiroTasks}`);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'user-auth (Kiro, .kiro/specs/user-auth/tasks.md): current phase 2',
        'Tasks: 1 done, 1 in progress, 4 open',
        'Phase 1: Set up project structure and core interfaces (1/1 done)',
        '  [x] 1. Set up project structure and core interfaces',
        'Phase 2: Implement data models and validation (0/2 done, 1 optional) ← current',
        '  [~] 2.1 Create core data model interfaces and types',
        '  [ ] 2.2 Implement User model with validation',
        '  [ ] 2.3 Write unit tests for User model (optional)',
        'Phase 3: Create storage mechanism (0/2 done)',
        '  [ ] 3.1 Implement database connection utilities',
        '  [ ] 3.2 Implement repository pattern for data access',
        '',
      ].join('\n'),
    });
  });

  it('status reads a Task Master tag by name, and by path#tag, with --json', async () => {
    const run = await cli(work, 'status', 'feature-x');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'feature-x (Task Master, .taskmaster/tasks/tasks.json#feature-x): complete',
        'Tasks: 0 done, 0 in progress, 0 open, 1 set aside',
        'Phase 1: Spike (0/1 done)',
        '  [-] 1  Spike (deferred)',
        '',
      ].join('\n'),
    });
    const json = await cli(work, 'status', `${tasksJson}#master`, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      plan: 'master',
      kind: 'taskmaster',
      path: tasksJson,
      tag: 'master',
      currentPhase: '2',
      phases: [
        {
          number: '1',
          name: 'Initialize Repo',
          tasks: [{ id: '1', state: 'done', text: 'Initialize Repo' }],
        },
        {
          number: '2',
          name: 'Implement GitHub OAuth',
          tasks: [
            { id: '2.1', state: 'todo', text: 'Configure OAuth' },
            { id: '2.2', state: 'todo', text: 'Handle callback' },
          ],
        },
        {
          number: '3',
          name: 'Add dashboard',
          tasks: [{ id: '3', state: 'todo', text: 'Add dashboard' }],
        },
      ],
    });
    const ambiguous = await cli(work, 'status', tasksJson);
    expect(ambiguous).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop status: .taskmaster/tasks/tasks.json holds the tags master, feature-x; name one as .taskmaster/tasks/tasks.json#<tag>.\n',
    });
    // Task Master's current tag (state.json, what its own commands take): named with the tags.
    const state = join(work, '.taskmaster', 'state.json');
    await writeFile(state, '{\n  "currentTag": "feature-x"\n}\n');
    try {
      expect((await cli(work, 'status', tasksJson)).stderr).toBe(
        "coder-loop status: .taskmaster/tasks/tasks.json holds the tags master, feature-x; name one as .taskmaster/tasks/tasks.json#<tag>. Task Master's current tag (.taskmaster/state.json) is feature-x: .taskmaster/tasks/tasks.json#feature-x.\n",
      );
    } finally {
      await rm(state);
    }
  });

  it('status without a name reads the only plan there is, of any kind, or asks for one', async () => {
    const several = await cli(work, 'status');
    expect(several).toEqual({
      code: 2,
      stdout: '',
      stderr: [
        'coder-loop status: name a plan: Sample, .kiro/specs/user-auth/tasks.md, .taskmaster/tasks/tasks.json#master, .taskmaster/tasks/tasks.json#feature-x, specs/001-photo-albums/tasks.md',
        'Usage: coder-loop status [PlanName | path of its tasks file or folder] [--json] [--dir <plansDir>]',
        '',
      ].join('\n'),
    });
    for (const dir of ['docs', '.kiro', '.taskmaster']) {
      await rm(join(work, dir), { recursive: true });
    }
    const only = await cli(work, 'status');
    expect(only.code).toBe(0);
    expect(only.stdout.split('\n')[0]).toBe(
      '001-photo-albums (spec-kit, specs/001-photo-albums/tasks.md): current phase 2',
    );
  });

  it('reads a legacy tasks/tasks.json (CRLF, no final newline) as the tag master, by its path', async () => {
    await mkdir(join(work, 'tasks'));
    await cp(
      join(repo, 'test', 'fixtures', 'taskmaster', 'legacy-crlf-no-final-newline.json'),
      join(work, 'tasks', 'tasks.json'),
    );
    const byName = await cli(work, 'status', 'master');
    expect(byName).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop status: Two plans are named "master": .taskmaster/tasks/tasks.json and tasks/tasks.json. Name one by the path of its tasks file.\n',
    });
    const byPath = await cli(work, 'status', 'tasks/tasks.json');
    expect(byPath).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'master (Task Master, tasks/tasks.json#master): current phase 1',
        'Tasks: 0 done, 0 in progress, 1 open',
        'Phase 1: Only (0/1 done) ← current',
        '  [ ] 1  Only',
        '',
      ].join('\n'),
    });
  });

  it('lint runs every kind: context check and lookalike lines with file:line', async () => {
    const run = await cli(work, 'lint');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '.kiro/specs/user-auth/tasks.md: 0 error(s), 0 warning(s).',
        '.taskmaster/tasks/tasks.json: 0 error(s), 0 warning(s).',
        'specs/001-photo-albums/tasks.md:58: warning: The box under "## Phase N: Polish & Cross-Cutting Concerns" (line 60) is not read as a task: "N" is no phase number (spec-kit\'s template leaves it for you to fill in). Number the phase to run it: "## Phase 4: Polish & Cross-Cutting Concerns".',
        'specs/001-photo-albums/tasks.md: 0 error(s), 1 warning(s).',
        'docs/plans/Sample: 0 error(s), 0 warning(s).',
        '',
      ].join('\n'),
    });
  });

  it('lint and status name lookalike lines in every kind, with file:line and a fix', async () => {
    await writeFile(
      join(work, kiroTasks),
      (await readFile(join(work, kiroTasks), 'utf8')) +
        '\n- [?] 9. Unknown mark\n-[ ] 9. No space\n',
    );
    const kiroLint = await cli(work, 'lint', 'user-auth');
    expect(kiroLint.code).toBe(0);
    const lines = (await readFile(join(work, kiroTasks), 'utf8')).split('\n').length;
    const kiroWarnings = [
      `${kiroTasks}:${lines - 2}: warning: "- [?] 9. Unknown mark" looks like a task but is not read as one: "[?]" is not a box this plan reads (it reads [space], [tab], [-], [~], [x], [X]). Write "[ ]" for a task to do, "[x]" for one done.`,
      `${kiroTasks}:${lines - 1}: warning: "-[ ] 9. No space" looks like a task but is not read as one: the list marker needs a space before the box. Write "- [ ] …".`,
    ];
    expect(kiroLint.stdout).toBe(
      [...kiroWarnings, `${kiroTasks}: 0 error(s), 2 warning(s).`, ''].join('\n'),
    );
    const kiroStatus = await cli(work, 'status', 'user-auth');
    expect(kiroStatus.code).toBe(0);
    expect(kiroStatus.stderr).toBe(kiroWarnings.map((w) => `${w}\n`).join(''));
    const kiroJson = JSON.parse((await cli(work, 'status', 'user-auth', '--json')).stdout) as {
      warnings: { line: number }[];
    };
    expect(kiroJson.warnings.map((w) => w.line)).toEqual([lines - 2, lines - 1]);

    // Task Master: a subtask whose status Task Master does not use is an error with its line.
    const json = await readFile(join(work, tasksJson), 'utf8');
    const at = json.indexOf('"status": "pending"', json.indexOf('"subtasks": [\n'));
    await writeFile(
      join(work, tasksJson),
      json.slice(0, at) + '"status": "wip"    ' + json.slice(at + 19),
    );
    const line = json.slice(0, at).split('\n').length;
    const tmLint = await cli(work, 'lint', `${tasksJson}#master`);
    expect(tmLint.code).toBe(1);
    expect(tmLint.stderr).toBe(
      `${tasksJson}:${line}: error: task 2.1 has status "wip", which Task Master does not use. Use one of pending, in-progress, done, review, deferred, cancelled, blocked.\n`,
    );
    const tmStatus = await cli(work, 'status', 'master');
    expect(tmStatus.code).toBe(1);
    expect(tmStatus.stderr).toContain(`${tasksJson}:${line}: error: task 2.1 has status "wip"`);
  });

  it("lint fails a plan whose kind's context is missing, and a tasks.json that is not JSON", async () => {
    await rm(join(work, 'specs', '001-photo-albums', 'plan.md'));
    const speckit = await cli(work, 'lint', '001-photo-albums');
    expect(speckit.code).toBe(1);
    expect(speckit.stderr).toBe(
      "specs/001-photo-albums/tasks.md: error: spec-kit's plan is missing: specs/001-photo-albums/plan.md. Write plan.md beside tasks.md.\n",
    );
    expect(speckit.stdout).toContain('specs/001-photo-albums/tasks.md: 1 error(s), 1 warning(s).');

    await rm(join(work, '.kiro', 'specs', 'user-auth', 'design.md'));
    const kiro = await cli(work, 'lint', kiroTasks);
    expect(kiro).toEqual({
      code: 1,
      stdout: '.kiro/specs/user-auth/tasks.md: 1 error(s), 0 warning(s).\n',
      stderr:
        ".kiro/specs/user-auth/tasks.md: error: Kiro's design is missing: .kiro/specs/user-auth/design.md. Write design.md beside tasks.md.\n",
    });

    await writeFile(join(work, tasksJson), '{\n  "master": {\n    "tasks": [\n  }\n}\n');
    const broken = await cli(work, 'lint', `${tasksJson}`);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^\.taskmaster\/tasks\/tasks\.json:4: error: not valid JSON: /);
  });

  it('a tasks.json that is not UTF-8 is listed as invalid and stops no other plan', async () => {
    await writeFile(
      join(work, tasksJson),
      Buffer.from('{"master":{"tasks":[{"id":1,"title":"\xff","status":"pending"}]}}', 'latin1'),
    );
    const plans = await cli(work, 'plans');
    expect(plans.code).toBe(0);
    expect(plans.stdout).toMatch(
      /\ntaskmaster {2}\.taskmaster\/tasks\/tasks\.json {2,}\.taskmaster\/tasks\/tasks\.json {2,}\(invalid: run coder-loop lint "\.taskmaster\/tasks\/tasks\.json"\)\n/,
    );
    expect(plans.stdout).toContain(
      '.taskmaster/tasks/tasks.json:1: error: not valid UTF-8: byte 0xFF stands alone, as in Latin-1 or Windows-1252. Save the file as UTF-8.\n',
    );
    const status = await cli(work, 'status', 'user-auth');
    expect(status.code).toBe(0);
    const lint = await cli(work, 'lint', tasksJson);
    expect(lint.code).toBe(1);
    expect(lint.stderr).toContain('.taskmaster/tasks/tasks.json:1: error: not valid UTF-8');
  });
});

describe('coder-loop CLI on an OpenSpec change', () => {
  const change = 'openspec/changes/add-profile-export';
  const tasks = `${change}/tasks.md`;
  const original = readFileSync(
    join(repo, 'test', 'fixtures', 'openspec', 'add-profile-export', 'tasks.md'),
    'utf8',
  );

  beforeEach(async () => {
    await mkdir(join(work, 'openspec', 'changes', 'archive', '2025-01-11-done'), {
      recursive: true,
    });
    await cp(join(repo, 'test', 'fixtures', 'openspec', 'add-profile-export'), join(work, change), {
      recursive: true,
    });
    // An archived change is complete: never a plan.
    await writeFile(
      join(work, 'openspec', 'changes', 'archive', '2025-01-11-done', 'tasks.md'),
      '## 1. Old\n\n- [ ] 1.1 Never started\n',
    );
  });

  it('plans lists the active change, not the archived one', async () => {
    const run = await cli(work, 'plans', '--json');
    expect(run.code).toBe(0);
    const listed = (JSON.parse(run.stdout) as { kind: string }[]).filter((p) => p.kind !== 'coder');
    expect(listed).toEqual([
      {
        name: 'add-profile-export',
        kind: 'openspec',
        path: tasks,
        phases: { done: 0, total: 3 },
        tasks: { doing: 0, done: 1, open: 5, setAside: 0 },
      },
    ]);
  });

  it('status reads the groups as phases, the current one first with work left', async () => {
    const run = await cli(work, 'status', 'add-profile-export');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `add-profile-export (OpenSpec, ${tasks}): current phase 1`,
        'Tasks: 1 done, 0 in progress, 5 open',
        'Phase 1: Setup (1/2 done) ← current',
        '  [x] 1.1 Create `src/export/index.ts` and verify the module loads',
        '  [ ] 1.2 Add the `csv-stringify` dependency and verify `npm ci` succeeds',
        'Phase 2: Core Implementation (0/3 done)',
        '  [ ] 2.1 Implement `exportProfile()` in `src/export/profile.ts` and verify the export test passes',
        '  [ ] 2.2 Add CSV quoting utilities and verify unit tests cover quotes and delimiters',
        '  [ ] 2.2.1 Quote fields that hold the delimiter',
        'Phase 3: Documentation (0/1 done)',
        '  [ ] 3.1 Document `GET /profile/export` in `docs/api.md`',
        '',
      ].join('\n'),
    });
  });

  it('mark writes [x], one byte; doing is refused (OpenSpec has no in-progress mark), nothing written', async () => {
    const done = await cli(work, 'mark', 'add-profile-export', '1.2', 'done');
    expect(done.code).toBe(0);
    expect(readFileSync(join(work, tasks), 'utf8')).toBe(
      original.replace('- [ ] 1.2', '- [x] 1.2'),
    );
    const doing = await cli(work, 'mark', 'add-profile-export', '--phase', '2', 'doing');
    expect(doing.code).toBe(1);
    expect(doing.stderr).toContain(
      'add-profile-export is an OpenSpec plan: OpenSpec has no in-progress mark',
    );
    expect(readFileSync(join(work, tasks), 'utf8')).toBe(
      original.replace('- [ ] 1.2', '- [x] 1.2'),
    );
  });
});
