import Bottleneck from 'bottleneck';
import BottleneckLight from 'bottleneck/light.js';

/**
 * Jest's `setupFilesAfterEnv` for every suite: Bottleneck's zero-delay yields without Node's
 * 1 ms floor.
 *
 * Every Octokit request goes through Bottleneck: @octokit/plugin-retry schedules each one on a
 * limiter of its own, and the throttling plugin's queues are Bottleneck groups. A limiter's local
 * store yields to the event loop three times a request (`register`, `submit`, `free`) with
 * `setTimeout(resolve, 0)`, which Node runs no sooner than 1 ms later. Against GitHub that is
 * nothing beside the request itself; against the in-memory GitHub, which answers in microseconds,
 * it was most of a request's time: a model-suite shard spent three quarters of its wall time
 * asleep in those timers (issue 42). Here a zero-delay yield is `setImmediate`: still a yield to
 * the event loop after every pending promise and I/O callback (what the store's yield is for), in
 * the same place of the same sequence, only without the floor. A non-zero wait (a penalty, a
 * reservoir's refresh, `retry-after`) is the library's own `setTimeout`, untouched.
 *
 * The store is internal to Bottleneck (2.19.5, pinned, its last release): it is reached through a
 * limiter's `_store`, and the patch checks that the method it replaces is there, so that an
 * upgrade that moves it fails here instead of silently running the old way.
 */
interface Store {
  yieldLoop(this: Store & { Promise: PromiseConstructor }, t?: number): Promise<void>;
}

for (const Library of [Bottleneck, BottleneckLight]) {
  const limiter = new Library();
  const store = (limiter as unknown as { _store: { constructor: { prototype: Store } } })._store;
  const proto = store.constructor.prototype;
  const original = proto.yieldLoop;
  if (typeof original !== 'function')
    throw new Error(
      "Bottleneck's local store has no yieldLoop: test/helpers/setup.ts needs a look",
    );
  if (!(original as { fastYield?: true }).fastYield) {
    const yieldLoop = function (this: Store & { Promise: PromiseConstructor }, t = 0) {
      return t === 0
        ? new this.Promise<void>((resolve) => setImmediate(resolve))
        : original.call(this, t);
    };
    Object.assign(yieldLoop, { fastYield: true });
    proto.yieldLoop = yieldLoop;
  }
  void limiter.disconnect();
}
