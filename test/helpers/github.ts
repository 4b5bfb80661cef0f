import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import nock from 'nock';
import { Probot } from 'probot';
import { createApp } from '../../src/app/app.js';
import { LoopOctokit } from '../../src/app/octokit.js';
import { encodeRecord, type LoopMarker } from '../../src/core/index.js';
import {
  checkedFetch,
  NOCK_TRANSPORT,
  requestLog,
  resetRequestLog,
  transport,
  violations,
  worker,
  type RecordedRequest,
} from './openapi.js';
import {
  API,
  OWNER,
  REPO,
  restApp,
  restBlob,
  restBranch,
  restCheckRun,
  restError,
  restGitCommit,
  restInstallationToken,
  restIssueComment,
  restPermission,
  restPull,
  restReaction,
  restRef,
  restTree,
} from './rest.js';

/** GitHub's answer to a request over a secondary rate limit (docs: "Rate limits for the REST API"). */
export const SECONDARY_RATE_LIMIT = {
  status: 403,
  body: restError(
    'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
    'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
  ),
  headers: { 'retry-after': '1' },
} as const;
export { API, OWNER, REPO };
export const BASE = `/repos/${OWNER}/${REPO}`;
export const INSTALLATION = 4242;

/** An app as GitHub shows it on check runs and at `GET /app`. */
export const simApp = (id: number, slug: string) => restApp(id, slug);
export const LOOP_APP = simApp(1, 'coder-loop');
export const CI_APP = simApp(15368, 'github-actions');

/** The App's private key: one per Jest worker (an RSA key costs 0.2–0.4 s of CPU). */
const appKey = () => worker().appPrivateKey();

/** A Probot with the real app loaded, talking through the OpenAPI-checked fetch to nock. */
export const NOW = new Date('2026-11-22T12:00:00.000Z');

/**
 * How tests run the throttling plugin: `off`; `real` (the App's write buckets, as in production, and
 * `retry-after` in seconds); `unspaced` — the real plugin and the loop's secondary-limit handler,
 * but its write and notification queues without limits and `retry-after` read as milliseconds,
 * so thousands of model runs can meet secondary rate limits in seconds.
 */
export type Throttle = 'off' | 'real' | 'unspaced';

/** Probot options for tests: the real Octokit, checked by OpenAPI, answered by nock. */
export function testProbotOptions(options: { throttle?: Throttle } = {}) {
  const throttle = options.throttle ?? 'off';
  return {
    appId: 1,
    privateKey: appKey(),
    Octokit: LoopOctokit.defaults(
      (instance: Record<string, Record<string, unknown> | undefined>) => ({
        ...instance,
        retry: { ...instance.retry, retryAfterBaseValue: 1 },
        throttle: {
          ...instance.throttle,
          enabled: throttle !== 'off',
          ...(throttle === 'unspaced' ? unspaced() : {}),
        },
      }),
    ),
    logLevel: 'fatal' as const,
    request: { fetch: checkedFetch },
  };
}

/** Write and notification queues for the plugin (it accepts them as options), without limits. */
function unspaced() {
  unspacedQueues ??= {
    write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
    notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
  };
  return { ...unspacedQueues, retryAfterBaseValue: 1 };
}
let unspacedQueues: { write: Bottleneck.Group; notifications: Bottleneck.Group } | undefined;

export async function testProbot(options: { throttle?: Throttle } = {}): Promise<Probot> {
  const probot = new Probot(testProbotOptions(options));
  await probot.load(createApp({ now: () => NOW }));
  return probot;
}

