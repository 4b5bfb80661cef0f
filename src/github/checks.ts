import {
  CHECK_NAME,
  checkRunOutput,
  decodeCheckState,
  encodeCheckState,
  encodePath,
  isOwnCheckRun,
  type CheckResult,
  type CheckRunView,
  type LoopIdentity,
} from '../core/index.js';
import type { NodeId } from '../core/index.js';
import type { GitHub, Repo } from './client.js';
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
  /** Kept in the `coder-loop` commit status: the token may not write check runs (status.ts). */
  commitStatus?: true;
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

/**
 * Check runs and commit statuses of a head commit: two reads. The loop's own check run is the
 * newest one named `coder-loop` that the loop's app created; a CI check of any other app with the
 * same name is CI, and counts in the gate.
 */
export async function readHeadChecks(
  gh: GitHub,
  repo: Repo,
  sha: string,
  identity: LoopIdentity,
): Promise<HeadChecks> {
  const [runs, combined] = await Promise.all([
    gh.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...repo,
      ref: sha,
      per_page: 100,
    }),
    gh.request('GET /repos/{owner}/{repo}/commits/{ref}/status', {
      ...repo,
      ref: sha,
      per_page: 100,
    }),
  ]);
  const byId = [...runs.data.check_runs].sort((a, b) => Number(a.id) - Number(b.id));
  const mine = byId.filter((r) => isOwnCheckRun(r, identity)).pop();
  // A re-run adds a check run with the same name and app: the newest one counts.
  const latest = new Map<string, (typeof byId)[number]>();
  for (const r of byId)
    if (!isOwnCheckRun(r, identity)) latest.set(`${r.app?.id ?? ''}/${r.name}`, r);
  const results: CheckResult[] = [...latest.values()].map((r) => ({
    name: r.name,
    status: r.status,
    conclusion: r.conclusion,
    ...(r.html_url ? { url: r.html_url } : {}),
  }));
  const statusIsMine = keepsStatus(identity);
  for (const s of combined.data.statuses) {
    if (statusIsMine && s.context === CHECK_NAME) continue;
    results.push({
      name: s.context,
      status: s.state === 'pending' ? 'in_progress' : 'completed',
      conclusion: s.state === 'pending' ? null : s.state,
      ...(s.target_url ? { url: s.target_url } : {}),
    });
  }
  const status = mine || !statusIsMine ? undefined : ownFromStatus(combined.data.statuses);
  return {
    results,
    ...(mine
      ? {
          own: {
            id: Number(mine.id),
            ...decodeCheckState(mine.external_id),
            externalId: mine.external_id ?? '',
            conclusion: mine.conclusion,
          },
        }
      : status
        ? { own: { id: 0, ...status, commitStatus: true as const } }
        : {}),
  };
}
export interface CheckRunWrite {
  view: CheckRunView;
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
  const fields = {
    external_id: encodeCheckState({ node: write.view.node, next: write.next }),
    output: checkRunOutput(write.view, repoUrl, ref),
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
    ...(commitStatus ? { commitStatus } : {}),
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

async function writeOwnCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  own: OwnCheckRun | undefined,
  fields: Record<string, unknown>,
): Promise<number> {
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
  });
  return Number(data.id);
}

/** Creates the `coder-loop` check run on a head commit, showing where the PR stands. */
export async function createCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  view: CheckRunView,
  repoUrl: string,
  ref: string,
  statusFallback?: () => Promise<boolean>,
): Promise<void> {
  await writeCheckRun(gh, repo, headSha, undefined, { view }, repoUrl, ref, statusFallback);
}
