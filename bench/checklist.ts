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
function parseAndMark(source: string, fast = true): number {
  const checklist = parseChecklist(source, 'bench.md', { fast });
  const middle = Math.floor(checklist.phases.length / 2);
  const one = setTaskStates(source, [checklist.phases[middle]!.tasks[0]!], 'done').source;
  return markPhase(one, checklist.phases[middle - 1]!, 'doing', ['todo']).changed.length;
}

/**
 * Median wall and CPU time of `reps` runs. CPU time (this process, all threads) is the steadier
 * figure on a shared machine: wall time also counts the time other processes held the cores. No
 * forced collection between runs: one shrinks the young generation, and the next run then pays
 * for scavenges a running App does not (it doubled the 10k figure).
 */
function timeRuns(reps: number, run: () => void): { wall: number; cpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    const used = process.cpuUsage();
    run();
    const { user, system } = process.cpuUsage(used);
    wall.push(performance.now() - start);
    cpu.push((user + system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

export function benchChecklist(): string {
  const sizes = [1_000, 10_000, 50_000];
  const reps: Record<number, number> = { 1_000: 51, 10_000: 21, 50_000: 11 };
  const results: { size: number; bytes: number; wall: number; cpu: number }[] = [];
  for (let i = 0; i < 5; i++) parseAndMark(makeChecklist(1_000)); // warm the JIT
  for (const size of sizes) {
    const source = makeChecklist(size);
    results.push({
      size,
      bytes: Buffer.byteLength(source),
      ...timeRuns(reps[size]!, () => parseAndMark(source)),
    });
  }
  // The same work with remark alone (the authority the fast path is tested against).
  parseAndMark(makeChecklist(1_000), false); // warm remark's JIT too
  const remark = [1_000, 10_000].map((size) => {
    const source = makeChecklist(size);
    const t = timeRuns(3, () => parseAndMark(source, false));
    return [size, ms(t.wall), ms(t.cpu)];
  });
  const rows = results.map((r, i) => {
    const prev = results[i - 1];
    const growth = (key: 'wall' | 'cpu') =>
      prev ? `${(r[key] / prev[key]).toFixed(1)}× for ${r.size / prev.size}× tasks` : '';
    return [
      r.size,
      `${(r.bytes / 1024).toFixed(0)} KiB`,
      ms(r.wall),
      ms(r.cpu),
      `${((r.cpu * 1000) / r.size).toFixed(1)} µs`,
      growth('wall'),
      growth('cpu'),
    ];
  });
  return [
    'Checklist: parse + mark one task + mark a whole phase (median of runs; goal 10k < 20 ms, 50k < 100 ms, 10× tasks ≤ 11× time)',
    table(['tasks', 'size', 'wall', 'CPU', 'CPU per task', 'growth (wall)', 'growth (CPU)'], rows),
    '',
    'The same with remark alone, no fast path (median of 3)',
    table(['tasks', 'wall', 'CPU'], remark),
  ].join('\n');
}
