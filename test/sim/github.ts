import { createHash } from 'node:crypto';
import nock from 'nock';
import {
  decodeRecord,
  withRecord,
  type AgentPayload,
  type LoopMarker,
} from '../../src/core/index.js';
import {
  API,
  CI_APP,
  LOOP_APP,
  OWNER,
  REPO,
  SECONDARY_RATE_LIMIT,
  simApp,
} from '../helpers/github.js';
import { answeredText, check, checkAnswer, rateLimited } from '../helpers/openapi.js';
import {
  restAuthenticatedUser,
  restBlob,
  restCheckRun,
  restCombinedStatus,
  restCommit,
  restComparison,
  restDiffEntry,
  restEnvironment,
  restError,
  restGitCommit,
  restAnnotation,
  restFullRepository,
  restInstallationToken,
  restIssue,
  restIssueComment,
  restJob,
  restLabel,
  restLabelEvent,
  restPermission,
  restPull,
  restReaction,
  restRef,
  restBranch,
  restReview,
  restReviewComment,
  restShortBlob,
  restStatus,
  restTeamMembership,
  restTree,
  restUser,
  restWorkflowRun,
} from '../helpers/rest.js';

/**
 * An in-memory GitHub for tests only: git objects and refs (422 on an existing ref, non-fast-forward
 * rejected when `force` is false), pull requests (one open PR per head), comments, labels,
 * reactions, check runs, statuses, reviews and permissions — the documented behaviour the loop
 * relies on. It answers behind the same OpenAPI-checked fetch as every other
 * test: in-process where nock would (`fetch`), through nock (`mount`) or over loopback HTTP (`serve`).
 */

type Files = Map<string, string>; // path → blob sha

/** One page of a list, as GitHub serves it (`per_page` default 30, at most 100; `page` from 1). */
function page<T>(list: readonly T[], url: URL): T[] {
  const per = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100);
  const n = Number(url.searchParams.get('page') ?? 1);
  return list.slice((n - 1) * per, n * per);
}

/** GitHub lists at most this many files and commits of a pull request. */
export const PULL_FILES_LISTED = 3_000;
export const PULL_COMMITS_LISTED = 250;
/** GitHub's comparison of two commits lists at most this many changed files. */
export const COMPARE_FILES_LISTED = 300;

interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  /**
   * The GitHub user the commit is attributed to (a human push), if any; `null`: made with an
   * email linked to no account (the API names nobody).
   */
  author?: string | null;
}
export interface SimPull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  merged: boolean;
  labels: Set<string>;
  requested: string[];
  /** Who opened it (the loop's bot, unless a test opens one as someone else). */
  author?: string;
  /** A fork's PR: its head is in another repository. */
  fork?: boolean;
  /** A fork's PR opened through the API: its head commit, on the fork's branch (not this repository's). */
  forkSha?: string;
  /**
   * GitHub's recorded base commit (`base.sha`), when a test pins it: GitHub records the base
   * branch's head when the PR is opened or its base changed, and does not move it as the branch
   * moves (unset: the base branch's head, as the sim has always answered).
   */
  baseSha?: string;
}
/**
 * Who makes a request (`SimGitHub.callers`, by its token): a person's token, or a workflow job's
 * `GITHUB_TOKEN` (`app`: GitHub Actions, acting as `github-actions[bot]`).
 */
export interface SimCaller {
  login: string;
  app?: { id: number; slug: string };
}
export interface SimCheckRun {
  id: number;
  /** The app that created it: the loop's App, or CI's. */
  app: { id: number; slug: string };
  head_sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  external_id: string;
  output?: { title?: string; summary?: string; text?: string };
  html_url: string;
  /** When GitHub created it (`checkRunTime` then). */
  started_at?: string;
  /** A GitHub Actions job's log (the check run's id is the job's id). */
  log?: string;
  /**
   * A GitHub Actions job (the check run's id is the job's id): its workflow run and that run's
   * attempt. Absent: a check run created through the API (by an app, or a workflow's token).
   */
  job?: { run: number; attempt: number; for?: SimRunFor };
  /** The job's steps as the jobs API lists them (GitHub's `Set up job` first). */
  steps?: { name: string; status: string; conclusion: string | null; number: number }[];
  /** Its annotations' messages (GitHub's own about the job, e.g. a runner lost). */
  annotations?: string[];
}
/**
 * What GitHub says a workflow run ran for: its event, the branch (`head_branch`) and the
 * repository of its head (a fork's PR: the fork). Absent: `pull_request` for the branch at the
 * head when CI ran, in this repository.
 */
export interface SimRunFor {
  event?: string;
  branch?: string | null;
  repository?: string;
}

/** A workflow run that started no job (`startup_failure`): no check run shows it. */
export interface SimWorkflowRun {
  id: number;
  name: string;
  head_sha: string;
  attempt: number;
  status: string;
  conclusion: string | null;
}
export interface SimStatus {
  sha: string;
  context: string;
  state: string;
  target_url: string;
  description?: string;
  /** Who posted it (the token's user: an app's bot, or a person). */
  creator?: string;
}
export interface SimReview {
  id: number;
  pr: number;
  user: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  commit_id: string;
  body?: string;
  comments?: { path: string; line: number; body: string }[];
}

const R = `/repos/${OWNER}/${REPO}`;
let counter = 0;
const hash = (seed: string) => createHash('sha1').update(`${seed}:${++counter}`).digest('hex');
const blobSha = (content: string) => {
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
};
const notFound = [404, restError('Not Found')] as const;
/** GitHub's answer to a check-run write with a token that may not write check runs. */
const refused = (message: string) =>
  [403, restError(message, 'https://docs.github.com/rest/checks/runs#create-a-check-run')] as const;
/** GitHub's limit on a check run's `output.summary` and `output.text`: 65,535 characters each. */
export const CHECK_OUTPUT_LIMIT = 65_535;
/** GitHub's 422 to a check-run output over its limit. */
const tooLong = (output: { summary?: string; text?: string } | undefined) =>
  (output?.summary?.length ?? 0) > CHECK_OUTPUT_LIMIT ||
  (output?.text?.length ?? 0) > CHECK_OUTPUT_LIMIT
    ? ([
        422,
        restError(
          'Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.',
          'https://docs.github.com/rest/checks/runs#create-a-check-run',
        ),
      ] as const)
    : undefined;
/** A REST answer: status, body and extra headers. */
type Answer = readonly [number, unknown, Record<string, string>?];
/** Where the simulator serves what GitHub hands out through redirects (job logs), off the API. */
export const SIM_STORAGE = '/_sim/';
const installationToken: Answer = [201, restInstallationToken('ghs_sim_installation_token')];

