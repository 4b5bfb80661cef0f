import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { launcher, runAgent } from '../../src/action/agent/process.js';
import { killProcessesWith, processesWith } from '../helpers/process.js';

/**
 * Containment (SPEC §9 "Contained"): when the agent's run ends, by exit or by timeout, no process
 * it started is alive, including one that called setsid, double-forked and cleared its
 * environment. Processes are found by a token on their command line, from this (outer) process.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'coder-loop-contain-'));
});
afterEach(async () => {
  killProcessesWith(token);
  await rm(dir, { recursive: true, force: true });
});

let token = '';

/**
 * An agent that leaves a process behind the way an attacker would: `setsid` (own session and
 * group), a double fork (its parent gone, it is re-parented), an empty environment; the survivor
 * sleeps with the token on its command line.
 */
function escapingAgent(then: string): string {
  token = `coder-loop-escapee-${randomBytes(6).toString('hex')}`;
  const inner = `require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', '${token}'], { detached: true, stdio: 'ignore', env: {} }).unref()`;
  return `setsid env -i ${process.execPath} -e ${JSON.stringify(inner)}; sleep 0.3; ${then}`;
}

const modes = [
  ['the strongest containment here', {}],
  ['the /proc fallback', { CODER_LOOP_AGENT_CONTAINMENT: 'process-tree' }],
] as const;

describe.each(modes)('with %s', (_name, processEnv) => {
  it('after the agent exits, a setsid + double-forked child is gone', async () => {
    const run = await runAgent(
      escapingAgent('exit 3'),
      { cwd: dir, env: { PATH: process.env.PATH! }, timeoutMs: 20_000, processEnv },
      () => undefined,
    );
    expect(run).toMatchObject({ exitCode: 3, timedOut: false, survivors: 0 });
    expect(processesWith(token)).toEqual([]);
  });

  it('past the timeout, the agent and a setsid + double-forked child are gone', async () => {
    const run = await runAgent(
      escapingAgent('sleep 60'),
      { cwd: dir, env: { PATH: process.env.PATH! }, timeoutMs: 1_500, graceMs: 300, processEnv },
      () => undefined,
    );
    expect(run).toMatchObject({ timedOut: true, survivors: 0 });
    expect(processesWith(token)).toEqual([]);
  });
});

it('uses a PID namespace where the machine allows one (root, user namespaces or sudo)', () => {
  const how = launcher();
  // This machine (and GitHub's Ubuntu runners) can make one; say which way.
  expect(how).toMatchObject({ containment: 'pid-namespace' });
});

it('in a PID namespace the agent sees no process of the step, nor its environment', async () => {
  const run = await runAgent(
    'echo "ppid=$PPID procs=$(ls /proc | grep -c "^[0-9]")"; cat /proc/$PPID/environ 2>&1 | head -c 0; ls /proc/1/environ >/dev/null && tr "\\0" "\\n" < /proc/1/environ | grep -c INPUT_ || true',
    { cwd: dir, env: { PATH: process.env.PATH! }, timeoutMs: 20_000 },
    () => undefined,
  );
  expect(run.exitCode).toBe(0);
  // bash's parent is the supervisor, pid 1 of the namespace; the Action's process is not in it.
  expect(run.outputTail).toMatch(/^ppid=1 procs=[2-6]\n0\n$/);
});
