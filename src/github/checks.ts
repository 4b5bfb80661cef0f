import {
  CHECK_NAME,
  runNotForPull,
  suitesNotForPull,
  latestCheckRuns,
  latestStatuses,
  runsToTrace,
  type RunJob,
  decodeRecord,
  withRecord,
  progressLink,
  type LoopMarker,
  checkRunOutput,
  decodeCheckState,
  encodeCheckState,
  encodePath,
  isOwnCheckRun,
  outageSign,
  timeoutSign,
  type CheckResult,
  type CheckRunView,
  type LoopIdentity,
} from '../core/index.js';
import type { NodeId } from '../core/index.js';
import { errorMessage, isHttpError, madeOnce, type GitHub, type Repo } from './client.js';
import { PER_PAGE, readWhole } from './pages.js';
import { checkRunRefused, ownFromStatus, writeLoopStatus } from './status.js';

/** The loop's own check run on a head: its id, the flowchart node (external_id) and conclusion. */
export interface OwnCheckRun {
  id: number;
  node: NodeId | undefined;
  /** `external_id` as written: the node, then `;next=N` (see `decodeCheckState`). */
  externalId: string;
  /** The next phase, kept by the completion step for final verification. */
  next?: number;
  conclusion: string | null;
  /** The loop's record of the PR as of this head (record.ts); absent in a commit status. */
  record?: LoopMarker;
  /** What the run shows now, so that a record-only update keeps it. */
  output?: { title: string; summary: string; text: string };
  /** Kept in the `coder-loop` commit status: the token may not write check runs (status.ts). */
  commitStatus?: true;
  /** When GitHub created the run (`started_at`): since when the loop waits on this head. */
  startedAt?: string;
}

export interface HeadChecks {
  /** Every check run and commit status of the head but the loop's own: what the gate reads. */
  results: CheckResult[];
  own?: OwnCheckRun;
}

/**
 * Whether the loop keeps its state in a `coder-loop` commit status rather than a check run: only
 * when it acts as a person (a personal access token), since GitHub lets only apps write check
 * runs. Then a commit status called `coder-loop` is the loop's own (the combined status does not
 * name its creator); for an App, it is CI like any other.
 */
export function keepsStatus(identity: LoopIdentity): boolean {
  return identity.app === undefined;
}

type CheckRunItem = {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  html_url: string | null;
  started_at?: string | null;
  app: { id?: number; slug?: string } | null;
  /** Its check suite: a GitHub Actions job's is its workflow run's (`check_suite_id`). */
  check_suite?: { id: number } | null;
  output: {
    title: string | null;
    summary: string | null;
    text: string | null;
    annotations_count?: number;
  };
};

/** Every check run of a commit (every page), optionally only those of one name. */
async function commitCheckRuns(
  gh: GitHub,
  repo: Repo,
  sha: string,
  name?: string,
): Promise<CheckRunItem[]> {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...repo,
      ref: sha,
      ...(name ? { check_name: name } : {}),
      filter: 'all',
      per_page: PER_PAGE,
      page,
    });
    return data.check_runs as CheckRunItem[];
  });
  return items;
}

/**
 * The loop's own check runs among a commit's: named `coder-loop`, created by the loop's app, and
 * holding a well-formed record about that very commit. A CI job called `coder-loop` — even one
 * GitHub Actions created with the same token as the loop's — holds no such record: it is CI.
 */
function ownRuns(runs: readonly CheckRunItem[], sha: string, identity: LoopIdentity | undefined) {
  return (
    runs
      // Not knowing its identity (a read-only agent job), the loop knows its run by the record alone.
      .filter((r) => (identity ? isOwnCheckRun(r, identity) : r.name === CHECK_NAME))
      .map((r) => ({ run: r, record: decodeRecord(r.output?.text, sha) }))
      .filter((r): r is { run: CheckRunItem; record: LoopMarker } => r.record !== undefined)
      .sort((a, b) => Number(a.run.id) - Number(b.run.id))
  );
}

