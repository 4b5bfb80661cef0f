import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { repoRoot } from '../paths.js';
import { bin, cli } from '../helpers/cli.js';

/**
 * The CLI in the repository it runs in, as a new user meets it: it reads `.github/coder.yml` as
 * the loop does, takes a plan of any kind by name, path or folder, reads and writes every kind
 * with the loop's own functions (the kind's own marks, the sidecar's log and report), and gives
 * the loop's answer about what it would refuse.
 */
const fixtures = join(repoRoot, 'test', 'fixtures');

const speckitTasks = 'specs/001-photo-albums/tasks.md';
const kiroTasks = '.kiro/specs/user-auth/tasks.md';
const tasksJson = '.taskmaster/tasks/tasks.json';

let work: string;
const at = (path: string) => join(work, path);

beforeAll(() => {
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run "npm run build" first (npm test does).`);
});

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-repo-'));
  await mkdir(at('specs/001-photo-albums'), { recursive: true });
  await cp(join(fixtures, 'speckit', '001-photo-albums', 'tasks.md'), at(speckitTasks));
  for (const f of ['spec.md', 'plan.md']) await writeFile(at(`specs/001-photo-albums/${f}`), '#\n');
  await mkdir(at('.kiro/specs/user-auth'), { recursive: true });
  await cp(join(fixtures, 'kiro', 'user-auth', 'tasks.md'), at(kiroTasks));
  for (const f of ['requirements.md', 'design.md'])
    await writeFile(at(`.kiro/specs/user-auth/${f}`), '#\n');
  await mkdir(at('.taskmaster/tasks'), { recursive: true });
  await cp(join(fixtures, 'taskmaster', 'tagged.json'), at(tasksJson));
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

jest.setTimeout(120_000);

/** `source` with the one character at `offset` replaced. */
function withByte(source: string, offset: number, byte: string): string {
  return source.slice(0, offset) + byte + source.slice(offset + 1);
}

/** The offset of the mark inside the box of the line that starts with `lineStart`. */
function markOf(source: string, lineStart: string): number {
  const line = source.indexOf(`\n${lineStart}`);
  if (line === -1) throw new Error(`no line "${lineStart}"`);
  return source.indexOf('[', line) + 1;
}

describe('the CLI reads .github/coder.yml as the loop does', () => {
  it('takes plansDir and the plans globs from the config', async () => {
    await mkdir(at('.github'));
    await writeFile(
      at('.github/coder.yml'),
      'plansDir: plans\nplans:\n  - specs/*/tasks.md\n  - plans/*/01_Master Plan/01_Checklist.md\n',
    );
    await cp(join(fixtures, 'plans', 'Sample'), at('plans/Sample'), { recursive: true });
    const run = await cli(work, 'plans');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'coder    Sample            plans/Sample/01_Master Plan/01_Checklist.md  (0/2 phases done)',
        'speckit  001-photo-albums  specs/001-photo-albums/tasks.md              (1/4 phases done)',
        '',
      ].join('\n'),
    });
    expect((await cli(work, 'status', 'Sample')).stdout.split('\n')[0]).toBe(
      'Sample: current phase 1',
    );
    // Outside the globs, the Kiro plan is no plan for the loop, nor for the CLI.
    expect((await cli(work, 'status', 'user-auth')).code).toBe(1);
  });

  it('lint exits 1 with every config problem, file:line, as the loop replies', async () => {
    await mkdir(at('.github'));
    await writeFile(at('.github/coder.yml'), 'maxRetries: 0\nquick:\n  maxFile: 2\n');
    const run = await cli(work, 'lint');
    expect(run).toEqual({
      code: 1,
      stdout: '.github/coder.yml: 2 error(s), 0 warning(s).\n',
      stderr: [
        '.github/coder.yml:1: error: `maxRetries`: Too small: expected number to be >=1. See docs/configuration.md for every key and its type.',
        '.github/coder.yml:3: error: `quick` has unknown key `maxFile`. Did you mean `maxFiles`? See docs/configuration.md for every key and its type.',
        '',
      ].join('\n'),
    });
    const status = await cli(work, 'status', 'user-auth');
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('coder-loop status: .github/coder.yml is invalid');
  });
});

describe('every command takes a plan of any kind by name, path or folder', () => {
  it('by folder, by tasks file, with a did-you-mean for typos of any kind', async () => {
    const header = '001-photo-albums (spec-kit, specs/001-photo-albums/tasks.md): current phase 2';
    for (const ref of ['specs/001-photo-albums', './specs/001-photo-albums/', speckitTasks]) {
      const run = await cli(work, 'status', ref);
      expect([run.code, run.stdout.split('\n')[0]]).toEqual([0, header]);
    }
    const tag = await cli(work, 'status', `${tasksJson}#feature-x`);
    expect(tag.stdout.split('\n')[0]).toBe(
      'feature-x (Task Master, .taskmaster/tasks/tasks.json#feature-x): complete',
    );
    const plans =
      'Plans here: .kiro/specs/user-auth/tasks.md, .taskmaster/tasks/tasks.json#master, .taskmaster/tasks/tasks.json#feature-x, specs/001-photo-albums/tasks.md.';
    expect(await cli(work, 'status', '001-photo-albms')).toEqual({
      code: 1,
      stdout: '',
      stderr: `coder-loop status: No plan is named "001-photo-albms". Did you mean "001-photo-albums"? ${plans}\n`,
    });
    expect((await cli(work, 'status', '001-photo')).stderr).toBe(
      `coder-loop status: No plan is named "001-photo". Did you mean "001-photo-albums"? ${plans}\n`,
    );
    expect((await cli(work, 'mark', 'user-aut', '2.2', 'done')).stderr).toContain(
      'Did you mean "user-auth"?',
    );
    expect((await cli(work, 'lint', 'specs/001-photo-album')).stderr).toContain(
      'Did you mean "specs/001-photo-albums"?',
    );
  });
});

