import {
  incredibleReset,
  AGENT_EVENT_TYPE,
  encodeAgentPayload,
  agentCommitMessage,
  agentReply,
  agentTrailer,
  asText,
  evaluateGate,
  logTail,
  decideApply,
  type AgentPayload,
  type BaseEntry,
  type ChangeSet,
  type CiFailure,
  type Config,
  type ReviewToFix,
  type ValidChange,
  type AgentRunEntry,
  type RunFile,
  describeRun,
  handOffRefusal,
  handOffOfPayload,
  isBot,
  loopPullProblem,
  mayCommand,
  type LoopIdentity,
  readMarker,
} from '../core/index.js';
import {
  defaultPlanGlobs,
  mayBePlanDocument,
  type GuardedPlanFile,
} from '../core/plan/kinds/discovery.js';
import { createCheckRun, keepsStatus, readHeadChecks, recordOn, writeRecord } from './checks.js';
import { errorMessage, isHttpError, type GitHub, type Repo } from './client.js';
import {
  advanceBranch,
  createBlob,
  createCommit,
  GitReader,
  readCommit,
  readWholeTree,
  TreeTooLargeError,
  type NewFile,
  type TreeEntry,
} from './git.js';
import { replyOnIssue } from './issues.js';
import { readPermission, tokenIdentity } from './identity.js';
import { guardedPlans } from './openPlan.js';
import { PER_PAGE, readWhole } from './pages.js';
import { getPull, pullReviews } from './pulls.js';

/**
 * The hand-off: one `repository_dispatch` (`coder-loop-agent`) whose `client_payload` is built by
 * `buildAgentPayload`. GitHub answers 204 and starts the workflows that listen for it.
 */
export async function sendAgentDispatch(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
): Promise<void> {
  await gh.request('POST /repos/{owner}/{repo}/dispatches', {
    ...repo,
    event_type: AGENT_EVENT_TYPE,
    client_payload: encodeAgentPayload(payload),
  });
}

/** The hand-off a payload is, as the record asks for it (on the head it names), with its id. */
export const handOffOf = handOffOfPayload;

/**
 * Whether the loop asked for this hand-off: a `repository_dispatch` anyone with `contents: write`
 * can send, so its payload alone proves nothing. The dispatch must come from the loop PR's author
 * (the loop's own identity: GitHub sets the sender), and the loop's record on the payload's head
 * must name this very hand-off (node, attempt, head, and its id when the record has one), which
 * the loop writes there before it sends it. The record is read from the loop's check run of that
 * head — the app of `identity` when the step knows it, else the app whose bot opened the PR — or,
 * for a loop acting as a person (no check runs), from the PR body's marker. Returns why not, or
 * undefined when it was asked.
 */
export async function handOffNotAsked(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  sender: { login?: string } | null | undefined,
  identity?: LoopIdentity,
): Promise<string | undefined> {
  let data;
  try {
    data = await getPull(gh, repo, payload.pullRequest);
  } catch (error) {
    if (isHttpError(error, 404)) return `pull request #${payload.pullRequest} does not exist`;
    throw error;
  }
  const author = data.user?.login;
  if (!author) return `pull request #${data.number} names no author`;
  const loop = identity ?? {
    login: author,
    ...(isBot(data.user) ? { app: { slug: author.replace(/\[bot\]$/, '') } } : {}),
  };
  if (!sender?.login || sender.login.toLowerCase() !== loop.login.toLowerCase())
    return `the dispatch was sent by ${sender?.login ? `@${sender.login}` : 'nobody GitHub names'}, not by the loop (${loop.login})`;
  const record =
    loop.app === undefined
      ? readMarker(data.body)
      : (await recordOn(gh, repo, payload.headSha, loop))?.record;
  return handOffRefusal(record, handOffOf(payload));
}

export interface AgentPull {
  number: number;
  headSha: string;
  /** The base branch's head the PR is compared with. */
  baseSha?: string;
  body: string;
}

/**
 * The pull request of a hand-off, if it is a loop PR the agent steps may act on: open, its head
 * the payload's `coder/` branch of this same repository (a fork's PR never is).
 */
