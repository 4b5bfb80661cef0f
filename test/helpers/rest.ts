import { specExample } from './openapi.js';

/**
 * GitHub's REST answers as the tests give them (nock's replies, the in-memory GitHub's): each
 * built from the example GitHub's OpenAPI description gives for it (@octokit/openapi), with the
 * fields a scenario is about set by the caller and every URL pointing at this repository. The
 * answer check (`checkAnswer` in test/helpers/openapi.ts) validates each against the operation's
 * response schema, so a field a builder leaves out or gets the type of wrong fails the test.
 * Lists an example fills (a PR's labels, reviewers, assignees) are emptied unless set: a
 * scenario's answer says only what the scenario has.
 */

export const API = 'https://api.github.com';
const WEB = 'https://github.com';
export const OWNER = 'Codertocat';
export const REPO = 'Hello-World';
/** The repository's id, as in @octokit/webhooks-examples' payloads for `Codertocat/Hello-World`. */
const REPO_ID = 186853002;
export const REPO_API = `${API}/repos/${OWNER}/${REPO}`;
const REPO_WEB = `${WEB}/${OWNER}/${REPO}`;
/** A time for answers whose time no scenario looks at. */
const WHEN = '2026-11-22T12:00:00Z';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an example is any JSON
type Json = any;

/** Every string in `value` with the example's repository, owner and hosts turned into ours. */
function retarget(value: Json, from: string, to: string): Json {
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((v) => retarget(v, from, to));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, retarget(v, from, to)]));
  return value;
}

/** `value` without the fields `keys` (a list's item has fewer fields than the example shows). */
function without(value: Json, ...keys: string[]): Json {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

const templates = new Map<string, Json>();
/**
 * The description's example `name` (or the part of it at `path`, e.g. `base.repo`), made ours
 * (`octocat/Hello-World` → this repository), cached.
 */
function template(name: string, path = ''): Json {
  const key = `${name}#${path}`;
  let value = templates.get(key);
  if (value === undefined) {
    const part = path
      .split('.')
      .filter(Boolean)
      .reduce<Json>((node, step) => node[step], specExample(name));
    value = retarget(
      retarget(part, 'octocat/Hello-World', `${OWNER}/${REPO}`),
      'github/hello-world',
      `${OWNER}/${REPO}`,
    );
    templates.set(key, value);
  }
  return value;
}

const users = new Map<string, Json>();
/** A user (or an app's bot, `…[bot]`) as the REST API shows one (`simple-user`). */
export function restUser(login: string, type = login.endsWith('[bot]') ? 'Bot' : 'User'): Json {
  const key = `${login} ${type}`;
  let user = users.get(key);
  if (!user) {
    const path = encodeURIComponent(login);
    user = {
      ...retarget(
        retarget(template('simple-user'), '/users/octocat', `/users/${path}`),
        `${WEB}/octocat`,
        `${WEB}/${path}`,
      ),
      login,
      type,
      // Every user is id 1 here: the loop tells people apart by login, never by id.
      id: 1,
      node_id: `U_${path}`,
      avatar_url: `https://avatars.githubusercontent.com/u/1?v=4`,
    };
    users.set(key, user);
  }
  return user;
}

/** The token's own user, as `GET /user` shows a personal access token's (`private-user`). */
export function restAuthenticatedUser(login: string): Json {
  return {
    ...template('private-user'),
    ...restUser(login, 'User'),
    name: login,
    company: null,
    blog: null,
    location: null,
    email: null,
    bio: null,
    twitter_username: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

/** An app as GitHub shows it on check runs and at `GET /app` (`integration`). */
export function restApp(id: number, slug: string, owner: string = OWNER): Json {
  return {
    ...template('integration'),
    id,
    slug,
    node_id: `A_${id}`,
    client_id: `Iv1.${slug}`,
    owner: restUser(owner),
    name: slug,
    description: null,
    external_url: `${WEB}/apps/${slug}`,
    html_url: `${WEB}/apps/${slug}`,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    permissions: {},
    events: [],
  };
}

const repositories = new Map<string, Json>();
/** A repository as a pull request's `head.repo` and `base.repo` show it (`repository`). */
function restRepository(owner = OWNER, name = REPO, id = REPO_ID): Json {
  const key = `${owner}/${name}`;
  let repo = repositories.get(key);
  if (!repo) {
    repo = {
      ...retarget(template('pull-request', 'base.repo'), `${OWNER}/${REPO}`, `${owner}/${name}`),
      id,
      node_id: `R_${id}`,
      name,
      full_name: key,
      owner: restUser(owner),
      fork: owner !== OWNER,
      default_branch: 'master',
      private: false,
    };
    repositories.set(key, repo);
  }
  return repo;
}

/** This repository as `GET /repos/{owner}/{repo}` answers (`full-repository`). */
export function restFullRepository(defaultBranch = 'master'): Json {
  return {
    ...without(
      template('full-repository'),
      'parent',
      'source',
      'organization',
      'template_repository',
    ),
    id: REPO_ID,
    node_id: `R_${REPO_ID}`,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: restUser(OWNER),
    html_url: REPO_WEB,
    fork: false,
    private: false,
    visibility: 'public',
    default_branch: defaultBranch,
    has_discussions: false,
  };
}

/** A git reference (`git-ref`). */
export function restRef(ref: string, sha: string): Json {
  return {
    ref,
    node_id: `REF_${Buffer.from(ref).toString('base64')}`,
    url: `${REPO_API}/git/${ref}`,
    object: { type: 'commit', sha, url: `${REPO_API}/git/commits/${sha}` },
  };
}

/** A branch (`branch-with-protection`): its name, head commit and that commit's root tree. */
export function restBranch(name: string, sha: string, tree: string): Json {
  const example = template('branch-get');
  return {
    ...example,
    name,
    commit: {
      ...example.commit,
      sha,
      node_id: `C_${sha}`,
      url: `${REPO_API}/commits/${sha}`,
      html_url: `${REPO_WEB}/commit/${sha}`,
      comments_url: `${REPO_API}/commits/${sha}/comments`,
      commit: {
        ...example.commit.commit,
        url: `${REPO_API}/git/commits/${sha}`,
        tree: { sha: tree, url: `${REPO_API}/git/trees/${tree}` },
      },
      parents: [],
    },
    _links: {
      self: `${REPO_API}/branches/${encodeURIComponent(name)}`,
      html: `${REPO_WEB}/tree/${name}`,
    },
    protection_url: `${REPO_API}/branches/${encodeURIComponent(name)}/protection`,
  };
}

/** A tree (`git-tree`); its entries as path, mode, sha and size. */
export function restTree(
  sha: string,
  entries: { path: string; mode: string; sha: string; size: number }[],
  truncated = false,
): Json {
  return {
    sha,
    url: `${REPO_API}/git/trees/${sha}`,
    truncated,
    tree: entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.mode === '040000' ? 'tree' : e.mode === '160000' ? 'commit' : 'blob',
      sha: e.sha,
      size: e.size,
      url: `${REPO_API}/git/blobs/${e.sha}`,
    })),
  };
}