describe('lint and status give the loop’s answer', () => {
  it('a tasks file that is not UTF-8 is that plan’s problem, with its line; lint goes on', async () => {
    const source = await readFile(at(speckitTasks));
    const third = source.indexOf('\n', source.indexOf('\n') + 1) + 1;
    await writeFile(
      at(speckitTasks),
      Buffer.concat([source.subarray(0, third), Buffer.from([0xff]), source.subarray(third)]),
    );
    const run = await cli(work, 'lint');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'specs/001-photo-albums/tasks.md:3: error: not valid UTF-8: byte 0xFF stands alone, as in Latin-1 or Windows-1252. Save the file as UTF-8.\n',
    );
    expect(run.stdout).toBe(
      [
        '.kiro/specs/user-auth/tasks.md: 0 error(s), 0 warning(s).',
        '.taskmaster/tasks/tasks.json: 0 error(s), 0 warning(s).',
        'specs/001-photo-albums/tasks.md: 1 error(s), 0 warning(s).',
        '',
      ].join('\n'),
    );
  });

  it('status names what the loop would refuse: a missing plan.md, a plan with no task read', async () => {
    await rm(at('specs/001-photo-albums/plan.md'));
    const run = await cli(work, 'status', '001-photo-albums');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "specs/001-photo-albums/tasks.md: error: spec-kit's plan is missing: specs/001-photo-albums/plan.md. Write plan.md beside tasks.md.\n",
    );
    expect(run.stdout.split('\n')[0]).toBe(
      '001-photo-albums (spec-kit, specs/001-photo-albums/tasks.md): invalid: the loop will not run this plan until the errors above are fixed',
    );
    const json = JSON.parse((await cli(work, 'status', '001-photo-albums', '--json')).stdout) as {
      currentPhase: unknown;
      valid: boolean;
    };
    expect([json.currentPhase, json.valid]).toEqual([null, false]);
    // plans --json still counts what it read, and says the plan is invalid.
    const listed = (
      JSON.parse((await cli(work, 'plans', '--json')).stdout) as Record<string, unknown>[]
    ).find((p) => p.name === '001-photo-albums');
    expect(listed).toMatchObject({
      phases: { done: 1, total: 4 },
      tasks: { done: 3, doing: 0, open: 6, setAside: 0 },
      valid: false,
    });

    // Tasks written as bold bullets: no task is read, and that is never "complete".
    await writeFile(at('specs/001-photo-albums/plan.md'), '#\n');
    await writeFile(
      at(speckitTasks),
      '# Tasks\n\n## Phase 1: Setup\n\n- **T001 [US1]**: Create the project\n',
    );
    const none = await cli(work, 'status', '001-photo-albums');
    expect(none.code).toBe(1);
    expect(none.stdout).not.toContain('complete');
    expect(none.stderr).toContain(`${speckitTasks}:1: error: no phase with a task was found.`);
    expect((await cli(work, 'lint', '001-photo-albums')).code).toBe(1);
  });

  it('status --json keeps the notes the text shows', async () => {
    const kiro = JSON.parse((await cli(work, 'status', 'user-auth', '--json')).stdout) as {
      phases: { tasks: { id: string; note?: string }[] }[];
    };
    expect(kiro.phases.flatMap((p) => p.tasks).filter((t) => t.note)).toEqual([
      { id: '2.3', state: 'todo', text: '2.3 Write unit tests for User model', note: 'optional' },
    ]);
    const tm = JSON.parse((await cli(work, 'status', 'feature-x', '--json')).stdout) as {
      phases: { tasks: unknown[] }[];
    };
    expect(tm.phases[0]!.tasks).toEqual([
      { id: '1', state: 'set-aside', text: 'Spike', note: 'deferred' },
    ]);
  });
});

