import {
  assessComplexity,
  plansOfAnyKind,
  planDiscoveryReads,
  loopPullProblem,
  readMarker,
  releaseTarget,
  reply,
  type Config,
} from '../../core/index.js';
import { applyRepo } from './apply.js';
import type { RepoEffect } from './repoEffect.js';
import { openOnTree } from '../openPlan.js';
import { branchesWithPrefix, commitMessage } from '../git.js';
import { findPullRequest, getPull, openPulls, type PullRequest } from '../pulls.js';
import { gateReader, sayCiStall } from './ciStall.js';
import { trustedLoopPull } from './trust.js';
import { readerFor, type LoopEnv, type LoopOutcome } from './env.js';

/** `/coder assess`: the assessment and its reasons; nothing else is written. */
export async function assess(
  env: LoopEnv,
  config: Config,
  issue: { number: number; title: string; body: string | null },
): Promise<LoopOutcome> {
  const assessment = assessComplexity({ title: issue.title, body: issue.body ?? '' }, config.quick);
  await applyRepo(env, [
    { kind: 'reply', to: issue.number, body: reply.assessment(assessment, env.cli) },
  ]);
  return { state: 'assessed', node: 'AssessTask', mode: assessment.mode };
}

/**
 * `/coder status [PlanName]`: phases, tasks, the current phase's lock and PR; a shown PR whose
 * head has had no CI at all for `ciStallMinutes` tells its issue too, once per head (ciStall.ts).
 */
export async function status(
  env: LoopEnv,
  config: Config,
  issue: number,
  requested?: string,
): Promise<LoopOutcome> {
  const reader = readerFor(env);
  const tree = await reader.base(env.defaultBranch);
  if (!tree) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
  // Every kind's plans (SPEC §2b); a tagged kind's file names its plans (its tags).
  const paths = [...tree.files.keys()];
  const texts = new Map(
    await Promise.all(
      planDiscoveryReads(config, paths).map(
        async (path) => [path, await reader.blob(tree.files.get(path)!)] as const,
      ),
    ),
  );
  const all = plansOfAnyKind(config, paths, texts).plans;
  const labels = all.map((p) => p.label);
  const chosen = requested ? all.filter((p) => p.name === requested || p.label === requested) : all;
  if (requested && chosen.length === 0) {
    await applyRepo(env, [{ kind: 'reply', to: issue, body: reply.noSuchPlan(requested, labels) }]);
    return { state: 'no-plan' };
  }
  if (chosen.length === 0) {
    await applyRepo(env, [
      { kind: 'reply', to: issue, body: reply.noPlans(config.plansDir, env.cli) },
    ]);
    return { state: 'no-plan' };
  }
  const shown: PullRequest[] = [];
  const lockOf = async (branch: string) => {
    // Both reads at once: the pull request is only shown when the lock is there.
    const [held, pr] = await Promise.all([
      reader.branchHead(branch),
      env.identity().then(({ login }) => findPullRequest(env.gh, env.repo, branch, login)),
    ]);
    if (pr) shown.push(pr);
    return { branch, held: held !== undefined, ...(pr ? { pr: pr.number } : {}) };
  };
  const sections: string[] = [];
  for (const plan of chosen.slice(0, 10)) {
    const open = await openOnTree(reader, tree, config, plan, { contents: false });
    const phase = open.statusPhase();
    sections.push(
      open.statusSection(phase ? await lockOf(open.branch(phase)) : undefined, env.cli),
    );
  }
  await applyRepo(env, [{ kind: 'reply', to: issue, body: sections.join('\n\n') }]);
  const gate = gateReader(env);
  for (const pr of shown) {
    const loop = await trustedLoopPull(env, pr);
    if (!('ignored' in loop)) await sayCiStall(env, config, loop, gate);
  }
  return { state: 'status' };
}

/**
 * `/coder release`: gives the lock up — closes the loop PRs of this issue (or this PR) and deletes
 * their branches. The `[~]` marks lived only on those branches, so the default branch is untouched.
 */
export async function release(
  env: LoopEnv,
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const locks: { branch: string; pr?: number }[] = [];
  if (issue.isPullRequest) {
    const data = await getPull(gh, repo, issue.number);
    // A closed loop PR holds no lock: its branch name may be a newer PR's lock by now.
    if (data.state === 'open' && !loopPullProblem(data, await env.identity())) {
      locks.push({ branch: data.head.ref, pr: data.number });
    }
  } else {
    const refs = await branchesWithPrefix(gh, repo, 'coder/');
    const pulls = await openPulls(gh, repo);
    const identity = refs.length ? await env.identity() : undefined;
    for (const ref of refs) {
      const { branch } = ref;
      // Only the loop's own PR tells which issue a branch belongs to (its marker).
      const pr = pulls.find((p) => p.head.ref === branch && !loopPullProblem(p, identity!));
      // A loop PR's issue is the one its record names (never what its body says).
      const loop = pr ? await trustedLoopPull(env, pr) : undefined;
      let target = releaseTarget(
        issue.number,
        branch,
        loop ? ('ignored' in loop ? undefined : loop.marker) : 'unread',
      );
      if (target === 'read-commit')
        target = releaseTarget(
          issue.number,
          branch,
          readMarker(await commitMessage(gh, repo, ref.sha)),
        );
      if (target === 'release') locks.push({ branch, ...(pr ? { pr: pr.number } : {}) });
    }
  }
  if (locks.length === 0) {
    await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.nothingToRelease() }]);
    return { state: 'nothing-to-release' };
  }
  // Each lock: its PR closed, its branch deleted (already gone, a retried release: free either
  // way); then one reply naming them all.
  const effects: RepoEffect[] = locks.flatMap((lock): RepoEffect[] => [
    ...(lock.pr !== undefined ? [{ kind: 'closePull' as const, pr: lock.pr }] : []),
    { kind: 'deleteBranch', branch: lock.branch },
  ]);
  const lines = locks.map((lock) =>
    reply.released(lock.branch, lock.pr !== undefined ? { number: lock.pr } : undefined),
  );
  await applyRepo(env, [...effects, { kind: 'reply', to: issue.number, body: lines.join('\n') }]);
  return {
    state: 'released',
    branch: locks[0]!.branch,
    ...(locks[0]!.pr !== undefined ? { pullRequest: locks[0]!.pr } : {}),
  };
}
