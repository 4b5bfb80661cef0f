import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GOAL, goalVerdict, median, theilSen, table } from './stats.js';

const run = promisify(execFile);

/**
 * The real plans' read as a user pays it: `coder-loop status` run on each plan of the shared
 * corpus (`../shared/corpus/real-plans`, or CODER_LOOP_CORPUS), its folder copied whole (a Kiro
 * spec's requirements.md and design.md too) to where its tool keeps it in a fresh repository, and
 * the CPU of the whole call (user + system, every thread, read in the process at exit) set against
 * the same call on a tiny plan of the kind at the same path: the same folder names (so Node's path
 * work is the same) and nothing else in the folder. What is left is what the plan costs: reading
 * it, and the lines `status` prints for it. The two calls of a plan run in turn, `processes` times.
 *
 * CODER_LOOP_BENCH_CLI_BASE=<another build's lib/bundle/coder-loop.js> runs that build's calls in
 * the same turns, so that a change is measured against the build before it under the same load.
 */
type Kind = 'speckit' | 'kiro' | 'openspec' | 'taskmaster';

/** Where each kind's tool keeps a plan named `name`, in a repository. */
const AT: Record<Kind, (name: string) => string> = {
  speckit: (name) => `specs/${name}`,
  kiro: (name) => `.kiro/specs/${name}`,
  openspec: (name) => `openspec/changes/${name}`,
  taskmaster: () => '.taskmaster/tasks',
};

const TASKS_FILE: Record<Kind, string> = {
  speckit: 'tasks.md',
  kiro: 'tasks.md',
  openspec: 'tasks.md',
  taskmaster: 'tasks.json',
};

const TINY: Record<Kind, string> = {
  speckit: '## Phase 1: Setup\n\n- [ ] T001 Create the project\n',
  kiro: '# Implementation Plan\n\n- [ ] 1. Set up\n  - [ ] 1.1 Create the project\n',
  openspec: '## 1. Setup\n\n- [ ] 1.1 Create the project\n',
  taskmaster: `${JSON.stringify({ master: { tasks: [{ id: 1, title: 'Set up', status: 'pending', dependencies: [], subtasks: [] }] } }, null, 2)}\n`,
};

interface Case {
  kind: Kind;
  name: string;
  kib: number;
  /** The repository with the real plan, and the one with the tiny plan at the same path. */
  real: string;
  tiny: string;
}

function cases(corpus: string, work: string): Case[] {
  const out: Case[] = [];
  for (const kind of ['speckit', 'kiro', 'openspec', 'taskmaster'] as const) {
    const folder = join(corpus, kind);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      const from = join(folder, name);
      const tasks = join(from, TASKS_FILE[kind]);
      if (!statSync(from).isDirectory() || !existsSync(tasks)) continue;
      const real = join(work, 'real', name);
      const tiny = join(work, 'tiny', name);
      cpSync(from, join(real, AT[kind](name)), { recursive: true });
      mkdirSync(join(tiny, AT[kind](name)), { recursive: true });
      writeFileSync(join(tiny, AT[kind](name), TASKS_FILE[kind]), TINY[kind]);
      out.push({ kind, name, kib: statSync(tasks).size / 1024, real, tiny });
    }
  }
  return out;
}

const f2 = (n: number) => n.toFixed(2);

