import {
  latestReviews,
  markComplete,
  phaseInteger,
  type CompletionFacts,
  type Config,
  type FileChange,
  type LoopMarker,
  type Phase,
  type Problem,
  type PullSnapshot,
  type ReportAttempt,
} from '../../core/index.js';
import { GitReader } from '../git.js';
import { openRecordedOnTree } from '../openPlan.js';
import type { PullCommits, PullReviews } from '../pulls.js';
import type { LoopEnv } from './env.js';

/** The completion commit to write, or why there is none (the plan needs fixing first). */
export type Completion =
  | {
      ok: true;
      /** The approved head and its tree: the commit's parent. */
      parent: { sha: string; tree: string };
      changes: FileChange[];
      message: string;
      phase: Pick<Phase, 'number' | 'name'>;
      next?: { number: number };
    }
  | { ok: false; problems: Problem[] };

/**
 * Mark [x] → Report → Update context → Log, as ONE commit on the lock branch whose parent is the
 * head the approval was for: this reads the plan's files on that head and builds the commit
 * (`markComplete`, over the plan the record names); the applier writes it and moves the ref compare-and-swap on that head (when
 * anyone pushed in between — a person, the agent — nothing is written, and the new head needs CI
 * and an approval of its own: the approval was a verdict about the old one).
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
  const parent = pr.head.sha;
  const tree = await reader.tree(parent);
  const report: CompletionFacts = {
    pullRequest: { number: pr.number, url: pr.url },
    issueUrl: `${env.repoUrl}/issues/${marker.issue}`,
    approver,
    reviewers: latestReviews(facts.reviews).map((r) => ({
      login: r.user!.login,
      state: r.state,
    })),
    commits: facts.commits.map((c) => ({
      sha: c.sha,
      message: c.commit.message,
      url: c.html_url,
    })),
    attempts,
    files: [...(snap.files ?? [])],
    now: env.now().toISOString(),
    ...(config.specCheck === 'off'
      ? {}
      : { spec: { testPaths: config.testPaths, plansDir: config.plansDir } }),
  };
  // The plan the record names, read on the approved head: the files the completion writes.
  const plan = await openRecordedOnTree(reader, tree, config, marker, { taskPlan: false });
  if ('problems' in plan) return { ok: false, problems: plan.problems };
  const completion = markComplete(plan, marker, report);
  if (!completion.ok) return { ok: false, problems: completion.problems };
  const integer = (n: number | string) => (typeof n === 'number' ? n : phaseInteger(n));
  return {
    ok: true,
    parent: { sha: parent, tree: tree.sha },
    changes: completion.changes,
    message: completion.message,
    phase: { number: integer(completion.phase.number), name: completion.phase.name },
    ...(completion.next ? { next: { number: integer(completion.next.number) } } : {}),
  };
}