export class SimGitHub {
  readonly defaultBranch = 'master';
  readonly refs = new Map<string, string>();
  readonly commits = new Map<string, Commit>();
  readonly trees = new Map<string, Files>();
  readonly blobs = new Map<string, string>();
  readonly pulls: SimPull[] = [];
  /** Reactions on comments, by comment, user and content: their ids. */
  readonly reactions = new Map<string, number>();
  /** Issue comments; `author`: who wrote it (the loop's identity unless a test says otherwise). */
  readonly comments: { issue: number; body: string; id: number; author?: string }[] = [];
  readonly issueLabels = new Map<number, Set<string>>();
  readonly repoLabels = new Set<string>(['bug']);
  /** Labels added and removed, and by whom (an issue's or PR's events, as GitHub keeps them). */
  readonly labelEvents: {
    issue: number;
    event: 'labeled' | 'unlabeled';
    label: string;
    actor: string;
  }[] = [];
  readonly checkRuns: SimCheckRun[] = [];
  /** Workflow runs that started no job (`startupFailure`). */
  readonly workflowRuns: SimWorkflowRun[] = [];
  /**
   * Forks deleted by their owners (`owner/name`): GitHub answers `head_repository: null` for the
   * workflow runs their pull requests started (github/rest-api-description#1586).
   */
  readonly deletedForks = new Set<string>();
  /** Re-runs asked through the API: the workflow run, and whether the whole run (else failed jobs). */
  readonly reruns: { run: number; whole: boolean; by?: string }[] = [];
  /**
   * GitHub refuses every re-run with this status and message (its error body: `message`,
   * `documentation_url`, `status`), e.g. 403 "Unable to retry this workflow run because it was
   * created over a month ago". Each refused request is counted in `rerunsRefused`.
   */
  rerunRefusal?: { status: 403 | 409 | 422; message: string };
  readonly rerunsRefused: { run: number; whole: boolean }[] = [];
  /** `<owner>/.github`'s `.github/coder.yml` (another repository's file: never this one's config). */
  orgConfig: string | undefined;
  readonly statuses: SimStatus[] = [];
  /**
   * The token may not write check runs (a PAT): check-run writes get GitHub's 403 with this
   * message, e.g. "Resource not accessible by personal access token".
   */
  checkRunsRefused?: string;
  /**
   * The token acts as this user (a personal access token): `GET /user` names them and the PRs the
   * loop opens are theirs. Unset: an installation token (`GET /user` refused, PRs by the App's bot).
   */
  actingAs?: string;
  readonly reviews: SimReview[] = [];
  readonly permissions = new Map<string, string>();
  /** Issues' current titles and texts (what `GET /issues/{n}` answers), as anyone may edit them. */
  readonly issueTexts = new Map<number, { title: string; body: string; author?: string }>();
  /**
   * Issues closed, with who closed them: a pull request merged into the default branch closes
   * every issue its body names with a closing keyword ("Fixes #N"), as its merger.
   */
  readonly issuesClosed = new Map<number, string>();
  /**
   * GitHub's record of ref updates (`GET /activity`), oldest first: every push, force-push,
   * creation and deletion of a branch, and a pull request's merge, with the account that made it
   * (the token's user or app bot for API writes; the pusher for a `push`).
   */
  readonly activity: {
    id: number;
    ref: string;
    before: string;
    after: string;
    activity_type:
      | 'push'
      | 'force_push'
      | 'branch_creation'
      | 'branch_deletion'
      | 'pr_merge'
      | 'merge_queue_merge';
    actor: string;
  }[] = [];
  /** `repository_dispatch` events created (POST /dispatches). */
  readonly dispatches: { event_type: string; client_payload?: Record<string, unknown> }[] = [];
  /** Modes of tree entries other than 100644: tree sha → path → mode. */
  readonly modes = new Map<string, Map<string, string>>();
  /**
   * The most entries one tree listing holds (GitHub's is 100,000, or 7 MB): a listing with more
   * is cut there and says `truncated`. A test of a repository that large sets it low.
   */
  treeListLimit = Infinity;
  /** The folders of the trees listed: a folder's sha → its root tree and its path there. */
  private readonly folders = new Map<string, { tree: string; path: string }>();
  /** Blobs written as bytes (POST /git/blobs): sha → bytes. */
  readonly rawBlobs = new Map<string, Buffer>();
  /** The token may not read Actions logs (a job without `actions: read`): 403. */
  logsForbidden = false;
  readonly teams = new Map<string, Set<string>>(); // "org/slug" → members
  /**
   * Deployment environments: name → its deployment branch policy. `branches`: "Selected branches
   * and tags" (each name a pattern, as GitHub keeps them); `protectedBranches`: "Protected
   * branches only"; neither: every branch. The docs' `coder-loop`, limited to the default branch.
   */
  readonly environments = new Map<
    string,
    { branches?: { name: string; type: 'branch' | 'tag' }[]; protectedBranches?: true }
  >([['coder-loop', { branches: [{ name: 'master', type: 'branch' }] }]]);
  /**
   * The app installation tokens act as: its check runs and its bot's pull requests. The
   * default GITHUB_TOKEN's is `github-actions` (`CI_APP`): every workflow job's token.
   */
  tokenApp: { id: number; slug: string } = { id: LOOP_APP.id, slug: LOOP_APP.slug };
  /** The time GitHub gives a check run created now (its `started_at`). */
  checkRunTime = '2026-11-22T12:00:00Z';
  /** Requests to fail once, not carried out: "METHOD path-suffix" → status. */
  readonly faults = new Map<string, number>();
  /**
   * Requests to refuse once with a secondary rate limit (403, `retry-after: 1`), not carried out:
   * "METHOD path-suffix".
   */
  readonly secondaryLimits = new Set<string>();
  /**
   * An outage: requests answered 503 and not carried out, as many times as the count says (four
   * outlast Octokit's three retries): "METHOD path-suffix" → answers left.
   */
  readonly outages = new Map<string, number>();
  /** Requests that take effect and then answer 502 once: "METHOD path-suffix". */
  readonly faultsAfter = new Set<string>();
  /** Run once, just before the next ref update is applied: a human pushing in between. */
  beforeRefUpdate?: () => void;
  /** Run just before each request is answered (a person acting between two of the loop's calls). */
  beforeRequest?: (method: string, path: string) => void;
  /** What the OpenAPI check found wrong with the requests and answers `serve` saw. */
  readonly violations: string[] = [];
  /** REST requests answered so far (the installation token not counted). */
  requests = 0;
  /** Every request but a read, as `METHOD path` — carried out or refused: any write attempt. */
  readonly writes: string[] = [];
  /**
   * Requests GitHub never answers ("METHOD path-suffix"): the in-process transport holds them
   * until the caller's signal aborts (the loop's request time limit).
   */
  readonly hangs = new Set<string>();
  /**
   * Tokens of others than the loop (a writer's, a triage user's, a fork author's, a workflow
   * job's): their requests are made as that caller — the PRs, reviews, comments, labels, check
   * runs, statuses and re-runs they create name them, as GitHub's do. Any other token is the
   * loop's (`tokenApp`, `actingAs`).
   */
  readonly callers = new Map<string, SimCaller>();
  /** Branches of an outsider's fork (`attacker/Hello-World`): name → head commit. */
  readonly forkRefs = new Map<string, string>();
  /** The caller of the request being answered, when it is not the loop. */
  private caller: SimCaller | undefined;
  private ids = 100;

  constructor(files: Record<string, string>) {
    const commit = this.commit(files, [], 'initial');
    this.refs.set(this.defaultBranch, commit);
    this.recordRef(this.defaultBranch, undefined, commit, OWNER);
  }

  /** Who the token's writes are made by: the person of a personal token, else the app's bot. */
  tokenActor(): string {
    if (this.caller) return this.caller.login;
    return this.actingAs ?? `${this.tokenApp.slug}[bot]`;
  }

  /** One ref update in GitHub's activity record; `before`/`after` undefined: created/deleted. */
  recordRef(
    branch: string,
    before: string | undefined,
    after: string | undefined,
    actor: string,
    type?: 'pr_merge',
  ): void {
    const zero = '0'.repeat(40);
    this.activity.push({
      id: this.activity.length + 1,
      ref: `refs/heads/${branch}`,
      before: before ?? zero,
      after: after ?? zero,
      activity_type:
        type ??
        (before === undefined
          ? 'branch_creation'
          : after === undefined
            ? 'branch_deletion'
            : this.ancestors(after).has(before)
              ? 'push'
              : 'force_push'),
      actor,
    });
  }

  // ——— test-side helpers ———

  /**
   * A review GitHub lists on a pull request, its event not delivered (held up, or never sent):
   * `reviewer`'s, of `state`, on `commit`.
   */
  listReview(
    pr: number,
    reviewer: string,
    state: SimReview['state'],
    commit: string,
    id = ++this.ids,
  ): SimReview {
    const review: SimReview = { id, pr, user: reviewer, state, commit_id: commit };
    this.reviews.push(review);
    return review;
  }

  /** Who the token acts as: the person of a personal token, else the App's bot. */
  tokenUser(): string {
    if (this.caller) return this.caller.login;
    return this.actingAs ?? 'coder-loop[bot]';
  }

  /** A commit holding exactly `files` (path → content). */
  commit(files: Record<string, string>, parents: string[], message: string): string {
    const tree: Files = new Map();
    for (const [path, content] of Object.entries(files)) {
      const sha = blobSha(content);
      this.blobs.set(sha, content);
      tree.set(path, sha);
    }
    const treeSha = hash('tree');
    this.trees.set(treeSha, tree);
    const sha = hash('commit');
    this.commits.set(sha, { sha, tree: treeSha, parents, message });
    return sha;
  }

  /**
   * Gives commit `from` the id `to`: the sha a real git computes for the same content, so a local
   * checkout of that commit (the agent's end-to-end test) and the simulator agree on the head.
   */
  rekey(from: string, to: string): void {
    const commit = this.commits.get(from)!;
    this.commits.delete(from);
    this.commits.set(to, { ...commit, sha: to });
    for (const c of this.commits.values()) c.parents = c.parents.map((p) => (p === from ? to : p));
    for (const [ref, sha] of this.refs) if (sha === from) this.refs.set(ref, to);
    for (const a of this.activity) {
      if (a.before === from) a.before = to;
      if (a.after === from) a.after = to;
    }
    for (const run of this.checkRuns) {
      if (run.head_sha === from) run.head_sha = to;
      // The loop's record names the commit it is about: it follows too.
      if (run.output?.text?.includes(from))
        run.output = { ...run.output, text: run.output.text.split(from).join(to) };
    }
  }

  /** The mode of a file of a branch (or commit): 100644 unless written otherwise. */
  mode(refOrSha: string, path: string): string {
    const sha = this.refs.get(refOrSha) ?? refOrSha;
    return this.modes.get(this.commits.get(sha)!.tree)?.get(path) ?? '100644';
  }

  /** The files of a branch (or commit), path → content. */
  files(refOrSha: string): Record<string, string> {
    const sha = this.refs.get(refOrSha) ?? refOrSha;
    const tree = this.trees.get(this.commits.get(sha)!.tree)!;
    return Object.fromEntries([...tree].map(([p, b]) => [p, this.blobs.get(b)!]));
  }

