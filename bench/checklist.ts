import { markPhase, parseChecklist, setTaskStates } from '../src/core/index.js';
import { median, ms, table } from './stats.js';

const TASKS_PER_PHASE = 100;

/** A checklist of `tasks` tasks, 100 per phase, some nested, with prose and a fence per phase. */
export function makeChecklist(tasks: number): string {
  const lines = ['# Benchmark checklist', ''];
  for (let i = 0; i < tasks; i++) {
    if (i % TASKS_PER_PHASE === 0) {
      const phase = i / TASKS_PER_PHASE + 1;
      lines.push(
        '',
        `## Phase ${phase}: Work package ${phase}`,
        '',
        'Notes for this phase.',
        '',
        '```',
        '- [ ] not a task',
        '```',
        '',
      );
    }
    const nested = i % 5 === 4 ? '  ' : '';
    lines.push(
      `${nested}- [ ] ${Math.floor(i / TASKS_PER_PHASE) + 1}.${(i % TASKS_PER_PHASE) + 1} Task number ${i} with some words`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The loop's work on one checklist: parse, mark one task, mark a whole phase. */
function parseAndMark(source: string): number {
  const checklist = parseChecklist(source, 'bench.md');
  const middle = Math.floor(checklist.phases.length / 2);
  const one = setTaskStates(source, [checklist.phases[middle]!.tasks[0]!], 'done').source;
  return markPhase(one, checklist.phases[middle - 1]!, 'doing', ['todo']).changed.length;
}

export function benchChecklist(): string {
  const sizes = [1_000, 10_000, 50_000];
  const reps: Record<number, number> = { 1_000: 21, 10_000: 9, 50_000: 5 };
  const results: { size: number; bytes: number; median: number }[] = [];
  parseAndMark(makeChecklist(1_000)); // warm the JIT once
  for (const size of sizes) {
    const source = makeChecklist(size);
    const times: number[] = [];
    for (let r = 0; r < reps[size]!; r++) {
      const start = performance.now();
      parseAndMark(source);
      times.push(performance.now() - start);
    }
    results.push({ size, bytes: Buffer.byteLength(source), median: median(times) });
  }
  const rows = results.map((r, i) => {
    const prev = results[i - 1];
    const ratio = prev
      ? `${(r.median / prev.median).toFixed(1)}× for ${r.size / prev.size}× tasks`
      : '';
    return [
      r.size,
      `${(r.bytes / 1024).toFixed(0)} KiB`,
      ms(r.median),
      `${((r.median * 1000) / r.size).toFixed(1)} µs`,
      ratio,
    ];
  });
  return [
    'Checklist: parse + mark one task + mark a whole phase (median of runs)',
    table(['tasks', 'size', 'median', 'per task', 'growth'], rows),
  ].join('\n');
}
