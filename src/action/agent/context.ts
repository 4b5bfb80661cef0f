import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildPrompt,
  type AgentPayload,
  type Config,
  type PromptDocument,
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
import { readPlan } from '../../github/plans.js';
import { readKindPlan } from '../../github/kindPlans.js';
import { planFromRef } from '../../core/plan/kinds/plan.js';

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
  if (payload.plan !== null && payload.planFile !== undefined) {
    await writeKindContext(gh, repo, payload, input, write);
  } else if (payload.plan !== null) {
    const reader = new GitReader(gh, repo);
    const tree = await reader.tree(payload.headSha);
    const { files, context } = await readPlan(reader, tree, config.plansDir, payload.plan);
    const phase = context.checklist?.phases.find((p) => p.number === payload.phase);
    if (!phase)
      throw new Error(
        `The plan ${payload.plan} at ${payload.headSha.slice(0, 7)} has no phase ${payload.phase}.`,
      );
    const doc = async (file: string | undefined): Promise<PromptDocument | undefined> => {
      if (!file) return undefined;
      const sha = tree.files.get(`${files.dir}/${file}`);
      const text = files.files.get(file) ?? (sha ? await reader.blob(sha) : undefined);
      return text === undefined ? undefined : { path: `${files.dir}/${file}`, text };
    };
    const [taskPlan, checklist, contextDoc, codemap, ...requirements] = await Promise.all([
      doc(context.taskPlan),
      doc('01_Master Plan/01_Checklist.md'),
      doc('00_context.md'),
      doc(context.codemap),
      ...context.requirements.map(doc),
    ]);
    const tasks = phase.tasks.map((t) => ({ id: t.id, state: t.state, text: t.text }));
    input.plan = {
      name: payload.plan,
      phase: { number: phase.number, name: phase.name },
      tasks,
      ...(taskPlan ? { taskPlan } : {}),
      ...(checklist ? { checklist } : {}),
      ...(contextDoc ? { context: contextDoc } : {}),
      ...(codemap ? { codemap } : {}),
      requirements: requirements.filter((r): r is PromptDocument => r !== undefined),
    };
    if (contextDoc) await write('context.md', contextDoc.text);
    if (checklist) await write('checklist.md', checklist.text);
    if (taskPlan) await write('task-plan.md', taskPlan.text);
    if (codemap) await write('codemap.mmd', codemap.text);
    for (const r of input.plan.requirements)
      await write(`requirements/${r.path.split('/').pop()}`, r.text);
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
    input.ciFailures = await readCiFailures(gh, repo, payload.headSha, config, secrets, identity);
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
 * A plan of another kind (spec-kit, Kiro, Task Master) at `headSha`: the phase's tasks, the
 * documents its PR links (spec, plan, data model, contracts; requirements and design), and the
 * text the kind gives the phase (Kiro's cited requirements, Task Master's details and test
 * strategy).
 */
async function writeKindContext(
  gh: GitHub,
  repo: Repo,
  payload: AgentPayload,
  input: PromptInput,
  write: (name: string, text: string) => Promise<void>,
): Promise<void> {
  const plan = planFromRef(payload.planFile!);
  if (!plan)
    throw new Error(`The payload's planFile ${payload.planFile} is no plan the loop reads.`);
  const reader = new GitReader(gh, repo);
  const tree = await reader.tree(payload.headSha);
  const { kp, texts } = await readKindPlan(reader, tree, plan);
  const phase = kp.phases.find((p) => p.number === payload.phaseId);
  if (!phase)
    throw new Error(
      `The plan ${payload.plan} at ${payload.headSha.slice(0, 7)} has no phase ${payload.phaseId}.`,
    );
  const context = kp.context(phase);
  const documents: { label: string; doc: PromptDocument }[] = [];
  for (const link of [{ label: 'Tasks', path: plan.path }, ...context.links]) {
    if (documents.some((d) => d.doc.path === link.path)) continue;
    const sha = tree.files.get(link.path);
    const text = texts.get(link.path) ?? (sha ? await reader.blob(sha) : undefined);
    if (text !== undefined) documents.push({ label: link.label, doc: { path: link.path, text } });
  }
  for (const section of context.sections)
    documents.push({ label: section.title, doc: { path: plan.path, text: section.text } });
  const tasks = phase.tasks.map((t) => ({
    id: t.id,
    state: t.state === 'set-aside' ? ('done' as const) : t.state,
    text: t.text,
  }));
  input.documentsDir = plan.folder;
  input.plan = {
    name: payload.plan!,
    phase: { number: phase.number, name: phase.name },
    tasks,
    requirements: [],
    documents,
  };
  for (const { doc } of documents)
    if (doc.path !== plan.path)
      await write(`plan/${doc.path.slice(plan.folder.length + 1)}`, doc.text);
  await write(`plan/${plan.path.split('/').pop()}`, texts.get(plan.path) ?? '');
  await write(
    'tasks.json',
    `${JSON.stringify({ plan: payload.plan, phase: { number: phase.number, name: phase.name }, tasks }, null, 2)}\n`,
  );
}
