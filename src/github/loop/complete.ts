import {
  markComplete,
  markKindComplete,
  phaseInteger,
  PLAN_FILES,
  planPath,
  type CompletionFacts,
  type Config,
  type KindCompletion,
  type LoopMarker,
  type Phase,
  type Problem,
  type PullSnapshot,
  type ReportAttempt,
} from '../../core/index.js';
import { planFromRef } from '../../core/plan/kinds/plan.js';
import { readKindPlan } from '../kindPlans.js';
import { advanceBranch, createCommit, GitReader, type Tree } from '../git.js';
import type { PullCommits, PullReviews } from '../pulls.js';
import type { LoopEnv } from './env.js';

export type Completion =
  | {
      ok: true;
      commit: string;
      phase: Pick<Phase, 'number' | 'name'>;
      next?: { number: number };
    }
  | { ok: false; problems: Problem[] }
  /** The branch is no longer at the approved head: nothing was written. */
  | { ok: false; moved: string };

/**
 * Mark [x] → Report → Update context → Log: ONE commit on the lock branch whose parent is the
 * head the approval was for. The ref moves compare-and-swap on that head: when anyone pushed in
 * between — a person, the agent — nothing is written, and the new head needs CI and an approval
 * of its own (the approval was a verdict about the old one).
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
  const parent = pr.head.sha;
  const tree = await reader.tree(parent);
  const read = async (file: string) => {
    const sha = tree.files.get(at(file));
    return sha === undefined ? undefined : reader.blob(sha);
  };
  const report: CompletionFacts = {
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
  };
  // A plan of another kind (spec-kit, Kiro, Task Master): its own marks, the sidecar's files.
  const completion = marker.planFile
    ? await kindCompletion(reader, tree, plan, marker, report)
    : await coderCompletion(config, plan, marker, report, read);
  if (!completion.ok) return { ok: false, problems: completion.problems };
  const commit = await createCommit(
    gh,
    repo,
    { sha: parent, tree: tree.sha },
    completion.changes,
    completion.message,
  );
  if (!(await advanceBranch(gh, repo, pr.head.ref, commit))) {
    const head = await reader.branchHead(pr.head.ref);
    if (!head || head === parent)
      throw new Error(`The lock branch ${pr.head.ref} refused the completion commit.`);
    env.log.info(
      `completion of ${parent.slice(0, 7)} not written: the branch moved to ${head.slice(0, 7)}`,
    );
    return { ok: false, moved: head };
  }
  const phase = completion.phase;
  return {
    ok: true,
    commit,
    phase: {
      number: typeof phase.number === 'number' ? phase.number : phaseInteger(phase.number),
      name: phase.name,
    },
    ...(completion.next
      ? {
          next: {
            number:
              typeof completion.next.number === 'number'
                ? completion.next.number
                : phaseInteger(completion.next.number),
          },
        }
      : {}),
  };
}

async function coderCompletion(
  config: Config,
  plan: string,
  marker: LoopMarker,
  facts: CompletionFacts,
  read: (file: string) => Promise<string | undefined>,
) {
  const [checklist, context, masterLog] = await Promise.all([
    read(PLAN_FILES.checklist),
    read(PLAN_FILES.context),
    read(PLAN_FILES.masterLog),
  ]);
  return markComplete(
    config,
    plan,
    {
      ...(checklist !== undefined ? { checklist } : {}),
      ...(context !== undefined ? { context } : {}),
      ...(masterLog !== undefined ? { masterLog } : {}),
    },
    marker,
    facts,
  );
}

/** The completion of a plan of another kind, from its files on the approved head. */
async function kindCompletion(
  reader: GitReader,
  tree: Tree,
  label: string,
  marker: LoopMarker,
  facts: CompletionFacts,
): Promise<KindCompletion> {
  const plan = planFromRef(marker.planFile!);
  const missing = (message: string): KindCompletion => ({
    ok: false,
    problems: [
      {
        severity: 'error',
        path: marker.planFile!,
        message,
        fix: 'Restore it on the branch, then approve again.',
      },
    ],
  });
  if (!plan) return missing('The loop record names no plan the loop reads.');
  const { kp, paths, texts } = await readKindPlan(reader, tree, plan);
  if (!texts.has(plan.path)) return missing('The tasks file is missing on the lock branch.');
  return markKindComplete(kp, label, paths, texts, marker, facts);
}