export async function agentPullRequest(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  identity?: LoopIdentity,
): Promise<{ pull: AgentPull } | { reason: string }> {
  let data;
  try {
    data = await getPull(gh, repo, payload.pullRequest);
  } catch (error) {
    if (isHttpError(error, 404))
      return { reason: `pull request #${payload.pullRequest} does not exist` };
    throw error;
  }
  const full = `${repo.owner}/${repo.repo}`.toLowerCase();
  if (data.state !== 'open') return { reason: `pull request #${data.number} is ${data.state}` };
  if (data.head.repo?.full_name?.toLowerCase() !== full)
    return { reason: `pull request #${data.number} comes from another repository` };
  if (data.head.ref !== payload.branch || !data.head.ref.startsWith('coder/'))
    return {
      reason: `pull request #${data.number}'s head is ${data.head.ref}, not the loop branch ${payload.branch}`,
    };
  // The loop's own PR only (SPEC §6): with the writing token's identity, its author must be the loop.
  const problem = identity && loopPullProblem(data, identity);
  if (problem) return { reason: `pull request #${data.number} is not the loop's: ${problem}` };
  return {
    pull: {
      number: data.number,
      headSha: data.head.sha,
      ...(data.base.sha ? { baseSha: data.base.sha } : {}),
      body: data.body ?? '',
    },
  };
}

/** An Actions job's id from its check run's page (`…/actions/runs/1/job/7`): its log's key. */
function jobIdOf(url: string | undefined): number | undefined {
  const m = url && /\/actions\/runs\/\d+\/jobs?\/(\d+)(?:[/?#]|$)/.exec(url);
  return m ? Number(m[1]) : undefined;
}

/** At most this many failing checks get their log read. */
const LOGS_READ = 5;

/**
 * The failing checks of a head, as the gate sees them, each with the redacted tail of its log
 * where it is a GitHub Actions job and the job may read Actions logs (`actions: read`); without
 * that permission the check is listed with its link and the reason there is no log. Only the
 * loop PR's own CI: a run a fork's PR at the same commit started (its log anyone's text) never
 * reaches the agent, as it never reaches the gate.
 */
export async function readCiFailures(
  gh: GitHub,
  repo: Repo,
  sha: string,
  config: Pick<Config, 'requiredChecks'>,
  secrets: readonly string[],
  /** Unknown in a read-only agent job without `app-slug`: the loop's run is known by its record. */
  identity: LoopIdentity | undefined,
  /** The loop PR's head branch (the hand-off's, checked as the PR's own: `agentPullRequest`). */
  branch: string,
): Promise<CiFailure[]> {
  const { results } = await readHeadChecks(gh, repo, sha, identity, { branch });
  const gate = evaluateGate(results, config);
  if (gate.verdict !== 'failed') return [];
  const failures: CiFailure[] = [];
  for (const [i, check] of gate.failing.entries()) {
    const failure: CiFailure = {
      name: check.name,
      conclusion: check.conclusion ?? 'failure',
      ...(check.url ? { url: check.url } : {}),
    };
    const job = jobIdOf(check.url);
    if (job === undefined) failure.logMissing = 'not a GitHub Actions job; open the link';
    else if (i >= LOGS_READ) failure.logMissing = `only the first ${LOGS_READ} logs are read`;
    else Object.assign(failure, await jobLogTail(gh, repo, job, secrets));
    failures.push(failure);
  }
  return failures;
}

async function jobLogTail(
  gh: GitHub,
  repo: Repo,
  job: number,
  secrets: readonly string[],
): Promise<Pick<CiFailure, 'logTail' | 'logMissing'>> {
  try {
    // GitHub answers with a redirect to the log; the request follows it.
    const { data } = await gh.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      ...repo,
      job_id: job,
    });
    const text =
      typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');
    return { logTail: logTail(text, secrets) };
  } catch (error) {
    if (isHttpError(error, 403))
      return { logMissing: 'this job may not read Actions logs (give it `actions: read`)' };
    if (isHttpError(error, 404) || isHttpError(error, 410))
      return { logMissing: 'the log is gone (expired or deleted)' };
    return { logMissing: `the log could not be read: ${errorMessage(error)}` };
  }
}

/**
 * The review a review-fix answers: the newest "changes requested" review of the PR by a reviewer
 * who counts (a human with write permission: the hand-off was for such a review, and an
 * outsider's text never reaches the agent as the review to fix), preferring one on the head, and
 * its line comments with path and line.
 */