export async function benchCorpusCli(
  processes = Number(process.env.BENCH_CLI_PROCESSES ?? 9),
): Promise<string> {
  const corpus =
    process.env.CODER_LOOP_CORPUS ??
    join(fileURLToPath(new URL('..', import.meta.url)), '..', 'shared', 'corpus', 'real-plans');
  if (!existsSync(corpus)) {
    return '`coder-loop status` on real plans: the shared corpus is absent (../shared/corpus/real-plans, or CODER_LOOP_CORPUS): nothing measured.';
  }
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
  const builds = [
    { label: 'this build', bin: resolve(pkg.bin['coder-loop']!) },
    ...(process.env.CODER_LOOP_BENCH_CLI_BASE
      ? [{ label: 'base', bin: resolve(process.env.CODER_LOOP_BENCH_CLI_BASE) }]
      : []),
  ];
  const work = mkdtempSync(join(tmpdir(), 'coder-loop-bench-status-'));
  const cpuOut = join(work, 'cpu.txt');
  // A CommonJS preload, as in `npm run bench -- cli`: the CPU of every thread, at exit.
  const preload = join(work, 'cpu.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => {\n  const u = process.cpuUsage();\n  require('node:fs').writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000));\n});\n`,
  );
  const loadBefore = loadavg();
  const all = cases(corpus, work);
  // cpu[build][case] = [real CPU samples, tiny CPU samples]
  const cpu = builds.map(() => all.map(() => [[] as number[], [] as number[]] as const));
  const call = async (bin: string, cwd: string): Promise<number> => {
    // `status` exits 1 on a plan the loop refuses; its CPU counts all the same.
    await run(process.execPath, ['--require', preload, bin, 'status'], {
      cwd,
      env: { PATH: process.env.PATH },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { code?: unknown }) => {
      if (typeof error.code !== 'number') throw error;
    });
    return Number(readFileSync(cpuOut, 'utf8'));
  };
  try {
    for (let i = 0; i < processes; i++) {
      for (const [c, one] of all.entries()) {
        for (const [b, build] of builds.entries()) {
          cpu[b]![c]![0].push(await call(build.bin, one.real));
          cpu[b]![c]![1].push(await call(build.bin, one.tiny));
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const above = (b: number, c: number) => median(cpu[b]![c]![0]) - median(cpu[b]![c]![1]);
  const out = [
    `\`coder-loop status\` on each real plan (${relative(process.cwd(), corpus) || corpus}), the CPU of the call (every thread) above the same call on a tiny plan at the same path; median of ${processes} calls each, run in turn. Node ${process.version}, ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, load ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} after (1, 5, 15 min).`,
    '',
    table(
      [
        'plan',
        'kind',
        'tasks KiB',
        ...builds.flatMap((b) => [`${b.label}: CPU ms`, 'tiny ms', 'above ms', 'ms/KiB']),
      ],
      all.map((one, c) => [
        one.name.length > 50 ? `${one.name.slice(0, 47)}...` : one.name,
        one.kind,
        one.kib.toFixed(1),
        ...builds.flatMap((_, b) => [
          f2(median(cpu[b]![c]![0])),
          f2(median(cpu[b]![c]![1])),
          f2(above(b, c)),
          f2(above(b, c) / one.kib),
        ]),
      ]),
    ),
    '',
  ];
  const verdicts: string[] = [];
  for (const kind of ['speckit', 'kiro', 'openspec', 'taskmaster'] as const) {
    const of = all.flatMap((one, c) => (one.kind === kind ? [c] : []));
    if (of.length === 0) continue;
    const figures = builds.map((b, bi) => {
      const perKib = of.map((c) => above(bi, c) / all[c]!.kib);
      const total = of.reduce((s, c) => s + above(bi, c), 0);
      const kib = of.reduce((s, c) => s + all[c]!.kib, 0);
      const line = theilSen(of.map((c) => [all[c]!.kib, above(bi, c)] as const));
      return `${b.label}: ${f2(median(perKib))} ms/KiB per plan (median), ${f2(total / kib)} over all ${kib.toFixed(0)} KiB together${line ? `, ${f2(line.slope)} ms/KiB by the fitted line (a 100 KiB plan ${f2(line.intercept + 100 * line.slope)} ms above the tiny plan)` : ''}`;
    });
    out.push(`  ${kind.padEnd(10)} ${String(of.length).padStart(2)} plans: ${figures.join('; ')}`);
    const line = theilSen(of.map((c) => [all[c]!.kib, above(0, c)] as const));
    if (line) {
      verdicts.push(
        `  ${kind.padEnd(10)} ${goalVerdict(
          { slope: line.slope, fixed: line.intercept, at100: line.intercept + 100 * line.slope },
          of.map((c) => ({ kib: all[c]!.kib, above: above(0, c) / all[c]!.kib })),
        )}`,
      );
    }
  }
  out.push(
    `Against the goal, ${GOAL.perKib} ms per KiB above start-up (a 100 KiB real plan in ${GOAL.at100} ms), as \`plans\` judges it (docs/benchmarks.md, "How the goal is judged"), for this build; one call's CPU moves by several milliseconds, so a plan under 20 KiB says little alone:`,
    ...verdicts,
  );
  return out.join('\n');
}
