import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { readTaskmaster, setTaskmasterStatus } from '../../src/core/plan/kinds/taskmaster.js';

/**
 * The last misreadings of real plans (each a minimal excerpt written here, byte for byte, of a
 * shape seen in files people wrote), read as the tools' own code reads them.
 */

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'coder-loop-misread-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function checkout(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'repo-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main(argv, {
    cwd,
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(t),
    now: () => new Date('2026-11-24T12:00:00Z'),
    env: {},
  });
  return { code, out: out.join('\n') };
}

describe('Task Master', () => {
  // Task Master's `next` (scripts/modules/task-manager/find-next-task.js) starts only `pending`
  // and `in-progress` work: a blocked subtask is work left, never finished.
  const BLOCKED =
    '{\n  "master": {\n    "tasks": [\n      {\n        "id": 1,\n        "title": "Ship it",\n        "status": "in-progress",\n        "dependencies": [],\n        "subtasks": [\n          { "id": 1, "title": "Build", "status": "done" },\n          { "id": 2, "title": "Sign", "status": "blocked" }\n        ]\n      }\n    ]\n  }\n}\n';

  it('an in-progress task whose only open subtask is blocked is not marked done: blocked is open work', async () => {
    const cwd = checkout({ '.taskmaster/tasks/tasks.json': BLOCKED });
    await cli(cwd, 'mark', 'master', '--phase', '1', 'done');
    const after = readFileSync(join(cwd, '.taskmaster/tasks/tasks.json'), 'utf8');
    expect(after).toBe(BLOCKED);
    expect((await cli(cwd, 'status', 'master')).out).not.toContain('complete');
  });

  it('a Huckleberry tasks/tasks.json (TASK-001, todo, completed) is no plan: one warning, lint exits 0', async () => {
    const huckleberry =
      '{\n  "tasks": [\n    {\n      "id": "TASK-001",\n      "title": "Set up the project",\n      "status": "todo",\n      "priority": "high"\n    },\n    {\n      "id": "TASK-002",\n      "title": "Write docs",\n      "status": "completed",\n      "priority": "low"\n    }\n  ]\n}\n';
    expect(readTaskmaster(huckleberry, 'tasks/tasks.json').notTaskmaster?.severity).toBe('warning');
    const cwd = checkout({
      'tasks/tasks.json': huckleberry,
      'specs/001-x/tasks.md': '## Phase 1: Setup\n\n- [ ] T001 Init\n',
      'specs/001-x/spec.md': '# Spec\n',
      'specs/001-x/plan.md': '# Plan\n',
    });
    const lint = await cli(cwd, 'lint');
    expect(lint.code).toBe(0);
    expect(
      lint.out.match(/tasks\/tasks\.json: warning: not read as a Task Master plan/g),
    ).toHaveLength(1);
  });

  it('an ML task-config list at tasks/tasks.json (ids, no Task Master status) is no plan', () => {
    const ml =
      '{\n  "tasks": [\n    {"id": 1, "name": "cola", "metric": "mcc", "status": "train"},\n    {"id": 2, "name": "sst2", "metric": "acc"}\n  ]\n}\n';
    expect(readTaskmaster(ml, 'tasks/tasks.json').notTaskmaster?.severity).toBe('warning');
    // In Task Master's own folder a file is Task Master's: its errors are named.
    expect(readTaskmaster(ml, '.taskmaster/tasks/tasks.json').problems.length).toBeGreaterThan(0);
  });

  // taskmaster/08-1rokoko-hotel-boost-tasks: subtasks written without a "status". Task Master
  // reads such a subtask as pending (find-next-task.js: `st.status || 'pending'`).
  it('08-1rokoko-hotel-boost-tasks: a subtask without a status is pending, and marking it adds only its status', () => {
    const source =
      '{\n  "master": {\n    "tasks": [\n      {\n        "id": 1,\n        "title": "Setup",\n        "status": "done",\n        "subtasks": [\n          {\n            "id": "1.1",\n            "title": "Repo"\n          }\n        ]\n      },\n      {\n        "id": 2,\n        "title": "Rooms",\n        "status": "pending",\n        "subtasks": [\n          {\n            "id": "2.1",\n            "title": "Model"\n          },\n          {\n            "id": "2.2",\n            "title": "API"\n          }\n        ]\n      }\n    ]\n  }\n}\n';
    const read = readTaskmaster(source, '.taskmaster/tasks/tasks.json');
    expect(read.problems).toEqual([]);
    const phases = read.tags[0]!.phases;
    expect(phases.map((p) => [p.id, p.tasks.map((t) => [t.id, t.state])])).toEqual([
      ['1', [['1.1', 'todo']]],
      [
        '2',
        [
          ['2.1', 'todo'],
          ['2.2', 'todo'],
        ],
      ],
    ]);
    const written = setTaskmasterStatus(source, phases[1]!.tasks[0]!, 'in-progress');
    expect(written).toBe(source.replace('"id": "2.1",', '"id": "2.1", "status": "in-progress",'));
    expect(
      readTaskmaster(written, '.taskmaster/tasks/tasks.json').tags[0]!.phases[1]!.tasks[0]!.state,
    ).toBe('doing');
  });
});
