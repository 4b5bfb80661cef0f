import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildPrompt,
  type AgentPayload,
  type AgentPlanContext,
  type Config,
  type PromptInput,
  type LoopIdentity,
} from '../../core/index.js';
import type { GitHub, Repo } from '../../github/client.js';
import {
  readCiFailures,
  readIssueText,
  readReviewToFix,
  readSpecMissing,
} from '../../github/agent.js';
import { GitReader } from '../../github/git.js';
import { openRecordedOnTree, readTexts } from '../../github/openPlan.js';

/**
 * `$CODER_CONTEXT_DIR` and `$CODER_PROMPT_FILE` of one hand-off: the plan's documents as they are
 * at `headSha` (read through the API, never from the checkout the agent may have touched), the
 * phase's tasks, and for debug-fix the failing checks, for review-fix the review's comments.
 */
export async function writeAgentContext(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  config: Config,
  dirs: { context: string; prompt: string },
  secrets: readonly string[],
  identity?: LoopIdentity,
): Promise<void> {
  const write = async (name: string, text: string) => {
    await mkdir(join(dirs.context, name, '..'), { recursive: true });
    await writeFile(join(dirs.context, name), text);
  };
  const input: PromptInput = {
    node: payload.node,
    attempt: payload.attempt,
    repository: payload.repository,
    branch: payload.branch,
    headSha: payload.headSha,
    pullRequest: payload.pullRequest,
    plansDir: config.plansDir,
    secrets,
  };
  if (payload.plan !== null) {
    const plan = await planContext(gh, repo, payload, payload.plan, config);
    input.plan = { name: payload.plan, ...plan.plan };
    if (plan.documentsDir !== undefined) input.documentsDir = plan.documentsDir;
    for (const file of plan.files) await write(file.name, file.text);
    const { phase, tasks } = plan.plan;
    await write(
      'tasks.json',
      `${JSON.stringify({ plan: payload.plan, phase: { number: phase.number, name: phase.name }, tasks }, null, 2)}\n`,
    );
  } else {
    input.issue = await readIssueText(gh, repo, payload.issue, payload.headSha, identity);
    await write('issue.json', `${JSON.stringify(input.issue, null, 2)}\n`);
    await write(
      'tasks.json',
      `${JSON.stringify({ plan: null, issue: payload.issue, tasks: [] }, null, 2)}\n`,
    );
  }
  if (payload.node === 'debug-fix') {
    input.ciFailures = await readCiFailures(
      gh,
      repo,
      payload.headSha,
      config,
      secrets,
      identity,
      payload.branch,
    );
    await write('ci-failures.json', `${JSON.stringify(input.ciFailures, null, 2)}\n`);
  }
  if (payload.node === 'revise') {
    input.specMissing = await readSpecMissing(gh, repo, payload.headSha, identity);
    await write('spec-missing.json', `${JSON.stringify(input.specMissing, null, 2)}\n`);
  }
  if (payload.node === 'review-fix') {
    const review = await readReviewToFix(gh, repo, payload.pullRequest, payload.headSha);
    if (review) input.review = review;
    await write('review-comments.json', `${JSON.stringify(review ?? null, null, 2)}\n`);
  }
  await writeFile(dirs.prompt, buildPrompt(input));
}

/**
 * The plan of the hand-off at `headSha`, of any kind, as the agent gets it (`agentContext`): the
 * phase's tasks and the documents its PR links, each read once.
 */
async function planContext(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  name: string,
  config: Config,
): Promise<AgentPlanContext> {
  const reader = new GitReader(gh, repo);
  const tree = await reader.tree(payload.headSha);
  const marker = {
    plan: name,
    ...(payload.planFile !== undefined ? { planFile: payload.planFile } : {}),
  };
  const plan = await openRecordedOnTree(reader, tree, config, marker);
  if ('problems' in plan)
    throw new Error(`The payload's planFile ${payload.planFile} is no plan the loop reads.`);
  const phase = plan.phaseAt({
    ...(payload.phase !== null ? { phase: payload.phase } : {}),
    ...(payload.phaseId !== undefined ? { phaseId: payload.phaseId } : {}),
  });
  if (!phase)
    throw new Error(
      `The plan ${name} at ${payload.headSha.slice(0, 7)} has no phase ${payload.phaseId ?? payload.phase}.`,
    );
  const reads = plan.agentReads(phase).filter((path) => tree.files.has(path));
  return plan.agentContext(phase, new Map(await readTexts(reader, tree, reads)));
}