function ownOf(run: CheckRunItem, record: LoopMarker): OwnCheckRun {
  return {
    id: Number(run.id),
    ...decodeCheckState(run.external_id),
    externalId: run.external_id ?? '',
    conclusion: run.conclusion,
    record,
    ...(run.started_at ? { startedAt: run.started_at } : {}),
    output: {
      title: run.output?.title ?? '',
      summary: run.output?.summary ?? '',
      text: run.output?.text ?? '',
    },
  };
}

/** The newest record the loop wrote on a commit, if any (one filtered read). */
/**
 * Triage's re-run (the `rerun` effect): the failed jobs of a workflow run (and the jobs that
 * depend on them) run again, or the whole run when it started none. When GitHub refuses (the
 * token lacks `actions: write`, the run is over a month old, it is running already, it cannot be
 * retried): GitHub's message.
 */
export async function rerunWorkflow(
  gh: GitHub,
  repo: Repo,
  run: number,
  whole: boolean,
): Promise<{ refused: string } | undefined> {
  try {
    if (whole)
      await gh.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun', {
        ...repo,
        run_id: run,
      });
    else
      await gh.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
        ...repo,
        run_id: run,
      });
    return undefined;
  } catch (error) {
    if ([403, 404, 409, 422].some((status) => isHttpError(error, status)))
      return { refused: errorMessage(error) };
    throw error;
  }
}

export async function recordOn(
  gh: GitHub,
  repo: Repo,
  sha: string,
  identity: LoopIdentity | undefined,
): Promise<OwnCheckRun | undefined> {
  const mine = ownRuns(await commitCheckRuns(gh, repo, sha, CHECK_NAME), sha, identity).pop();
  return mine ? ownOf(mine.run, mine.record) : undefined;
}

/** GitHub's own steps of a job: none of them is the project's. */
const RUNNER_STEPS = new Set(['Set up job', 'Initialize containers', 'Complete job']);

/** What the head's GitHub Actions runs tell: each traced job, and the runs that started none. */
interface ActionsRead {
  /** Each check run named (`runsToTrace`, and every one that did not pass): its job, or null. */
  jobs: Map<number, (RunJob & { projectRan: boolean }) | null>;
  /** Workflow runs that never started a job (`startup_failure`), as the gate counts them. */
  unstarted: CheckResult[];
}

/**
 * The head's workflow runs (every page), and — for the check runs named — their jobs: the
 * workflow run and attempt of each (null when it is no job of any workflow run of the head:
 * created through the API), and whether any of the project's steps ran (triage.ts). A run that
 * never started (`startup_failure`) shows no check run at all: it is returned to count as one.
 */
/** The head's workflow runs, every page. */
async function headWorkflowRuns(gh: GitHub, repo: Repo, sha: string) {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/actions/runs', {
      ...repo,
      head_sha: sha,
      per_page: PER_PAGE,
      page,
    });
    return data.workflow_runs;
  });
  return items;
}

async function readActions(
  gh: GitHub,
  repo: Repo,
  sha: string,
  ids: readonly number[],
  /** The head's workflow runs that are CI of the PR (read once, by the caller). */
  items: Awaited<ReturnType<typeof headWorkflowRuns>>,
): Promise<ActionsRead> {
  const jobs: ActionsRead['jobs'] = new Map(ids.map((id) => [id, null]));
  const runs = { items };
  const unstarted: CheckResult[] = runs.items
    .filter((run) => run.head_sha === sha && run.conclusion === 'startup_failure')
    .map((run) => ({
      name: run.name ?? `workflow run ${run.id}`,
      status: 'completed',
      conclusion: 'startup_failure',
      url: run.html_url,
      job: {
        run: Number(run.id),
        attempt: Number(run.run_attempt ?? 1),
        projectRan: false,
        whole: true,
      },
    }));
  if (ids.length === 0) return { jobs, unstarted };
  for (const run of runs.items) {
    const listed = await readWhole(async (page) => {
      const { data } = await gh.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', {
        ...repo,
        run_id: Number(run.id),
        filter: 'all',
        per_page: PER_PAGE,
        page,
      });
      return data.jobs;
    });
    for (const job of listed.items)
      if (jobs.has(Number(job.id)) && job.head_sha === sha)
        jobs.set(Number(job.id), {
          run: Number(run.id),
          attempt: Number(job.run_attempt ?? 1),
          projectRan: (job.steps ?? []).some(
            (step) =>
              !RUNNER_STEPS.has(step.name) &&
              step.conclusion !== null &&
              step.conclusion !== 'skipped',
          ),
        });
  }
  return { jobs, unstarted };
}