export async function readReviewToFix(
  gh: GitHub,
  repo: Repo,
  pr: number,
  headSha: string,
): Promise<ReviewToFix | undefined> {
  const asked = (await pullReviews(gh, repo, pr)).filter(
    (r) => r.state === 'CHANGES_REQUESTED' && r.user && !isBot(r.user),
  );
  // Newest first, those on the head before the others.
  const order = [
    ...asked.filter((r) => r.commit_id === headSha).reverse(),
    ...asked.filter((r) => r.commit_id !== headSha).reverse(),
  ];
  let review: (typeof asked)[number] | undefined;
  for (const candidate of order)
    if (mayCommand(await readPermission(gh, repo, candidate.user!.login))) {
      review = candidate;
      break;
    }
  if (!review) return undefined;
  // Every line comment of the review, page after page: the agent fixes what the review asks,
  // not its first hundred remarks.
  const { items: comments } = await readWhole(async (page) => {
    const { data } = await gh.request(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
      { ...repo, pull_number: pr, review_id: Number(review.id), per_page: PER_PAGE, page },
    );
    return data;
  });
  return {
    reviewer: review.user?.login ?? 'a reviewer',
    body: review.body ?? '',
    ...(review.html_url ? { url: review.html_url } : {}),
    comments: comments.map((c) => {
      const line = c.line ?? c.original_line;
      return {
        path: c.path,
        ...(typeof line === 'number' ? { line } : {}),
        body: c.body,
        ...(c.html_url ? { url: c.html_url } : {}),
      };
    }),
  };
}

/**
 * A quick task's assignment: the issue's title and text as they stood when a permitted user
 * labelled it or commanded on it — kept in the loop's record on the head (record.ts), so that a
 * later edit by anyone never reaches the agent (SPEC §6). A record without that text (a PR
 * started before it was kept) hands over the issue's number only.
 */
export async function readIssueText(
  gh: GitHub,
  repo: Repo,
  issue: number,
  headSha: string,
  identity: LoopIdentity | undefined,
): Promise<{ number: number; title: string; body: string }> {
  const vetted = (await recordOn(gh, repo, headSha, identity))?.record?.vetted;
  if (vetted) return { number: issue, ...vetted };
  return {
    number: issue,
    title: `Issue #${issue}`,
    body: `The issue's text was not recorded when this work started; read issue #${issue} on GitHub.`,
  };
}

/**
 * Revise Code's list: the tasks that lacked evidence on the head, as the loop's record of that
 * head keeps them (Passes Spec?). Empty when the record holds no verdict about it.
 */
export async function readSpecMissing(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  identity: LoopIdentity | undefined,
): Promise<string[]> {
  const spec = (await recordOn(gh, repo, headSha, identity))?.record?.spec;
  return spec && spec.sha === headSha ? spec.missing : [];
}

export type AgentCommitResult =
  | { state: 'committed'; commit: string }
  /** This hand-off's commit is on the branch already (a redelivered dispatch, a re-run job). */
  | { state: 'already-applied'; commit: string }
  /** The branch is no longer at `headSha` (someone pushed, or it was deleted): nothing written. */
  | { state: 'moved'; head?: string };

/** Whether `head` is the commit this hand-off made: parent `headSha`, our trailer. */
async function isOurCommit(
  gh: GitHub,
  repo: Repo,
  head: string,
  payload: AgentPayload,
): Promise<boolean> {
  const commit = await readCommit(gh, repo, head);
  return (
    commit.parents.length === 1 &&
    commit.parents[0] === payload.headSha &&
    commit.message.split('\n').includes(agentTrailer(payload))
  );
}

async function whenNotAtHead(
  gh: GitHub,
  repo: Repo,
  head: string | undefined,
  payload: AgentPayload,
): Promise<AgentCommitResult> {
  if (head && (await isOurCommit(gh, repo, head, payload)))
    return { state: 'already-applied', commit: head };
  return head ? { state: 'moved', head } : { state: 'moved' };
}

/**
 * Apply: ONE commit whose parent is `headSha` (blobs for binary content, one tree on the base
 * tree, one commit), then a compare-and-swap ref update (`force: false`). A branch that is not at
 * `headSha` is never written; one that already holds this hand-off's commit is left as it is.
 */