/** A blob with its content (`blob`). */
export function restBlob(sha: string, bytes: Buffer): Json {
  return {
    sha,
    node_id: `B_${sha}`,
    size: bytes.length,
    url: `${REPO_API}/git/blobs/${sha}`,
    content: bytes.toString('base64'),
    encoding: 'base64',
  };
}

/** A created blob (`short-blob`). */
export const restShortBlob = (sha: string): Json => ({ sha, url: `${REPO_API}/git/blobs/${sha}` });

/** A git commit (`git-commit`): its message, tree and parents. */
export function restGitCommit(sha: string, message: string, tree: string, parents: string[]): Json {
  return {
    ...template('git-commit'),
    sha,
    node_id: `C_${sha}`,
    url: `${REPO_API}/git/commits/${sha}`,
    html_url: `${REPO_WEB}/commit/${sha}`,
    message,
    tree: { sha: tree, url: `${REPO_API}/git/trees/${tree}` },
    parents: parents.map((p) => ({
      sha: p,
      url: `${REPO_API}/git/commits/${p}`,
      html_url: `${REPO_WEB}/commit/${p}`,
    })),
  };
}

/**
 * A commit as a pull request's commit list shows it (`commit`): `author` and `committer` are the
 * GitHub users it is attributed to, or null (an email linked to no account).
 */