/**
 * GitHub's own signs among a failed job's annotations: an outage (`outageSign`), or the job
 * stopped at its time limit (`timeoutSign`). Every page is read, as GitHub lists them (at most 50
 * a check run are kept by GitHub per update).
 */
async function jobSigns(
  gh: GitHub,
  repo: Repo,
  checkRun: number,
): Promise<{ outage?: string; timedOut?: string }> {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request(
      'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
      { ...repo, check_run_id: checkRun, per_page: PER_PAGE, page },
    );
    return data;
  });
  const outage = outageSign(items);
  const timedOut = timeoutSign(items);
  return { ...(outage ? { outage } : {}), ...(timedOut ? { timedOut } : {}) };
}

/** A check run's conclusion that passes the gate, or none yet: its job need not be read. */
const PASSING = new Set(['success', 'neutral', 'skipped']);

/** Every commit status of a commit, newest first, with who posted each (every page). */
async function commitStatuses(gh: GitHub, repo: Repo, sha: string) {
  const { items } = await readWhole(async (page) => {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/commits/{ref}/statuses', {
      ...repo,
      ref: sha,
      per_page: PER_PAGE,
      page,
    });
    return data;
  });
  return items;
}

/**
 * Check runs and commit statuses of a head commit, every page of both. The loop's own check run
 * is the newest one it wrote there (`ownRuns`); every other check run, a CI job called
 * `coder-loop` included, is CI and counts in the gate. A later check run or status supersedes
 * an earlier one only when it is CI reporting again (`latestCheckRuns`, `latestStatuses`).
 */