async function commitAgentChanges(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  changes: readonly ValidChange[],
  message: string,
): Promise<AgentCommitResult> {
  const reader = new GitReader(gh, repo);
  const head = await reader.branchHead(payload.branch);
  if (head !== payload.headSha) return whenNotAtHead(gh, repo, head, payload);
  const parent = await readCommit(gh, repo, payload.headSha);
  const files: NewFile[] = [];
  for (const change of changes) {
    if ('deleted' in change) {
      files.push({ path: change.path, sha: null });
      continue;
    }
    const text = asText(change.bytes);
    files.push(
      text === undefined
        ? { path: change.path, sha: await createBlob(gh, repo, change.bytes), mode: change.mode }
        : { path: change.path, content: text, mode: change.mode },
    );
  }
  const commit = await createCommit(
    gh,
    repo,
    { sha: payload.headSha, tree: parent.tree },
    files,
    message,
  );
  if (await advanceBranch(gh, repo, payload.branch, commit)) return { state: 'committed', commit };
  // Not a fast-forward (someone pushed) or no such branch; or our own update, answered late.
  const now = await reader.branchHead(payload.branch);
  if (now === commit) return { state: 'committed', commit };
  return whenNotAtHead(gh, repo, now, payload);
}

export type AgentApplyState =
  | 'committed'
  | 'already-applied'
  | 'moved'
  | 'no-change'
  | 'agent-failed'
  | 'refused'
  | 'stale'
  | 'paused';

export interface AgentApplyOutcome {
  state: AgentApplyState;
  /** The agent's commit (committed, already-applied). */
  commit?: string;
  /** The commit is partial work of a timed-out agent: a failed attempt on that commit. */
  partial?: true;
  /** No change, a failed or timed-out agent, refused changes: a failed attempt for the gate. */
  failedAttempt: boolean;
  reason?: string;
  /** The agent stopped at its provider's limit: no attempt; the loop resumes at `until`. */
  pause?: { reason: string; until?: string };
}

/** Symbolic links of the head read for the chain check, at most. */
const MAX_BASE_LINKS = 300;

/**
 * The head's tree as the apply decision needs it: every file with its mode, and the target of
 * every symbolic link. Undefined (with the reason) when GitHub cannot list it whole.
 */
async function readBaseEntries(gh: GitHub, repo: Repo, sha: string): Promise<BaseEntry[] | string> {
  let tree: TreeEntry[];
  try {
    tree = (await readWholeTree(gh, repo, sha)).entries;
  } catch (error) {
    if (error instanceof TreeTooLargeError)
      return 'the head tree is too large for GitHub to list whole';
    throw error;
  }
  const entries: BaseEntry[] = [];
  const links = tree.filter((e) => e.type === 'blob' && e.mode === '120000');
  if (links.length > MAX_BASE_LINKS)
    return `the head holds ${links.length} symbolic links; at most ${MAX_BASE_LINKS} are checked`;
  const reader = new GitReader(gh, repo);
  for (const entry of tree) {
    if (entry.type !== 'blob') continue;
    entries.push({
      path: entry.path,
      mode: entry.mode,
      ...(entry.mode === '120000' ? { target: await reader.blob(entry.sha) } : {}),
    });
  }
  return entries;
}

/**
 * The plans of the trusted trees — the head the agent was handed and the PR's base, never the
 * change set — with what each reads beyond its documents root there (a story file its tool's
 * config places), as the PR side reads them: only when a changed path may be a plan's document.
 */
async function trustedPlans(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  run: ChangeSet,
  plansDir: string,
  options: { plans?: readonly string[]; baseSha?: string },
): Promise<GuardedPlanFile[]> {
  const dir = plansDir.replace(/^\.\/+/, '').replace(/\/+$/, '');
  const globs = options.plans ?? defaultPlanGlobs(dir);
  const touched = run.changes.map((c) => c.path);
  if (!touched.some((p) => mayBePlanDocument(p, globs))) return [];
  const reader = new GitReader(gh, repo);
  const shas = [...new Set([payload.headSha, options.baseSha].filter((s): s is string => !!s))];
  const trees = await Promise.all(shas.map((sha) => reader.tree(sha)));
  return guardedPlans(reader, trees, globs, touched);
}

/**
 * `step: apply` after the trust checks: the agent's run as `step: agent` recorded it, turned into
 * at most one commit on the branch and one comment on the PR. Refused changes write nothing
 * but the comment that lists them.
 */
