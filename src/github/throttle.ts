import type Bottleneck from 'bottleneck';
import BottleneckLight from 'bottleneck/light.js';

/**
 * GitHub's secondary rate limits on content-creating requests (REST docs, "About secondary rate
 * limits"): at most 80 a minute and 500 an hour. Concurrency (at most 100 requests at once) is
 * the throttling plugin's global queue's business: 10 per installation.
 */
export const CONTENT_LIMITS = { perMinute: 80, perHour: 500 } as const;

/** A token bucket: `burst` writes at once, then one more every `every` ms, up to `burst`. */
export interface Bucket {
  burst: number;
  every: number;
}

/**
 * The loop's write queues: every write takes a token from both buckets. A
 * bucket lets through at most `burst + floor(T / every) + 1` writes in any window of T ms, so:
 * a minute's bucket 15 + 61 = 76 ≤ 80, an hour's 70 + 423 + 1 = 494 ≤ 500. One event's few
 * dependent writes (a `/coder next` makes 7) go out as fast as GitHub answers; a busy
 * App is held to one write a second, then to one every 8.5 s.
 */
export const WRITE_BUCKETS: { minute: Bucket; hour: Bucket } = {
  minute: { burst: 15, every: 1_000 },
  hour: { burst: 70, every: 8_500 },
};

/** The most writes a bucket lets through in any window of `windowMs` (see `WRITE_BUCKETS`). */
export function mostWrites(bucket: Bucket, windowMs: number): number {
  return bucket.burst + Math.floor(windowMs / bucket.every) + 1;
}

/** The throttling plugin's options for its queues (it accepts its groups as options). */
export interface WriteQueues {
  write: Bottleneck.Group;
  notifications: Bottleneck.Group;
}

type BottleneckClass = typeof Bottleneck;
type Connection = Bottleneck.RedisConnection | Bottleneck.IORedisConnection;

const queues = new WeakMap<object, WriteQueues>();
const LOCAL = {};

/**
 * The queues that replace the plugin's write spacing (one write a second, a notifying one every
 * three): two token buckets chained, minute then hour, per throttling id — Probot gives the
 * Octokit of a webhook event none, so all of the App's installations share one pair, as they
 * share its bot. With a Bottleneck `connection` (Redis: Probot's `REDIS_URL`) the buckets live in
 * Redis and every replica takes from the same ones. Made once per connection (or once in-process), as the
 * plugin's own groups are, so every Octokit of the process shares them.
 */
export function writeQueues(
  options: { Bottleneck?: BottleneckClass; connection?: Connection } = {},
): WriteQueues {
  const key = options.connection ?? LOCAL;
  let made = queues.get(key);
  if (!made) {
    const { write, notifications } = makeWriteQueues(options.Bottleneck, options.connection);
    made = { write, notifications };
    queues.set(key, made);
  }
  return made;
}

/** New queues, shared with nobody (`writeQueues` gives the process's). */
export function makeWriteQueues(
  B: BottleneckClass = BottleneckLight as BottleneckClass,
  connection?: Connection,
): WriteQueues & { hour: Bottleneck.Group } {
  const clustered = connection
    ? // Redis: a queued write is looked at again every second, not Bottleneck's default 5 s.
      { connection, heartbeatInterval: 1_000 }
    : {};
  const bucket = ({ burst, every }: Bucket) => ({
    reservoir: burst,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: every,
    reservoirIncreaseMaximum: burst,
  });
  const hour = new B.Group({
    id: 'coder-loop-write-hour',
    ...bucket(WRITE_BUCKETS.hour),
    // Kept (and in Redis, its keys) until the bucket would be full again, not the plugin's 2 min:
    // a bucket forgotten earlier would start full too soon.
    timeout: WRITE_BUCKETS.hour.burst * WRITE_BUCKETS.hour.every,
    ...clustered,
  });
  const write = new B.Group({
    id: 'coder-loop-write',
    ...bucket(WRITE_BUCKETS.minute),
    timeout: WRITE_BUCKETS.minute.burst * WRITE_BUCKETS.minute.every * 2,
    ...clustered,
  });
  write.on('created', (limiter, key) => limiter.chain(hour.key(key)));
  // Writes that notify people are already in both buckets: no queue of their own.
  const notifications = new B.Group({ id: 'coder-loop-notifications' });
  return { write, notifications, hour };
}
