import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { bin, cli } from '../helpers/cli.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built CLI (lib/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

/**
 * The worked examples of docs/plan-format.md (examples/plans: a spec-kit feature, a Kiro spec, a
 * Task Master tasks.json; the coder kind's is docs/plans/Example), read by the built CLI as a
 * user would: `plans --json`, `status`, `lint`. A copy is read, so nothing can touch the examples.
 */

const speckit = 'specs/002-photo-sharing/tasks.md';
const kiro = '.kiro/specs/password-reset/tasks.md';
const tasksJson = '.taskmaster/tasks/tasks.json';
const coder = 'docs/plans/Example/01_Master Plan/01_Checklist.md';

let work: string;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm run build" first.`);
  work = await mkdtemp(join(tmpdir(), 'coder-loop-examples-'));
  await cp(join(repoRoot, 'examples', 'plans'), work, { recursive: true });
  await cp(join(repoRoot, 'docs', 'plans', 'Example'), join(work, 'docs', 'plans', 'Example'), {
    recursive: true,
  });
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('worked examples (examples/plans, docs/plans/Example) through the built CLI', () => {
  it('plans --json finds one plan of each kind, with phases and tasks counted', async () => {
    const run = await cli(work, 'plans', '--json');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([
      {
        name: 'password-reset',
        kind: 'kiro',
        path: kiro,
        phases: { done: 1, total: 3 },
        tasks: { done: 1, doing: 1, open: 4, setAside: 0 },
      },
      {
        name: 'master',
        kind: 'taskmaster',
        path: tasksJson,
        tag: 'master',
        phases: { done: 1, total: 3 },
        tasks: { done: 2, doing: 1, open: 2, setAside: 0 },
      },
      {
        name: 'Example',
        kind: 'coder',
        path: coder,
        phases: { done: 0, total: 3 },
        tasks: { done: 0, doing: 0, open: 6, setAside: 0 },
      },
      {
        name: '002-photo-sharing',
        kind: 'speckit',
        path: speckit,
        phases: { done: 1, total: 4 },
        tasks: { done: 2, doing: 0, open: 7, setAside: 0 },
      },
    ]);
  });

  it('lint finds nothing wrong in any of them', async () => {
    const run = await cli(work, 'lint');
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `${kiro}: 0 error(s), 0 warning(s).`,
        `${tasksJson}: 0 error(s), 0 warning(s).`,
        `${speckit}: 0 error(s), 0 warning(s).`,
        'docs/plans/Example: 0 error(s), 0 warning(s).',
        '',
      ].join('\n'),
    });
  });

  it('status of the spec-kit feature', async () => {
    expect(await cli(work, 'status', '002-photo-sharing')).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `002-photo-sharing (spec-kit, ${speckit}): current phase 2`,
        'Tasks: 2 done, 0 in progress, 7 open',
        'Phase 1: Setup (Shared Infrastructure) (2/2 done)',
        '  [x] T001 Create the `share_links` migration in src/db/migrations/',
        '  [x] T002 [P] Add the share-link settings to src/config.ts',
        'Phase 2: User Story 1 - Share an album by link (Priority: P1) 🎯 MVP (0/4 done) ← current',
        '  [ ] T003 [P] [US1] Contract test for POST /albums/:id/links in tests/contract/share.test.ts',
        '  [ ] T004 [P] [US1] Create the ShareLink model in src/models/share-link.ts',
        '  [ ] T005 [US1] Implement ShareService in src/services/share.ts (depends on T004)',
        '  [ ] T006 [US1] Revoke a link: DELETE /links/:token in src/api/share.ts',
        'Phase 3: User Story 2 - See who opened a link (Priority: P2) (0/2 done)',
        '  [ ] T007 [US2] Count opens per link in src/services/share.ts',
        '  [ ] T008 [P] [US2] Show the count on the album page',
        'Phase 4: Polish & Cross-Cutting Concerns (0/1 done)',
        '  [ ] T009 [P] Document share links in docs/sharing.md',
        '',
      ].join('\n'),
    });
  });

  it('status of the Kiro spec, as JSON', async () => {
    const run = await cli(work, 'status', 'password-reset', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      plan: 'password-reset',
      kind: 'kiro',
      path: kiro,
      currentPhase: '2',
      phases: [
        {
          number: '1',
          name: 'Set up the reset token store',
          tasks: [{ id: '1', state: 'done', text: '1. Set up the reset token store' }],
        },
        {
          number: '2',
          name: 'Implement the reset request',
          tasks: [
            {
              id: '2.1',
              state: 'doing',
              text: '2.1 Add `POST /password-reset` that answers the same for every email',
            },
            { id: '2.2', state: 'todo', text: '2.2 Write the reset email template' },
            {
              id: '2.3',
              state: 'todo',
              text: '2.3 Write a timing test for unknown and known emails',
              note: 'optional',
            },
          ],
        },
        {
          number: '3',
          name: 'Implement the password change',
          tasks: [
            {
              id: '3.1',
              state: 'todo',
              text: '3.1 Add `POST /password-reset/confirm` that consumes the token once',
            },
            {
              id: '3.2',
              state: 'todo',
              text: "3.2 End the user's other sessions after the change",
            },
          ],
        },
      ],
    });
  });

  it('status of the Task Master tag', async () => {
    expect(await cli(work, 'status', 'master')).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `master (Task Master, ${tasksJson}#master): current phase 2`,
        'Tasks: 2 done, 1 in progress, 2 open',
        'Phase 1: Set up the notification service (1/1 done)',
        '  [x] 1  Set up the notification service',
        'Phase 2: Notify followers of new photos (1/3 done) ← current',
        '  [x] 2.1  Emit an event on upload',
        '  [~] 2.2  Batch events per user',
        "  [ ] 2.3  Let users mute a follower's notifications",
        'Phase 3: Weekly digest email (0/1 done)',
        '  [ ] 3  Weekly digest email',
        '',
      ].join('\n'),
    });
  });

  it('status of the coder plan, and the examples stay as written', async () => {
    const run = await cli(work, 'status', 'Example');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('Example: current phase 1');
    for (const path of [speckit, kiro, tasksJson]) {
      expect(await readFile(join(work, path), 'utf8')).toBe(
        await readFile(join(repoRoot, 'examples', 'plans', path), 'utf8'),
      );
    }
  });
});
