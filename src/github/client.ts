import type { Octokit } from '@octokit/core';

/** Any Octokit (Probot's, the Action's): the loop uses `request` with REST routes only. */
export type GitHub = Pick<Octokit, 'request'>;

/** The REST API version every request pins (set as a default header by both adapters). */
export const API_VERSION = '2022-11-28';

export interface Repo {
  owner: string;
  repo: string;
}

interface HttpError {
  status: number;
  response?: { data?: unknown };
  message: string;
}

export function isHttpError(error: unknown, status?: number): error is HttpError {
  const e = error as Partial<HttpError> | null;
  return typeof e?.status === 'number' && (status === undefined || e.status === status);
}

/** GitHub's error message (`response.data.message`), for telling one 422 from another. */
export function errorMessage(error: unknown): string {
  const data = (error as HttpError | null)?.response?.data as { message?: unknown } | undefined;
  return typeof data?.message === 'string'
    ? data.message
    : String((error as Error)?.message ?? error);
}

/** Octokit plugin: every request pins the REST API version the loop was written against. */
export function pinApiVersion(octokit: Pick<Octokit, 'hook'>): void {
  octokit.hook.before('request', (options) => {
    options.headers['x-github-api-version'] = API_VERSION;
  });
}

/** How long one GitHub request (one attempt) may take, unless the environment says otherwise. */
const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;
/** The environment variable that overrides it, in milliseconds. */
export const REQUEST_TIMEOUT_ENV = 'CODER_LOOP_REQUEST_TIMEOUT_MS';

function requestTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[REQUEST_TIMEOUT_ENV]);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_REQUEST_TIMEOUT_MS;
}

const TIMED = Symbol('coder-loop:timed');
type Fetch = typeof fetch & { [TIMED]?: true };

/**
 * Octokit plugin: every attempt of every request has a time limit (a GitHub that never answers
 * would otherwise hold a delivery for undici's five minutes, and every later one behind it). The
 * limit wraps the transport, so each retry gets a fresh one and retries stay bounded by the retry
 * plugin; the error names the request and the limit.
 */
export function requestTimeout(fixed?: number) {
  return (octokit: Pick<Octokit, 'hook'>): void => {
    octokit.hook.before('request', (options) => {
      const inner = (options.request?.fetch as Fetch | undefined) ?? globalThis.fetch;
      if ((inner as Fetch)[TIMED]) return;
      // Read per request, so the environment variable can change without a restart of the module.
      const ms = fixed ?? requestTimeoutMs();
      const timed: Fetch = async (input, init) => {
        const limit = AbortSignal.timeout(ms);
        const signal = init?.signal ? AbortSignal.any([init.signal, limit]) : limit;
        try {
          return await inner(input, { ...init, signal });
        } catch (error) {
          if (!limit.aborted) throw error;
          const url =
            typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
          throw new Error(
            `GitHub did not answer ${init?.method ?? 'GET'} ${new URL(url).pathname} within ${ms / 1000} s (${REQUEST_TIMEOUT_ENV})`,
            { cause: error },
          );
        }
      };
      timed[TIMED] = true;
      options.request = { ...options.request, fetch: timed };
    });
  };
}

/**
 * A create GitHub offers no idempotency key for (a comment, a check run), made safe to retry:
 * GitHub may carry a create out and still answer 502, or its answer may be lost on the way, and
 * the retry plugin would then make it a second time. `find` looks for the thing made (by what it
 * holds, among what only the loop writes); passed as the request's `madeAlready` option, it is
 * asked before each retry, and what it finds answers in place of a second create.
 */
export interface MadeAlready {
  find: () => Promise<unknown>;
  /**
   * Whether the last attempt may have been carried out: no answer (a timeout, a dropped
   * connection) or a 5xx. A 403 or 429 of a rate limit was not, and is tried again without a look.
   */
  inDoubt?: boolean;
  /** The transport is wrapped already (a request's hooks may run again for a retry). */
  wrapped?: true;
}

/** The request option that makes a create safe to retry (`retrySafeCreates`). */
export function madeOnce(find: () => Promise<unknown>): { madeAlready: MadeAlready } {
  return { madeAlready: { find } };
}

/**
 * Octokit plugin: a request given `madeOnce(find)` asks `find` before an attempt that follows one
 * GitHub may have carried out; found, the thing made answers as GitHub's 201 would have, and
 * nothing is sent again. Wraps the transport, as `requestTimeout` does, so it sits under the
 * retry plugin's attempts.
 */
export function retrySafeCreates(octokit: Pick<Octokit, 'hook'>): void {
  octokit.hook.before('request', (options) => {
    const made = options.request?.madeAlready as MadeAlready | undefined;
    if (!made || made.wrapped) return;
    made.wrapped = true;
    const inner = (options.request?.fetch as typeof fetch | undefined) ?? globalThis.fetch;
    const once: typeof fetch = async (input, init) => {
      if (made.inDoubt) {
        const found = await made.find();
        if (found !== undefined)
          return new Response(JSON.stringify(found), {
            status: 201,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          });
      }
      made.inDoubt = true;
      const response = await inner(input, init);
      made.inDoubt = response.status >= 500;
      return response;
    };
    options.request = { ...options.request, fetch: once };
  });
}
