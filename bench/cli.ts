import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { median, ms, table } from './stats.js';

const run = promisify(execFile);

/**
 * The CLI's start-up as a local agent pays it on every call: the CPU time (user + system, read in
 * the process at exit) of `coder-loop --version` and of `coder-loop status Example` on the small
 * example plan, run as package.json's `bin` runs (the bundle in lib/bundle/) and, beside it, as
 * tsc's lib/cli/index.js (every module of lib/ and node_modules/ loaded one by one). A program
 * that is one empty file is Node's own start here, run in turn with them. Median of 15.
 */
export async function benchCli(): Promise<string> {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
  const bundle = resolve(pkg.bin['coder-loop']!);
  const unbundled = resolve('lib/cli/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'coder-loop-bench-cli-'));
  const repo = join(dir, 'repo');
  for (const [path, text] of Object.entries(examplePlanFiles())) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, '');
  const cpuOut = join(dir, 'cpu.txt');
  const preload = join(dir, 'cpu.mjs');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => {\n  const u = process.cpuUsage();\n  writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000));\n});\n`,
  );
  const cases: [string, string[]][] = [
    ['an empty program (Node alone)', [empty]],
    ['coder-loop --version', [bundle, '--version']],
    ['coder-loop status Example', [bundle, 'status', 'Example']],
    ['lib/cli/index.js --version (unbundled)', [unbundled, '--version']],
    ['lib/cli/index.js status Example (unbundled)', [unbundled, 'status', 'Example']],
  ];
  const cpu = new Map(cases.map(([name]) => [name, [] as number[]]));
  try {
    for (let i = 0; i < 15; i++) {
      for (const [name, args] of cases) {
        await run(process.execPath, ['--import', pathToFileURL(preload).href, ...args], {
          cwd: repo,
          env: { PATH: process.env.PATH },
        });
        cpu.get(name)!.push(Number(readFileSync(cpuOut, 'utf8')));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const node = median(cpu.get(cases[0]![0])!);
  return [
    `The CLI's start-up: CPU of one call, on the example plan (median of 15; Node ${process.version})`,
    table(
      ['command', 'CPU', 'over Node alone'],
      cases.map(([name]) => {
        const m = median(cpu.get(name)!);
        return [name, ms(m), name === cases[0]![0] ? '' : ms(m - node)];
      }),
    ),
  ].join('\n');
}
