import { escalationStood, splitLogins, type Actor, type PullFile } from '../core/index.js';
import { isHttpError, type GitHub, type Repo } from './client.js';
import { readWholeTree, type TreeEntry } from './git.js';
import { PER_PAGE, readWhole, type Whole } from './pages.js';

export interface PullRequest {
  number: number;
  html_url: string;
  body: string | null;
  head: { ref: string; sha: string; repo?: { full_name?: string; id?: number | bigint } | null };
  base: { ref?: string; sha?: string; repo?: { full_name?: string; id?: number | bigint } | null };
  /** Who opened it: a loop PR is opened by the loop's own identity. */
  user?: Actor | null;
  state: string;
  labels?: { name?: string }[];
}

const ESCALATED_LABEL = 'coder:escalated';

/** Removes the escalation label from a PR and its issue; one already gone is no error. */
export async function clearEscalated(
  gh: GitHub,
  repo: Repo,
  numbers: readonly number[],
): Promise<void> {
  for (const n of new Set(numbers)) {
    try {
      await gh.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
        ...repo,
        issue_number: n,
        name: ESCALATED_LABEL,
      });
    } catch (error) {
      if (!isHttpError(error, 404)) throw error;
      // Removed already, by someone else: the loop's own removal is what ends the escalation in
      // the PR's history (`escalationStands`), so it shows it again and takes it off itself.
      await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        ...repo,
        issue_number: n,
        labels: [ESCALATED_LABEL],
      });
      await gh.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
        ...repo,
        issue_number: n,
        name: ESCALATED_LABEL,
      });
    }
  }
}

/**
 * Whether the loop's escalation of a PR stands, by GitHub's record of the PR's label events: the
 * loop's own (`loop`: its login) last adding or removing of `coder:escalated`. A person who takes
 * the label off, or a push that brings back a head whose record predates the escalation, leaves
 * it standing: the loop removes the label only when the escalation ends (`/coder resume`, an
 * architect's approval). With a shared identity (`shared`) the loop's removal proves nothing
 * either (`escalationStood`). Every page is read.
 */
export async function escalationStands(
  gh: GitHub,
  repo: Repo,
  pr: number,
  loop: string,
  shared = false,
): Promise<boolean> {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}/events', {
      ...repo,
      issue_number: pr,
      per_page: PER_PAGE,
      page,
    });
    return data;
  });
  return escalationStood(
    items.map((e) => ({
      event: e.event,
      ...('label' in e && (e.label as { name?: string } | undefined)?.name
        ? { label: (e.label as { name: string }).name }
        : {}),
      ...(e.actor ? { actor: e.actor.login } : {}),
    })),
    loop,
    shared,
  );
}

/** GitHub lists at most 3,000 files of a pull request. */
const PULL_FILES_CAP = 3_000;

/**
 * The files a PR changes, every page. A renamed file keeps its old path too: a rename touches
 * both (a locked file moved out of a locked folder is still a locked file touched). At GitHub's
 * cap of 3,000 the list is incomplete and the caller fails closed.
 */
export async function pullRequestFiles(
  gh: GitHub,
  repo: Repo,
  pr: number,
): Promise<Whole<PullFile>> {
  return readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
      ...repo,
      pull_number: pr,
      per_page: PER_PAGE,
      page,
    });
    return data.map(pullFile);
  }, PULL_FILES_CAP);
}

/** A file as GitHub's lists of changed files show one (`diff-entry`). */
interface DiffEntry {
  filename: string;
  previous_filename?: string;
  additions: number;
  deletions: number;
  patch?: string;
  status: string;
  sha: string | null;
}

function pullFile(f: DiffEntry): PullFile {
  return {
    path: f.filename,
    ...(f.previous_filename ? { previous: f.previous_filename } : {}),
    additions: f.additions,
    deletions: f.deletions,
    ...(f.patch !== undefined ? { patch: f.patch } : {}),
    ...(f.status === 'removed' ? { deleted: true as const } : {}),
    ...(f.sha ? { sha: f.sha } : {}),
  };
}

/** GitHub's comparison of two commits lists at most 300 changed files. */
const COMPARE_FILES_CAP = 300;

/**
 * The files a PR changes, as of two commits the caller names: what `head` changes against the
 * merge base of `base` and `head` (GitHub's three-dot comparison, as the PR's own files list is).
 * The PR's files list answers for whatever its head is when GitHub is asked, so a branch moved
 * back and forth around that read could hide a change from it; this list is of `head`, however
 * the branch moves.
 *
 * GitHub's comparison lists at most 300 files. At that many, the paths come from the merge base's
 * tree and `head`'s (each read whole, by sha), and each file's details (its lines, its patch,
 * a rename's old path) from the PR's files list (every page, up to 3,000), taken only for an entry
 * whose blob is the one `head` holds there: an entry of another head is not taken, and a changed
 * path no entry describes is still listed (no patch, no line counts). A head that shares no
 * history with `base` changes every file the two trees hold differently.
 */
