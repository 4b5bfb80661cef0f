import {
  markComplete,
  PLAN_FILES,
  planPath,
  type Config,
  type LoopMarker,
  type Phase,
  type Problem,
  type PullSnapshot,
  type ReportAttempt,
} from '../../core/index.js';
import { advanceBranch, createCommit, GitReader } from '../git.js';
import type { PullCommits, PullReviews } from '../pulls.js';
import type { LoopEnv } from './env.js';

export type Completion =
  | { ok: true; commit: string; phase: Phase; next?: { number: number } }
  | { ok: false; problems: Problem[] };

/**
 * Mark [x] → Report → Update context → Log: ONE commit on the lock branch, on top of the head the
 * approval was for. The ref moves compare-and-swap; when someone pushed in between, the files
 * are read again at the new head and the edit is applied again (three tries).
 */
export async function completionCommit(
  env: LoopEnv,
  config: Config,
  snap: PullSnapshot & { marker: LoopMarker },
  approver: string,
  facts: { reviews: PullReviews; commits: PullCommits },
): Promise<Completion> {
  const { gh, repo } = env;
  const { pr, marker } = snap;
  const plan = marker.plan!;
  const at = (file: string) => planPath(config.plansDir, plan, file);
  const latest = new Map<string, string>();
  for (const r of facts.reviews)
    if (r.user && r.state !== 'COMMENTED') latest.set(r.user.login, r.state);
  const attempts: ReportAttempt[] = (marker.attempts ?? []).map((a, i) => ({
    number: i + 1,
    sha: a.sha,
    outcome: 'failed',
    checks: a.checks.map((c) => ({
      name: c.name,
      conclusion: c.conclusion,
      ...(c.url ? { url: c.url } : {}),
    })),
  }));
  attempts.push({
    number: attempts.length + 1,
    sha: pr.head.sha,
    outcome: 'passed',
    checks: (snap.checks ?? []).map((c) => ({
      name: c.name,
      conclusion: c.conclusion ?? 'pending',
      ...(c.url ? { url: c.url } : {}),
    })),
  });

  const reader = new GitReader(gh, repo);
  let parent = pr.head.sha;
  for (let tries = 0; tries < 3; tries++) {
    const tree = await reader.tree(parent);
    const read = async (file: string) => {
      const sha = tree.files.get(at(file));
      return sha === undefined ? undefined : reader.blob(sha);
    };
    const [checklist, context, masterLog] = await Promise.all([
      read(PLAN_FILES.checklist),
      read(PLAN_FILES.context),
      read(PLAN_FILES.masterLog),
    ]);
    const completion = markComplete(
      config,
      plan,
      {
        ...(checklist !== undefined ? { checklist } : {}),
        ...(context !== undefined ? { context } : {}),
        ...(masterLog !== undefined ? { masterLog } : {}),
      },
      marker,
      {
        pullRequest: { number: pr.number, url: pr.url },
        issueUrl: `${env.repoUrl}/issues/${marker.issue}`,
        approver,
        reviewers: [...latest].map(([login, state]) => ({ login, state })),
        commits: facts.commits.map((c) => ({
          sha: c.sha,
          message: c.commit.message,
          url: c.html_url,
        })),
        attempts,
        files: [...(snap.files ?? [])],
        now: env.now().toISOString(),
      },
    );
    if (!completion.ok) return { ok: false, problems: completion.problems };
    const commit = await createCommit(
      gh,
      repo,
      { sha: parent, tree: tree.sha },
      completion.changes,
      completion.message,
    );
    if (await advanceBranch(gh, repo, pr.head.ref, commit))
      return {
        ok: true,
        commit,
        phase: completion.phase,
        ...(completion.next ? { next: { number: completion.next.number } } : {}),
      };
    // Not a fast-forward: someone pushed. Read the branch again and re-apply on its head.
    const head = await reader.branchHead(pr.head.ref);
    if (!head || head === parent)
      throw new Error(`The lock branch ${pr.head.ref} refused the completion commit.`);
    env.log.info(`completion commit met a new head ${head.slice(0, 7)}; applying again`);
    parent = head;
  }
  throw new Error(
    `The lock branch ${pr.head.ref} kept moving; the completion commit was not applied.`,
  );
}