export async function applyAgentRun(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  run: ChangeSet,
  summary: string,
  plansDir: string,
  options: {
    /** `agent.keepPartialWork` of the default branch's config. */
    keepPartialWork?: boolean;
    /** The config's `plans` globs (absent: each kind's default places). */
    plans?: readonly string[];
    /**
     * The PR's base (its base branch's head): what its plans read beyond their folders (a story
     * file its tool's config places) is refused as on the handed head.
     */
    baseSha?: string;
    /** What `step: agent` measured of the run (`run.json`), when it is known. */
    measured?: RunFile;
    /** Where the run is recorded: the loop's record on the head (none: not recorded). */
    record?: { identity: LoopIdentity; repoUrl: string };
    /** The time a pause's reset is bounded from (tests; default the clock). */
    now?: Date;
  } = {},
): Promise<AgentApplyOutcome> {
  const by = async () => (options.record?.identity ?? (await tokenIdentity(gh))).login;
  const say = (body: string) => replyOnIssue(gh, repo, payload.pullRequest, body, by);
  const measured = options.measured;
  const entry = (partial: boolean): AgentRunEntry | undefined =>
    measured && {
      node: payload.node,
      sha: payload.headSha,
      minutes: measured.minutes,
      ...(partial ? { partial: true as const } : {}),
      ...(measured.usage ? { usage: measured.usage } : {}),
    };
  const recorded = async (at: string, partial = false) => {
    const e = entry(partial);
    if (e && options.record) await recordAgentRun(gh, repo, payload, at, e, options.record);
  };
  if (run.headSha !== payload.headSha) {
    const reason = `the changes were made on ${run.headSha.slice(0, 7)}, not on the hand-off's head ${payload.headSha.slice(0, 7)}`;
    await say(agentReply.refused(payload, [reason]));
    return { state: 'refused', failedAttempt: true, reason };
  }
  const failed = async (): Promise<AgentApplyOutcome> => {
    const reason = run.reason ?? (run.outcome === 'failed' ? 'failed' : 'timed out');
    await recorded(payload.headSha);
    await say(agentReply.failed(payload, reason, summary, measured));
    return { state: 'agent-failed', failedAttempt: true, reason };
  };
  const claimed =
    run.outcome === 'paused' ? (run.pause ?? { reason: run.reason ?? 'paused' }) : undefined;
  // The pause is the agent job's word (its output, its changes.json): a reset no provider's limit
  // lasts to is a failure, with its attempt, not a wait the agent chose.
  const incredible = claimed && incredibleReset(claimed.until, options.now ?? new Date());
  if (claimed && incredible) {
    const reason = `stopped with what reads as its provider's limit (${claimed.reason.slice(0, 300)}), but ${incredible}`;
    await recorded(payload.headSha);
    await say(agentReply.failed(payload, reason, summary, measured));
    return { state: 'agent-failed', failedAttempt: true, reason };
  }
  const pause = claimed;
  /** Paused, no attempt: on `commit`, the partial work it kept, if any. */
  const paused = (limit: NonNullable<typeof pause>, commit?: string): AgentApplyOutcome => ({
    state: 'paused',
    ...(commit ? { commit, partial: true as const } : {}),
    failedAttempt: false,
    pause: limit,
    reason: limit.reason,
  });
  if (pause && (run.changes.length === 0 || !options.keepPartialWork)) {
    // Nothing to keep (nothing changed, or `keepPartialWork` off): the pause is recorded on the
    // handed head (the loop says it, once).
    await recorded(payload.headSha);
    return paused(pause);
  }
  switch (run.outcome) {
    case 'stale':
      return { state: 'stale', failedAttempt: false, reason: run.reason ?? 'the head moved' };
    case 'failed':
      return failed();
    case 'timed-out':
      // Partial work is kept only with the setting and when there is some (decideApply).
      if (!options.keepPartialWork || run.changes.length === 0) return failed();
      break;
    default:
      break;
  }
  if (run.outcome === 'no-change' || run.changes.length === 0) {
    await recorded(payload.headSha);
    await say(agentReply.noChange(payload, summary, measured));
    return { state: 'no-change', failedAttempt: true };
  }
  const base = await readBaseEntries(gh, repo, payload.headSha);
  const guarded =
    typeof base === 'string' ? [] : await trustedPlans(gh, repo, payload, run, plansDir, options);
  const checked =
    typeof base === 'string'
      ? { ok: false as const, problems: [`the changes cannot be checked: ${base}`] }
      : decideApply({
          changes: run.changes,
          plansDir,
          ...(options.plans ? { plans: options.plans } : {}),
          base,
          guarded,
          outcome: run.outcome,
          keepPartialWork: options.keepPartialWork ?? false,
        });
  if (!checked.ok) {
    if ('discarded' in checked) return failed();
    if (pause) {
      // Its work cannot be kept as it is: said, and still no attempt (the limit is not its fault).
      await recorded(payload.headSha);
      await say(agentReply.refused(payload, checked.problems));
      return paused(pause);
    }
    await recorded(payload.headSha);
    await say(agentReply.refused(payload, checked.problems));
    return { state: 'refused', failedAttempt: true, reason: checked.problems.join('; ') };
  }
  const partial = checked.partial === true;
  // On the handed head first: a PR side that judges the new commit before its own record is
  // written there goes on from this one, and a branch that moved still has the run recorded.
  await recorded(payload.headSha, partial);
  const result = await commitAgentChanges(
    gh,
    repo,
    payload,
    checked.changes,
    agentCommitMessage(payload, { partial, paused: !!pause }),
  );
  switch (result.state) {
    case 'committed':
      await recorded(result.commit, partial);
      if (pause) {
        await say(agentReply.paused(payload, result.commit, pause.reason, summary, measured));
        return paused(pause, result.commit);
      }
      if (partial) {
        const reason = run.reason ?? 'ran out of time';
        await say(agentReply.partial(payload, result.commit, reason, summary, measured));
        return {
          state: 'committed',
          commit: result.commit,
          partial: true,
          failedAttempt: true,
          reason: `partial work: the agent ${reason}`,
        };
      }
      await say(agentReply.committed(payload, result.commit, summary, measured));
      return { state: 'committed', commit: result.commit, failedAttempt: false };
    case 'already-applied':
      await recorded(result.commit, partial);
      if (pause) return paused(pause, result.commit);
      return { state: 'already-applied', commit: result.commit, failedAttempt: false };
    case 'moved':
      await say(agentReply.moved(payload, result.head));
      return {
        state: 'moved',
        failedAttempt: false,
        reason: result.head ? `the branch moved to ${result.head}` : 'the branch is gone',
      };
  }
}