export async function pinnedFiles(
  gh: GitHub,
  repo: Repo,
  pr: number,
  base: string,
  head: string,
): Promise<Whole<PullFile>> {
  let data;
  try {
    ({ data } = await gh.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
      ...repo,
      basehead: `${base}...${head}`,
      // The files are listed on the first page whatever its size; the commits are not needed.
      per_page: 1,
    }));
  } catch (error) {
    // "No common ancestor between …": the head shares no history with the base (a branch
    // force-pushed to another history). Merged, it would bring every file the two trees hold
    // differently (git's three dots are then two): those, with no details.
    if (!isHttpError(error, 404)) throw error;
    return { items: await treeChanges(gh, repo, base, head, []), complete: true };
  }
  const compared = data.files ?? [];
  if (compared.length < COMPARE_FILES_CAP) return { items: compared.map(pullFile), complete: true };
  const listed = await pullRequestFiles(gh, repo, pr);
  if (!listed.complete) return listed;
  const items = await treeChanges(gh, repo, data.merge_base_commit.sha, head, listed.items);
  return { items, complete: true };
}

/**
 * Every file whose entry differs between the trees of commits `from` and `to` (each read whole,
 * by sha), each with the details of an entry of `listed` whose blob is the one `to` holds there
 * (a rename's old path is then its `previous`, not a file of its own); the others with none.
 */
async function treeChanges(
  gh: GitHub,
  repo: Repo,
  from: string,
  to: string,
  listed: readonly PullFile[],
): Promise<PullFile[]> {
  const before = files((await readWholeTree(gh, repo, from)).entries);
  const after = files((await readWholeTree(gh, repo, to)).entries);
  const changed = new Set<string>();
  for (const [path, entry] of before) if (after.get(path)?.key !== entry.key) changed.add(path);
  for (const path of after.keys()) if (!before.has(path)) changed.add(path);
  const items: PullFile[] = [];
  for (const file of listed) {
    const held = file.deleted ? !after.has(file.path) : after.get(file.path)?.sha === file.sha;
    if (!held || !changed.has(file.path)) continue;
    items.push(file);
    changed.delete(file.path);
    if (file.previous) changed.delete(file.previous);
  }
  for (const path of changed)
    items.push({ path, additions: 0, deletions: 0, ...(after.has(path) ? {} : { deleted: true }) });
  return items;
}

/** A tree's files (blobs, links, submodules) by path: the object's sha, and its mode with it. */
function files(entries: readonly TreeEntry[]): Map<string, { sha: string; key: string }> {
  return new Map(
    entries
      .filter((e) => e.type !== 'tree')
      .map((e) => [e.path, { sha: e.sha, key: `${e.mode} ${e.sha}` }]),
  );
}

/**
 * The loop's open pull request whose head is `branch` in this repository, if any. GitHub allows
 * one open PR per head and base, so a writer can open a second one from a lock branch to another
 * base: every open PR from the branch is read (every page), and only one `opener` (the loop's
 * identity) opened is returned — never another's, whichever GitHub lists first.
 */
export async function findPullRequest(
  gh: GitHub,
  repo: Repo,
  branch: string,
  opener: string,
): Promise<PullRequest | undefined> {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls', {
      ...repo,
      head: `${repo.owner}:${branch}`,
      state: 'open',
      per_page: PER_PAGE,
      page,
    });
    return data;
  });
  // Any writer may open another PR from the lock branch (into another base), and GitHub lists
  // the newest first: only one the loop's identity opened from this repository is the loop's,
  // and of those (a shared identity: the default GITHUB_TOKEN) the first opened.
  const here = `${repo.owner}/${repo.repo}`.toLowerCase();
  return items
    .filter(
      (pr) =>
        pr.user?.login.toLowerCase() === opener.toLowerCase() &&
        pr.head.ref === branch &&
        pr.head.repo?.full_name?.toLowerCase() === here,
    )
    .reduce<PullRequest | undefined>((a, pr) => (!a || pr.number < a.number ? pr : a), undefined);
}

/** How often `openPullRequest` tries again after a server error (as Octokit's retry plugin). */
const OPEN_RETRIES = 3;

/**
 * Opens the pull request, safe to retry, and says whether this call opened it. GitHub's "already
 * exists" (422) to a first attempt means someone else did (`created: false`: a twin delivery of
 * the same command); after an attempt that failed with a server error or no answer, the PR found
 * is taken as this call's own (the create may have taken effect before the answer was lost), so
 * the retries are made here, not by the retry plugin, which would hide the first failure.
 */