  /**
   * A human push: `changes` (path → content, or null to delete) on top of the branch head, by
   * `author` (GitHub's user for the commit; the PR's commits list names them), pushed by `pusher`
   * (the account GitHub's activity record names; the author's, unless said otherwise).
   */
  push(
    branch: string,
    changes: Record<string, string | null>,
    message = 'work',
    author: string | null = 'dev-pusher',
    pusher: string = author ?? 'dev-pusher',
  ): string {
    const files = this.files(branch);
    for (const [path, content] of Object.entries(changes)) {
      if (content === null) delete files[path];
      else files[path] = content;
    }
    const sha = this.commit(files, [this.refs.get(branch)!], message);
    this.commits.get(sha)!.author = author;
    const before = this.refs.get(branch);
    this.refs.set(branch, sha);
    this.recordRef(branch, before, sha, pusher);
    return sha;
  }

  /**
   * The loop's record on the hand-off's head asks for it, as the loop writes it there before it
   * sends a dispatch: its App's `coder-loop` check run of that head (updated when there is one).
   */
  askHandOff(payload: AgentPayload): void {
    const marker: LoopMarker = {
      ...(decodeRecord(this.own(payload.headSha)?.output?.text, payload.headSha) ?? {
        mode: payload.plan === null ? 'quick' : 'plan',
        issue: payload.issue,
        pr: payload.pullRequest,
        branch: payload.branch,
        ...(payload.plan !== null ? { plan: payload.plan } : {}),
        ...(payload.phase !== null ? { phase: payload.phase } : {}),
      }),
      handOff: {
        node: payload.node,
        attempt: payload.attempt,
        sha: payload.headSha,
        ...(payload.agent.handOffId !== undefined ? { id: payload.agent.handOffId } : {}),
      },
    };
    const text = withRecord('', marker, payload.headSha);
    const run = this.own(payload.headSha);
    if (run) run.output = { ...run.output, text };
    else
      this.checkRuns.push({
        id: ++this.ids,
        app: { id: LOOP_APP.id, slug: LOOP_APP.slug },
        head_sha: payload.headSha,
        name: 'coder-loop',
        status: 'in_progress',
        conclusion: null,
        external_id: 'TDD',
        output: { title: 'TDD', summary: '', text },
        html_url: '',
      });
  }

  /**
   * CI reporting on a head: a check run named `name` with a conclusion (a GitHub Actions job with
   * `log`). A job the loop had re-run (queued) completes; otherwise the same job reporting again
   * is a re-run: its workflow run's next attempt. `setup`: the job failed in GitHub's own `Set up
   * job`, before any of the project's steps ran.
   */
  ci(
    sha: string,
    conclusion: string,
    name = 'test',
    log?: string,
    {
      setup = false,
      annotation,
      runFor,
    }: {
      setup?: boolean;
      /** GitHub's own annotation on the job (a runner lost mid-job: its steps ran, unfinished). */
      annotation?: string;
      /** What its workflow run ran for (a fork's PR, the review relay): see `SimRunFor`. */
      runFor?: SimRunFor;
    } = {},
  ): SimCheckRun {
    const steps = setup
      ? [{ name: 'Set up job', status: 'completed', conclusion, number: 1 }]
      : [
          { name: 'Set up job', status: 'completed', conclusion: 'success', number: 1 },
          { name: `Run ${name}`, status: 'completed', conclusion, number: 2 },
          { name: 'Complete job', status: 'completed', conclusion: 'success', number: 3 },
        ];
    // A job queued by a re-run reports here: only a run for what it ran for (a fork's PR at the
    // same commit starts a run of its own, never the branch's re-run).
    const queued = this.checkRuns.find(
      (r) =>
        r.head_sha === sha &&
        r.name === name &&
        r.job &&
        r.status === 'queued' &&
        (r.job.for?.repository ?? null) === (runFor?.repository ?? null) &&
        (r.job.for?.event ?? null) === (runFor?.event ?? null),
    );
    const annotations = annotation === undefined ? {} : { annotations: [annotation] };
    if (queued) {
      Object.assign(queued, { status: 'completed', conclusion, steps, ...annotations });
      return queued;
    }
    const id = ++this.ids;
    // The same job of the branch's own run reporting again (not a fork's or a review's run).
    const earlier = this.checkRuns.filter(
      (r) =>
        r.head_sha === sha &&
        r.name === name &&
        r.app.id === CI_APP.id &&
        r.job &&
        !r.job.for?.repository &&
        !r.job.for?.event,
    );
    const atHead = [...this.refs].filter(([, at]) => at === sha).map(([ref]) => ref);
    const branch = atHead.find((ref) => ref.startsWith('coder/')) ?? atHead[0] ?? null;
    const job =
      earlier.length && !runFor
        ? { ...earlier.at(-1)!.job!, attempt: earlier.at(-1)!.job!.attempt + 1 }
        : { run: ++this.ids, attempt: 1, for: { branch, ...runFor } };
    const run: SimCheckRun = {
      job,
      id,
      app: { id: CI_APP.id, slug: CI_APP.slug },
      head_sha: sha,
      name,
      status: 'completed',
      conclusion,
      external_id: '',
      html_url:
        log === undefined
          ? `https://github.com/${OWNER}/${REPO}/runs/${id}`
          : `https://github.com/${OWNER}/${REPO}/actions/runs/9/job/${id}`,
      ...(log === undefined ? {} : { log }),
      steps,
      ...annotations,
    };
    this.checkRuns.push(run);
    return run;
  }

  /** A workflow run on a head that never started a job: GitHub's `startup_failure`. */
  startupFailure(sha: string, name = 'CI'): SimWorkflowRun {
    const run: SimWorkflowRun = {
      id: ++this.ids,
      name,
      head_sha: sha,
      attempt: 1,
      status: 'completed',
      conclusion: 'startup_failure',
    };
    this.workflowRuns.push(run);
    return run;
  }

  /**
   * A check run a writer's workflow creates through the API with its `GITHUB_TOKEN` (`checks:
   * write`): GitHub Actions' app, but no job of any workflow run.
   */
  forgeCheck(sha: string, name: string, conclusion: string): SimCheckRun {
    const id = ++this.ids;
    const run: SimCheckRun = {
      id,
      app: { id: CI_APP.id, slug: CI_APP.slug },
      head_sha: sha,
      name,
      status: 'completed',
      conclusion,
      external_id: '',
      html_url: `https://github.com/${OWNER}/${REPO}/runs/${id}`,
    };
    this.checkRuns.push(run);
    return run;
  }

  /** A commit status posted by `creator` (CI's bot, a workflow's `github-actions[bot]`, …). */
  postStatus(sha: string, context: string, state: string, creator: string): void {
    this.statuses.push({
      sha,
      context,
      state,
      creator,
      target_url: `https://ci.example.com/${context}/${this.statuses.length + 1}`,
    });
  }

  /**
   * An attacker's pull request from a fork whose branch has the loop's branch name, at the same
   * head commit, its body a copy of the loop PR's (marker included) plus `extra`.
   */
  forkPull(copyOf: SimPull, extra: string): SimPull {
    const pr: SimPull = {
      ...copyOf,
      number: this.pulls.length + 2,
      body: `${copyOf.body}\n${extra}`,
      labels: new Set(),
      requested: [],
      author: 'attacker',
      fork: true,
    };
    this.pulls.push(pr);
    return pr;
  }

  pull(number: number): SimPull {
    return this.pulls.find((p) => p.number === number)!;
  }

  headOf(pr: SimPull): string {
    return pr.forkSha ?? this.refs.get(pr.head) ?? '';
  }

  own(sha: string): SimCheckRun | undefined {
    return this.checkRuns
      .filter((r) => r.head_sha === sha && r.name === 'coder-loop' && r.app.id === LOOP_APP.id)
      .pop();
  }

  /** An issue comment as the REST API shows it. */
  commentJson(c: { issue: number; body: string; id: number; author?: string }) {
    return restIssueComment({
      ...c,
      author: c.author ?? this.actingAs ?? `${this.tokenApp.slug}[bot]`,
    });
  }

  /** The PR object as GitHub's REST API shows it. */
  pullJson(pr: SimPull) {
    return restPull({
      number: pr.number,
      title: pr.title,
      body: pr.body,
      state: pr.state,
      merged: pr.merged,
      labels: [...pr.labels],
      author: pr.author ?? `${this.tokenApp.slug}[bot]`,
      head: {
        ref: pr.head,
        sha: this.headOf(pr) || (pr as SimPull & { lastHead?: string }).lastHead || '',
        ...(pr.fork ? { owner: 'attacker' } : {}),
      },
      base: { ref: pr.base, sha: pr.baseSha ?? this.refs.get(pr.base) ?? '' },
      requested: pr.requested,
    });
  }

