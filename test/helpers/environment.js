import { TestEnvironment } from 'jest-environment-node';
import process from 'node:process';
import { worker } from './worker.js';

/**
 * Jest's node environment, plus what every suite a worker runs shares (test/helpers/worker.js):
 * made once per worker, outside the suites' sandboxes, as `globalThis.coderLoopWorker`.
 */
export default class WorkerEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.coderLoopWorker = worker;
  }
}

/**
 * A worker that has nothing left to do ends at once. When a run ends, Jest tells each worker
 * to stop and kills one that has not exited 500 ms later, with "A worker process has failed to
 * exit gracefully". Ours had nothing open — the event loop was empty a millisecond after the
 * message — but a worker that ran fifty suites holds 1.2–1.3 GB, and Node's own teardown of that
 * (V8's heap freed page by page, then the kernel unmapping the rest), three workers at once on
 * two cores, took 410–550 ms: one in most full runs went past the 500 ms. `beforeExit` comes only
 * when nothing is left (a timer, a socket, a child, a server keeps it away), so a real leak still
 * gets the warning; when it comes, `process.exit()` leaves the memory to the kernel in one go.
 * Only in a worker Jest forked (`process.send`): in band, Jest's own process ends as it would.
 */
if (typeof process.send === 'function' && process.env.JEST_WORKER_ID !== undefined) {
  process.once('beforeExit', () => process.exit());
}
