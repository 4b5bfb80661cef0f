/**
 * The agent's supervisor: a small Node program (`node -e`, CommonJS) that `step: agent` starts
 * through the containment launcher (see process.ts). It reads its orders as JSON on stdin —
 * `{command, cwd, env, timeoutMs, graceMs, statusFile, marker}` — runs `bash -c command` with
 * exactly `env`, and when the command exits or its time runs out it ends every process the agent
 * started before it writes `{exitCode, signal, timedOut, survivors}` to `statusFile` and exits.
 *
 * In a PID namespace it is the namespace's init (pid 1): `kill(-1)` reaches every process in the
 * namespace whatever session or parent it has, and when it exits the kernel kills whatever is
 * left. Without a namespace it tracks the agent's processes in /proc (parent chain, session,
 * process group, the run's environment marker) while the agent runs and kills them at the end.
 *
 * Kept as plain JavaScript text so that the bundle, the compiled library and the tests all start
 * the same program with the running Node (`process.execPath`), whatever user it runs as.
 */
export const AGENT_INIT_SOURCE = String.raw`
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
// SIGUSR1 would open Node's inspector to any process of the same user.
process.on('SIGUSR1', () => {});
const spec = JSON.parse(fs.readFileSync(0, 'utf8'));
const inNamespace = process.pid === 1;
const self = process.pid;

function stat(pid) {
  try {
    const text = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]), start: f[19] };
  } catch {
    return undefined;
  }
}
function marked(pid) {
  try {
    return fs.readFileSync('/proc/' + pid + '/environ', 'latin1').split('\0').includes(spec.marker);
  } catch {
    return false;
  }
}
function pids() {
  try {
    return fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
}

// Without a namespace: every process seen to belong to the run, pid -> start time.
const tracked = new Map();
let sessions = new Set();
function scan() {
  const all = new Map();
  for (const pid of pids()) {
    if (pid === self) continue;
    const s = stat(pid);
    if (s) all.set(pid, s);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, s] of all) {
      if (tracked.get(pid) === s.start) continue;
      const ours =
        s.ppid === self ||
        tracked.has(s.ppid) ||
        sessions.has(s.session) ||
        sessions.has(s.pgrp) ||
        (spec.marker && marked(pid));
      if (ours) {
        tracked.set(pid, s.start);
        grew = true;
      }
    }
  }
}
function alive() {
  const out = [];
  for (const [pid, start] of tracked) {
    const s = stat(pid);
    if (s && s.start === start && s.state !== 'Z') out.push(pid);
    else if (!s || s.start !== start) tracked.delete(pid);
  }
  return out;
}
function signalAll(signal) {
  if (inNamespace) {
    try {
      process.kill(-1, signal);
    } catch {}
    return;
  }
  scan();
  for (const pid of alive()) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}
/** Stops, then kills, every process of the run until a scan finds none. */
function sweep() {
  if (inNamespace) {
    signalAll('SIGKILL');
    return 0;
  }
  for (let round = 0; round < 200; round++) {
    scan();
    const left = alive();
    if (left.length === 0) return 0;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {}
    }
    scan();
    for (const pid of alive()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }
  scan();
  return alive().length;
}

const child = spawn('bash', ['-c', spec.command], {
  cwd: spec.cwd,
  env: spec.env,
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
});
sessions.add(child.pid);
tracked.set(child.pid, (stat(child.pid) || {}).start);
const poll = inNamespace ? undefined : setInterval(scan, 25);
let timedOut = false;
let graceTimer;
const timer = setTimeout(() => {
  timedOut = true;
  signalAll('SIGTERM');
  graceTimer = setTimeout(finish, spec.graceMs);
}, spec.timeoutMs);
let result;
child.on('exit', (exitCode, signal) => {
  result = { exitCode, signal };
  finish();
});
child.on('error', (error) => {
  result = { exitCode: 127, signal: null, error: String(error && error.message) };
  finish();
});
let finished = false;
function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(timer);
  clearTimeout(graceTimer);
  if (poll) clearInterval(poll);
  const survivors = sweep();
  const status = Object.assign({ exitCode: null, signal: 'SIGKILL' }, result || {}, {
    timedOut,
    survivors,
    containment: inNamespace ? 'pid-namespace' : 'process-tree',
  });
  fs.writeFileSync(spec.statusFile, JSON.stringify(status));
  process.exit(0);
}
`;