export function restCommit(
  sha: string,
  message: string,
  tree: string,
  author: string | null,
  committer: string | null,
): Json {
  const listed = without(template('commit'), 'files', 'stats');
  return {
    ...listed,
    sha,
    node_id: `C_${sha}`,
    url: `${REPO_API}/commits/${sha}`,
    html_url: `${REPO_WEB}/commit/${sha}`,
    comments_url: `${REPO_API}/commits/${sha}/comments`,
    commit: {
      ...listed.commit,
      message,
      url: `${REPO_API}/git/commits/${sha}`,
      tree: { sha: tree, url: `${REPO_API}/git/trees/${tree}` },
      comment_count: 0,
    },
    author: author === null ? null : restUser(author),
    committer: committer === null ? null : restUser(committer),
    parents: [],
  };
}

/** A file of a pull request's file list (`diff-entry`). */
export function restDiffEntry(entry: {
  filename: string;
  status: string;
  sha: string;
  additions: number;
  deletions: number;
  patch?: string;
  previous_filename?: string;
}): Json {
  const path = entry.filename.split('/').map(encodeURIComponent).join('/');
  return {
    ...entry,
    changes: entry.additions + entry.deletions,
    blob_url: `${REPO_WEB}/blob/${entry.sha}/${path}`,
    raw_url: `${REPO_WEB}/raw/${entry.sha}/${path}`,
    contents_url: `${REPO_API}/contents/${path}?ref=${entry.sha}`,
  };
}

/**
 * Two commits compared (`commit-comparison`): the base and merge base as the commit list shows
 * them, how far the head is ahead and behind, the commits of this page and the changed files.
 */
export function restComparison(c: {
  base: Json;
  mergeBase: Json;
  status: 'ahead' | 'behind' | 'diverged' | 'identical';
  aheadBy: number;
  behindBy: number;
  commits: Json[];
  files: Json[];
}): Json {
  const range = `${c.base.sha}...${c.mergeBase.sha}`;
  return {
    ...template('commit-comparison'),
    url: `${REPO_API}/compare/${range}`,
    html_url: `${REPO_WEB}/compare/${range}`,
    permalink_url: `${REPO_WEB}/compare/${range}`,
    diff_url: `${REPO_WEB}/compare/${range}.diff`,
    patch_url: `${REPO_WEB}/compare/${range}.patch`,
    base_commit: c.base,
    merge_base_commit: c.mergeBase,
    status: c.status,
    ahead_by: c.aheadBy,
    behind_by: c.behindBy,
    total_commits: c.aheadBy,
    commits: c.commits,
    files: c.files,
  };
}

/** A label (`label`). */
export function restLabel(name: string, id = 208045946): Json {
  return {
    ...template('label'),
    id,
    node_id: `LA_${id}`,
    name,
    url: `${REPO_API}/labels/${encodeURIComponent(name)}`,
    // A pull request's labels have a string here (its schema says so), an empty one when unset.
    description: '',
    default: false,
  };
}

/** A pull request (`pull-request`). */
export function restPull(pr: {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  labels: string[];
  author: string;
  head: { ref: string; sha: string; owner?: string };
  base: { ref: string; sha: string };
  requested?: string[];
}): Json {
  const url = `${REPO_API}/pulls/${pr.number}`;
  const html = `${REPO_WEB}/pull/${pr.number}`;
  const issue = `${REPO_API}/issues/${pr.number}`;
  const headOwner = pr.head.owner ?? OWNER;
  const repo = restRepository();
  const headRepo = headOwner === OWNER ? repo : restRepository(headOwner, REPO, 666);
  const example = template('pull-request');
  return {
    ...example,
    url,
    id: pr.number,
    node_id: `PR_${pr.number}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${REPO_API}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${REPO_API}/statuses/${pr.head.sha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    body: pr.body,
    user: restUser(pr.author),
    labels: pr.labels.map((name, i) => restLabel(name, i + 1)),
    milestone: null,
    created_at: WHEN,
    updated_at: WHEN,
    closed_at: pr.state === 'closed' ? WHEN : null,
    merged_at: pr.merged ? WHEN : null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: (pr.requested ?? [])
      .filter((r) => !r.startsWith('team:'))
      .map((r) => restUser(r)),
    requested_teams: [],
    head: {
      label: `${headOwner}:${pr.head.ref}`,
      ref: pr.head.ref,
      sha: pr.head.sha,
      user: restUser(headOwner),
      repo: headRepo,
    },
    base: {
      label: `${OWNER}:${pr.base.ref}`,
      ref: pr.base.ref,
      sha: pr.base.sha,
      user: restUser(OWNER),
      repo,
    },
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${REPO_API}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${REPO_API}/statuses/${pr.head.sha}` },
    },
    author_association: 'NONE',
    auto_merge: null,
    draft: false,
    merged: pr.merged,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: 0,
    review_comments: 0,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** An issue (`issue`), not a pull request. */
