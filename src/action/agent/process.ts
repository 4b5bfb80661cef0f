import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_INIT_SOURCE } from './init.js';

/**
 * How the agent's processes are held:
 * - `pid-namespace`: the agent runs in a PID namespace of its own (with its own /proc), under a
 *   supervisor that is the namespace's init. Every process it starts — one that called `setsid`
 *   or double-forked too — lives in that namespace, cannot see or signal a process outside it
 *   (the Action's own process and its environment included), and is killed by the kernel when
 *   the supervisor exits. Made with util-linux `unshare`: directly as root, through an
 *   unprivileged user namespace where the kernel allows one, else through `sudo -n` (GitHub's
 *   Ubuntu 24.04 runners forbid unprivileged user namespaces but give the runner passwordless
 *   sudo), then back to the runner's own user with `setpriv`.
 * - `process-tree`: no namespace could be made (no unshare, no user namespaces, no sudo). The
 *   supervisor is made a child subreaper (through perl, where there is perl), so every orphan of
 *   the run is re-parented to it; it also tracks the run's processes in /proc while it runs
 *   (parent chain, session, process group, an environment marker), and stops and kills them all
 *   at the end. The agent can still see the step's process and its environment in /proc; without
 *   perl, a process that clears its environment and leaves the session between two scans (25 ms)
 *   can outlive the step. The step says which in the log.
 */
export type Containment = 'pid-namespace' | 'process-tree';

export interface AgentRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The end of what the agent printed (stdout and stderr, interleaved). */
  outputTail: string;
  /** The end of what the agent printed on stdout alone: where a CLI reports its usage. */
  stdoutTail: string;
  containment: Containment;
  /** How the namespace was made (`unshare`, `unshare --user`, `sudo unshare`), or why none was. */
  launcher: string;
  /** Processes of the run still alive after the sweep (process-tree only; 0 in a namespace). */
  survivors: number;
}

/** How much of the agent's output is kept for the summary. */
const TAIL_BYTES = 16 * 1024;
/** How much of the agent's stdout is kept for its usage report (JSON lines or a final document). */
const STDOUT_BYTES = 4 * 1024 * 1024;
/** Between SIGTERM and SIGKILL of the agent's processes. */
const KILL_GRACE_MS = 5_000;
/** Past the agent's timeout and grace, how long the supervisor itself is waited for. */
const SUPERVISOR_SLACK_MS = 30_000;

interface Launcher {
  containment: Containment;
  /** The command line the supervisor (`node -e …`) is appended to. */
  prefix: string[];
  name: string;
}

const UNSHARE = ['--pid', '--fork', '--mount-proc', '--kill-child'];

