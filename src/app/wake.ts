import { Queue, Worker } from 'bullmq';
import type { WakeJob } from '../github/loop/index.js';

/** A wake-up as the App keeps it: the job and the installation that may act on its repository. */
export type AppWakeJob = WakeJob & { installation: number };

const QUEUE = 'coder-loop-wake';
/** The wake-ups asked for and not run yet: one field per job id. */
const ASKED = `${QUEUE}:asked`;

/**
 * The App's wake-ups (a pause's end): delayed jobs in the Redis the replicas already share
 * (`REDIS_URL`), through BullMQ — they survive a restart, and one job id per PR head and time
 * runs once across replicas (a second `add` with the same id is a no-op). `wake` says whether it
 * was the first to ask (the one that tells the issue). `handle` resumes the PR
 * (src/github/loop/pause.ts), which does nothing when the pause is gone already.
 */
export function redisWaker(
  redisUrl: string,
  handle: (job: AppWakeJob) => Promise<void>,
  /** A wake-up that failed (it is tried again, up to 5 times): said in the log. */
  failed: (job: AppWakeJob, error: Error) => void,
): { wake: (job: AppWakeJob) => Promise<boolean>; close: () => Promise<void> } {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue<AppWakeJob>(QUEUE, { connection });
  const worker = new Worker<AppWakeJob>(
    QUEUE,
    async (job) => {
      await handle(job.data);
      if (job.id) await (await queue.getBackend().client).hdel(ASKED, job.id);
    },
    { connection },
  );
  worker.on('failed', (job, error) => {
    if (job) failed(job.data, error);
  });
  return {
    wake: async (job) => {
      const delay = Math.max(0, Date.parse(job.at) - Date.now());
      const jobId = wakeJobId(job);
      await queue.add('resume', job, {
        jobId,
        delay,
        attempts: 5,
        backoff: { type: 'exponential', delay: 60_000 },
        removeOnComplete: 1000,
        removeOnFail: 1000,
      });
      // Who asked first, claimed once in the same Redis (HSET answers 1 only to the one that adds
      // the field): that replica tells the issue. Claimed after the job is in, so a claim never
      // stands for a job that is not; the field goes when the wake-up has run.
      const client = await queue.getBackend().client;
      return (await client.hset(ASKED, { [jobId]: 1 })) === 1;
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