export function restIssue(issue: {
  number: number;
  title: string;
  body: string;
  author: string;
  /** Closed: by whom (a merged pull request's "Fixes #N" closes it as its merger). */
  closedBy?: string;
  labels?: readonly string[];
}): Json {
  const url = `${REPO_API}/issues/${issue.number}`;
  const example = without(template('issue'), 'pinned_comment', 'pull_request');
  return {
    ...example,
    id: issue.number,
    node_id: `I_${issue.number}`,
    url,
    repository_url: REPO_API,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${REPO_WEB}/issues/${issue.number}`,
    number: issue.number,
    state: issue.closedBy === undefined ? 'open' : 'closed',
    state_reason: issue.closedBy === undefined ? null : 'completed',
    title: issue.title,
    body: issue.body,
    user: restUser(issue.author),
    labels: (issue.labels ?? []).map((name, i) => restLabel(name, i + 1)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: 0,
    closed_at: issue.closedBy === undefined ? null : WHEN,
    closed_by: issue.closedBy === undefined ? null : restUser(issue.closedBy),
    created_at: WHEN,
    updated_at: WHEN,
    author_association: 'NONE',
  };
}

/** An issue or pull-request comment (`issue-comment`). */
export function restIssueComment(c: {
  id: number;
  issue: number;
  body: string;
  author: string;
}): Json {
  const example = without(template('issue-comment'), 'pin', 'minimized');
  return {
    ...example,
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${REPO_API}/issues/comments/${c.id}`,
    html_url: `${REPO_WEB}/issues/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${REPO_API}/issues/${c.issue}`,
    body: c.body,
    user: restUser(c.author),
    created_at: WHEN,
    updated_at: WHEN,
    author_association: 'NONE',
  };
}

/** A reaction (`reaction`) by `login`. */
export function restReaction(id: number, content: string, login: string): Json {
  return { ...template('reaction'), id, node_id: `REA_${id}`, content, user: restUser(login) };
}

/** An issue's event (`issue-event-for-issue`): a label added or removed, by `actor`. */
export function restLabelEvent(e: {
  id: number;
  event: 'labeled' | 'unlabeled';
  label: string;
  actor: string;
}): Json {
  return {
    ...template('issue-event-for-issue-items', '0'),
    id: e.id,
    node_id: `LE_${e.id}`,
    url: `${REPO_API}/issues/events/${e.id}`,
    actor: restUser(e.actor),
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: WHEN,
    performed_via_github_app: null,
    label: { name: e.label, color: 'b60205' },
  };
}

/** A review of a pull request (`pull-request-review`). */
export function restReview(r: {
  id: number;
  pr: number;
  user: string;
  state: string;
  commit_id: string;
  body: string;
}): Json {
  const html = `${REPO_WEB}/pull/${r.pr}#pullrequestreview-${r.id}`;
  const pull = `${REPO_API}/pulls/${r.pr}`;
  return {
    ...template('pull-request-review'),
    id: r.id,
    node_id: `PRR_${r.id}`,
    user: restUser(r.user),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: pull,
    _links: { html: { href: html }, pull_request: { href: pull } },
    submitted_at: WHEN,
    commit_id: r.commit_id,
    author_association: 'MEMBER',
  };
}

/** A comment of a review (`review-comment`) on `path` at `line`. */
export function restReviewComment(c: {
  id: number;
  review: number;
  pr: number;
  user: string;
  commit_id: string;
  path: string;
  line: number;
  body: string;
}): Json {
  const url = `${REPO_API}/pulls/comments/${c.id}`;
  const html = `${REPO_WEB}/pull/${c.pr}#discussion_r${c.id}`;
  const pull = `${REPO_API}/pulls/${c.pr}`;
  const example = without(template('review-comment-items', '0'), 'in_reply_to_id');
  return {
    ...example,
    url,
    pull_request_review_id: c.review,
    id: c.id,
    node_id: `PRRC_${c.id}`,
    diff_hunk: `@@ -${c.line},1 +${c.line},1 @@`,
    path: c.path,
    position: c.line,
    original_position: c.line,
    line: c.line,
    original_line: c.line,
    commit_id: c.commit_id,
    original_commit_id: c.commit_id,
    user: restUser(c.user),
    body: c.body,
    created_at: WHEN,
    updated_at: WHEN,
    html_url: html,
    pull_request_url: pull,
    author_association: 'MEMBER',
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pull } },
  };
}

