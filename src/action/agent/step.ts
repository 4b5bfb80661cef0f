import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  sanitizeUntrusted,
  type AgentConfig,
  type AgentOutcome,
  type AgentPayload,
  type ChangeSet,
  type Config,
  type LoopIdentity,
} from '../../core/index.js';
import { agentPullRequest } from '../../github/agent.js';
import type { GitHub, Repo } from '../../github/client.js';
import { collectChanges, headOf } from './collect.js';
import { writeAgentContext } from './context.js';
import { runAgent } from './process.js';

/** What the agent writes about its run, read at most. */
const MAX_SUMMARY_BYTES = 64 * 1024;
/** Of the agent's output, what stands in for a summary it did not write. */
const OUTPUT_TAIL_CHARS = 3_000;

export interface AgentStepInput {
  gh: GitHub;
  repo: Repo;
  payload: AgentPayload;
  /** The default branch's config, whose `agent` is set. */
  config: Config & { agent: AgentConfig };
  /** The checkout, at `payload.headSha`. */
  workspace: string;
  changesDir: string;
  /** Where the context and output folders go: outside the checkout. */
  tempDir: string;
  env: NodeJS.ProcessEnv;
  /**
   * The loop's identity when the workflow names it (input `app-slug`): the PR's author is then
   * checked here too. `step: apply` always checks it, with the writing token's identity.
   */
  identity?: LoopIdentity;
  log: { info: (m: string) => void; warn: (m: string) => void };
}

export interface AgentStepResult {
  outcome: AgentOutcome;
  files: number;
  reason?: string;
}

function inside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** What the agent sees of the environment: PATH, HOME, its own variables, CODER_*. */
export function agentEnvironment(
  env: NodeJS.ProcessEnv,
  agent: Pick<AgentConfig, 'env'>,
  coder: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', ...agent.env]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...coder };
}

async function writeResult(dir: string, run: ChangeSet, summary: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'changes.json'), `${JSON.stringify(run)}\n`);
  await writeFile(join(dir, 'summary.md'), summary.endsWith('\n') ? summary : `${summary}\n`);
}

/**
 * `step: agent`: the context folder and the prompt, the agent's command under its timeout with a
 * scrubbed environment, then its changes against `headSha` into `changes-dir`. Holds no write
 * token and writes nothing to GitHub.
 */
export async function agentStep(input: AgentStepInput): Promise<AgentStepResult> {
  const { gh, repo, payload, config, workspace, changesDir, log } = input;
  const agent = config.agent;
  const secrets = agent.env.map((name) => input.env[name] ?? '').filter(Boolean);
  const stale = async (reason: string): Promise<AgentStepResult> => {
    log.warn(`coder-loop agent: ${reason}; the agent was not run.`);
    await writeResult(
      changesDir,
      { version: 1, headSha: payload.headSha, outcome: 'stale', reason, changes: [] },
      '',
    );
    return { outcome: 'stale', files: 0, reason };
  };

  const pr = await agentPullRequest(gh, repo, payload, input.identity);
  if ('reason' in pr) throw new Error(`Not a loop pull request to work on: ${pr.reason}.`);
  if (pr.pull.headSha !== payload.headSha)
    return stale(
      `the branch moved from ${payload.headSha.slice(0, 7)} to ${pr.pull.headSha.slice(0, 7)}`,
    );
  const checkedOut = await headOf(workspace);
  if (checkedOut !== payload.headSha)
    throw new Error(
      `The checkout is at ${checkedOut.slice(0, 7)}, not at the hand-off's head ${payload.headSha.slice(0, 7)}: check out \`ref: \${{ github.event.client_payload.headSha }}\`.`,
    );
  for (const dir of [changesDir, input.tempDir])
    if (inside(workspace, dir))
      throw new Error(`${dir} is inside the checkout: its files would become the agent's changes.`);

  const root = await mkdtemp(join(input.tempDir, 'coder-loop-agent-'));
  const dirs = {
    context: join(root, 'context'),
    output: join(root, 'output'),
    prompt: join(root, 'prompt.md'),
  };
  await mkdir(dirs.context, { recursive: true });
  await mkdir(dirs.output, { recursive: true });
  await writeAgentContext(gh, repo, payload, config, dirs, secrets, input.identity);

  const env = agentEnvironment(input.env, agent, {
    CODER_NODE: payload.node,
    CODER_ATTEMPT: String(payload.attempt),
    CODER_PLAN: payload.plan ?? '',
    CODER_PHASE: payload.phase === null ? '' : String(payload.phase),
    CODER_BRANCH: payload.branch,
    CODER_PROMPT_FILE: dirs.prompt,
    CODER_CONTEXT_DIR: dirs.context,
    CODER_OUTPUT_DIR: dirs.output,
  });
  log.info(
    `coder-loop agent: ${payload.node} (attempt ${payload.attempt}), up to ${agent.timeoutMinutes} min`,
  );
  const run = await runAgent(agent.command, {
    cwd: workspace,
    env,
    timeoutMs: agentTimeoutMs(agent, input.env),
  });

  let summary: string;
  try {
    const bytes = await readFile(join(dirs.output, 'summary.md'));
    summary = bytes.subarray(0, MAX_SUMMARY_BYTES).toString('utf8');
  } catch {
    summary = run.outputTail.slice(-OUTPUT_TAIL_CHARS);
  }
  summary = sanitizeUntrusted(summary, secrets);

  let outcome: AgentOutcome;
  let reason: string | undefined;
  let changes: ChangeSet['changes'] = [];
  if (run.timedOut) {
    outcome = 'timed-out';
    reason = `was stopped after ${agent.timeoutMinutes} minutes (its process group was killed)`;
  } else if (run.exitCode !== 0) {
    outcome = 'failed';
    reason =
      run.exitCode === null
        ? `was ended by ${run.signal ?? 'a signal'}`
        : `exited with code ${run.exitCode}`;
  } else {
    changes = await collectChanges(workspace, payload.headSha);
    outcome = changes.length ? 'changed' : 'no-change';
  }
  await writeResult(
    changesDir,
    { version: 1, headSha: payload.headSha, outcome, ...(reason ? { reason } : {}), changes },
    summary,
  );
  if (reason) log.warn(`coder-loop agent: the agent ${reason}; its changes are not applied.`);
  return { outcome, files: changes.length, ...(reason ? { reason } : {}) };
}

/**
 * The agent's time limit. `CODER_LOOP_AGENT_TIMEOUT_MS` (tests only) shortens it; it can never
 * lengthen it past `timeoutMinutes`.
 */
function agentTimeoutMs(
  agent: Pick<AgentConfig, 'timeoutMinutes'>,
  env: NodeJS.ProcessEnv,
): number {
  const limit = agent.timeoutMinutes * 60_000;
  const override = Number(env.CODER_LOOP_AGENT_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? Math.min(override, limit) : limit;
}
