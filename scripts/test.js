// `npm test`: every check CI runs, in three stages, then how long each part took.
//
// 1. What the machine needs (scripts/test-needs.js).
// 2. The build (lib/, which the CLI and process suites run), unless lib/ is newer than every
//    source: after `npm ci`, whose `prepare` built it, it is not built twice; beside it the
//    bundle check (check-dist: dist/ is what src/ bundles to now; it then touches dist/index.js,
//    so that the suites that run the bundle do not bundle again) and the agent CLIs' install
//    (test/agents/clis, what test/agents/clis.e2e.test.ts runs; mostly a download, and nothing
//    to do after `bash .ci/run`, which installs them beside `npm ci`).
// 3. Jest (all suites, on both cores) and, beside it, the checks that are one process on one core
//    each: the type-check, ESLint and Prettier. Jest starts with its longest suites
//    (test/sequencer.js), whose limits are minutes and which wait on real processes for a good
//    part of their time (the agent CLIs, the Action's bundle); the checks take that time instead
//    of a stage of their own before Jest (issue 42: ~45 s of a CI run), at a lower priority, so
//    that they take the cores when Jest waits and not when it runs. Each check's output is
//    printed whole when it ends; a failing check stops Jest, as a failing stage stopped the next
//    one before.
//
// A failing stage stops the run before the next; the table of times is printed either way. Wall
// time is the clock; CPU is the part's processes' user + system time (its own and its
// children's), which says what a part costs when the machine is shared. Below it, the Jest
// suites that took the most CPU (each suite writes its times, test/helpers/setup.ts).
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/**
 * The niceness of the checks beside Jest: they take the cores when Jest's workers wait (on a real
 * process, a CLI's time limit, a server) and give them back when the workers run, so that Jest's
 * longest suites are not slowed by three more processes at its start (issue 42).
 */
const BESIDE = 10;
const STAGES = [
  [['needs', 'node', ['scripts/test-needs.js']]],
  [
    ['build', npm, ['run', '--silent', 'build'], undefined, libIsFresh],
    ['check-dist', npm, ['run', '--silent', 'check-dist']],
    ['agent-clis', 'node', ['scripts/agent-clis.js']],
  ],
  [
    ['jest', npm, ['run', '--silent', 'jest', '--', ...process.argv.slice(2)], 'inherit'],
    ['typecheck', npm, ['run', '--silent', 'typecheck'], undefined, undefined, BESIDE],
    ['eslint', 'npx', ['eslint', '.'], undefined, undefined, BESIDE],
    [
      'prettier',
      'npx',
      ['prettier', '--check', '--log-level', 'warn', '.'],
      undefined,
      undefined,
      BESIDE,
    ],
  ],
];

/**
 * lib/ is what `npm run build` makes of src/ now: the CLI's and the App's bundles are no older
 * than any source (the rule of test/helpers/build.ts). After `npm ci`, whose `prepare` built
 * them, they are.
 */
function libIsFresh() {
  const built = ['lib/bundle/coder-loop.js', 'lib/app-bundle/app.js'].map((bundle) =>
    existsSync(bundle) ? statSync(bundle).mtimeMs : -Infinity,
  );
  const oldest = Math.min(...built);
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return Math.max(latest, newest(path));
      return entry.name.endsWith('.ts') ? Math.max(latest, statSync(path).mtimeMs) : latest;
    }, -Infinity);
  return newest('src') <= oldest;
}

/**
 * Runs `command args` and, when it has ended, writes the CPU seconds it and every process it
 * started took to file descriptor 3 (this wrapper's own children's time, from /proc/self/stat;
 * NaN where there is none), at the niceness given first (0: as it is). Signals it is sent go on to
 * the command.
 */
const MEASURED = `
const { spawn } = require('node:child_process');
const { readFileSync, writeSync } = require('node:fs');
const [nice, command, ...args] = process.argv.slice(1);
if (Number(nice) > 0) {
  try {
    require('node:os').setPriority(Number(nice));
  } catch {}
}
const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('close', (code, signal) => {
  let cpu = NaN;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {}
  writeSync(3, String(cpu));
  process.exit(code ?? (signal ? 1 : 0));
});
`;

/** The parts running now, to stop when another fails or the run is interrupted. */
const running = new Set();
function stopRunning(signal = 'SIGTERM') {
  for (const child of running) {
    try {
      // Its own process group (see `part`): the command and everything it started.
      if (process.platform === 'win32') child.kill(signal);
      else process.kill(-child.pid, signal);
    } catch {
      // Ended already.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopRunning(signal);
    process.exit(130);
  });

/**
 * Runs one part: its exit code, wall and CPU seconds; output buffered unless `inherit`. A part
 * that fails stops the others of its stage (`stopped` says which were stopped so).
 */
function part([name, command, args, stdio, skipWhen, nice = 0]) {
  const started = performance.now();
  if (skipWhen?.()) {
    process.stdout.write(`── ${name} ──\nup to date\n`);
    return Promise.resolve({ name: `${name} (up to date)`, code: 0, wall: 0, cpu: 0 });
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', MEASURED, String(nice), command, ...args], {
      stdio: [
        'ignore',
        stdio === 'inherit' ? 'inherit' : 'pipe',
        stdio === 'inherit' ? 'inherit' : 'pipe',
        'pipe',
      ],
      // Its own process group, so that stopping it stops what it started too.
      detached: process.platform !== 'win32',
    });
    running.add(child);
    const out = [];
    let cpu = '';
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr?.on('data', (d) => out.push(d));
    child.stdio[3].on('data', (d) => (cpu += d));
    child.on('close', (code, signal) => {
      running.delete(child);
      const text = Buffer.concat(out).toString();
      if (text) process.stdout.write(`── ${name} ──\n${text}${text.endsWith('\n') ? '' : '\n'}`);
      const result = {
        name: stopped.has(child) ? `${name} (stopped)` : name,
        code: code ?? (signal ? 1 : 0),
        wall: (performance.now() - started) / 1000,
        cpu: cpu === '' ? undefined : Number(cpu),
      };
      if (result.code !== 0 && !stopped.has(child)) {
        for (const other of running) stopped.add(other);
        stopRunning();
      }
      resolve(result);
    });
  });
}
const stopped = new WeakSet();