export async function openPullRequest(
  gh: GitHub,
  repo: Repo,
  pr: { head: string; base: string; title: string; body: string },
  /** The loop's login: a PR someone else opened from the branch is never taken for its own. */
  opener: string,
): Promise<PullRequest & { created: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const { data } = await gh.request('POST /repos/{owner}/{repo}/pulls', {
        ...repo,
        ...pr,
        request: { retries: 0 },
      });
      return { ...data, created: true };
    } catch (error) {
      if (isHttpError(error, 422)) {
        const existing = await findPullRequest(gh, repo, pr.head, opener);
        if (!existing) throw error;
        return { ...existing, created: attempt > 0 };
      }
      const status = isHttpError(error) ? error.status : undefined;
      const transient = status === undefined || status >= 500;
      if (!transient || attempt >= OPEN_RETRIES) throw error;
    }
  }
}

/** Requests review from logins and `org/team` names; nothing when the list is empty. */
export async function requestReviews(
  gh: GitHub,
  repo: Repo,
  pr: number,
  names: readonly string[],
): Promise<void> {
  const { users, teams } = splitLogins(names);
  if (users.length === 0 && teams.length === 0) return;
  await gh.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', {
    ...repo,
    pull_number: pr,
    reviewers: users,
    team_reviewers: teams.map((t) => t.slug),
  });
}

/**
 * Rewrites a PR's body (what people read; the loop keeps nothing there it reads back), unless it
 * is `current` already, the body as the caller read it: a write that changes nothing is not sent.
 */
export async function setPullBody(
  gh: GitHub,
  repo: Repo,
  pr: number,
  body: string,
  current: string | null,
): Promise<void> {
  if (body === current) return;
  await gh.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: pr,
    body,
  });
}

/** Closes a PR (`/coder release`). */
export async function closePull(gh: GitHub, repo: Repo, pr: number): Promise<void> {
  await gh.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: pr,
    state: 'closed',
  });
}

/** One PR by number. */
export async function getPull(gh: GitHub, repo: Repo, pr: number): Promise<PullRequest> {
  const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: pr,
  });
  return data;
}

/** The repository's open PRs, every page. */
export async function openPulls(gh: GitHub, repo: Repo): Promise<PullRequest[]> {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls', {
      ...repo,
      state: 'open',
      per_page: PER_PAGE,
      page,
    });
    return data;
  });
  return items;
}

/**
 * Merges a PR at `sha`. A refusal GitHub explains — 405 (not mergeable: a required review is
 * missing) or 409 (the head moved) — is an answer, not an error: false, with GitHub's message.
 */
export async function mergePull(
  gh: GitHub,
  repo: Repo,
  pr: number,
  sha: string,
): Promise<{ merged: boolean; message?: string }> {
  try {
    await gh.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
      ...repo,
      pull_number: pr,
      sha,
      merge_method: 'merge',
    });
    return { merged: true };
  } catch (error) {
    if (!isHttpError(error, 405) && !isHttpError(error, 409)) throw error;
    return { merged: false, message: String((error as { message?: unknown }).message) };
  }
}

/** The escalation label on a PR and its issue; the label is created in the repository if missing. */
export async function labelEscalated(
  gh: GitHub,
  repo: Repo,
  numbers: readonly number[],
): Promise<void> {
  try {
    await gh.request('POST /repos/{owner}/{repo}/labels', {
      ...repo,
      name: ESCALATED_LABEL,
      color: 'b60205',
      description: 'coder-loop: waiting for an architect',
    });
  } catch (error) {
    if (!isHttpError(error, 422)) throw error; // already exists
  }
  for (const issue of new Set(numbers)) {
    await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      ...repo,
      issue_number: issue,
      labels: [ESCALATED_LABEL],
    });
  }
}

/** A PR's reviews, every page, oldest first. */
export async function pullReviews(gh: GitHub, repo: Repo, pr: number) {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
      ...repo,
      pull_number: pr,
      per_page: PER_PAGE,
      page,
    });
    return data;
  });
  return items;
}
export type PullReviews = Awaited<ReturnType<typeof pullReviews>>;

/** GitHub lists at most 250 commits of a pull request. */
const PULL_COMMITS_CAP = 250;

async function pullCommitsPage(gh: GitHub, repo: Repo, pr: number, page: number) {
  const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', {
    ...repo,
    pull_number: pr,
    per_page: PER_PAGE,
    page,
  });
  return data;
}
export type PullCommits = Awaited<ReturnType<typeof pullCommitsPage>>;

/**
 * A PR's commits, every page, oldest first. At GitHub's cap of 250 the list is incomplete: who
 * pushed cannot be known from it, and the caller fails closed.
 */
export async function pullCommits(
  gh: GitHub,
  repo: Repo,
  pr: number,
): Promise<Whole<PullCommits[number]>> {
  return readWhole((page) => pullCommitsPage(gh, repo, pr, page), PULL_COMMITS_CAP);
}