export async function readHeadChecks(
  gh: GitHub,
  repo: Repo,
  sha: string,
  identity: LoopIdentity | undefined,
  options: {
    /** Read the head's workflow runs for those that started no job (a `startup_failure` event). */
    unstarted?: boolean;
    /**
     * The loop PR's head branch: a GitHub Actions run for any other (a fork's PR at this commit,
     * another branch here) is not its CI (`runNotForPull`). A review's runs never are.
     */
    branch?: string;
  } = {},
): Promise<HeadChecks> {
  const [listed, statuses] = await Promise.all([
    commitCheckRuns(gh, repo, sha),
    commitStatuses(gh, repo, sha),
  ]);
  const sorted = [...listed].sort((a, b) => Number(a.id) - Number(b.id));
  const own = ownRuns(sorted, sha, identity);
  const ownIds = new Set(own.map((o) => o.run.id));
  const mine = own.pop();
  // What each GitHub Actions run ran for, from its workflow run (one read of the head's runs):
  // a fork's, another branch's or a review's run is no CI of this PR, whatever its name.
  const actions = sorted.some((r) => !ownIds.has(r.id) && r.app?.slug === 'github-actions');
  const workflowRuns = actions || options.unstarted ? await headWorkflowRuns(gh, repo, sha) : [];
  const notOurs = suitesNotForPull(workflowRuns, options.branch);
  const byId = sorted.filter(
    (r) =>
      ownIds.has(r.id) ||
      r.app?.slug !== 'github-actions' ||
      !r.check_suite ||
      !notOurs.has(Number(r.check_suite.id)),
  );
  // Traced: runs sharing a name (the re-run rule), and every GitHub Actions run that did not
  // pass (triage reads its job).
  const failed = byId
    .filter(
      (r) =>
        !ownIds.has(r.id) &&
        r.app?.slug === 'github-actions' &&
        r.conclusion !== null &&
        !PASSING.has(r.conclusion),
    )
    .map((r) => r.id);
  const traced = [...new Set([...runsToTrace(byId, ownIds), ...failed])];
  const { jobs, unstarted } =
    traced.length > 0 || options.unstarted
      ? await readActions(
          gh,
          repo,
          sha,
          traced,
          workflowRuns.filter((r) => runNotForPull(r, options.branch) === undefined),
        )
      : { jobs: new Map<number, null>(), unstarted: [] };
  const results: CheckResult[] = [];
  for (const r of latestCheckRuns(byId, ownIds, jobs)) {
    const job = jobs.get(r.id);
    const failedJob = job && r.conclusion !== null && !PASSING.has(r.conclusion) ? job : undefined;
    // A job whose steps ran may still have failed for GitHub's own reason: its annotations say.
    const signs =
      failedJob?.projectRan && (r.output?.annotations_count ?? 0) > 0
        ? await jobSigns(gh, repo, Number(r.id))
        : {};
    results.push({
      name: r.name,
      status: r.status,
      conclusion: r.conclusion,
      ...(r.html_url ? { url: r.html_url } : {}),
      ...(failedJob
        ? {
            job: {
              run: failedJob.run,
              attempt: failedJob.attempt,
              projectRan: failedJob.projectRan,
              ...signs,
            },
          }
        : {}),
    });
  }
  results.push(...unstarted);
  const statusIsMine = identity !== undefined && keepsStatus(identity);
  // Acting as a person, the loop's own status is the `coder-loop` one that person posted.
  const isMine = (s: (typeof statuses)[number]) =>
    statusIsMine &&
    s.context === CHECK_NAME &&
    s.creator?.login?.toLowerCase() === identity.login.toLowerCase();
  for (const s of latestStatuses(statuses)) {
    if (isMine(s)) continue;
    results.push({
      name: s.context,
      status: s.state === 'pending' ? 'in_progress' : 'completed',
      conclusion: s.state === 'pending' ? null : s.state,
      ...(s.target_url ? { url: s.target_url } : {}),
    });
  }
  const status = mine || !statusIsMine ? undefined : ownFromStatus(statuses.filter(isMine));
  return {
    results,
    ...(mine
      ? { own: ownOf(mine.run, mine.record) }
      : status
        ? { own: { id: 0, ...status, commitStatus: true as const } }
        : {}),
  };
}
export interface CheckRunWrite {
  view: CheckRunView;
  /** The loop's record as of this head, kept in the run's text (not in a commit status). */
  record?: LoopMarker;
  /** Absent while the loop waits; success only when the phase is complete. */
  conclusion?: 'success' | 'failure';
  /** The next phase, kept beside the node for final verification. */
  next?: number;
}

/**
 * Shows where a PR head stands: updates the loop's check run on that head, or creates it. The
 * flowchart node is kept in `external_id`, so the next event reads it back from GitHub.
 */
