import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inProcess } from '../helpers/cli.js';
import { scratchCheckouts } from '../helpers/checkout.js';
import { fixture } from '../helpers/kinds.js';

/**
 * The CLI on a BMAD v6 project (BMAD's own template): `plans`, `status`, `lint`, `mark` and
 * `spec` read sprint-status.yaml's stories and each story's tasks as the loop does, and `mark`
 * writes one box byte, the Status word or one YAML scalar.
 */
const checkout = scratchCheckouts('coder-loop-bmad-');
const run = promisify(execFile);

const IA = '_bmad-output/implementation-artifacts';
const SPRINT = `${IA}/sprint-status.yaml`;
const STORY = `${IA}/1-2-account-management.md`;
const DONE = `${IA}/1-1-user-authentication.md`;
const FILES = {
  [SPRINT]: fixture(`bmad/v6/${SPRINT}`),
  [STORY]: fixture(`bmad/v6/${STORY}`),
  [DONE]: fixture(`bmad/v6/${DONE}`),
};
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

describe('coder-loop CLI on a BMAD project', () => {
  it('plans lists the project, its stories as phases', async () => {
    const r = await inProcess(checkout(FILES), 'plans', '--json');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      {
        name: 'bmad',
        kind: 'bmad',
        path: SPRINT,
        phases: { done: 1, total: 5 },
        tasks: { doing: 0, done: 5, open: 6, setAside: 0 },
      },
    ]);
  });

  it('status: the stories in development_status order, the current one, its tasks nested', async () => {
    const r = await inProcess(checkout(FILES), 'status', 'bmad');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `bmad (BMAD, ${SPRINT}): current phase 1.2`,
      'Tasks: 5 done, 0 in progress, 6 open',
      'Phase 1.1: User Authentication (5/5 done)',
      '  [x] 1.1/1  Task 1 (AC: #1)',
      '    [x] 1.1/1.1  Subtask 1.1 Sign-in form',
      '  [x] 1.1/2  Task 2 (AC: #2)',
      '    [x] 1.1/2.1  Subtask 2.1 Refuse a wrong password',
      '  [x] 1.1/3  [AI-Review][Med] Rate-limit failed sign-ins [src/auth.ts:42]',
      'Phase 1.2: Account Management (0/6 done) ← current',
      '  [ ] 1.2/1  Task 1 (AC: #1)',
      '    [ ] 1.2/1.1  Subtask 1.1 Add the profile form',
      '    [ ] 1.2/1.2  Subtask 1.2 Save the display name',
      '  [ ] 1.2/2  Task 2 (AC: #2, #3)',
      '    [ ] 1.2/2.1  Subtask 2.1 Check the current password',
      '    [ ] 1.2/2.2  Subtask 2.2 Show the refusal message',
      // Stories without a file yet: no task to show.
      'Phase 1.3: plant data model (0/0 done)',
      'Phase 2.1: personality system (0/0 done)',
      'Phase 2.2: chat interface (0/0 done)',
    ]);
  });

  it('lint: a story file that disagrees with sprint-status.yaml is a warning with its line', async () => {
    const dir = checkout({
      ...FILES,
      [DONE]: FILES[DONE]!.replace(/^Status: done$/m, 'Status: review'),
    });
    const r = await inProcess(dir, 'lint', 'bmad');
    expect(r.code).toBe(0);
    expect(r.stderr + r.stdout).toContain(
      // Line 7: the story's front matter (baseline_commit) comes first.
      `${DONE}:7: warning: The story says "Status: review" but sprint-status.yaml says "1-1-user-authentication: done"`,
    );
  });

  it('mark a task: one byte of the story file; --phase done: its boxes, Status and sprint status', async () => {
    const dir = checkout(FILES);
    const one = await inProcess(dir, 'mark', 'bmad', '1.2/1.1', 'done');
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(read(dir, STORY)).toBe(
      FILES[STORY]!.replace('  - [ ] Subtask 1.1', '  - [x] Subtask 1.1'),
    );
    expect(read(dir, SPRINT)).toBe(FILES[SPRINT]);
    expect(one.stdout).toBe('1.2/1.1: todo → done');
    const phase = await inProcess(dir, 'mark', 'bmad', '--phase', '1.2', 'done');
    // The story's status in sprint-status.yaml, then each box the completion ticked.
    expect(phase.stdout.split('\n')).toEqual([
      '1-2-account-management: ready-for-dev → done',
      ...['1', '1.2', '2', '2.1', '2.2'].map((id) => `1.2/${id}: todo → done`),
    ]);
    expect(phase.stderr).toBe('');
    expect(phase.code).toBe(0);
    expect(read(dir, STORY)).toBe(
      FILES[STORY]!.replace('Status: ready-for-dev', 'Status: done').replaceAll('- [ ] ', '- [x] '),
    );
    expect(read(dir, SPRINT)).toBe(
      FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: done\n',
      ),
    );
  });

  it('mark --phase doing: the story in-progress in sprint-status.yaml, one scalar', async () => {
    const dir = checkout(FILES);
    const r = await inProcess(dir, 'mark', 'bmad', '--phase', '1.2', 'doing');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(read(dir, SPRINT)).toBe(
      FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: in-progress\n',
      ),
    );
    expect(read(dir, STORY)).toBe(FILES[STORY]);
  });

  it('mark --phase doing on a story with no file: refused with the reason and the fix, nothing written', async () => {
    const dir = checkout(FILES);
    const r = await inProcess(dir, 'mark', 'bmad', '--phase', '1.3', 'doing');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `Story 1-3-plant-data-model has no story file yet, so it cannot be started: run BMAD's create-story (bmad-create-story) first, which writes ${IA}/1-3-plant-data-model.md. Nothing was written.`,
    );
    expect(read(dir, SPRINT)).toBe(FILES[SPRINT]);
    const done = await inProcess(dir, 'mark', 'bmad', '--phase', '1.3', 'done');
    expect(done.code).toBe(1);
    expect(done.stderr).toContain('so it cannot be completed: run BMAD');
    expect(read(dir, SPRINT)).toBe(FILES[SPRINT]);
  });

  it('mark --phase on a story set aside (a status BMAD does not define): refused, nothing written', async () => {
    const sprint = FILES[SPRINT]!.replace(
      '1-3-plant-data-model: backlog',
      '1-3-plant-data-model: wont-do',
    );
    const dir = checkout({ ...FILES, [SPRINT]: sprint });
    const r = await inProcess(dir, 'mark', 'bmad', '--phase', '1.3', 'done');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Story 1-3-plant-data-model is "wont-do", a status BMAD does not define, so it is set aside and never marked.',
    );
    expect(read(dir, SPRINT)).toBe(sprint);
  });

  it('mark a task doing: its story in-progress in sprint-status.yaml (BMAD has no in-progress box)', async () => {
    const dir = checkout(FILES);
    const r = await inProcess(dir, 'mark', 'bmad', '1.2/2.1', 'doing');
    expect(r).toEqual({
      code: 0,
      stdout: '1-2-account-management: ready-for-dev → in-progress',
      stderr: '',
    });
    expect(read(dir, SPRINT)).toBe(
      FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: in-progress\n',
      ),
    );
    expect(read(dir, STORY)).toBe(FILES[STORY]);
    const again = await inProcess(dir, 'mark', 'bmad', '1.2/2.1', 'doing');
    expect(again.stdout).toBe('Nothing to change: already doing.');
  });

  it('spec: the current story’s tasks, traced in the working tree', async () => {
    const dir = checkout({ ...FILES, 'src/account.ts': 'export {};\n' });
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
    await git('init', '-q', '-b', 'main');
    await git('add', '.');
    await git('commit', '-q', '-m', 'start');
    const before = await inProcess(dir, 'spec', 'bmad');
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(
      'Passes Spec? for bmad phase 1.2, the working tree against HEAD:',
    );
    expect(before.stdout).toContain(
      '| `1.2/1` Task 1 \\(AC: \\#1\\) | ❌ missing | cites `1`, named by no changed test. |',
    );
    // A test that says which acceptance criteria it covers is their evidence.
    await writeFile(join(dir, 'src/account.ts'), 'export const account = {};\n');
    await mkdir(join(dir, 'test'), { recursive: true });
    await writeFile(
      join(dir, 'test/account.test.ts'),
      '// Acceptance criteria 1, 2 and 3\ntest("account", () => {});\n',
    );
    const after = await inProcess(dir, 'spec', 'bmad');
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(
      '| `1.2/1` Task 1 \\(AC: \\#1\\) | ✅ evidence | `test/account.test.ts` names `1`. |',
    );
  });
});

