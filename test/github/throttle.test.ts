import { jest } from '@jest/globals';
import { makeWriteQueues, writeQueues } from '../../src/github/throttle.js';

/**
 * The loop's write queues, measured: many writes queued at once, on jest's clock (which is also
 * Bottleneck's), and the times each went out. GitHub's secondary limits on content-creating
 * requests, as its REST docs state them: at most 80 a minute and 500 an hour.
 */
const PER_MINUTE = 80;
const PER_HOUR = 500;
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The most of `times` (sorted) in any window [t, t + windowMs). */
function mostInAnyWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

let times: number[] = [];

beforeAll(async () => {
  jest.useFakeTimers({ now: 0 });
  const { write } = makeWriteQueues();
  const limiter = write.key('installation-1');
  // More writes than two hours let through: the queue is never empty.
  for (let i = 0; i < 1_200; i++)
    void limiter.schedule(() => {
      times.push(Date.now());
      return Promise.resolve();
    });
  for (let t = 0; t < 2 * HOUR; t += MINUTE) await jest.advanceTimersByTimeAsync(MINUTE);
  times = [...times].sort((a, b) => a - b);
  jest.useRealTimers();
}, 120_000);

it(`lets through at most ${PER_MINUTE} writes in any minute and ${PER_HOUR} in any hour`, () => {
  expect(mostInAnyWindow(times, MINUTE)).toBeLessThanOrEqual(PER_MINUTE);
  expect(mostInAnyWindow(times, HOUR)).toBeLessThanOrEqual(PER_HOUR);
  // And it is a limit, not a stop: most of an hour's allowance goes out in each hour.
  expect(times.filter((t) => t < HOUR).length).toBeGreaterThanOrEqual(400);
  expect(times.filter((t) => t >= HOUR && t < 2 * HOUR).length).toBeGreaterThanOrEqual(300);
});

it("leaves room for two events' writes at once: a /coder next makes 7, a completion 5", () => {
  // The writes queued at once that went out at once (Bottleneck's own steps take a few ms of its
  // clock), not one a second.
  expect(times.filter((t) => t < 100).length).toBeGreaterThanOrEqual(14);
});

it('gives every Octokit of the process the same queues (one pair of buckets per App)', () => {
  expect(writeQueues()).toBe(writeQueues());
  expect(writeQueues().write.id).toBe('coder-loop-write');
});
