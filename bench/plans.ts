import { parseChecklist } from '../src/core/index.js';
import {
  readSpeckit,
  readTaskmaster,
  setDialectStates,
  setTaskmasterStatus,
} from '../src/core/plan/kinds/index.js';
import { makeChecklist } from './checklist.js';
import { median, ms } from './stats.js';

/** A spec-kit tasks.md of `tasks` tasks, 100 per phase, written as spec-kit's template does. */
export function makeSpeckit(tasks: number): string {
  const lines = [
    '# Tasks: Benchmark',
    '',
    '**Input**: Design documents from `/specs/001-bench/`',
    '',
  ];
  for (let i = 0; i < tasks; i++) {
    if (i % 100 === 0) {
      const phase = i / 100 + 1;
      lines.push(
        '',
        '---',
        '',
        `## Phase ${phase}: User Story ${phase} (Priority: P1)`,
        '',
        '**Goal**: Work.',
        '',
      );
    }
    const id = `T${String(i + 1).padStart(5, '0')}`;
    lines.push(
      `- [ ] ${id} [P] [US${Math.floor(i / 100) + 1}] Task number ${i} in src/file${i}.ts`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A tagged tasks.json of `tasks` subtasks, 10 per top-level task, as Task Master writes it. */
export function makeTasksJson(tasks: number): string {
  const top = [];
  for (let t = 0; t < tasks / 10; t++) {
    top.push({
      id: t + 1,
      title: `Task ${t + 1}`,
      description: 'Do the work.',
      details: 'Details of the work.',
      testStrategy: 'Run the tests.',
      priority: 'medium',
      dependencies: t === 0 ? [] : [t],
      status: 'pending',
      subtasks: Array.from({ length: 10 }, (_, s) => ({
        id: s + 1,
        title: `Subtask ${s + 1}`,
        description: '',
        dependencies: [],
        details: '',
        status: 'pending',
      })),
    });
  }
  const doc = {
    master: {
      tasks: top,
      metadata: {
        created: '2026-01-01T00:00:00.000Z',
        updated: '2026-01-01T00:00:00.000Z',
        description: 'Tasks for master context',
      },
    },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function time(reps: number, run: () => void): number {
  const out: number[] = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    run();
    out.push(performance.now() - start);
  }
  return median(out);
}

export function benchPlans(): string {
  const checklist = makeChecklist(10_000);
  const speckit = makeSpeckit(10_000);
  const json = makeTasksJson(10_000);
  for (let i = 0; i < 3; i++) {
    parseChecklist(makeChecklist(1_000), 'c.md');
    readSpeckit(makeSpeckit(1_000), 'tasks.md');
    readTaskmaster(makeTasksJson(1_000), 'tasks.json');
  }
  const coder = time(11, () => parseChecklist(checklist, 'c.md'));
  const spec = time(11, () => {
    const plan = readSpeckit(speckit, 'tasks.md');
    setDialectStates(speckit, 'speckit', plan.phases[50]!.tasks, 'done');
  });
  // remark alone, the authority the fast path falls back to: what any other shape costs.
  const specRemark = time(3, () => readSpeckit(speckit, 'tasks.md', { fast: false }));
  const tm = time(21, () => {
    const plan = readTaskmaster(json, 'tasks.json');
    const task = plan.tags[0]!.phases[500]!.tasks[0]!;
    setTaskmasterStatus(json, task, 'in-progress');
  });
  return [
    'Plans of other tools, 10,000 tasks (median wall time):',
    `  today's checklist parse:           ${ms(coder)} (${Math.round(Buffer.byteLength(checklist) / 1024)} KiB)`,
    `  spec-kit tasks.md parse + mark:    ${ms(spec)} (${Math.round(Buffer.byteLength(speckit) / 1024)} KiB), ${(spec / coder).toFixed(1)}× the checklist`,
    `  spec-kit tasks.md, remark alone:    ${ms(specRemark)}, ${(specRemark / coder).toFixed(1)}× the checklist`,
    `  Task Master tasks.json read + mark: ${ms(tm)} (${Math.round(Buffer.byteLength(json) / 1024)} KiB)`,
  ].join('\n');
}
