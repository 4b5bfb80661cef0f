import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BASE_LIB,
  CHILD_READ,
  compileReaders,
  corpusDir,
  LIB,
  planFiles,
  TINY,
  type Kind,
} from './corpusPlans.js';
import { table } from './stats.js';

/**
 * `npm run bench -- plans-instructions`: the instructions a first read of each real plan runs, as
 * `plans` reads it cold (a fresh process, the readers of tsc's lib/), counted by valgrind's
 * callgrind: the counters are dumped at an `fsync` made just before the read and just after it,
 * the young generation is made large enough that no scavenge falls inside, and V8's optimizing
 * compiles are made on the main thread (made on another, they land at a moment that varies: a
 * large tasks.json's count then moved by 15 %). Unlike a cold
 * read's time, which moves by ±2 ms from one process to the next, the count moves by about 0.2 %:
 * a change to the readers is seen in it at once. With CODER_LOOP_BENCH_PLANS_BASE=<another
 * checkout>, that checkout's readers are counted too. valgrind is needed (apt-get install
 * valgrind); without it, nothing is measured. About 13 s a file under valgrind, two at a time.
 */
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Markdown kinds and Task Master's JSON (the `other/` checklists, read by remark, are left out). */
const KINDS: readonly Kind[] = ['speckit', 'kiro', 'openspec', 'bmad', 'taskmaster'];

// The child: the readers imported, the source read, then the read alone between two fsyncs.
const CHILD = `${CHILD_READ}
const { openSync, fsyncSync } = await import('node:fs');
const fd = openSync(process.argv[4], 'w');
fsyncSync(fd);
read(source);
fsyncSync(fd);
`;

/** The instructions of one cold read (the main thread's, between the two fsyncs). */
function count(kind: Kind, path: string, lib: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'coder-loop-instructions-'));
  const args = [
    '--tool=callgrind',
    '--separate-threads=yes',
    `--callgrind-out-file=${join(dir, 'cg.out')}`,
    '--smc-check=all-non-file',
    '--dump-before=fsync',
    process.execPath,
    '--min-semi-space-size=64',
    '--max-semi-space-size=64',
    '--no-concurrent-recompilation',
    '--no-concurrent-osr',
    '--input-type=module',
    '-e',
    CHILD,
    kind,
    path,
    lib,
    join(dir, 'marker'),
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'valgrind',
      args,
      { env: { ...process.env, BENCH_SOURCE: TINY[kind] }, maxBuffer: 64 * 1024 * 1024 },
      (error) => {
        try {
          if (error) throw error;
          // Dump 2 is what ran between the fsyncs; 01 is the main thread's part of it.
          const dump = readFileSync(join(dir, 'cg.out.2-01'), 'utf8');
          const summary = /^summary: (\d+)$/m.exec(dump);
          if (!summary) throw new Error(`no summary in ${join(dir, 'cg.out.2-01')}`);
          resolve(Number(summary[1]));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

/** Runs `jobs` two at a time (a core each), in order. */
async function twoAtATime<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

const m = (n: number) => (n / 1e6).toFixed(2);

export async function benchInstructions(): Promise<string> {
  if (spawnSync('valgrind', ['--version']).status !== 0)
    return 'Instructions of a first read: valgrind is not installed (apt-get install valgrind): nothing measured.';
  const dir = corpusDir();
  if (!dir)
    return 'Instructions of a first read: the shared corpus is absent (../shared/corpus/real-plans, or CODER_LOOP_CORPUS): nothing measured.';
  const base = process.env.CODER_LOOP_BENCH_PLANS_BASE || undefined;
  compileReaders(base);
  const files = planFiles(dir).filter((f) => KINDS.includes(f.kind));
  const kinds = [...new Set(files.map((f) => f.kind))];
  const reads = [
    ...kinds.map((kind) => ({ kind, path: '-', name: `tiny ${kind} plan` })),
    ...files.map((f) => ({ kind: f.kind, path: join(dir, f.path), name: f.path })),
  ];
  const libs = base ? [LIB, BASE_LIB] : [LIB];
  const counts = await twoAtATime(
    reads.flatMap((r) => libs.map((lib) => () => count(r.kind, r.path, lib))),
  );
  const of = (i: number, j: number) => counts[i * libs.length + j]!;
  const rows = reads.map((r, i) => [
    r.name.length > 60 ? `${r.name.slice(0, 57)}...` : r.name,
    r.kind,
    m(of(i, 0)),
    ...(base ? [m(of(i, 1)), `${((of(i, 0) / of(i, 1) - 1) * 100).toFixed(1)} %`] : []),
  ]);
  const sums = kinds.map((kind) => {
    const mine = reads.flatMap((r, i) => (r.kind === kind && r.path !== '-' ? [i] : []));
    const sum = (j: number) => mine.reduce((n, i) => n + of(i, j), 0);
    return `  ${kind.padEnd(10)} ${mine.length} files: ${m(sum(0))} M${base ? ` (base ${m(sum(1))} M, ${((sum(0) / sum(1) - 1) * 100).toFixed(1)} %)` : ''}`;
  });
  return [
    `Instructions of a first read (${relative(repoRoot, dir) || dir}): millions, the main thread's, counted by callgrind between two fsyncs around the read in a fresh process (no scavenge inside it).`,
    '',
    table(['file', 'kind', 'M instructions', ...(base ? ['base M', 'change'] : [])], rows),
    '',
    'Each kind, its files summed:',
    ...sums,
  ].join('\n');
}