/** A launcher works when the program it starts is pid 1 of a new namespace. */
function works(prefix: string[]): boolean {
  const probe = spawnSync(
    prefix[0]!,
    [...prefix.slice(1), process.execPath, '-e', 'process.exit(process.pid === 1 ? 0 : 9)'],
    { stdio: 'ignore', timeout: 15_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  return probe.status === 0;
}

let chosen: Launcher | undefined;

/**
 * The strongest containment this machine allows, found once per process. `CODER_LOOP_AGENT_CONTAINMENT=process-tree`
 * (tests only) forces the fallback.
 */
export function launcher(env: NodeJS.ProcessEnv = process.env): Launcher {
  if (env.CODER_LOOP_AGENT_CONTAINMENT === 'process-tree') return processTree();
  if (chosen) return chosen;
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  const candidates: [string, string[]][] =
    uid === 0
      ? [['unshare', ['unshare', ...UNSHARE, '--']]]
      : [
          ['unshare --user', ['unshare', '--user', '--map-current-user', ...UNSHARE, '--']],
          [
            'unshare --user',
            ['unshare', '--user', `--map-user=${uid}`, `--map-group=${gid}`, ...UNSHARE, '--'],
          ],
          [
            'sudo unshare',
            [
              'sudo',
              '-n',
              '--',
              'unshare',
              ...UNSHARE,
              '--',
              'setpriv',
              `--reuid=${uid}`,
              `--regid=${gid}`,
              '--init-groups',
              // No way back up: sudo (and so `sudo systemd-run`, which would start a process
              // outside the namespace that outlives the step) refuses under no_new_privs.
              '--no-new-privs',
              '--',
            ],
          ],
        ];
  for (const [name, prefix] of candidates)
    if (works(prefix)) return (chosen = { containment: 'pid-namespace', prefix, name });
  return (chosen = processTree());
}

/**
 * Perl's `syscall` makes the supervisor a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, kept
 * across `exec`): a process of the run whose parent exits is re-parented to the supervisor, not
 * to init, so walking the parent chain finds every one of them.
 */
const SUBREAPER = [
  'perl',
  '-e',
  'require "syscall.ph"; syscall(&SYS_prctl, 36, 1, 0, 0, 0) == 0 or die "prctl: $!"; exec @ARGV or die "exec: $!"',
  '--',
];

let fallback: Launcher | undefined;
function processTree(): Launcher {
  if (fallback) return fallback;
  const probe = spawnSync(SUBREAPER[0]!, [...SUBREAPER.slice(1), process.execPath, '-e', '0'], {
    stdio: 'ignore',
    timeout: 15_000,
  });
  return (fallback =
    probe.status === 0
      ? { containment: 'process-tree', prefix: SUBREAPER, name: 'no PID namespace; a subreaper' }
      : {
          containment: 'process-tree',
          prefix: [],
          name: 'no PID namespace and no subreaper (no unshare, user namespaces, sudo or perl)',
        });
}

/** A signal to a process group; one already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

interface Status {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  survivors: number;
}

/**
 * Runs the agent's command with bash in `cwd`, with exactly `env`, under the supervisor (see
 * init.ts) inside the strongest containment available: past `timeoutMs` every process of the
 * run is sent SIGTERM, then SIGKILL after `graceMs`; when the command exits, whatever it left
 * running is killed. Resolves only once no process of the run is left (in a namespace: the
 * namespace is gone). Its output goes to the job log between `::stop-commands::` markers, so it
 * cannot issue workflow commands, and its tail is kept.
 */
export async function runAgent(
  command: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    graceMs?: number;
    /** Where the supervisor's status file goes (a fresh folder is made in it). */
    tempDir?: string;
    /** The step's environment (containment override for tests). */
    processEnv?: NodeJS.ProcessEnv;
  },
  echo: (chunk: Buffer) => void = (chunk) => process.stdout.write(chunk),
): Promise<AgentRun> {
  const how = launcher(options.processEnv);
  const graceMs = options.graceMs ?? KILL_GRACE_MS;
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'coder-loop-supervisor-'));
  const statusFile = join(dir, 'status.json');
  // Without a namespace, the processes of the run are also known by this variable.
  const marker = `CODER_LOOP_RUN=${randomBytes(16).toString('hex')}`;
  const env =
    how.containment === 'process-tree'
      ? { ...options.env, CODER_LOOP_RUN: marker.slice('CODER_LOOP_RUN='.length) }
      : options.env;
  const orders = JSON.stringify({
    command,
    cwd: options.cwd,
    env,
    timeoutMs: options.timeoutMs,
    graceMs,
    statusFile,
    marker: how.containment === 'process-tree' ? marker : '',
  });
  const stop = randomBytes(16).toString('hex');
  echo(Buffer.from(`::stop-commands::${stop}\n`));
  try {
    const { tail, out, code } = await new Promise<{
      tail: string;
      out: string;
      code: number | null;
    }>((resolve, reject) => {
      const argv = [...how.prefix, process.execPath, '-e', AGENT_INIT_SOURCE];
      const child = spawn(argv[0]!, argv.slice(1), {
        cwd: options.cwd,
        env: { PATH: options.env.PATH ?? process.env.PATH ?? '/usr/bin:/bin' },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.on('error', () => {});
      child.stdin.end(orders);
      let tail = Buffer.alloc(0);
      const keep = (chunk: Buffer) => {
        echo(chunk);
        tail = Buffer.concat([tail, chunk]);
        if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
      };
      // The newest chunks of stdout, at most STDOUT_BYTES past the oldest one kept.
      const stdoutChunks: Buffer[] = [];
      let stdoutBytes = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        keep(chunk);
        stdoutChunks.push(chunk);
        stdoutBytes += chunk.length;
        while (stdoutChunks.length > 1 && stdoutBytes - stdoutChunks[0]!.length >= STDOUT_BYTES)
          stdoutBytes -= stdoutChunks.shift()!.length;
      });
      const stdoutTail = () => {
        const all = Buffer.concat(stdoutChunks);
        return all.subarray(Math.max(0, all.length - STDOUT_BYTES)).toString('utf8');
      };
      child.stderr.on('data', keep);
      // The supervisor ends the run itself; this only ends a supervisor that hangs.
      const backstop = setTimeout(
        () => signalGroup(child.pid!, 'SIGKILL'),
        options.timeoutMs + graceMs + SUPERVISOR_SLACK_MS,
      );
      child.on('error', (error) => {
        clearTimeout(backstop);
        reject(error);
      });
      child.on('exit', (code) => {
        clearTimeout(backstop);
        let finished = false;
        const done = () => {
          if (finished) return;
          finished = true;
          clearTimeout(wait);
          child.stdout.destroy();
          child.stderr.destroy();
          resolve({ tail: tail.toString('utf8'), out: stdoutTail(), code });
        };
        // The last output is read; a survivor of the fallback holding the pipes is not waited for.
        const wait = setTimeout(done, 2_000);
        child.once('close', done);
      });
    });
    let status: Status;
    try {
      status = JSON.parse(await readFile(statusFile, 'utf8')) as Status;
    } catch {
      // The supervisor itself was killed (the backstop, or out of memory): count it as a timeout.
      status = { exitCode: code, signal: 'SIGKILL', timedOut: true, survivors: 0 };
    }
    return {
      exitCode: status.exitCode,
      signal: status.signal,
      timedOut: status.timedOut,
      outputTail: tail,
      stdoutTail: out,
      containment: how.containment,
      launcher: how.name,
      survivors: status.survivors,
    };
  } finally {
    echo(Buffer.from(`\n::${stop}::\n`));
    await rm(dir, { recursive: true, force: true });
  }
}
