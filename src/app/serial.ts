import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/** Runs `work` when no other work under `key` runs; undefined: at once. */
export type Serial = <T>(key: string | undefined, work: () => Promise<T>) => Promise<T>;

/**
 * One key's work one piece at a time, in this process: each piece starts when the one before it
 * under the same key has ended (done or failed); other keys' work goes on beside it. The App keys
 * a loop PR's events by the head they are about (`headOfEvent`), so GitHub's several deliveries
 * for one CI result are judged one after the other: the second reads what the first wrote.
 */
export function serialByKey(): Serial {
  const tails = new Map<string, Promise<unknown>>();
  return async (key, work) => {
    if (key === undefined) return work();
    const mine = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await mine;
    } finally {
      // The last piece under its key: nothing waits on it, and the map keeps no key for long.
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/**
 * How long a replica holds a head before the others may take it anyway: longer than any delivery
 * takes (each GitHub request has its time limit and bounded retries), short enough that a replica
 * that died holding one delays that head's next event by minutes, not for ever.
 */
const HEAD_LEASE_MS = 5 * 60_000;

/** Deletes the lease only while it is still the caller's (a lease that ran out may be another's). */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * `serialByKey` across replicas: the same, then a lease on the key in the Redis the replicas share
 * (`SET NX PX`: one replica holds it at a time), waited for with a growing pause (25 ms to 0.5 s),
 * given back when the work ends.
 */
export function redisSerialByKey(redisUrl: string): { serial: Serial; close: () => Promise<void> } {
  const local = serialByKey();
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const serial: Serial = (key, work) =>
    local(key, async () => {
      if (key === undefined) return work();
      const lease = `coder-loop:head:${key}`;
      const token = randomUUID();
      for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
        if ((await client.set(lease, token, 'PX', HEAD_LEASE_MS, 'NX')) === 'OK') break;
        await sleep(pause);
      }
      try {
        return await work();
      } finally {
        await client.eval(RELEASE, 1, lease, token).catch(() => undefined);
      }
    });
  return { serial, close: async () => void (await client.quit()) };
}
