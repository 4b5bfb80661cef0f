import {
  afterLock,
  agentHandOff,
  choosePlan,
  phaseToStart,
  markInProgress,
  phasePullRequest,
  PLAN_FILES,
  planPath,
  readMarker,
  reply,
  type Config,
  type Orchestrator,
  type Phase,
  withAgent,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import { createCheckRun, keepsStatus } from '../checks.js';
import { commitMessage, createCommit, createLockRef } from '../git.js';
import { replyOnIssue } from '../issues.js';
import { plansInTree, readPlan } from '../plans.js';
import { ensurePullRequest, findPullRequest } from '../pulls.js';
import { readerFor, type LoopEnv, type LoopOutcome } from './env.js';

/**
 * `/coder next [PlanName]`: Context valid? → Current phase → Locked? → Mark [~] (one commit,
 * which the lock ref is created on) → Automatic PR per phase → the `coder-loop` check run.
 */
export async function startPhase(
  env: LoopEnv,
  config: Config,
  who: Orchestrator,
  requested: string | undefined,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const answer = async (body: string, outcome: LoopOutcome) => {
    await replyOnIssue(gh, repo, who.issue, body);
    return outcome;
  };
  const reader = readerFor(env);
  const head = await reader.branchHead(env.defaultBranch);
  if (!head) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
  const tree = await reader.tree(head);

  const chosen = choosePlan(config.plansDir, plansInTree(tree, config.plansDir), requested);
  if ('reply' in chosen) return answer(chosen.reply, chosen.outcome);
  const name = chosen.plan;
  const { files, context: read } = await readPlan(reader, tree, config.plansDir, name);
  const phase = phaseToStart(name, read);
  if ('reply' in phase) return answer(phase.reply, phase.outcome);
  const { context } = phase;
  const current: Phase = context.current;

  const start = markInProgress(config, files, context, who, env.now().toISOString());
  const commit = await createCommit(
    gh,
    repo,
    { sha: head, tree: tree.sha },
    start.changes,
    start.message,
  );
  const outcome: LoopOutcome = {
    state: 'started',
    node: 'TDD',
    mode: 'plan',
    plan: name,
    phase: current.number,
    branch: start.branch,
  };

  const lock = await createLockRef(gh, repo, start.branch, commit);
  if (!lock.acquired) {
    const pr = await findPullRequest(gh, repo, start.branch);
    const holder = pr ? readMarker(pr.body) : await commitMarker(env, lock.sha);
    const next = afterLock({
      acquired: false,
      pr: pr !== undefined,
      holder: holder?.comment,
      comment: who.comment,
      via: 'command',
    });
    if (next === 'done') {
      env.log.info(
        `comment ${who.comment} was handled already: ${start.branch}, PR #${pr!.number}`,
      );
      return { ...outcome, state: 'already-started', pullRequest: pr!.number };
    }
    if (next === 'locked') {
      return answer(reply.locked(name, current, start.branch, pr), {
        ...outcome,
        state: 'locked',
        node: 'LockCheck',
        ...(pr ? { pullRequest: pr.number } : {}),
      });
    }
    // Our own earlier delivery took the lock and stopped before the PR: finish its work.
    env.log.info(`resuming comment ${who.comment}: ${start.branch} exists without its PR`);
  }
  const startSha = lock.acquired ? commit : lock.sha;

  const text = phasePullRequest(config, files, context, start, env.repoUrl);
  const pr = await ensurePullRequest(gh, repo, {
    head: start.branch,
    base: env.defaultBranch,
    ...text,
  });
  await replyOnIssue(gh, repo, who.issue, reply.started(name, current, start.branch, pr));
  const at = (file: string) => planPath(config.plansDir, name, file);
  // TDD: handed to the coding agent when one is configured (SPEC §9).
  const marker = readMarker(pr.body);
  const handOff = marker
    ? agentHandOff(config, {
        node: 'tdd',
        repo,
        branch: start.branch,
        headSha: startSha,
        pullRequest: pr.number,
        marker,
        attempt: 1,
      })
    : undefined;
  await createCheckRun(
    gh,
    repo,
    startSha,
    withAgent(
      {
        mode: 'plan',
        node: 'TDD',
        title: `Phase ${current.number}: implementation (TDD)`,
        next: 'Write a failing test, then the minimal code, and push both to this branch. CI on the pull request is the verification gate.',
        links: [
          ...(context.taskPlan ? [{ label: 'Task plan', path: at(context.taskPlan) }] : []),
          { label: 'Checklist', path: at(PLAN_FILES.checklist) },
          ...(context.codemap ? [{ label: 'Codemap', path: at(context.codemap) }] : []),
          ...context.requirements.map((r) => ({ label: r.split('/').pop()!, path: at(r) })),
        ],
      },
      handOff,
      env.repoUrl,
    ),
    start.marker,
    env.repoUrl,
    start.branch,
    async () => keepsStatus(await env.identity()),
  );
  if (handOff) await sendAgentDispatch(gh, repo, handOff);
  return { ...outcome, pullRequest: pr.number };
}

/** The loop marker in a commit's message (who started the lock branch). */
async function commitMarker(env: LoopEnv, sha: string) {
  return readMarker(await commitMessage(env.gh, env.repo, sha));
}
