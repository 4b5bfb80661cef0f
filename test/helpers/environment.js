import { TestEnvironment } from 'jest-environment-node';
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