  /** A check run as the REST API shows it, with its app. */
  checkRunJson(r: SimCheckRun) {
    const app =
      r.app.id === LOOP_APP.id
        ? LOOP_APP
        : r.app.id === CI_APP.id
          ? CI_APP
          : simApp(r.app.id, r.app.slug);
    return restCheckRun({
      ...r,
      app,
      annotations_count: r.annotations?.length ?? 0,
      ...(r.job ? { suite: r.job.run } : {}),
    });
  }

  private ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      stack.push(...(this.commits.get(s)?.parents ?? []));
    }
    return seen;
  }

  /**
   * What `head` changes against `base`, as GitHub's lists of changed files show it: a file deleted
   * and one added with the same content are one rename.
   */
  private diffEntries(baseSha: string, headSha: string): unknown[] {
    const base = this.files(baseSha);
    const head = this.files(headSha);
    const paths = new Set([...Object.keys(base), ...Object.keys(head)]);
    const changed = [...paths].filter((path) => base[path] !== head[path]);
    const renamed = new Map<string, string>();
    for (const to of changed.filter((p) => base[p] === undefined))
      for (const from of changed.filter((p) => head[p] === undefined))
        if (base[from] === head[to] && ![...renamed.values()].includes(from)) renamed.set(to, from);
    const gone = new Set(renamed.values());
    return changed
      .filter((path) => !gone.has(path))
      .map((filename) =>
        restDiffEntry({
          filename,
          sha: blobSha(head[filename] ?? base[filename] ?? ''),
          status: renamed.has(filename)
            ? 'renamed'
            : head[filename] === undefined
              ? 'removed'
              : base[filename] === undefined
                ? 'added'
                : 'modified',
          patch: simPatch(base[filename], head[filename]),
          ...(renamed.has(filename) ? { previous_filename: renamed.get(filename) } : {}),
          additions: (head[filename] ?? '').split('\n').length,
          deletions: (base[filename] ?? '').split('\n').length,
        }),
      );
  }

  /**
   * The merge base of two commits, as GitHub's three-dot comparison takes it: the nearest commit,
   * walking back from `head`, that `base` also reaches.
   */
  private mergeBase(base: string, head: string): string | undefined {
    const reached = this.ancestors(base);
    const seen = new Set<string>();
    for (let queue = [head]; queue.length;) {
      const next: string[] = [];
      for (const sha of queue) {
        if (reached.has(sha)) return sha;
        if (seen.has(sha)) continue;
        seen.add(sha);
        next.push(...(this.commits.get(sha)?.parents ?? []));
      }
      queue = next;
    }
    return undefined;
  }

  private fault(method: string, path: string): Answer | undefined {
    const matches = (key: string) => {
      const [m, suffix] = key.split(' ');
      return m === method && path.endsWith(suffix!);
    };
    for (const [key, status] of this.faults) {
      if (matches(key)) {
        this.faults.delete(key);
        return [status, restError('Injected fault')];
      }
    }
    for (const [key, left] of this.outages) {
      if (matches(key)) {
        if (left <= 1) this.outages.delete(key);
        else this.outages.set(key, left - 1);
        return [503, restError('Service Unavailable')];
      }
    }
    for (const key of this.secondaryLimits) {
      if (matches(key)) {
        this.secondaryLimits.delete(key);
        const { status, body, headers } = SECONDARY_RATE_LIMIT;
        return [status, body, headers];
      }
    }
    return undefined;
  }

  // ——— the REST API ———

  private readonly routes: {
    method: string;
    pattern: RegExp;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route knows its body
    handler: (m: RegExpMatchArray, body: any, url: URL) => Answer | readonly [number, unknown?];
  }[] = [];

  /**
   * Answers one REST request: [status, body, headers]. Paths are matched decoded (Octokit encodes
   * `/`).
   */
  handle(method: string, url: URL, body: unknown): Answer {
    const path = decodeURIComponent(url.pathname.replace(/^\/api\/v3(?=\/)/, ''));
    this.requests++;
    this.beforeRequest?.(method.toUpperCase(), path);
    if (method.toUpperCase() !== 'GET') this.writes.push(`${method.toUpperCase()} ${path}`);
    for (const route of this.routes) {
      if (route.method !== method.toUpperCase()) continue;
      const m = path.match(route.pattern);
      if (!m) continue;
      // Faults name decoded paths, as the routes do (`…/git/refs/heads/coder/…`).
      // Faults are the loop's to meet: another caller's requests (a model's adversary) pass.
      const injected = this.caller ? undefined : this.fault(route.method, path);
      if (injected) return injected;
      const [status, data, headers] = route.handler(m, body, url);
      for (const key of this.caller ? [] : this.faultsAfter) {
        const [fm, suffix] = key.split(' ');
        if (fm === route.method && path.endsWith(suffix!) && status < 300) {
          this.faultsAfter.delete(key);
          return [502, { message: 'Server Error (after the write took effect)' }];
        }
      }
      return [status, data ?? '', headers];
    }
    return [404, { message: `The simulator has no route for ${method} ${path}` }];
  }

  /**
   * Answer in-process as the transport under the OpenAPI-checked fetch (see `transport` in
   * test/helpers/openapi.ts), where nock would answer: the same requests, checks and request log,
   * without nock's per-request timers. The installation-token request is answered here too.
   */
  readonly fetch: typeof fetch = async (input, init) => {
    this.define();
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    );
    const method = (init?.method ?? 'GET').toUpperCase();
    const hung = [...this.hangs].some((key) => {
      const [m, suffix] = key.split(' ');
      return m === method && decodeURIComponent(url.pathname).endsWith(suffix!);
    });
    if (hung)
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (!signal) return; // never answers: only a caller's time limit ends it
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const text = typeof init?.body === 'string' ? init.body : '';
    const token = /^(?:token|bearer) (.+)$/i.exec(
      new Headers(init?.headers).get('authorization') ?? '',
    );
    this.caller = token ? this.callers.get(token[1]!) : undefined;
    let answered: Answer;
    try {
      answered = this.answer(method, url, text ? JSON.parse(text) : undefined);
    } finally {
      this.caller = undefined;
    }
    const [status, data, headers] = answered;
    const raw = typeof data === 'string';
    const sent = status === 204 ? null : raw ? data : JSON.stringify(data);
    const response = new Response(sent, {
      status,
      headers: { 'content-type': raw ? 'text/plain' : 'application/json', ...headers },
    });
    answeredText.set(response, sent ?? '');
    return response;
  };

  /** One REST answer, the App's installation-token request included. */
  private answer(method: string, url: URL, body: unknown): Answer {
    return url.pathname.endsWith('/access_tokens')
      ? installationToken
      : this.handle(method, url, body);
  }

  /** Answer through nock (in-process tests). */
  mount(): void {
    this.define();
    const scope = nock(API).persist();
    for (const method of ['get', 'post', 'patch', 'put', 'delete'] as const) {
      scope[method]((uri: string) => !uri.includes('/access_tokens')).reply((uri, body) => {
        const parsed = typeof body === 'string' && body ? JSON.parse(body) : body || undefined;
        const [status, data, headers] = this.handle(method, new URL(uri, API), parsed);
        return [status, data as nock.Body, headers ?? {}];
      });
    }
  }

  /**
   * Answer over HTTP on a loopback port (the Action's end-to-end test; App processes reach it as
   * GitHub Enterprise Server, under `/api/v3`): resolves to its base URL. Each request and its
   * answer are checked against GitHub's OpenAPI description (`check`, `checkAnswer`); what fails
   * is kept in `violations`, for the test to assert empty.
   */
  async serve(
    /** Sees each request (after the checks), e.g. to log it. */
    onRequest?: (
      method: string,
      url: URL,
      headers: Record<string, string | string[] | undefined>,
      body: unknown,
    ) => void,
  ): Promise<{ url: string; close: () => Promise<void> }> {
    this.define();
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? JSON.parse(text) : undefined;
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const method = req.method ?? 'GET';
        const [status, data, headers] = this.answer(method, url, body);
        // What GitHub hands out through a redirect (a job's log) is storage, not the REST API.
        if (!url.pathname.startsWith(SIM_STORAGE)) {
          this.violations.push(
            ...check(method, url, req.headers, body).problems,
            ...checkAnswer(method, url, req.headers, {
              status,
              body: status === 204 || data === '' ? undefined : data,
              rateLimited: rateLimited(headers ?? {}),
            }),
          );
        }
        onRequest?.(method, url, req.headers, body);
        const raw = typeof data === 'string';
        res.writeHead(status, {
          'content-type': raw ? 'text/plain' : 'application/json',
          ...headers,
        });
        res.end(status === 204 ? undefined : raw ? data : JSON.stringify(data));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  private define(): void {
    if (this.routes.length) return;
    const route = (
      method: 'get' | 'post' | 'patch' | 'put' | 'delete',
      pattern: RegExp,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route knows its body
      handler: (m: RegExpMatchArray, body: any, url: URL) => Answer | readonly [number, unknown?],
    ) => {
      this.routes.push({ method: method.toUpperCase(), pattern, handler });
    };
    const p = (s: string) => new RegExp(`^${R.replace(/\//g, '\\/')}${s}$`);

    route('get', /^\/app$/, () => [200, LOOP_APP]);
    route('get', p(''), () => [200, restFullRepository(this.defaultBranch)]);
    route('get', p('/check-runs/(\\d+)/annotations'), (m) => {
      const run = this.checkRuns.find((r) => r.id === Number(m[1]));
      if (!run) return notFound;
      return [200, (run.annotations ?? []).map((message) => restAnnotation(message))];
    });
    route('get', /^\/user$/, () =>
      this.actingAs
        ? [200, restAuthenticatedUser(this.actingAs)]
        : [
            403,
            restError(
              'Resource not accessible by integration',
              'https://docs.github.com/rest/users/users#get-the-authenticated-user',
            ),
          ],
    );
    route('get', p('/collaborators/([^/]+)/permission'), (m) => {
      const level = this.permissions.get(m[1]!) ?? 'read';
      // The legacy field names the nearest of admin, write, read, none (as GitHub does).
      const legacy = level === 'maintain' ? 'write' : level === 'triage' ? 'read' : level;
      return [200, restPermission(m[1]!, legacy, level)];
    });
    route('post', p('/issues/comments/(\\d+)/reactions'), (m, body: { content: string }) => {
      // One reaction of a kind per user on a comment: GitHub answers 200 with the one there.
      const key = `${m[1]} ${this.tokenUser()} ${body.content}`;
      const there = this.reactions.get(key);
      if (there !== undefined) return [200, restReaction(there, body.content, this.tokenUser())];
      this.reactions.set(key, ++this.ids);
      return [201, restReaction(this.ids, body.content, this.tokenUser())];
    });
    route(
      'get',
      new RegExp(`^/repos/${OWNER}/(${REPO}|\\.github)/contents/\\.github/coder\\.yml$`),
      (m, _body, url) => {
        const ref = url.searchParams.get('ref') ?? this.defaultBranch;
        if (!this.commits.has(this.refs.get(ref) ?? ref)) return notFound;
        const text = m[1] === REPO ? this.files(ref)['.github/coder.yml'] : this.orgConfig;
        return text === undefined ? notFound : [200, text];
      },
    );
    route('get', p('/git/ref/heads/(.+)'), (m) => {
      const sha = this.refs.get(m[1]!);
      return sha ? [200, restRef(`refs/heads/${m[1]}`, sha)] : notFound;
    });
    route('get', p('/git/matching-refs/heads/(.*)'), (m) => [
      200,
      [...this.refs]
        .filter(([b]) => b.startsWith(m[1]!))
        .map(([b, sha]) => restRef(`refs/heads/${b}`, sha)),
    ]);
    route('get', p('/branches/(.+)'), (m) => {
      const sha = this.refs.get(m[1]!);
      return sha ? [200, restBranch(m[1]!, sha, this.commits.get(sha)!.tree)] : notFound;
    });
    // A tree by its sha, its commit's, a folder's, or a branch name (GitHub resolves a ref name
    // as git does): every entry under it with `recursive`, else the folder's own entries, each
    // folder (`tree`) with the sha that lists it.
    route('get', p('/git/trees/(.+)'), (m, _body, url) => {
      const named = /^[0-9a-f]{40}$/.test(m[1]!) ? m[1]! : this.refs.get(m[1]!);
      if (named === undefined) return notFound;
      const commit = this.commits.get(named);
      const folder = this.folders.get(named);
      const treeSha = folder ? folder.tree : commit ? commit.tree : named;
      const tree = this.trees.get(treeSha);
      if (!tree) return notFound;
      const under = folder ? `${folder.path}/` : '';
      const recursive = url.searchParams.has('recursive');
      const folderSha = (path: string) => {
        const sha = createHash('sha1').update(`tree ${treeSha} ${path}`).digest('hex');
        this.folders.set(sha, { tree: treeSha, path });
        return sha;
      };
      const entries: { path: string; mode: string; sha: string; size: number }[] = [];
      const listed = new Set<string>();
      for (const [path, sha] of [...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (!path.startsWith(under)) continue;
        const rest = path.slice(under.length);
        // The folders on its way, each once, before what they hold.
        const parts = rest.split('/');
        for (let depth = 1; depth < parts.length && (recursive || depth === 1); depth++) {
          const dir = parts.slice(0, depth).join('/');
          if (listed.has(dir)) continue;
          listed.add(dir);
          entries.push({ path: dir, mode: '040000', sha: folderSha(under + dir), size: 0 });
        }
        if (!recursive && parts.length > 1) continue;
        entries.push({
          path: rest,
          mode: this.modes.get(treeSha)?.get(path) ?? '100644',
          sha,
          size: this.blobs.get(sha)!.length,
        });
      }
      const truncated = entries.length > this.treeListLimit;
      const sha = folder ? named : treeSha;
      return [
        200,
        restTree(sha, truncated ? entries.slice(0, this.treeListLimit) : entries, truncated),
      ];
    });
    route('get', p('/git/blobs/([0-9a-f]{40})'), (m) => {
      const content = this.blobs.get(m[1]!);
      return content === undefined ? notFound : [200, restBlob(m[1]!, Buffer.from(content))];
    });
    route(
      'post',
      p('/git/trees'),
      (
        _m,
        body: {
          base_tree: string;
          tree: { path: string; mode?: string; content?: string; sha?: string | null }[];
        },
      ) => {
        const base = this.trees.get(body.base_tree);
        if (!base) return [422, restError('Invalid tree')];
        const tree: Files = new Map(base);
        const modes = new Map(this.modes.get(body.base_tree));
        for (const entry of body.tree) {
          if (entry.sha === null) {
            // GitHub: a null sha deletes the path from the base tree.
            tree.delete(entry.path);
            modes.delete(entry.path);
            continue;
          }
          let sha = entry.sha;
          if (sha === undefined) {
            sha = blobSha(entry.content ?? '');
            this.blobs.set(sha, entry.content ?? '');
          } else if (!this.blobs.has(sha)) return [422, restError('Invalid sha')];
          tree.set(entry.path, sha);
          if (entry.mode && entry.mode !== '100644') modes.set(entry.path, entry.mode);
          else modes.delete(entry.path);
        }
        const sha = hash('tree');
        this.trees.set(sha, tree);
        if (modes.size) this.modes.set(sha, modes);
        return [
          201,
          restTree(
            sha,
            [...tree].map(([path, blob]) => ({
              path,
              mode: modes.get(path) ?? '100644',
              sha: blob,
              size: this.blobs.get(blob)!.length,
            })),
          ),
        ];
      },
    );
    route('post', p('/git/blobs'), (_m, body: { content: string; encoding?: string }) => {
      const bytes = Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8');
      const sha = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
      this.rawBlobs.set(sha, bytes);
      this.blobs.set(sha, bytes.toString('utf8'));
      return [201, restShortBlob(sha)];
    });
    // The activity record: newest first unless `direction=asc`, paged by cursor (`after`, from
    // the `Link` header's next page), filtered by ref (`refs/heads/<b>` or `<b>`) and actor.
    route('get', p('/activity'), (_m, _b, url) => {
      const q = url.searchParams;
      const ref = q.get('ref');
      const full = ref === null || ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
      const listed = this.activity
        .filter(
          (a) =>
            (full === null || a.ref === full) &&
            (q.get('actor') === null || a.actor === q.get('actor')) &&
            (q.get('activity_type') === null || a.activity_type === q.get('activity_type')),
        )
        .sort((a, b) => (q.get('direction') === 'asc' ? a.id - b.id : b.id - a.id));
      const per = Math.min(Number(q.get('per_page') ?? 30), 100);
      const after = q.get('after');
      const from = after === null ? 0 : listed.findIndex((a) => `c${a.id}` === after) + 1;
      const shown = listed.slice(from, from + per);
      const more = from + per < listed.length;
      const next = new URL(url.href);
      next.searchParams.set('after', `c${shown.at(-1)?.id ?? 0}`);
      return [
        200,
        shown.map((a) => ({
          id: a.id,
          node_id: `RA_${a.id}`,
          before: a.before,
          after: a.after,
          ref: a.ref,
          timestamp: '2026-11-22T12:00:00Z',
          activity_type: a.activity_type,
          actor: restUser(a.actor),
        })),
        more ? { link: `<${next.href}>; rel="next"` } : ({} as Record<string, string>),
      ];
    });
    route('post', p('/dispatches'), (_m, body: SimGitHub['dispatches'][number]) => {
      this.dispatches.push(body);
      return [204];
    });
    route('get', p('/actions/jobs/(\\d+)/logs'), (m) => {
      const run = this.checkRuns.find((r) => r.id === Number(m[1]) && r.log !== undefined);
      if (!run) return notFound;
      if (this.logsForbidden) return [403, restError('Resource not accessible by integration')];
      return [302, '', { location: `${SIM_STORAGE}logs/${run.id}` }];
    });
    route('get', new RegExp(`^${SIM_STORAGE}logs/(\\d+)$`), (m) => {
      const run = this.checkRuns.find((r) => r.id === Number(m[1]));
      return run?.log === undefined ? notFound : [200, run.log];
    });
    route(
      'post',
      p('/git/commits'),
      (_m, body: { message: string; tree: string; parents: string[] }) => {
        if (!this.trees.has(body.tree)) return [422, restError('Invalid tree')];
        const sha = hash('commit');
        this.commits.set(sha, {
          sha,
          tree: body.tree,
          parents: body.parents,
          message: body.message,
        });
        return [201, restGitCommit(sha, body.message, body.tree, body.parents)];
      },
    );
    route('get', p('/git/commits/([0-9a-f]{40})'), (m) => {
      const c = this.commits.get(m[1]!);
      return c ? [200, restGitCommit(c.sha, c.message, c.tree, c.parents)] : notFound;
    });
    route('post', p('/git/refs'), (_m, body: { ref: string; sha: string }) => {
      const branch = body.ref.replace(/^refs\/heads\//, '');
      if (this.refs.has(branch)) return [422, restError('Reference already exists')];
      if (!this.commits.has(body.sha)) return [422, restError('Object does not exist')];
      this.refs.set(branch, body.sha);
      this.recordRef(branch, undefined, body.sha, this.tokenActor());
      return [201, restRef(body.ref, body.sha)];
    });
    route('patch', p('/git/refs/heads/(.+)'), (m, body: { sha: string; force?: boolean }) => {
      const interleave = this.beforeRefUpdate;
      this.beforeRefUpdate = undefined;
      interleave?.();
      const current = this.refs.get(m[1]!);
      if (!current) return [422, restError('Reference does not exist')];
      if (!body.force && !this.ancestors(body.sha).has(current))
        return [422, restError('Update is not a fast forward')];
      this.refs.set(m[1]!, body.sha);
      this.recordRef(m[1]!, current, body.sha, this.tokenActor());
      return [200, restRef(`refs/heads/${m[1]}`, body.sha)];
    });
    route('delete', p('/git/refs/heads/(.+)'), (m) => {
      const before = this.refs.get(m[1]!);
      if (!this.refs.delete(m[1]!)) return [422, restError('Reference does not exist')];
      this.recordRef(m[1]!, before, undefined, this.tokenActor());
      return [204];
    });

    route('get', p('/pulls'), (_m, _b, url) => {
      const [owner, head] = url.searchParams.get('head')?.split(':') ?? [];
      const state = url.searchParams.get('state') ?? 'open';
      // GitHub lists the newest first (`sort: created`, `direction: desc` by default).
      const listed = this.pulls
        .filter(
          (pr) =>
            (state === 'all' || pr.state === state) &&
            (!head || (pr.head === head && owner === (pr.fork ? 'attacker' : OWNER))),
        )
        .sort((a, b) => b.number - a.number);
      return [200, page(listed, url).map((pr) => this.pullJson(pr))];
    });
    route(
      'post',
      p('/pulls'),
      (_m, body: { head: string; base: string; title: string; body: string }) => {
        // A fork's branch (`owner:branch`, GitHub's form for a head in another repository): the
        // fork's head commit is what the caller pushed there (`forkRefs`).
        const [forkOwner, forkBranch] = body.head.includes(':') ? body.head.split(':') : [];
        if (forkOwner !== undefined && forkOwner !== OWNER) {
          const sha = this.forkRefs.get(forkBranch!);
          if (!sha) return [422, restError('Validation Failed')];
          const fork: SimPull = {
            number: this.pulls.length + 2,
            title: body.title,
            body: body.body ?? '',
            head: forkBranch!,
            base: body.base,
            state: 'open',
            merged: false,
            labels: new Set(),
            requested: [],
            author: this.caller?.login ?? forkOwner,
            fork: true,
            forkSha: sha,
          };
          this.pulls.push(fork);
          return [201, this.pullJson(fork)];
        }
        const head = forkOwner === OWNER ? forkBranch! : body.head;
        if (!this.refs.has(body.base) || !this.refs.has(head))
          return [422, restError('Validation Failed')];
        // GitHub refuses a second open PR with the same head and base; another base is allowed.
        if (
          this.pulls.some(
            (pr) => pr.state === 'open' && pr.head === head && pr.base === body.base && !pr.fork,
          )
        ) {
          return [
            422,
            {
              message: 'Validation Failed',
              errors: [
                {
                  resource: 'PullRequest',
                  code: 'custom',
                  message: `A pull request already exists for ${OWNER}:${body.head}.`,
                },
              ],
              documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
            },
          ];
        }
        const pr: SimPull = {
          number: this.pulls.length + 2,
          title: body.title,
          body: body.body,
          head,
          base: body.base,
          state: 'open',
          merged: false,
          labels: new Set(),
          requested: [],
          ...(this.caller || this.actingAs ? { author: this.caller?.login ?? this.actingAs } : {}),
        };
        this.pulls.push(pr);
        return [201, this.pullJson(pr)];
      },
    );
    route('get', p('/pulls/(\\d+)'), (m) => {
      const pr = this.pull(Number(m[1]));
      return pr ? [200, this.pullJson(pr)] : notFound;
    });
    route(
      'patch',
      p('/pulls/(\\d+)'),
      (m, body: { body?: string; title?: string; state?: 'open' | 'closed'; base?: string }) => {
        const pr = this.pull(Number(m[1]));
        if (!pr) return notFound;
        // A base must be a branch of this repository, and only an open PR's base changes.
        if (body.base !== undefined && (!this.refs.has(body.base) || pr.state !== 'open'))
          return [422, restError('Validation Failed')];
        if (body.base !== undefined) pr.base = body.base;
        if (body.title !== undefined) pr.title = body.title;
        if (body.body !== undefined) pr.body = body.body;
        if (body.state) pr.state = body.state;
        return [200, this.pullJson(pr)];
      },
    );
    route('get', p('/pulls/(\\d+)/files'), (m, _b, url) => {
      const pr = this.pull(Number(m[1]));
      // GitHub lists what the PR itself changes: against the merge base of the base branch and
      // the head, never against whatever the base branch gained since.
      const tip = this.refs.get(pr.base)!;
      const head = this.headOf(pr);
      const files = this.diffEntries(this.mergeBase(tip, head) ?? tip, head);
      return [200, page(files.slice(0, PULL_FILES_LISTED), url)];
    });
    route('get', p('/compare/([^/]+)'), (m, _b, url) => {
      // Two commits (a sha or a branch) compared three dots: what `head` changes against their
      // merge base, its files on the first page only, at most 300 of them; the commits paged.
      const [from, to] = decodeURIComponent(m[1]!).split('...');
      const resolve = (name: string | undefined) =>
        name === undefined ? undefined : this.commits.has(name) ? name : this.refs.get(name);
      const [base, head] = [resolve(from), resolve(to)];
      if (!base || !head) return notFound;
      const mergeBase = this.mergeBase(base, head);
      if (!mergeBase) return [404, restError(`No common ancestor between ${from} and ${to}.`)];
      const [baseSide, headSide] = [this.ancestors(base), this.ancestors(head)];
      const ahead = [...headSide].filter((sha) => !baseSide.has(sha));
      const behind = [...baseSide].filter((sha) => !headSide.has(sha)).length;
      const pageNumber = Number(url.searchParams.get('page') ?? '1');
      const commit = (sha: string) => {
        const c = this.commits.get(sha)!;
        return restCommit(c.sha, c.message, c.tree, null, null);
      };
      return [
        200,
        restComparison({
          base: commit(base),
          mergeBase: commit(mergeBase),
          status:
            ahead.length && behind
              ? 'diverged'
              : ahead.length
                ? 'ahead'
                : behind
                  ? 'behind'
                  : 'identical',
          aheadBy: ahead.length,
          behindBy: behind,
          commits: page(ahead.reverse().map(commit), url),
          files:
            pageNumber === 1
              ? this.diffEntries(mergeBase, head).slice(0, COMPARE_FILES_LISTED)
              : [],
        }),
      ];
    });
    route('get', p('/pulls/(\\d+)/commits'), (m, _b, url) => {
      const pr = this.pull(Number(m[1]));
      const base = this.ancestors(this.refs.get(pr.base)!);
      const list: Commit[] = [];
      for (
        let sha: string | undefined = this.headOf(pr);
        sha && !base.has(sha);
        sha = this.commits.get(sha)?.parents[0]
      )
        list.unshift(this.commits.get(sha)!);
      return [
        200,
        // The loop's commits are its bot's; a human push is attributed to its author (nobody,
        // for an email linked to no account).
        page(list.slice(0, PULL_COMMITS_LISTED), url).map((c) =>
          restCommit(
            c.sha,
            c.message,
            c.tree,
            c.author === null ? null : (c.author ?? `${this.tokenApp.slug}[bot]`),
            c.author === null ? null : c.author ? 'web-flow' : `${this.tokenApp.slug}[bot]`,
          ),
        ),
      ];
    });
    route('get', p('/pulls/(\\d+)/reviews'), (m, _b, url) => [
      200,
      page(
        this.reviews.filter((r) => r.pr === Number(m[1])),
        url,
      ).map((r) => restReview({ ...r, body: r.body ?? '' })),
    ]);
    // A review submitted through the API (`event`), of the head or of the commit it names.
    route(
      'post',
      p('/pulls/(\\d+)/reviews'),
      (m, body: { commit_id?: string; body?: string; event?: string }) => {
        const pr = this.pull(Number(m[1]));
        if (!pr) return notFound;
        const states: Record<string, SimReview['state']> = {
          APPROVE: 'APPROVED',
          REQUEST_CHANGES: 'CHANGES_REQUESTED',
          COMMENT: 'COMMENTED',
        };
        const state = states[body.event ?? ''];
        if (!state) return [422, restError('Validation Failed')];
        const review: SimReview = {
          id: ++this.ids,
          pr: pr.number,
          user: this.tokenUser(),
          state,
          commit_id: body.commit_id ?? this.headOf(pr),
          ...(body.body ? { body: body.body } : {}),
        };
        this.reviews.push(review);
        return [200, restReview({ ...review, body: review.body ?? '' })];
      },
    );
    route('get', p('/pulls/(\\d+)/reviews/(\\d+)/comments'), (m, _body, url) => {
      const review = this.reviews.find((r) => r.pr === Number(m[1]) && r.id === Number(m[2]));
      if (!review) return notFound;
      return [
        200,
        page(
          (review.comments ?? []).map((c, i) =>
            restReviewComment({
              ...c,
              id: review.id * 10_000 + i,
              review: review.id,
              pr: review.pr,
              user: review.user,
              commit_id: review.commit_id,
            }),
          ),
          url,
        ),
      ];
    });
    route(
      'post',
      p('/pulls/(\\d+)/requested_reviewers'),
      (m, body: { reviewers?: string[]; team_reviewers?: string[] }) => {
        const pr = this.pull(Number(m[1]));
        pr.requested.push(
          ...(body.reviewers ?? []),
          ...(body.team_reviewers ?? []).map((t) => `team:${t}`),
        );
        return [201, this.pullJson(pr)];
      },
    );
    route('put', p('/pulls/(\\d+)/merge'), (m, body: { sha?: string } | undefined) => {
      const pr = this.pull(Number(m[1]));
      if (body?.sha && body.sha !== this.headOf(pr))
        return [409, restError('Head branch was modified. Review and try the merge again.')];
      const head = this.headOf(pr);
      const merge = hash('merge');
      this.commits.set(merge, {
        sha: merge,
        tree: this.commits.get(head)!.tree,
        parents: [this.refs.get(pr.base)!, head],
        message: `Merge pull request #${pr.number}`,
      });
      const before = this.refs.get(pr.base);
      this.refs.set(pr.base, merge);
      this.recordRef(pr.base, before, merge, this.tokenActor(), 'pr_merge');
      pr.merged = true;
      pr.state = 'closed';
      (pr as SimPull & { lastHead?: string }).lastHead = head;
      if (pr.base === this.defaultBranch)
        for (const k of pr.body.matchAll(
          /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):? +#(\d+)\b/gi,
        ))
          this.issuesClosed.set(Number(k[1]), this.tokenUser());
      return [200, { sha: merge, merged: true, message: 'Pull Request successfully merged' }];
    });

    route('get', p('/issues/(\\d+)'), (m) => {
      const text = this.issueTexts.get(Number(m[1]));
      if (!text) return notFound;
      return [
        200,
        restIssue({
          number: Number(m[1]),
          title: text.title,
          body: text.body,
          author: text.author ?? 'outsider',
          labels: [...(this.issueLabels.get(Number(m[1])) ?? [])],
          ...(this.issuesClosed.has(Number(m[1]))
            ? { closedBy: this.issuesClosed.get(Number(m[1]))! }
            : {}),
        }),
      ];
    });
    route('post', p('/issues/(\\d+)/comments'), (m, body: { body: string }) => {
      const comment = {
        issue: Number(m[1]),
        body: body.body,
        id: ++this.ids,
        ...(this.caller ? { author: this.caller.login } : {}),
      };
      this.comments.push(comment);
      return [201, this.commentJson(comment)];
    });
    route('get', p('/issues/(\\d+)/comments'), (m, _b, url) => [
      200,
      page(
        this.comments.filter((c) => c.issue === Number(m[1])),
        url,
      ).map((c) => this.commentJson(c)),
    ]);
    route('get', p('/issues/comments/(\\d+)'), (m) => {
      const comment = this.comments.find((c) => c.id === Number(m[1]));
      if (!comment) return notFound;
      return [200, this.commentJson(comment)];
    });
    route('patch', p('/issues/comments/(\\d+)'), (m, body: { body: string }) => {
      const comment = this.comments.find((c) => c.id === Number(m[1]));
      if (!comment) return notFound;
      comment.body = body.body;
      return [200, this.commentJson(comment)];
    });
    route('post', p('/labels'), (_m, body: { name: string }) => {
      if (this.repoLabels.has(body.name))
        return [
          422,
          {
            message: 'Validation Failed',
            errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }],
            documentation_url: 'https://docs.github.com/rest/issues/labels#create-a-label',
          },
        ];
      this.repoLabels.add(body.name);
      return [201, restLabel(body.name, this.repoLabels.size)];
    });
    route('post', p('/issues/(\\d+)/labels'), (m, body: { labels: string[] }) => {
      const n = Number(m[1]);
      const set = this.issueLabels.get(n) ?? new Set<string>();
      for (const l of body.labels) {
        set.add(l);
        this.labelEvents.push({ issue: n, event: 'labeled', label: l, actor: this.tokenUser() });
      }
      this.issueLabels.set(n, set);
      this.pulls.find((pr) => pr.number === n)?.labels.add(body.labels[0]!);
      return [200, [...set].map((name, i) => restLabel(name, i + 1))];
    });
    route('get', p('/issues/(\\d+)/events'), (m, _b, url) => {
      const events = this.labelEvents
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.issue === Number(m[1]));
      return [200, page(events, url).map(({ e, i }) => restLabelEvent({ ...e, id: i + 1 }))];
    });
    route('delete', p('/issues/(\\d+)/labels/(.+)'), (m) => {
      const n = Number(m[1]);
      const had = this.issueLabels.get(n)?.delete(m[2]!);
      if (had)
        this.labelEvents.push({
          issue: n,
          event: 'unlabeled',
          label: m[2]!,
          actor: this.tokenUser(),
        });
      this.pulls.find((pr) => pr.number === n)?.labels.delete(m[2]!);
      return had ? [200, []] : notFound;
    });

    route('get', p('/commits/([0-9a-f]{40})/check-runs'), (m, _b, url) => {
      const name = url.searchParams.get('check_name');
      const runs = this.checkRuns.filter(
        (r) => r.head_sha === m[1] && (name === null || r.name === name),
      );
      return [
        200,
        {
          total_count: runs.length,
          check_runs: page(runs, url).map((r) => this.checkRunJson(r)),
        },
      ];
    });
    route('get', p('/commits/([0-9a-f]{40})/status'), (m, _b, url) => {
      // The combined status: the latest status of each context.
      const latest = new Map(
        this.statuses.filter((s) => s.sha === m[1]).map((s) => [s.context, s] as const),
      );
      const statuses = [...latest.values()];
      return [
        200,
        restCombinedStatus(
          m[1]!,
          page(statuses, url).map((s, i) =>
            restStatus({ ...s, id: i + 1, creator: s.creator ?? 'ci-bot[bot]' }),
          ),
        ),
      ];
    });
    route('get', p('/commits/([0-9a-f]{40})/statuses'), (m, _b, url) => {
      // Every status of the commit, newest first, with who posted it.
      const statuses = this.statuses
        .map((s, i) => ({ s, i }))
        .filter(({ s }) => s.sha === m[1])
        .reverse();
      return [
        200,
        page(statuses, url).map(({ s, i }) =>
          restStatus({ ...s, id: i + 1, creator: s.creator ?? 'ci-bot[bot]' }),
        ),
      ];
    });
    // GitHub Actions: the workflow runs of a head, and each run's jobs (every attempt's).
    route('get', p('/actions/runs'), (_m, _b, url) => {
      const sha = url.searchParams.get('head_sha');
      const ids = [
        ...new Set(
          this.checkRuns
            .filter((r) => r.job && (!sha || r.head_sha === sha))
            .map((r) => r.job!.run),
        ),
      ];
      const unstarted = this.workflowRuns.filter((r) => !sha || r.head_sha === sha);
      const all = [...ids, ...unstarted.map((r) => r.id)];
      return [
        200,
        {
          total_count: all.length,
          workflow_runs: page(all, url).map((id) => {
            const bare = unstarted.find((r) => r.id === id);
            if (bare)
              return restWorkflowRun({
                id,
                name: bare.name,
                head_sha: bare.head_sha,
                run_attempt: bare.attempt,
                event: 'pull_request',
                status: bare.status,
                conclusion: bare.conclusion,
              });
            const jobs = this.checkRuns.filter((r) => r.job?.run === id);
            const ranFor = jobs[0]!.job!.for ?? {};
            return restWorkflowRun({
              id,
              name: 'CI',
              head_sha: jobs[0]!.head_sha,
              run_attempt: Math.max(...jobs.map((j) => j.job!.attempt)),
              event: ranFor.event ?? 'pull_request',
              head_branch: ranFor.branch ?? null,
              ...(ranFor.repository
                ? {
                    head_repository: this.deletedForks.has(ranFor.repository)
                      ? null
                      : ranFor.repository,
                  }
                : {}),
              status: 'completed',
              conclusion: jobs.at(-1)!.conclusion,
            });
          }),
        },
      ];
    });
    route('get', p('/actions/runs/(\\d+)/jobs'), (m, _b, url) => {
      const all = url.searchParams.get('filter') === 'all';
      const jobs = this.checkRuns.filter((r) => r.job?.run === Number(m[1]));
      const latest = Math.max(0, ...jobs.map((j) => j.job!.attempt));
      const listed = all ? jobs : jobs.filter((j) => j.job!.attempt === latest);
      return [
        200,
        {
          total_count: listed.length,
          jobs: page(listed, url).map((run) =>
            restJob({
              id: run.id,
              run_id: run.job!.run,
              run_attempt: run.job!.attempt,
              head_sha: run.head_sha,
              name: run.name,
              status: run.status,
              conclusion: run.conclusion,
              ...(run.steps ? { steps: run.steps } : {}),
            }),
          ),
        },
      ];
    });
    // Re-runs: the failed jobs of a run's latest attempt queued again as its next attempt (new
    // check runs), or a run that started no job queued again whole.
    const rerunRefused = (run: number, whole: boolean): Answer | undefined => {
      if (!this.rerunRefusal) return undefined;
      this.rerunsRefused.push({ run, whole });
      const { status, message } = this.rerunRefusal;
      return [
        status,
        {
          ...restError(
            message,
            whole
              ? 'https://docs.github.com/rest/actions/workflow-runs#re-run-a-workflow'
              : 'https://docs.github.com/rest/actions/workflow-runs#re-run-failed-jobs-from-a-workflow-run',
          ),
          status: String(status),
        },
      ];
    };
    route('post', p('/actions/runs/(\\d+)/rerun-failed-jobs'), (m) => {
      const id = Number(m[1]);
      const refusedNow = rerunRefused(id, false);
      if (refusedNow) return refusedNow;
      const jobs = this.checkRuns.filter((r) => r.job?.run === id);
      if (jobs.length === 0) return notFound;
      const latest = Math.max(...jobs.map((j) => j.job!.attempt));
      const failed = jobs.filter(
        (j) =>
          j.job!.attempt === latest &&
          !['success', 'neutral', 'skipped'].includes(j.conclusion ?? ''),
      );
      if (failed.length === 0) return [403, { message: 'This workflow run has no failed jobs.' }];
      this.reruns.push({ run: id, whole: false });
      for (const j of failed)
        this.checkRuns.push({
          ...j,
          id: ++this.ids,
          job: { run: id, attempt: latest + 1 },
          status: 'queued',
          conclusion: null,
          steps: [],
          html_url: `https://github.com/${OWNER}/${REPO}/runs/${this.ids}`,
        });
      return [201, {}];
    });
    route('post', p('/actions/runs/(\\d+)/rerun'), (m) => {
      const run = this.workflowRuns.find((r) => r.id === Number(m[1]));
      const jobs = this.checkRuns.filter((r) => r.job?.run === Number(m[1]));
      if (!run && jobs.length) {
        // Every job of the run's latest attempt queued again as its next attempt, on the same
        // head and ref, for what the run first ran for (GitHub keeps the original event and actor).
        const refusedNow = rerunRefused(Number(m[1]), true);
        if (refusedNow) return refusedNow;
        const latest = Math.max(...jobs.map((j) => j.job!.attempt));
        this.reruns.push({
          run: Number(m[1]),
          whole: true,
          ...(this.caller ? { by: this.caller.login } : {}),
        });
        for (const j of jobs.filter((j) => j.job!.attempt === latest))
          this.checkRuns.push({
            ...j,
            id: ++this.ids,
            job: { ...j.job!, attempt: latest + 1 },
            status: 'queued',
            conclusion: null,
            steps: [],
            html_url: `https://github.com/${OWNER}/${REPO}/runs/${this.ids}`,
          });
        return [201, {}];
      }
      if (!run) return notFound;
      const refusedNow = rerunRefused(run.id, true);
      if (refusedNow) return refusedNow;
      this.reruns.push({ run: run.id, whole: true });
      Object.assign(run, { attempt: run.attempt + 1, status: 'queued', conclusion: null });
      return [201, {}];
    });
    route('post', p('/statuses/([0-9a-f]{40})'), (m, body: Omit<SimStatus, 'sha'>) => {
      if (!this.commits.has(m[1]!)) return [422, restError('No commit found for SHA')];
      const status: SimStatus = {
        sha: m[1]!,
        ...body,
        creator: this.caller?.login ?? this.actingAs ?? 'coder-loop[bot]',
      };
      this.statuses.push(status);
      return [201, restStatus({ ...status, id: this.statuses.length, creator: status.creator! })];
    });
    route(
      'post',
      p('/check-runs'),
      (
        _m,
        body: {
          name: string;
          head_sha: string;
          status?: string;
          conclusion?: string;
          external_id?: string;
          output?: SimCheckRun['output'];
        },
      ) => {
        if (this.checkRunsRefused) return refused(this.checkRunsRefused);
        // Only a GitHub App's token (a workflow job's `GITHUB_TOKEN` is GitHub Actions') creates one.
        if (this.caller && !this.caller.app)
          return refused('You must authenticate via a GitHub App.');
        if (tooLong(body.output)) return tooLong(body.output)!;
        const run: SimCheckRun = {
          id: ++this.ids,
          app: { ...(this.caller ? this.caller.app! : this.tokenApp) },
          head_sha: body.head_sha,
          name: body.name,
          status: body.status ?? 'queued',
          conclusion: body.conclusion ?? null,
          external_id: body.external_id ?? '',
          ...(body.output ? { output: body.output } : {}),
          html_url: '',
          started_at: this.checkRunTime,
        };
        this.checkRuns.push(run);
        return [201, this.checkRunJson(run)];
      },
    );
    route('patch', p('/check-runs/(\\d+)'), (m, body: Partial<SimCheckRun>) => {
      if (this.checkRunsRefused) return refused(this.checkRunsRefused);
      if (tooLong(body.output)) return tooLong(body.output)!;
      const run = this.checkRuns.find((r) => r.id === Number(m[1]));
      if (!run) return notFound;
      Object.assign(
        run,
        body,
        // An update that names no status (the output only) keeps the conclusion, as GitHub does.
        body.conclusion || body.status === undefined
          ? {}
          : { conclusion: body.status === 'completed' ? run.conclusion : null },
      );
      return [200, this.checkRunJson(run)];
    });
    route('get', p('/environments/([^/]+)'), (m) => {
      const env = this.environments.get(decodeURIComponent(m[1]!));
      if (!env) return notFound;
      return [
        200,
        restEnvironment(
          decodeURIComponent(m[1]!),
          env.branches || env.protectedBranches
            ? {
                protected_branches: env.protectedBranches === true,
                custom_branch_policies: env.branches !== undefined,
              }
            : null,
        ),
      ];
    });
    route('get', p('/environments/([^/]+)/deployment-branch-policies'), (m, _b, url) => {
      const env = this.environments.get(decodeURIComponent(m[1]!));
      if (!env) return notFound;
      const all = (env.branches ?? []).map((b, i) => ({ id: i + 1, node_id: `BP_${i}`, ...b }));
      const per = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return [
        200,
        { total_count: all.length, branch_policies: all.slice((page - 1) * per, page * per) },
      ];
    });
    route('get', /^\/orgs\/([^/]+)\/teams\/([^/]+)\/memberships\/([^/]+)$/, (m) =>
      this.teams.get(`${m[1]}/${m[2]}`)?.has(m[3]!)
        ? [200, restTeamMembership(m[2]!, m[3]!)]
        : notFound,
    );
  }
}

/** A unified diff as GitHub lists it with a file: the whole old text out, the whole new text in. */
function simPatch(before: string | undefined, after: string | undefined): string {
  const lines = (text: string | undefined) =>
    text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const old = lines(before);
  const now = lines(after);
  return [
    `@@ -${old.length ? 1 : 0},${old.length} +${now.length ? 1 : 0},${now.length} @@`,
    ...old.map((l) => `-${l}`),
    ...now.map((l) => `+${l}`),
  ].join('\n');
}
