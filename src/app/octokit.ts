import { ProbotOctokit } from 'probot';
import { pinApiVersion, requestTimeout, retrySafeCreates } from '../github/client.js';
import { writeQueues } from '../github/throttle.js';

/** How often a request that met a secondary rate limit is tried again (after `retry-after`). */
const SECONDARY_RATE_LIMIT_RETRIES = 2;

type Options = { throttle?: Record<string, unknown> } & Record<string, unknown>;

/**
 * Probot's Octokit (auth, retry, throttling, config) with the API version pinned. Writes go
 * through the loop's token buckets (`writeQueues`: GitHub's 80 a minute and 500 an hour, shared
 * by every replica through Redis when Probot has `REDIS_URL`), not the plugin's one-second
 * spacing. Probot only logs a secondary rate limit; the loop waits the `retry-after` GitHub gives
 * and tries again (a 403 for a secondary limit means the request was not carried out, so trying
 * again cannot act twice).
 */
export const LoopOctokit: typeof ProbotOctokit = ProbotOctokit.plugin(
  pinApiVersion,
  requestTimeout(),
  retrySafeCreates,
).defaults((options: Options) => ({
  ...options,
  throttle: {
    ...writeQueues(options.throttle as Parameters<typeof writeQueues>[0]),
    ...options.throttle,
    onSecondaryRateLimit: (
      _retryAfter: number,
      _request: unknown,
      _octokit: unknown,
      retryCount: number,
    ) => retryCount < SECONDARY_RATE_LIMIT_RETRIES,
  },
}));
