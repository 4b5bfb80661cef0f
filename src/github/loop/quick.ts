import {
  appendLogEntry,
  assessComplexity,
  escapeMarkdown,
  PLAN_FILES,
  planPath,
  quickBranch,
  readMarker,
  renderMarker,
  reply,
  type Config,
  type LoopMarker,
  type Orchestrator,
  afterLock,
  agentHandOff,
  withAgent,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import { createCheckRun, keepsStatus } from '../checks.js';
import { createCommit, createLockRef, type NewFile } from '../git.js';
import { replyOnIssue } from '../issues.js';
import { plansInTree } from '../plans.js';
import { ensurePullRequest, findPullRequest } from '../pulls.js';
import { readerFor, type LoopEnv, type LoopOutcome } from './env.js';

export interface QuickIssue {
  number: number;
  title: string;
  body: string | null;
}

/**
 * Quick mode (the seed's "Simple/Quick" branch): lock branch `coder/quick/issue-N`, a PR that
 * says `Fixes #N`, CI as the only gate. No plan file changes, except one master-log entry when
 * `quick.log` is on and the repository has exactly one plan.
 */
export async function startQuick(
  env: LoopEnv,
  config: Config,
  who: Orchestrator,
  issue: QuickIssue,
  via: 'label' | 'command',
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const branch = quickBranch(issue.number);
  const outcome: LoopOutcome = { state: 'started', node: 'QuickMode', mode: 'quick', branch };
  const assessment = assessComplexity({ title: issue.title, body: issue.body ?? '' }, config.quick);

  const reader = readerFor(env);
  const head = await reader.branchHead(env.defaultBranch);
  if (!head) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
  const tree = await reader.tree(head);

  const changes: NewFile[] = [];
  const plans = config.quick.log ? plansInTree(tree, config.plansDir) : [];
  if (plans.length === 1) {
    const path = planPath(config.plansDir, plans[0]!, PLAN_FILES.masterLog);
    const sha = tree.files.get(path);
    const log = sha === undefined ? undefined : await reader.blob(sha);
    changes.push({
      path,
      content: appendLogEntry(log, {
        timestamp: env.now().toISOString(),
        event: 'Quick mode started',
        plan: plans[0]!,
        actor: who.actor,
        links: [{ label: `#${issue.number}`, url: who.issueUrl }],
      }),
    });
  }
  const marker: LoopMarker = {
    mode: 'quick',
    issue: issue.number,
    ...(who.comment !== undefined ? { comment: who.comment } : {}),
  };
  const message = `coder-loop: quick mode for #${issue.number}\n\n${renderMarker(marker)}\n`;
  const commit = await createCommit(gh, repo, { sha: head, tree: tree.sha }, changes, message);

  const lock = await createLockRef(gh, repo, branch, commit);
  if (!lock.acquired) {
    const pr = await findPullRequest(gh, repo, branch);
    const next = afterLock({
      acquired: false,
      pr: pr !== undefined,
      holder: readMarker(pr?.body)?.comment,
      comment: who.comment,
      via,
    });
    // A repeated label or a redelivered event finds its own run going: nothing to do or say.
    if (next === 'done')
      return { ...outcome, state: 'already-started', ...(pr ? { pullRequest: pr.number } : {}) };
    if (next === 'locked') {
      await replyOnIssue(gh, repo, issue.number, reply.quickLocked(branch, pr));
      return {
        ...outcome,
        state: 'locked',
        node: 'LockCheck',
        ...(pr ? { pullRequest: pr.number } : {}),
      };
    }
  }
  const startSha = lock.acquired ? commit : lock.sha;

  const body = [
    renderMarker(marker),
    `Quick mode for #${issue.number}: ${escapeMarkdown(issue.title)}`,
    '',
    `Fixes #${issue.number}`,
    '',
    `Push the fix to \`${branch}\`. CI is the gate ("Run basic tests"); there is no plan bookkeeping. A change larger than ${config.quick.maxFiles} file(s) or ${config.quick.maxLines} lines is better done in plan mode.`,
  ].join('\n');
  const pr = await ensurePullRequest(gh, repo, {
    head: branch,
    base: env.defaultBranch,
    title: `[coder] Quick: ${issue.title}`.slice(0, 256),
    body,
  });
  await replyOnIssue(gh, repo, issue.number, reply.quickStarted(branch, pr, assessment));
  // The quick fix is handed to the coding agent too, when one is configured (SPEC §9).
  const handOff = agentHandOff(config, {
    node: 'tdd',
    repo,
    branch,
    headSha: startSha,
    pullRequest: pr.number,
    marker,
    attempt: 1,
  });
  await createCheckRun(
    gh,
    repo,
    startSha,
    withAgent(
      {
        mode: 'quick',
        node: 'QuickMode',
        title: 'Quick mode: implementation',
        next: 'Push the fix to this branch; CI is the gate.',
      },
      handOff,
      env.repoUrl,
    ),
    // The issue's text as it stands now, when a permitted user acted on it: the agent's
    // assignment, whatever the issue says later (SPEC §6).
    { ...marker, vetted: { title: issue.title, body: issue.body ?? '' } },
    env.repoUrl,
    branch,
    async () => keepsStatus(await env.identity()),
  );
  if (handOff) await sendAgentDispatch(gh, repo, handOff);
  return { ...outcome, pullRequest: pr.number };
}
