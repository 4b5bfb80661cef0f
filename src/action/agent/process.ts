import { spawn } from 'node:child_process';

export interface AgentRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The end of what the agent printed (stdout and stderr, interleaved). */
  outputTail: string;
}

/** How much of the agent's output is kept for the summary. */
const TAIL_BYTES = 16 * 1024;
/** Between SIGTERM and SIGKILL of the agent's process group. */
export const KILL_GRACE_MS = 5_000;

/** A signal to the whole process group the agent leads; a group already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Runs the agent's command with bash in `cwd`, with exactly `env`, detached in its own process
 * group so that past `timeoutMs` the whole group (the CLI and every child it started) is sent
 * SIGTERM, then SIGKILL. Its output goes to the job log and its tail is kept.
 */
export function runAgent(
  command: string,
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; graceMs?: number },
  echo: (chunk: Buffer) => void = (chunk) => process.stdout.write(chunk),
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = Buffer.alloc(0);
    const keep = (chunk: Buffer) => {
      echo(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid!, 'SIGTERM');
      kill = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), options.graceMs ?? KILL_GRACE_MS);
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(kill);
      reject(error);
    });
    child.on('exit', (exitCode, signal) => {
      clearTimeout(timer);
      clearTimeout(kill);
      // Whatever the agent left running in its group ends with it.
      signalGroup(child.pid!, 'SIGKILL');
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(wait);
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ exitCode, signal, timedOut, outputTail: tail.toString('utf8') });
      };
      // The last output is read; a process that left the group and holds the pipes is not waited for.
      const wait = setTimeout(done, 2_000);
      child.once('close', done);
    });
  });
}
