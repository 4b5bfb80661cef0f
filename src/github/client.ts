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