describe('mark, log and report work on every kind, in its own marks and the sidecar', () => {
  it('spec-kit: one task is one byte [X]; doing is refused (no such mark); log and report in the sidecar', async () => {
    const before = await readFile(at(speckitTasks), 'utf8');
    const run = await cli(work, 'mark', '001-photo-albums', 'T004', 'done');
    expect(run).toEqual({ code: 0, stderr: '', stdout: 'T004: todo → done\n' });
    expect(await readFile(at(speckitTasks), 'utf8')).toBe(
      withByte(before, markOf(before, '- [ ] T004'), 'X'),
    );
    const doing = await cli(work, 'mark', '001-photo-albums', 'T005', 'doing');
    expect(doing.code).toBe(1);
    expect(doing.stderr).toContain('spec-kit has no in-progress mark');

    const log = await cli(work, 'log', 'specs/001-photo-albums', 'Paired on T004', '--phase', '2');
    expect(log).toEqual({
      code: 0,
      stderr: '',
      stdout: 'Logged to specs/001-photo-albums/coder-loop/Master_Log.md\n',
    });
    const text = await readFile(at('specs/001-photo-albums/coder-loop/Master_Log.md'), 'utf8');
    expect(text).toMatch(/^# Master Log\n\n.*Paired on T004.*001-photo-albums.*Phase 2.*tester/s);

    const report = await cli(work, 'report', '001-photo-albums', '--phase', '3.1');
    expect(report.stdout).toBe(
      'Wrote specs/001-photo-albums/coder-loop/Reports/3.1_Review_fixes.md\n',
    );
    const written = await readFile(
      at('specs/001-photo-albums/coder-loop/Reports/3.1_Review_fixes.md'),
      'utf8',
    );
    expect(written).toContain('- [ ] T009 [US1] Address review feedback on album ordering\n');
  });

  it('Kiro: --phase doing and done write the marks the loop writes ([-], [x], the optional task left alone)', async () => {
    const before = await readFile(at(kiroTasks), 'utf8');
    const doing = await cli(work, 'mark', 'user-auth', '--phase', '2', 'doing');
    // The phase's own line flips too, and is said as its tasks are.
    expect(doing).toEqual({
      code: 0,
      stderr: '',
      stdout: "2. (the phase's own line): [ ] → [-]\n2.2: todo → doing\n",
    });
    let expected = withByte(before, markOf(before, '- [ ] 2. '), '-');
    expected = withByte(expected, markOf(expected, '- [ ] 2.2'), '-');
    expect(await readFile(at(kiroTasks), 'utf8')).toBe(expected);

    const done = await cli(work, 'mark', kiroTasks, '--phase', '2', 'done');
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(
      "2. (the phase's own line): [-] → [x]\n2.1: doing → done\n2.2: doing → done\n",
    );
    for (const line of ['- [-] 2. ', '- [-] 2.1', '- [-] 2.2'])
      expected = withByte(expected, markOf(expected, line), 'x');
    expect(await readFile(at(kiroTasks), 'utf8')).toBe(expected);
    expect(expected).toContain('- [ ]* 2.3');
    expect((await cli(work, 'status', 'user-auth')).stdout.split('\n')[0]).toBe(
      'user-auth (Kiro, .kiro/specs/user-auth/tasks.md): current phase 3',
    );
    const task = await cli(work, 'mark', 'user-auth', '2.2', 'todo');
    expect(task.stdout).toBe('2.2: done → todo\n');
    expect(await readFile(at(kiroTasks), 'utf8')).toBe(
      withByte(expected, markOf(expected, '- [x] 2.2'), ' '),
    );

    const report = await cli(work, 'report', 'user-auth', '--phase', '2');
    expect(report.stdout).toBe(
      'Wrote .kiro/specs/user-auth/coder-loop/Reports/02_Implement_data_models_and_validation.md\n',
    );

    // A top-level task with no sub-task is the phase and its one task: one box, said once.
    const lone = await cli(work, 'mark', 'user-auth', '--phase', '1', 'todo');
    expect(lone).toEqual({ code: 0, stderr: '', stdout: '1: done → todo\n' });
  });

  it('mark by a token the writer put first that is no id (T01, **T-02**) names the id the task has', async () => {
    const path = 'specs/002-short-ids/tasks.md';
    await mkdir(at('specs/002-short-ids'), { recursive: true });
    const source =
      '# Tasks\n\n## Phase 1: Setup\n\n- [ ] T01 [US1] a\n- [ ] **T-02** b\n- [ ] T020 c\n';
    await writeFile(at(path), source);
    expect(await cli(work, 'mark', path, 'T01', 'done')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'coder-loop mark: 002-short-ids: there is no task T01. The task that starts "T01" has the id 1.1 (line 5): mark it by that id.\n',
    });
    expect((await cli(work, 'mark', path, 'T-02', 'done')).stderr).toContain(
      'The task that starts "T-02" has the id 1.2 (line 6)',
    );
    // T02 starts no task (T020 is another word): no hint.
    expect((await cli(work, 'mark', path, 'T02', 'done')).stderr).toBe(
      'coder-loop mark: 002-short-ids: there is no task T02.\n',
    );
    expect(await readFile(at(path), 'utf8')).toBe(source);
  });

  it('OpenSpec: a change with no "## N." group is one group, and its first box is said once', async () => {
    const change = 'openspec/changes/add-export';
    await mkdir(at(change), { recursive: true });
    const source = '# Tasks\n\n- [ ] 1.1 Write the exporter\n- [ ] 1.2 Test it\n';
    await writeFile(at(`${change}/tasks.md`), source);
    const run = await cli(work, 'mark', `${change}/tasks.md`, '--phase', '1', 'done');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: '1.1: todo → done\n1.2: todo → done\n',
    });
    expect(await readFile(at(`${change}/tasks.md`), 'utf8')).toBe(source.replaceAll('[ ]', '[x]'));
  });

  it('Task Master: one JSON string value per task, and the phase as the loop completes it', async () => {
    const before = await readFile(at(tasksJson), 'utf8');
    const pending = (from: number) => before.indexOf('"status": "pending"', from);
    const first = pending(before.indexOf('"title": "Configure OAuth"'));
    const run = await cli(work, 'mark', 'master', '2.1', 'done');
    expect(run).toEqual({ code: 0, stderr: '', stdout: '2.1: todo → done\n' });
    const one = `${before.slice(0, first)}"status": "done"${before.slice(first + 19)}`;
    expect(await readFile(at(tasksJson), 'utf8')).toBe(one);

    const phase = await cli(work, 'mark', `${tasksJson}#master`, '--phase', '2', 'done');
    // Task 2's own status is set with its subtasks (as Task Master's cascade does), and said.
    expect(phase).toEqual({
      code: 0,
      stderr: '',
      stdout: "2 (the task's own status): pending → done\n2.2: todo → done\n",
    });
    const after = await readFile(at(tasksJson), 'utf8');
    // Task 2 and its subtask 2.2 changed, each its status value only.
    expect(after.replaceAll('"status": "done"', '"status": "pending"')).toBe(
      before.replaceAll('"status": "done"', '"status": "pending"'),
    );
    expect(after.split('"status": "done"').length - one.split('"status": "done"').length).toBe(2);
    const status = await cli(work, 'status', 'master', '--json');
    expect((JSON.parse(status.stdout) as { currentPhase: string }).currentPhase).toBe('3');

    const log = await cli(work, 'log', 'master', 'hello', '--phase', '2');
    expect(log.stdout).toBe('Logged to .taskmaster/tasks/coder-loop/master/Master_Log.md\n');
  });
});