/**
 * The agent's run in the loop's record (`agentRuns`), on the head it left: `at` is the commit it
 * made, or the head it was handed when it made none. On a new commit the loop's check run is
 * created there, holding the record of the head it came from plus this run (so the PR side,
 * judging that commit, goes on from it); on the handed head, only its record is updated. A run
 * already recorded (a re-run job) is not added twice. A loop that acts as a person keeps no check
 * runs: nothing is recorded then.
 */
async function recordAgentRun(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  at: string,
  entry: AgentRunEntry,
  where: { identity: LoopIdentity; repoUrl: string },
): Promise<void> {
  if (keepsStatus(where.identity)) return;
  const from = await recordOn(gh, repo, payload.headSha, where.identity);
  if (!from?.record) return;
  const add = (runs: readonly AgentRunEntry[] | undefined) =>
    (runs ?? []).some((r) => JSON.stringify(r) === JSON.stringify(entry))
      ? [...(runs ?? [])]
      : [...(runs ?? []), entry];
  if (at === payload.headSha) {
    const runs = add(from.record.agentRuns);
    if (runs.length !== (from.record.agentRuns ?? []).length)
      await writeRecord(gh, repo, from, { ...from.record, agentRuns: runs }, payload.headSha);
    return;
  }
  const there = await recordOn(gh, repo, at, where.identity);
  if (there?.record) {
    const runs = add(there.record.agentRuns);
    if (runs.length !== (there.record.agentRuns ?? []).length)
      await writeRecord(gh, repo, there, { ...there.record, agentRuns: runs }, at);
    return;
  }
  await createCheckRun(
    gh,
    repo,
    at,
    {
      mode: from.record.mode,
      node: 'Verification',
      title: 'Verification: waiting for CI',
      next: `The coding agent's commit${entry.partial ? ' (partial work)' : ''} is judged by CI next. Agent run: ${describeRun(entry)}.`,
    },
    { ...from.record, agentRuns: add(from.record.agentRuns) },
    where.repoUrl,
    payload.branch,
  );
}
