import {
  CONTENT_LIMITS,
  mostWrites,
  WRITE_BUCKETS,
  writeQueues,
} from '../../src/github/throttle.js';

/** The loop's write buckets against GitHub's secondary limits on content-creating requests. */

it('lets through at most 80 writes in any minute and 500 in any hour', () => {
  const minute = Math.min(
    mostWrites(WRITE_BUCKETS.minute, 60_000),
    mostWrites(WRITE_BUCKETS.hour, 60_000),
  );
  const hour = Math.min(
    mostWrites(WRITE_BUCKETS.minute, 3_600_000),
    mostWrites(WRITE_BUCKETS.hour, 3_600_000),
  );
  expect(minute).toBeLessThanOrEqual(CONTENT_LIMITS.perMinute);
  expect(hour).toBeLessThanOrEqual(CONTENT_LIMITS.perHour);
});

it("leaves room for one event's writes at once: a /coder next makes 7, a completion 5", () => {
  expect(Math.min(WRITE_BUCKETS.minute.burst, WRITE_BUCKETS.hour.burst)).toBeGreaterThanOrEqual(14);
});

it('gives every Octokit of the process the same queues (one pair of buckets per App)', () => {
  expect(writeQueues()).toBe(writeQueues());
  expect(writeQueues().write.id).toBe('coder-loop-write');
});