export async function writeCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  own: OwnCheckRun | undefined,
  write: CheckRunWrite,
  repoUrl: string,
  ref: string,
  /**
   * Whether a refused check run falls back to a status: the loop acts as a person (`keepsStatus`).
   * Asked only when GitHub refuses the check run.
   */
  statusFallback: () => Promise<boolean> = async () => true,
): Promise<OwnCheckRun> {
  const output = checkRunOutput(write.view, repoUrl, ref);
  output.summary += progressLink(repoUrl, write.record);
  if (write.record) output.text = withRecord(output.text, write.record, headSha);
  const fields: CheckRunFields = {
    external_id: encodeCheckState({ node: write.view.node, next: write.next }),
    output,
    ...(write.conclusion
      ? { status: 'completed' as const, conclusion: write.conclusion }
      : { status: 'in_progress' as const }),
  };
  // What the head shows now: later effects of the same event update this run, not a new one.
  const written = (id: number, commitStatus?: true): OwnCheckRun => ({
    id,
    ...decodeCheckState(fields.external_id),
    externalId: fields.external_id,
    conclusion: write.conclusion ?? null,
    ...(commitStatus ? { commitStatus } : { output }),
    ...(write.record && !commitStatus ? { record: write.record } : {}),
  });
  const asStatus = async () => {
    await writeLoopStatus(
      gh,
      repo,
      headSha,
      fields.external_id,
      write.view,
      write.conclusion,
      `${repoUrl}/tree/${encodePath(ref)}`,
    );
    return written(0, true);
  };
  if (own?.commitStatus) return asStatus();
  try {
    return written(await writeOwnCheckRun(gh, repo, headSha, own, fields));
  } catch (error) {
    // An App is always allowed check runs (the manifest asks for checks: write): for it, a refusal
    // is a misconfiguration to report, not a reason to keep state where it would count as CI.
    if (!checkRunRefused(error) || !(await statusFallback())) throw error;
    return asStatus();
  }
}

/** What a write sets on the loop's check run. */
interface CheckRunFields {
  external_id: string;
  output: { title: string; summary: string; text: string };
  status: 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure';
}

/**
 * Whether the run shows exactly what a write would set: its node, conclusion (none: in progress)
 * and output as read on this head. Such a write changes nothing on GitHub and is not sent.
 */
function showsAlready(own: OwnCheckRun, fields: CheckRunFields): boolean {
  return (
    own.output !== undefined &&
    own.externalId === fields.external_id &&
    own.conclusion === (fields.conclusion ?? null) &&
    own.output.title === fields.output.title &&
    own.output.summary === fields.output.summary &&
    own.output.text === fields.output.text
  );
}

async function writeOwnCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  own: OwnCheckRun | undefined,
  fields: CheckRunFields,
): Promise<number> {
  if (own && showsAlready(own, fields)) return own.id;
  if (own) {
    await gh.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      ...repo,
      check_run_id: own.id,
      ...fields,
    });
    return own.id;
  }
  const { data } = await gh.request('POST /repos/{owner}/{repo}/check-runs', {
    ...repo,
    name: CHECK_NAME,
    head_sha: headSha,
    ...fields,
    // Made though its answer was lost: the loop's run on this head holding this very record.
    request: madeOnce(async () =>
      (await commitCheckRuns(gh, repo, headSha, CHECK_NAME)).findLast(
        (r) => r.external_id === fields.external_id && r.output?.text === fields.output.text,
      ),
    ),
  });
  return Number(data.id);
}

/**
 * Creates the `coder-loop` check run on a head commit, showing where the PR stands and holding
 * the loop's first record of it.
 */
export async function createCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  view: CheckRunView,
  record: LoopMarker,
  repoUrl: string,
  ref: string,
  statusFallback?: () => Promise<boolean>,
): Promise<void> {
  await writeCheckRun(gh, repo, headSha, undefined, { view, record }, repoUrl, ref, statusFallback);
}

/**
 * Updates only the record of the loop's check run on a head, keeping what it shows: for a
 * decision that changes what the loop believes without moving the head's node.
 */
export async function writeRecord(
  gh: GitHub,
  repo: Repo,
  own: OwnCheckRun,
  record: LoopMarker,
  headSha: string,
): Promise<OwnCheckRun> {
  const output = {
    title: own.output?.title || 'coder-loop',
    summary: own.output?.summary || 'coder-loop',
    text: withRecord(own.output?.text, record, headSha),
  };
  // The record as the run holds it already (a redelivered event's): nothing to write.
  if (own.output?.text === output.text) return { ...own, output, record };
  await gh.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
    ...repo,
    check_run_id: own.id,
    output,
  });
  return { ...own, output, record };
}
