import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { median, ms, table } from './stats.js';
import { buildTscLib } from './tscLib.js';

const run = promisify(execFile);

/**
 * The CLI's start-up as a local agent pays it on every call: the CPU time (user + system, read in
 * the process at exit) of `coder-loop --version` and of `coder-loop status Example` on the small
 * example plan, run as package.json's `bin` runs (the bundle in lib/bundle/) and, beside it, as
 * tsc's lib/cli/index.js (every module of lib/ and node_modules/ loaded one by one; compiled here,
 * since `npm run build` makes only the bundles); `status` also
 * in a repository that has a `.github/coder.yml` (its parser loaded). A program that is one empty
 * file is Node's own start here, run in turn with them. Median of 15.
 *
 * CODER_LOOP_BENCH_CLI_BASE=<another build's lib/bundle/coder-loop.js> runs that build's calls in
 * the same turns, so that a change is measured against the build before it under the same load.
 */
export async function benchCli(): Promise<string> {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
  const bundle = resolve(pkg.bin['coder-loop']!);
  buildTscLib();
  const unbundled = resolve('lib/cli/index.js');
  const base = process.env.CODER_LOOP_BENCH_CLI_BASE;
  const dir = mkdtempSync(join(tmpdir(), 'coder-loop-bench-cli-'));
  const repo = join(dir, 'repo');
  const configured = join(dir, 'configured');
  for (const [path, text] of Object.entries({
    ...examplePlanFiles(),
    '.github/coder.yml': 'plansDir: docs/plans\nmaxRetries: 3\n',
  })) {
    for (const root of path.startsWith('.github/') ? [configured] : [repo, configured]) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  }
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, '');
  const cpuOut = join(dir, 'cpu.txt');
  // A CommonJS preload, whose require('node:fs') at exit costs nothing: Node has loaded it. An ES
  // module importing node:fs would build its namespace and load Node's streams in every case.
  const preload = join(dir, 'cpu.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => {\n  const u = process.cpuUsage();\n  require('node:fs').writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000));\n});\n`,
  );
  const calls = (bin: string, label: string): [string, string[], string][] => [
    [`coder-loop --version${label}`, [bin, '--version'], repo],
    [`coder-loop status Example${label}`, [bin, 'status', 'Example'], repo],
    [
      `coder-loop status Example, with a .github/coder.yml${label}`,
      [bin, 'status', 'Example'],
      configured,
    ],
  ];
  const cases: [string, string[], string][] = [
    ['an empty program (Node alone)', [empty], repo],
    ...calls(bundle, ''),
    ...(base ? calls(resolve(base), ' (base build)') : []),
    ['lib/cli/index.js --version (unbundled)', [unbundled, '--version'], repo],
    ['lib/cli/index.js status Example (unbundled)', [unbundled, 'status', 'Example'], repo],
  ];
  const loadBefore = loadavg();
  const cpu = new Map(cases.map(([name]) => [name, [] as number[]]));
  try {
    for (let i = 0; i < 15; i++) {
      for (const [name, args, cwd] of cases) {
        await run(process.execPath, ['--require', preload, ...args], {
          cwd,
          env: { PATH: process.env.PATH },
        });
        cpu.get(name)!.push(Number(readFileSync(cpuOut, 'utf8')));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const node = median(cpu.get(cases[0]![0])!);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    `The CLI's start-up: CPU of one call, on the example plan (median of 15; Node ${process.version})`,
    `load average (1, 5, 15 min): ${load(loadBefore)} before, ${load(loadavg())} after`,
    table(
      ['command', 'CPU', 'over Node alone'],
      cases.map(([name]) => {
        const m = median(cpu.get(name)!);
        return [name, ms(m), name === cases[0]![0] ? '' : ms(m - node)];
      }),
    ),
  ].join('\n');
}
