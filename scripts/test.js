// `npm test`: every check CI runs, in three stages, then how long each part took.
//
// 1. What the machine needs (scripts/test-needs.js), then the build (lib/, which the CLI and
//    process suites run), unless lib/ is newer than every source: after `npm ci`, whose
//    `prepare` built it, it is not built twice.
// 2. The checks that do not depend on each other, side by side: each is one process on one core
//    (the type-check, ESLint, Prettier, check-dist, actionlint through its suite) or waits on the
//    network (the agent CLIs' install), so two cores run them in about half the time one after
//    the other took. Each one's output is printed whole when it ends.
// 3. Jest, all suites (its own workers use both cores).
//
// A failing stage stops the run before the next (as the `&&` chain this replaces did); the
// table of times is printed either way. Wall time is the clock; CPU is the part's processes'
// user + system time, which says what a part costs when the machine is shared. Below it, the
// Jest suites that took the most CPU (each suite writes its times, test/helpers/setup.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STAGES = [
  [['needs', 'node', ['scripts/test-needs.js']]],
  [['build', npm, ['run', '--silent', 'build'], undefined, libIsFresh]],
  [
    ['typecheck', npm, ['run', '--silent', 'typecheck']],
    ['eslint', 'npx', ['eslint', '.']],
    ['prettier', 'npx', ['prettier', '--check', '--log-level', 'warn', '.']],
    ['check-dist', npm, ['run', '--silent', 'check-dist']],
    ['agent-clis', npm, ['run', '--silent', 'agent-clis']],
  ],
  [['jest', npm, ['run', '--silent', 'jest', '--', ...process.argv.slice(2)], 'inherit']],
];

/**
 * lib/ is what `npm run build` makes of src/ now: every source's .js is no older than the source
 * (the rule of test/helpers/build.ts). After `npm ci`, whose `prepare` built it, it is.
 */
function libIsFresh(dir = 'src') {
  return readdirSync(dir, { withFileTypes: true }).every((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return libIsFresh(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) return true;
    const out = join('lib', relative('src', path).replace(/\.ts$/, '.js'));
    return existsSync(out) && statSync(out).mtimeMs >= statSync(path).mtimeMs;
  });
}

/** Runs one part: its exit code, wall and CPU seconds; output buffered unless `inherit`. */
function part([name, command, args, stdio, skipWhen]) {
  const started = performance.now();
  if (skipWhen?.()) {
    process.stdout.write(`── ${name} ──\nup to date\n`);
    return Promise.resolve({ name: `${name} (up to date)`, code: 0, wall: 0 });
  }
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
    const out = [];
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr?.on('data', (d) => out.push(d));
    child.on('close', (code, signal) => {
      const text = Buffer.concat(out).toString();
      if (text) process.stdout.write(`── ${name} ──\n${text}${text.endsWith('\n') ? '' : '\n'}`);
      resolve({ name, code: code ?? (signal ? 1 : 0), wall: (performance.now() - started) / 1000 });
    });
  });
}

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
  for (const r of results) rows.push({ ...r, cpu: stage.length === 1 ? cpu : undefined });
  if (stage.length > 1)
    rows.push({
      name: '  (stage above, together)',
      code: 0,
      wall: Math.max(...results.map((r) => r.wall)),
      cpu,
    });
  failed = results.find((r) => r.code !== 0);
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
      `${r.name.padEnd(28)}${fmt(r.wall).padStart(10)}${fmt(r.cpu).padStart(10)}  ${r.name.startsWith(' ') ? '' : r.code === 0 ? 'ok' : `failed (exit ${r.code})`}`,
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
  return [
    '',
    `Jest suites: ${suites.length}, ${fmt(sum('wall'))} of wall time and ${fmt(sum('cpu'))} of CPU together; the ${Math.min(HEAVIEST, suites.length)} that took the most CPU:`,
    ...suites
      .slice(0, HEAVIEST)
      .map((s) => `${s.suite.padEnd(48)}${fmt(s.wall).padStart(10)}${fmt(s.cpu).padStart(10)}`),
  ];
}
process.exit(failed ? 1 : 0);