/** A check run (`check-run`) of `app`. */
export function restCheckRun(run: {
  id: number;
  app: Json;
  head_sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  external_id: string;
  html_url: string;
  output?: { title?: string; summary?: string; text?: string };
  /** When GitHub started it (the in-memory GitHub's clock), else a fixed time. */
  started_at?: string | null;
  /** How many annotations it has (GitHub's own about the job among them). */
  annotations_count?: number;
  /** Its check suite (a GitHub Actions job's: its workflow run's `check_suite_id`). */
  suite?: number;
}): Json {
  const url = `${REPO_API}/check-runs/${run.id}`;
  return {
    ...template('check-run'),
    id: run.id,
    node_id: `CR_${run.id}`,
    head_sha: run.head_sha,
    external_id: run.external_id,
    url,
    html_url: run.html_url || `${REPO_WEB}/runs/${run.id}`,
    details_url: run.html_url || `${REPO_WEB}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at ?? WHEN,
    completed_at: run.status === 'completed' ? WHEN : null,
    output: {
      title: run.output?.title ?? null,
      summary: run.output?.summary ?? null,
      text: run.output?.text ?? null,
      annotations_count: run.annotations_count ?? 0,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.suite ?? run.id },
    app: run.app,
    pull_requests: [],
  };
}

/**
 * A check run's annotation (`check-annotation`) as GitHub Actions writes its own about a job —
 * a runner lost, a job never acquired — on the workflow folder, at the failure level.
 */
export function restAnnotation(message: string): Json {
  return {
    ...template('check-annotation-items', '0'),
    path: '.github',
    start_line: 1,
    end_line: 1,
    start_column: null,
    end_column: null,
    annotation_level: 'failure',
    title: '',
    message,
    raw_details: '',
    blob_href: `${REPO_WEB}/blob/0000000000000000000000000000000000000000/.github`,
  };
}

/** A commit status (`status`), posted by `creator`. */
export function restStatus(s: {
  id: number;
  sha: string;
  context: string;
  state: string;
  target_url: string | null;
  description?: string | null;
  creator: string;
}): Json {
  return {
    ...template('status'),
    url: `${REPO_API}/statuses/${s.sha}`,
    id: s.id,
    node_id: `SC_${s.id}`,
    state: s.state,
    description: s.description ?? null,
    target_url: s.target_url ?? null,
    context: s.context,
    created_at: WHEN,
    updated_at: WHEN,
    creator: restUser(s.creator),
  };
}

/** A head's combined status (`combined-commit-status`) of its latest statuses. */
export function restCombinedStatus(sha: string, statuses: Json[]): Json {
  const listed = without(template('status'), 'creator');
  return {
    ...template('combined-commit-status'),
    state: statuses.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : statuses.every((s) => s.state === 'success')
        ? 'success'
        : 'pending',
    sha,
    total_count: statuses.length,
    statuses: statuses.map((s) => ({ ...listed, ...without(s, 'creator') })),
    repository: minimalRepository(),
    commit_url: `${REPO_API}/commits/${sha}`,
    url: `${REPO_API}/commits/${sha}/status`,
  };
}

/** A repository as a combined status shows it (`minimal-repository`). */
function minimalRepository(): Json {
  return {
    ...template('combined-commit-status', 'repository'),
    id: REPO_ID,
    node_id: `R_${REPO_ID}`,
    owner: restUser(OWNER),
  };
}

/** A GitHub Actions workflow run (`workflow-run`) on `head_sha`. */
export function restWorkflowRun(r: {
  id: number;
  name: string;
  head_sha: string;
  run_attempt: number;
  event: string;
  status: string;
  conclusion: string | null;
  /** The branch it ran for (GitHub's `head_branch`; a fork PR's run names the fork's branch). */
  head_branch?: string | null;
  /**
   * The repository of its head: this one, unless a fork's PR ran it; null once that fork is
   * deleted (GitHub answers so, though its description does not say it: rest-api-description#1586).
   */
  head_repository?: string | null;
}): Json {
  const url = `${REPO_API}/actions/runs/${r.id}`;
  const headRepo = r.head_repository ?? `${OWNER}/${REPO}`;
  return {
    ...template('workflow-run'),
    id: r.id,
    name: r.name,
    node_id: `WFR_${r.id}`,
    check_suite_id: r.id,
    check_suite_node_id: `CS_${r.id}`,
    head_branch: r.head_branch ?? null,
    head_sha: r.head_sha,
    path: '.github/workflows/ci.yml',
    run_number: r.id,
    run_attempt: r.run_attempt,
    event: r.event,
    display_title: r.name,
    status: r.status,
    conclusion: r.conclusion,
    workflow_id: 1,
    url,
    html_url: `${REPO_WEB}/actions/runs/${r.id}`,
    pull_requests: [],
    created_at: WHEN,
    updated_at: WHEN,
    run_started_at: WHEN,
    actor: restUser(OWNER),
    triggering_actor: restUser(OWNER),
    referenced_workflows: [],
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${REPO_API}/check-suites/${r.id}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${REPO_API}/actions/workflows/1`,
    head_commit: null,
    repository: minimalRepository(),
    head_repository:
      r.head_repository === null
        ? null
        : headRepo === `${OWNER}/${REPO}`
          ? minimalRepository()
          : {
              ...minimalRepository(),
              id: REPO_ID + 1,
              node_id: `R_${REPO_ID + 1}`,
              full_name: headRepo,
              name: headRepo.split('/')[1]!,
              owner: restUser(headRepo.split('/')[0]!),
            },
  };
}