/**
 * Where BMAD writes its sprint status: `{implementation_artifacts}/sprint-status.yaml` as the
 * project's `_bmad/bmm/config.yaml` names it (its installer's lines, `{project-root}` the
 * repository root), and the first alphas' `{output_folder}/sprint-status.yaml` (`docs/`).
 */
describe('coder-loop CLI on BMAD projects where their config puts them', () => {
  const SPRINT_TEXT = FILES[SPRINT]!;
  const config = (lines: string) =>
    `# BMM Module Configuration\n# Generated by BMAD installer\n# Version: 6.2.0\n\n${lines}`;

  it('a config whose implementation_artifacts is under docs/ (output_folder: docs)', async () => {
    const dir = checkout({
      '_bmad/bmm/config.yaml': config(
        'project_name: peach\nplanning_artifacts: "{project-root}/docs/planning-artifacts"\nimplementation_artifacts: "{project-root}/docs/implementation-artifacts"\nproject_knowledge: "{project-root}/docs"\n\n# Core Configuration Values\noutput_folder: "{project-root}/docs"\n',
      ),
      'docs/implementation-artifacts/sprint-status.yaml': SPRINT_TEXT,
    });
    const r = await inProcess(dir, 'plans', '--json');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({
        name: 'bmad',
        kind: 'bmad',
        path: 'docs/implementation-artifacts/sprint-status.yaml',
      }),
    ]);
  });

  it('a config that says output_folder only, unquoted (the first alphas: {output_folder}/sprint-status.yaml)', async () => {
    const dir = checkout({
      'bmad/bmm/config.yaml': config('project_name: zmart\noutput_folder: {project-root}/plans\n'),
      'plans/sprint-status.yaml': SPRINT_TEXT,
    });
    const r = await inProcess(dir, 'plans', '--json');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).map((p: { path: string }) => p.path)).toEqual([
      'plans/sprint-status.yaml',
    ]);
  });

  it("an alpha's docs/sprint-status.yaml is a plan with BMAD's shape (development_status:), else none", async () => {
    const bmad = await inProcess(
      checkout({ 'docs/sprint-status.yaml': SPRINT_TEXT }),
      'plans',
      '--json',
    );
    expect(bmad.stderr).toBe('');
    expect(JSON.parse(bmad.stdout)).toEqual([
      expect.objectContaining({ name: 'bmad', path: 'docs/sprint-status.yaml' }),
    ]);
    const other = await inProcess(
      checkout({ 'docs/sprint-status.yaml': 'sprint: 4\nvelocity: 21\n' }),
      'plans',
    );
    expect(other.stdout).toContain('No plans found.');
  });

  it("a leftover copy at the default place is skipped, with why; the config's file is the plan", async () => {
    const dir = checkout({
      '_bmad/bmm/config.yaml': config(
        'implementation_artifacts: "{project-root}/docs/implementation-artifacts"\noutput_folder: "{project-root}/docs"\n',
      ),
      'docs/implementation-artifacts/sprint-status.yaml': SPRINT_TEXT,
      [SPRINT]: SPRINT_TEXT,
    });
    const r = await inProcess(dir, 'plans');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('docs/implementation-artifacts/sprint-status.yaml');
    expect(r.stdout).toContain(
      `Skipped: ${SPRINT} (a copy of docs/implementation-artifacts/sprint-status.yaml, the sprint status _bmad/bmm/config.yaml names: not read).`,
    );
    expect(r.stdout.split('\n').filter((l) => l.startsWith('bmad '))).toHaveLength(1);
  });

  it('alpha.22: the story files where implementation_artifacts says, though sprint-status.yaml is elsewhere', async () => {
    // v6.0.0-alpha.22's create-story writes `{implementation_artifacts}/{story_key}.md`, whatever
    // folder an older sprint-status.yaml (no story_location) is in.
    const dir = checkout({
      '_bmad/bmm/config.yaml': config(
        'implementation_artifacts: "{project-root}/docs/implementation-artifacts"\noutput_folder: "{project-root}/docs"\n',
      ),
      'docs/sprint-artifacts/sprint-status.yaml': SPRINT_TEXT.replace(/^story_location: .*\n/m, ''),
      'docs/implementation-artifacts/1-2-account-management.md': FILES[STORY]!,
    });
    const r = await inProcess(dir, 'status', 'bmad');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'bmad (BMAD, docs/sprint-artifacts/sprint-status.yaml): current phase 1.2',
      'Tasks: 0 done, 0 in progress, 6 open',
    ]);
    expect(r.stderr).toBe(
      `_bmad/bmm/config.yaml:5: warning: implementation_artifacts is docs/implementation-artifacts/, where BMAD's workflows read sprint-status.yaml and write story files, but this sprint status is in docs/sprint-artifacts/: BMAD's create-story writes its story files to docs/implementation-artifacts/, and the loop looks there first. Move sprint-status.yaml and its story files to docs/implementation-artifacts/, or set implementation_artifacts: "{project-root}/docs/sprint-artifacts".`,
    );
    // A task's box is marked in the story file there, outside the sprint status's folder.
    const task = await inProcess(dir, 'mark', 'bmad', '1.2/1.1', 'done');
    expect(task.stdout).toBe('1.2/1.1: todo → done');
    expect(read(dir, 'docs/implementation-artifacts/1-2-account-management.md')).toBe(
      FILES[STORY]!.replace('- [ ] Subtask 1.1', '- [x] Subtask 1.1'),
    );
    const mark = await inProcess(dir, 'mark', 'bmad', '--phase', '1.3', 'doing');
    expect(mark.stderr).toContain(
      "run BMAD's create-story (bmad-create-story) first, which writes docs/implementation-artifacts/1-3-plant-data-model.md.",
    );
  });

  it('a config that is not UTF-8: a warning with its line, and the stories looked for without it', async () => {
    const dir = checkout(FILES);
    await mkdir(join(dir, '_bmad/bmm'), { recursive: true });
    await writeFile(
      join(dir, '_bmad/bmm/config.yaml'),
      Buffer.from(
        config('user_name: Jos\u00e9\noutput_folder: "{project-root}/_bmad-output"\n'),
        'latin1',
      ),
    );
    const r = await inProcess(dir, 'status', 'bmad');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`bmad (BMAD, ${SPRINT}): current phase 1.2`);
    expect(r.stderr).toBe(
      "_bmad/bmm/config.yaml:5: warning: not valid UTF-8: byte 0xE9 stands alone, as in Latin-1 or Windows-1252. It is BMAD's config, which says where create-story writes story files: the loop looks for them beside sprint-status.yaml instead. Save the file as UTF-8.",
    );
  });

  it('a blocked epic holding the next story: status names it, and what to do', async () => {
    const sprint = FILES[SPRINT]!.replace(
      '1-2-account-management: ready-for-dev',
      '1-2-account-management: done',
    )
      .replace('1-3-plant-data-model: backlog', '1-3-plant-data-model: done')
      .replace('epic-2: backlog', 'epic-2: blocked');
    const r = await inProcess(checkout({ ...FILES, [SPRINT]: sprint }), 'status', 'bmad');
    expect(r.stdout.split('\n')[0]).toBe(
      `bmad (BMAD, ${SPRINT}): no phase can start: Story 2-1-personality-system has no story file yet: BMAD's create-story (bmad-create-story) writes ${IA}/2-1-personality-system.md. But epic-2 is "blocked" on line 47, no status BMAD defines for an epic (backlog, in-progress, done), and create-story stops on it ("Invalid epic status"): when the epic can go on, set it to backlog or in-progress.`,
    );
  });

  it('status <path of a sprint-status.yaml> where no glob looks (no config says where)', async () => {
    const dir = checkout({
      'docs/implementation-artifacts/sprint-status.yaml': SPRINT_TEXT,
      'docs/implementation-artifacts/1-2-account-management.md': FILES[STORY]!,
    });
    const none = await inProcess(dir, 'plans');
    expect(none.stdout).toContain('No plans found.');
    const r = await inProcess(dir, 'status', 'docs/implementation-artifacts/sprint-status.yaml');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'bmad (BMAD, docs/implementation-artifacts/sprint-status.yaml): current phase 1.2',
    );
    const lint = await inProcess(dir, 'lint', 'docs/implementation-artifacts/sprint-status.yaml');
    expect(lint.code).toBe(0);
  });
});
