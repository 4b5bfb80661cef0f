import { parseChecklist } from '../src/core/index.js';
import { setDialectStates } from '../src/core/plan/kinds/index.js';
import { KIRO_MARKS, readKiro } from '../src/core/plan/kinds/kiro/index.js';
import { readSpeckit, SPECKIT_MARKS } from '../src/core/plan/kinds/speckit/index.js';
import { readTaskmaster, setTaskmasterStatus } from '../src/core/plan/kinds/taskmaster/index.js';
import { makeChecklist } from './checklist.js';
import { benchCorpusPlans } from './corpusPlans.js';
import { benchRealPlans } from './realPlans.js';
import { ms, time } from './stats.js';

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

/**
 * A Kiro tasks.md of `tasks` tasks: 100 top-level tasks of `tasks / 100` sub-tasks each, with a
 * detail bullet and a `_Requirements:_` line under every sub-task, as Kiro writes them.
 */
export function makeKiro(tasks: number): string {
  const lines = ['# Implementation Plan', ''];
  const per = tasks / 100;
  for (let t = 1; t <= 100; t++) {
    lines.push(`- [ ] ${t}. Implement part ${t} of the feature`);
    for (let s = 1; s <= per; s++) {
      lines.push(
        `  - [ ] ${t}.${s} Write the code for step ${s} in src/part${t}/step${s}.ts`,
        `    - Add unit tests for step ${s}`,
        `    - _Requirements: ${t}.${s}, ${t + 1}.1_`,
      );
    }
    lines.push('');
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

export function benchPlans(): string {
  const checklist = makeChecklist(10_000);
  const speckit = makeSpeckit(10_000);
  const json = makeTasksJson(10_000);
  const kiro = makeKiro(10_000);
  for (let i = 0; i < 3; i++) {
    readKiro(makeKiro(1_000), 'tasks.md');
    parseChecklist(makeChecklist(1_000), 'c.md');
    readSpeckit(makeSpeckit(1_000), 'tasks.md');
    readTaskmaster(makeTasksJson(1_000), 'tasks.json');
  }
  const coder = time(11, () => parseChecklist(checklist, 'c.md'));
  const spec = time(11, () => {
    const plan = readSpeckit(speckit, 'tasks.md');
    setDialectStates(speckit, SPECKIT_MARKS, plan.phases[50]!.tasks, 'done');
  });
  // remark alone, the authority the fast path falls back to: what any other shape costs.
  const specRemark = time(3, () => readSpeckit(speckit, 'tasks.md', { fast: false }));
  const kiroTime = time(11, () => {
    const plan = readKiro(kiro, 'tasks.md');
    setDialectStates(kiro, KIRO_MARKS, plan.phases[50]!.tasks, 'done');
  });
  // remark alone on one long nested list grows much faster than linearly: a 1,000-task file, once.
  const kiroSmall = makeKiro(1_000);
  const kiroRemark = time(1, () => readKiro(kiroSmall, 'tasks.md', { fast: false }));
  const kiroFastSmall = time(11, () => readKiro(kiroSmall, 'tasks.md'));
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
    `  Kiro tasks.md parse + mark:        ${ms(kiroTime)} (${Math.round(Buffer.byteLength(kiro) / 1024)} KiB), ${(kiroTime / coder).toFixed(1)}× the checklist`,
    `  Kiro tasks.md of 1,000 tasks:       ${ms(kiroFastSmall)} fast path, ${ms(kiroRemark)} remark alone`,
    `  Task Master tasks.json read + mark: ${ms(tm)} (${Math.round(Buffer.byteLength(json) / 1024)} KiB)`,
    '',
    benchRealPlans(),
    '',
    benchCorpusPlans(),
  ].join('\n');
}
