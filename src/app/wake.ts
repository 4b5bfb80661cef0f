import { Queue, Worker } from 'bullmq';
import type { WakeJob } from '../github/loop/index.js';

/** A wake-up as the App keeps it: the job and the installation that may act on its repository. */
export type AppWakeJob = WakeJob & { installation: number };

const QUEUE = 'coder-loop-wake';

/**
 * The App's wake-ups (a pause's end): delayed jobs in the Redis the replicas already share
 * (`REDIS_URL`), through BullMQ — they survive a restart, and one job id per PR head and time
 * runs once across replicas (a second `add` with the same id is a no-op). `handle` resumes the
 * PR (src/github/loop/pause.ts), which does nothing when the pause is gone already.
 */
export function redisWaker(
  redisUrl: string,
  handle: (job: AppWakeJob) => Promise<void>,
  /** A wake-up that failed (it is tried again, up to 5 times): said in the log. */
  failed: (job: AppWakeJob, error: Error) => void,
): { wake: (job: AppWakeJob) => Promise<void>; close: () => Promise<void> } {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue<AppWakeJob>(QUEUE, { connection });
  const worker = new Worker<AppWakeJob>(QUEUE, async (job) => handle(job.data), { connection });
  worker.on('failed', (job, error) => {
    if (job) failed(job.data, error);
  });
  return {
    wake: async (job) => {
      const delay = Math.max(0, Date.parse(job.at) - Date.now());
      await queue.add('resume', job, {
        jobId: wakeJobId(job),
        delay,
        attempts: 5,
        backoff: { type: 'exponential', delay: 60_000 },
        removeOnComplete: 1000,
        removeOnFail: 1000,
      });
    },
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}

/** One id per PR head and wake-up time (BullMQ refuses `:` in custom ids). */
function wakeJobId(job: WakeJob): string {
  return `${job.owner}/${job.repo}#${job.pullRequest}@${job.sha}|${job.at}`.replace(/:/g, '_');
}