export function gitBlobSha(content: string): string {
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');

/**
 * The reads of a repository whose default branch holds `files`: the branch ref, the recursive
 * tree, blobs and the config file. Persisted: how often each is read is the request log's business.
 */
export class FakeRepo {
  readonly head: string;
  readonly treeSha: string;
  constructor(
    readonly files: Record<string, string>,
    readonly defaultBranch = 'master',
    readonly config?: string,
  ) {
    this.head = sha(`head:${JSON.stringify(files)}`);
    this.treeSha = sha(`tree:${JSON.stringify(files)}`);
  }

  mount(): nock.Scope {
    const scope = nock(API).persist();
    scope
      .get(`${BASE}/git/ref/${encodeURIComponent(`heads/${this.defaultBranch}`)}`)
      .reply(200, restRef(`refs/heads/${this.defaultBranch}`, this.head));
    scope
      .get(`${BASE}/branches/${encodeURIComponent(this.defaultBranch)}`)
      .reply(200, restBranch(this.defaultBranch, this.head, this.treeSha));
    const tree = restTree(
      this.treeSha,
      Object.entries(this.files).map(([path, content]) => ({
        path,
        mode: '100644',
        sha: gitBlobSha(content),
        size: Buffer.byteLength(content),
      })),
    );
    // By the head commit's sha, and by the branch's name (GitHub resolves it).
    for (const name of [this.head, encodeURIComponent(this.defaultBranch)])
      scope.get(`${BASE}/git/trees/${name}`).query({ recursive: '1' }).reply(200, tree);
    for (const content of new Set(Object.values(this.files))) {
      const blob = gitBlobSha(content);
      scope
        .get(`${BASE}/git/blobs/${blob}`)
        .reply(200, restBlob(blob, Buffer.from(content, 'utf8')));
    }
    const configPath = `${BASE}/contents/${encodeURIComponent('.github/coder.yml')}`;
    // This repository's file, from the default branch (never `<owner>/.github`'s: SPEC §6).
    const config = scope.get(configPath).query({ ref: this.defaultBranch });
    if (this.config === undefined) {
      config.reply(404, restError('Not Found'));
    } else {
      config.reply(200, this.config);
    }
    return scope;
  }
}

/** The collaborator-permission answer for a login. */
export function permission(
  login: string,
  level: 'admin' | 'write' | 'read' | 'none',
  role: string = level,
) {
  return nock(API)
    .get(`${BASE}/collaborators/${login}/permission`)
    .reply(200, restPermission(login, level, role));
}

export function beforeScenario(): void {
  nock.disableNetConnect();
  nock.cleanAll();
  resetRequestLog();
  transport.fetch = NOCK_TRANSPORT;
  // The installation token every delivery's Octokit asks for first, and the App's identity
  // (`GET /app`, read once per Probot when an event first needs it).
  const scope = nock(API).persist();
  scope.get('/app').reply(200, LOOP_APP);
  scope
    .post(`/app/installations/${INSTALLATION}/access_tokens`)
    .reply(201, restInstallationToken('ghs_test_installation_token'));
}

export function afterScenario(): void {
  // Reads are persisted and optional; every write a test set up must have happened.
  const pending = nock
    .pendingMocks()
    .filter((m) => !m.startsWith('GET ') && !m.includes('access_tokens'));
  nock.cleanAll();
  nock.enableNetConnect();
  expect(violations).toEqual([]);
  expect(pending).toEqual([]);
}

/** The writes of the log (anything but GET), as `METHOD path`. */
export function writes(log: RecordedRequest[] = requestLog): string[] {
  return log
    .filter((r) => r.method !== 'GET' && !r.path.includes('/access_tokens'))
    .map((r) => `${r.method} ${r.path}`);
}

export function bodyOf(method: string, pathPart: string): unknown {
  const found = requestLog.filter((r) => r.method === method && r.path.includes(pathPart));
  if (found.length !== 1)
    throw new Error(`expected one ${method} ${pathPart}, found ${found.length}`);
  return found[0]!.body;
}

export { requestLog };

/**
 * Answers a head's check-run and status reads (persisted) with the loop's own check run holding
 * its record (`marker`) — what a loop PR's head shows once the loop has written on it.
 */
export function recordOnHead(head: string, marker: LoopMarker, node = 'Verification'): void {
  const run = restCheckRun({
    id: Number.parseInt(head.slice(0, 6), 16),
    head_sha: head,
    external_id: node,
    html_url: '',
    status: 'in_progress',
    conclusion: null,
    output: { title: node, summary: node, text: encodeRecord(marker, head) },
    name: 'coder-loop',
    app: LOOP_APP,
  });
  nock(API)
    .persist()
    .get(`${BASE}/commits/${head}/check-runs`)
    .query(true)
    .reply(200, { total_count: 1, check_runs: [run] })
    .get(`${BASE}/commits/${head}/statuses`)
    .query(true)
    .reply(200, []);
}

/** The loop's bot: who an installation token's writes are by. */
export const LOOP_BOT = 'coder-loop[bot]';

type Sent = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a request body

/**
 * nock answers to the loop's writes, each what GitHub answers to the request it got (the fields
 * it was sent, echoed into the real shape): `.reply(201, created.comment(99, 1))`.
 */
export const created = {
  reaction:
    (id = 1) =>
    (_uri: string, body: Sent) =>
      restReaction(id, body.content, LOOP_BOT),
  tree: (sha: string) => (_uri: string, body: Sent) =>
    restTree(
      sha,
      (body.tree as Sent[])
        .filter((e) => e.sha !== null)
        .map((e) => ({
          path: e.path,
          mode: e.mode ?? '100644',
          sha: e.sha ?? gitBlobSha(e.content ?? ''),
          size: Buffer.byteLength(e.content ?? ''),
        })),
    ),
  commit: (sha: string) => (_uri: string, body: Sent) =>
    restGitCommit(sha, body.message, body.tree, body.parents ?? []),
  ref: () => (_uri: string, body: Sent) => restRef(body.ref, body.sha),
  pull:
    (number: number, headSha: string, baseSha = sha('base')) =>
    (_uri: string, body: Sent) =>
      restPull({
        number,
        title: body.title,
        body: body.body ?? '',
        state: 'open',
        merged: false,
        labels: [],
        author: LOOP_BOT,
        head: { ref: body.head, sha: headSha },
        base: { ref: body.base, sha: baseSha },
      }),
  comment: (id: number, issue: number) => (_uri: string, body: Sent) =>
    restIssueComment({ id, issue, body: body.body, author: LOOP_BOT }),
  checkRun: (id: number) => (_uri: string, body: Sent) =>
    restCheckRun({
      id,
      app: LOOP_APP,
      head_sha: body.head_sha,
      name: body.name,
      status: body.status ?? 'queued',
      conclusion: body.conclusion ?? null,
      external_id: body.external_id ?? '',
      html_url: '',
      output: body.output,
    }),
};

/** An open loop pull request of branch `ref` (head `headSha`), by the loop's bot, as listed. */
export const loopPull = (number: number, ref: string, body: string, headSha = sha(ref)) =>
  restPull({
    number,
    title: `[coder] ${ref}`,
    body,
    state: 'open',
    merged: false,
    labels: [],
    author: LOOP_BOT,
    head: { ref, sha: headSha },
    base: { ref: 'master', sha: sha('base') },
  });