/**
 * CPU seconds used so far by this process's children that have ended, their own children
 * included (cutime + cstime of /proc/self/stat, in USER_HZ ticks; what `time` reports). NaN where
 * there is no /proc.
 */
function childCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

// Where each Jest suite writes its wall and CPU time (test/helpers/setup.ts reads the variable).
const suiteTimes = mkdtempSync(join(tmpdir(), 'coder-loop-suites-'));
process.env.CODER_LOOP_SUITE_TIMES = suiteTimes;
/** How many of the suites that took the most CPU the table lists. */
const HEAVIEST = 15;

const rows = [];
const t0 = performance.now();
let failed;
for (const stage of STAGES) {
  const cpu0 = childCpu();
  const results = await Promise.all(stage.map(part));
  const cpu = childCpu() - cpu0;
  rows.push(...results);
  if (stage.length > 1)
    rows.push({
      name: '  (stage above, together)',
      code: 0,
      wall: Math.max(...results.map((r) => r.wall)),
      cpu,
    });
  // The part that failed, not one it stopped.
  failed =
    results.find((r) => r.code !== 0 && !r.name.endsWith('(stopped)')) ??
    results.find((r) => r.code !== 0);
  if (failed) break;
}
const total = (performance.now() - t0) / 1000;
const fmt = (s) => (s === undefined || Number.isNaN(s) ? '' : `${s.toFixed(1)} s`);
const lines = [
  '',
  `npm test: how long each part took (load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`,
  `${'part'.padEnd(28)}${'wall'.padStart(10)}${'CPU'.padStart(10)}  result`,
  ...rows.map(
    (r) =>
      `${r.name.padEnd(28)}${fmt(r.wall).padStart(10)}${fmt(r.cpu).padStart(10)}  ${r.name.startsWith(' ') ? '' : r.code === 0 ? 'ok' : r.name.endsWith('(stopped)') ? 'stopped' : `failed (exit ${r.code})`}`,
  ),
  `${'total'.padEnd(28)}${fmt(total).padStart(10)}`,
  ...heaviestSuites(),
];
rmSync(suiteTimes, { recursive: true, force: true });
process.stdout.write(`${lines.join('\n')}\n`);

/** The suites that took the most CPU, from what each wrote (none when Jest did not run). */
function heaviestSuites() {
  const file = join(suiteTimes, 'suites.jsonl');
  if (!existsSync(file)) return [];
  const suites = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .sort((a, b) => b.cpu - a.cpu);
  const sum = (key) => suites.reduce((total, s) => total + s[key], 0);
  // The run's timeline, for a closer look at where the workers waited (CODER_LOOP_TIMELINE: a file).
  if (process.env.CODER_LOOP_TIMELINE) copyFileSync(file, process.env.CODER_LOOP_TIMELINE);
  return [
    '',
    `Jest suites: ${suites.length}, ${fmt(sum('wall'))} of wall time and ${fmt(sum('cpu'))} of CPU together (${fmt(sum('sys'))} of it the system's); the ${Math.min(HEAVIEST, suites.length)} that took the most CPU (wall, CPU, the system's share):`,
    ...suites
      .slice(0, HEAVIEST)
      .map(
        (s) =>
          `${s.suite.padEnd(48)}${fmt(s.wall).padStart(10)}${fmt(s.cpu).padStart(10)}${fmt(s.sys).padStart(10)}`,
      ),
    ...workers(suites),
  ];
}

/**
 * Each Jest worker's share: its suites' wall and CPU time, and when it ended its last suite,
 * counted from the first suite's start — a worker that ends well before the other waited alone
 * at the end of the run.
 */
function workers(suites) {
  const timed = suites.filter((s) => typeof s.end === 'number');
  if (timed.length === 0) return [];
  const start = Math.min(...timed.map((s) => s.end - s.wall * 1000));
  const byWorker = new Map();
  for (const s of timed) byWorker.set(s.worker, [...(byWorker.get(s.worker) ?? []), s]);
  return [
    `Jest workers (suite wall / suite CPU / last suite ended, from the first suite's start):`,
    ...[...byWorker.values()].map((mine) => {
      const wall = mine.reduce((total, s) => total + s.wall, 0);
      const cpu = mine.reduce((total, s) => total + s.cpu, 0);
      const last = (Math.max(...mine.map((s) => s.end)) - start) / 1000;
      return `  ${String(mine.length).padStart(3)} suites  ${fmt(wall).padStart(9)}  ${fmt(cpu).padStart(9)}  ${fmt(last).padStart(9)}`;
    }),
  ];
}
process.exit(failed ? 1 : 0);
