import { appendFileSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import Bottleneck from 'bottleneck';
import BottleneckLight from 'bottleneck/light.js';

/**
 * Jest's `setupFilesAfterEnv` for every suite: Bottleneck's zero-delay waits without Node's
 * 1 ms floor.
 *
 * Every Octokit request goes through Bottleneck: @octokit/plugin-retry schedules each one on a
 * limiter of its own, and the throttling plugin's queues are Bottleneck groups. A limiter waits
 * four times a request with `setTimeout(…, 0)`, which Node runs no sooner than 1 ms later: its
 * local store yields to the event loop at `register`, `submit` and `free`, and the limiter starts
 * the job on a timer of the wait its store computed (0 when nothing holds it back). Against
 * GitHub that is nothing beside the request itself; against the in-memory GitHub, which answers
 * in microseconds, it was most of a request's time: a model-suite shard spent three quarters of
 * its wall time asleep in those timers (issue 42). Here a zero-delay wait ends at the event
 * loop's next turn (`setImmediate`): still after every pending promise and I/O callback — what
 * the yield is for — in the same place of the same sequence, only without the floor. A non-zero
 * wait (a penalty, a reservoir's refresh, `retry-after`) is the library's own timer, untouched.
 *
 * Both are internals of Bottleneck (2.19.5, pinned, its last release), reached through a
 * limiter's `_store` and the class's `_run`; the patch checks that they are there, so that an
 * upgrade that moves them fails here instead of silently running the old way.
 */
type Yield = (this: { Promise: PromiseConstructor }, t?: number) => Promise<void>;
type Run = (this: unknown, index: number, job: unknown, wait: number) => { timeout: Timer };
/** Node's Timeout: `_onTimeout` is its callback until it fires or is cleared (then `null`). */
type Timer = NodeJS.Timeout & { _onTimeout?: ((this: unknown) => void) | null };
const PATCHED = Symbol.for('coder-loop.test.immediateBottleneck');

for (const Library of [Bottleneck, BottleneckLight]) {
  const limiter = new Library();
  const store = (limiter as unknown as { _store: object })._store;
  const storeProto = Object.getPrototypeOf(store) as { yieldLoop?: Yield };
  const limiterProto = Library.prototype as unknown as { _run?: Run };
  const yieldLoop = storeProto.yieldLoop;
  const run = limiterProto._run;
  if (typeof yieldLoop !== 'function' || typeof run !== 'function')
    throw new Error("Bottleneck's internals moved: test/helpers/setup.ts needs a look");
  if (!(PATCHED in yieldLoop)) {
    storeProto.yieldLoop = Object.assign(
      function (this: { Promise: PromiseConstructor }, t = 0) {
        return t === 0
          ? new this.Promise<void>((resolve) => setImmediate(resolve))
          : yieldLoop.call(this, t);
      },
      { [PATCHED]: true },
    );
  }
  if (!(PATCHED in run)) {
    limiterProto._run = Object.assign(
      function (this: unknown, index: number, job: unknown, wait: number) {
        const scheduled = run.call(this, index, job, wait);
        // The job's timer fires at the next turn, once: unless it has fired or was cleared by
        // then (`stop`: its callback is then null). Where Node's timers have no `_onTimeout`,
        // the timer fires as it would.
        const timer = scheduled.timeout;
        const fire = timer._onTimeout;
        if (wait === 0 && typeof fire === 'function') {
          let fired = false;
          const once = function (this: unknown) {
            if (fired) return;
            fired = true;
            fire.call(this);
          };
          timer._onTimeout = once;
          setImmediate(() => {
            if (timer._onTimeout !== once) return;
            clearTimeout(timer);
            once.call(timer);
          });
        }
        return scheduled;
      },
      { [PATCHED]: true },
    );
  }
  void limiter.disconnect();
}

/**
 * Each suite's time, when `npm test` asks for it (`CODER_LOOP_SUITE_TIMES`, a directory): its
 * wall time and its CPU time — the worker's user and system time, and that of the processes it
 * started that have ended — from here, before the suite's own imports, to its last test; one JSON
 * line each in `suites.jsonl`, for the table `npm test` prints at its end (what costs the most on
 * a shared machine, and what `test/sequencer.js` lists). Linux only: elsewhere, no CPU.
 */
const suiteTimes = process.env.CODER_LOOP_SUITE_TIMES;
if (suiteTimes) {
  /** User and system CPU time of the worker and its ended children, in seconds. */
  const cpu = (): { user: number; sys: number } => {
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      // utime, stime, cutime, cstime, in USER_HZ (100 a second).
      return { user: (fields[11]! + fields[13]!) / 100, sys: (fields[12]! + fields[14]!) / 100 };
    } catch {
      return { user: Number.NaN, sys: Number.NaN };
    }
  };
  const cpu0 = cpu();
  const wall0 = performance.now();
  afterAll(() => {
    const suite = relative(process.cwd(), expect.getState().testPath ?? '');
    const now = cpu();
    const line = {
      suite,
      wall: (performance.now() - wall0) / 1000,
      cpu: now.user + now.sys - cpu0.user - cpu0.sys,
      // The system's share of it: processes started, files written, namespaces made.
      sys: now.sys - cpu0.sys,
      // When it ended (ms since the epoch) and in which worker: the run's timeline.
      end: Date.now(),
      worker: process.pid,
    };
    appendFileSync(join(suiteTimes, 'suites.jsonl'), `${JSON.stringify(line)}\n`);
  });
}