/** A job of a workflow run (`job`). */
export function restJob(j: {
  id: number;
  run_id: number;
  run_attempt: number;
  head_sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  /** The job's steps as GitHub lists them (triage reads where a job failed). */
  steps?: { name: string; status: string; conclusion: string | null; number: number }[];
}): Json {
  return {
    ...template('job'),
    id: j.id,
    run_id: j.run_id,
    run_attempt: j.run_attempt,
    run_url: `${REPO_API}/actions/runs/${j.run_id}`,
    node_id: `J_${j.id}`,
    head_sha: j.head_sha,
    url: `${REPO_API}/actions/jobs/${j.id}`,
    html_url: `${REPO_WEB}/actions/runs/${j.run_id}/job/${j.id}`,
    status: j.status,
    conclusion: j.conclusion,
    started_at: WHEN,
    completed_at: j.status === 'completed' ? WHEN : null,
    name: j.name,
    check_run_url: `${REPO_API}/check-runs/${j.id}`,
    labels: ['ubuntu-latest'],
    runner_id: null,
    runner_name: null,
    runner_group_id: null,
    runner_group_name: null,
    workflow_name: 'CI',
    head_branch: null,
    created_at: WHEN,
    steps: j.steps ?? [],
  };
}

/** A deployment environment (`environment`) with its branch policy. */
export function restEnvironment(
  name: string,
  policy: { protected_branches: boolean; custom_branch_policies: boolean } | null,
): Json {
  const path = encodeURIComponent(name);
  return {
    ...template('environment'),
    id: 1,
    node_id: 'EN_1',
    name,
    url: `${REPO_API}/environments/${path}`,
    html_url: `${REPO_WEB}/deployments/activity_log?environments_filter=${path}`,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    protection_rules: [],
    deployment_branch_policy: policy,
  };
}

/** A collaborator's permission (`repository-collaborator-permission`). */
export function restPermission(login: string, permission: string, role: string): Json {
  return {
    ...template('repository-collaborator-permission-response-if-user-has-admin-permissions'),
    permission,
    role_name: role,
    user: { ...restUser(login), role_name: role },
  };
}

/** A team membership (`team-membership`). */
export function restTeamMembership(team: string, login: string): Json {
  return {
    ...template('team-membership-response-if-user-is-a-team-maintainer'),
    url: `${API}/teams/${encodeURIComponent(team)}/memberships/${encodeURIComponent(login)}`,
    role: 'member',
    state: 'active',
  };
}

/** An installation access token (`installation-token`), for every repository. */
export function restInstallationToken(token: string): Json {
  const example = without(template('installation-token'), 'repositories');
  return {
    ...example,
    token,
    expires_at: '2099-01-01T00:00:00Z',
    permissions: { contents: 'write', issues: 'write', pull_requests: 'write', checks: 'write' },
    repository_selection: 'all',
  };
}

/** GitHub's error answer: `{ message, documentation_url }` (`basic-error`). */
export function restError(
  message: string,
  documentation_url = 'https://docs.github.com/rest',
): Json {
  return { message, documentation_url };
}
