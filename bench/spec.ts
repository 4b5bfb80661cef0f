import {
  DEFAULT_CONFIG,
  passesSpec,
  specTable,
  specTrace,
  type SpecFile,
  type SpecTask,
} from '../src/core/index.js';
import { median, ms, table } from './stats.js';

/**
 * Passes Spec? on the largest inputs GitHub gives: a phase of 1,000 tasks and a pull request of
 * 3,000 files (the most the files list returns), a third of them tests whose patches name ids.
 * Each task names a path and cites a requirement; a third find their evidence through a test.
 */
function inputs(taskCount: number, fileCount: number): { tasks: SpecTask[]; files: SpecFile[] } {
  const tasks: SpecTask[] = [];
  for (let i = 0; i < taskCount; i++)
    tasks.push({
      id: `T${String(i + 1).padStart(4, '0')}`,
      text: `T${String(i + 1).padStart(4, '0')} [US${i % 40}] Implement part ${i} in \`src/mod${i % 97}/part${i}.ts\` (FR-${i})`,
      state: 'doing',
      writtenId: true,
    });
  const files: SpecFile[] = [];
  for (let i = 0; i < fileCount; i++) {
    if (i % 3 === 2) {
      const lines = [
        `@@ -0,0 +1,6 @@`,
        `+// Validates: FR-${i} and T${String(i).padStart(4, '0')}`,
      ];
      for (let l = 0; l < 4; l++) lines.push(`+it('case ${l} of ${i}', () => expect(1).toBe(1));`);
      files.push({ path: `test/mod${i % 97}/part${i}.test.ts`, patch: lines.join('\n') });
    } else files.push({ path: `src/mod${i % 97}/part${i}.ts`, patch: '@@ -1 +1 @@\n-a\n+b' });
  }
  return { tasks, files };
}

function time(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

export function benchSpec(): string {
  const { tasks, files } = inputs(1000, 3000);
  const options = { testPaths: DEFAULT_CONFIG.testPaths, plansDir: DEFAULT_CONFIG.plansDir };
  const commits = Array.from({ length: 250 }, (_, i) => ({
    sha: `${i}`.padStart(40, 'a'),
    message: `T${String(i * 4).padStart(4, '0')}: part ${i}\n\nValidates: FR-${i * 4}`,
  }));
  // The first call in the process (cold when run alone: `npm run bench -- spec`): picomatch
  // compiles the globs, the regexes and the code are cold.
  const start = performance.now();
  const used = process.cpuUsage();
  let verdict = passesSpec(tasks, files, options);
  const first = performance.now() - start;
  const cpu = process.cpuUsage(used);
  const firstCpu = (cpu.user + cpu.system) / 1000;
  const rows: string[][] = [];
  const verdicts: number[] = [];
  const tables: number[] = [];
  const traces: number[] = [];
  for (let r = 0; r < 15; r++) {
    verdicts.push(time(() => (verdict = passesSpec(tasks, files, options))));
    tables.push(time(() => specTable(verdict, { repoUrl: 'https://github.com/o/r', sha: 'f' })));
    traces.push(time(() => specTrace(verdict, commits)));
  }
  const traced = verdict.tasks.filter((t) => t.status === 'evidence').length;
  rows.push(['verdict (passesSpec), first call', `${ms(first)} (CPU ${ms(firstCpu)})`]);
  rows.push(['verdict (passesSpec), median of 15', ms(median(verdicts))]);
  rows.push(['check run table (specTable), median', ms(median(tables))]);
  rows.push(["report's traceability (specTrace, 250 commits), median", ms(median(traces))]);
  return [
    `Passes Spec?: 1,000 tasks, 3,000 files (1,000 tests), ${traced} tasks traced to evidence`,
    table(['step', 'time'], rows),
  ].join('\n');
}
