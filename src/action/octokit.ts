import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { pinApiVersion, requestTimeout, retrySafeCreates } from '../github/client.js';
import { writeQueues } from '../github/throttle.js';

const RETRIES = 2;

/**
 * Octokit for the Action: retries server errors, waits out rate limits, pins the API version;
 * writes through the loop's token buckets (`writeQueues`), as the App's.
 */
export const ActionOctokit = Octokit.plugin(
  retry,
  throttling,
  pinApiVersion,
  requestTimeout(),
  retrySafeCreates,
).defaults({
  throttle: {
    ...writeQueues(),
    onRateLimit: (_after: number, _options: unknown, _octokit: unknown, retryCount: number) =>
      retryCount < RETRIES,
    onSecondaryRateLimit: (
      _after: number,
      _options: unknown,
      _octokit: unknown,
      retryCount: number,
    ) => retryCount < RETRIES,
  },
});

export function createOctokit(token: string, baseUrl: string): InstanceType<typeof ActionOctokit> {
  return new ActionOctokit({ auth: token, baseUrl, userAgent: 'coder-loop-action' });
}
