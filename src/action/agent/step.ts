import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  incredibleReset,
  sanitizeUntrusted,
  usageLimitOf,
  usageFromFile,
  usageFromOutput,
  type RunFile,
  type Usage,
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
  /** sha256 of what was written to changes-dir (`step: apply` checks it when it is handed on). */
  digest: string;
}

function inside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** What the agent sees of the environment: PATH, HOME, its own variables, CODER_*. */
function agentEnvironment(
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

/** `usage.json` in the output folder, read at most. */
const MAX_USAGE_BYTES = 4 * 1024;

/**
 * The digest of a result, over its files' bytes: what `step: apply` recomputes. `run.json` counts
 * when it is there (a result without it, from before it was written, keeps its digest).
 */
export function changesDigest(
  changesJson: Buffer | string,
  summary: Buffer | string,
  run?: Buffer | string,
): string {
  const hash = createHash('sha256');
  for (const part of run === undefined ? [changesJson, summary] : [changesJson, summary, run]) {
    const bytes = Buffer.from(part);
    hash.update(`${bytes.length}\n`);
    hash.update(bytes);
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The result, written once every process of the agent is gone: into a fresh folder beside
 * `changes-dir`, which then replaces it, so nothing the agent planted there (files, links, a
 * `changes.json` of its own) is left and no earlier writer can touch the new files.
 */
async function writeResult(
  dir: string,
  run: ChangeSet,
  summary: string,
  measured?: RunFile,
): Promise<string> {
  const changes = `${JSON.stringify(run)}\n`;
  const text = summary.endsWith('\n') ? summary : `${summary}\n`;
  const runJson = measured ? `${JSON.stringify(measured)}\n` : undefined;
  await mkdir(dirname(dir), { recursive: true });
  const fresh = await mkdtemp(join(dirname(dir), `.${basename(dir)}-`));
  await writeFile(join(fresh, 'changes.json'), changes);
  await writeFile(join(fresh, 'summary.md'), text);
  if (runJson) await writeFile(join(fresh, 'run.json'), runJson);
  await rm(dir, { recursive: true, force: true });
  await rename(fresh, dir);
  return changesDigest(changes, text, runJson);
}

/**
 * What the run used, as the agent reported it: `$CODER_OUTPUT_DIR/usage.json` when it wrote one,
 * else what its CLI printed in its machine-readable output (src/core/agent/usage.ts).
 */
async function readUsage(outputDir: string, stdout: string): Promise<Usage | undefined> {
  try {
    const bytes = await readFile(join(outputDir, 'usage.json'));
    if (bytes.length <= MAX_USAGE_BYTES) {
      const usage = usageFromFile(bytes.toString('utf8'));
      if (usage) return usage;
    }
  } catch {
    // None written: the output may tell.
  }
  return usageFromOutput(stdout);
}

/** The runner's file commands (GITHUB_ENV, GITHUB_OUTPUT, …) as they stood before the agent. */
const FILE_COMMANDS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
] as const;

async function fileCommandSizes(env: NodeJS.ProcessEnv): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const name of FILE_COMMANDS) {
    const path = env[name];
    if (!path) continue;
    try {
      sizes.set(path, (await stat(path)).size);
    } catch {
      sizes.set(path, 0);
    }
  }
  return sizes;
}

/** Whatever the agent appended to the step's file commands is cut off (it could set env for the next steps). */
async function restoreFileCommands(sizes: Map<string, number>): Promise<string[]> {
  const cut: string[] = [];
  for (const [path, size] of sizes) {
    try {
      if ((await stat(path)).size !== size) {
        await truncate(path, size);
        cut.push(path);
      }
    } catch {
      // Gone: nothing to undo.
    }
  }
  return cut;
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
    const digest = await writeResult(
      changesDir,
      { version: 1, headSha: payload.headSha, outcome: 'stale', reason, changes: [] },
      '',
    );
    return { outcome: 'stale', files: 0, reason, digest };
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
  // SIGUSR1 would open Node's inspector, to this process, for any process of the same user.
  const ignoreUsr1 = () => undefined;
  process.on('SIGUSR1', ignoreUsr1);
  const sizes = await fileCommandSizes(input.env);
  const started = Date.now();
  const run = await runAgent(agent.command, {
    cwd: workspace,
    env,
    timeoutMs: agentTimeoutMs(agent, input.env),
    tempDir: input.tempDir,
    processEnv: input.env,
  });
  process.off('SIGUSR1', ignoreUsr1);
  // Wall time, measured here: what a budget counts, whatever the agent says.
  const minutes = Math.round(((Date.now() - started) / 60_000) * 1000) / 1000;
  for (const path of await restoreFileCommands(sizes))
    log.warn(`coder-loop agent: the agent wrote to ${path}; that was undone.`);
  if (run.containment === 'pid-namespace')
    log.info(
      `coder-loop agent: ran in a PID namespace of its own (${run.launcher}); none of its processes is left.`,
    );
  else
    log.warn(
      `coder-loop agent: ran without a PID namespace (${run.launcher}): its processes were tracked in /proc and killed at the end${run.survivors ? `, but ${run.survivors} could not be killed` : ''}. See docs/agent.md, "Containment".`,
    );

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
  let pause: ChangeSet['pause'];
  let changes: ChangeSet['changes'] = [];
  // The provider's usage or rate limit ended it (or kept it retrying until its time ran out).
  const now = new Date();
  const limit =
    run.timedOut || run.exitCode !== 0
      ? usageLimitOf(run.outputTail, now, input.env.TZ || 'UTC')
      : undefined;
  // A reset no provider's limit lasts to is not a pause: the run failed (its output said so).
  const incredible = limit && incredibleReset(limit.until, now);
  if (limit && incredible) {
    outcome = 'failed';
    reason = sanitizeUntrusted(
      `stopped with what reads as ${limit.cli}'s ${limit.kind}, but ${incredible}`,
      secrets,
    ).slice(0, 1000);
  } else if (limit) {
    outcome = 'paused';
    reason = sanitizeUntrusted(
      `${limit.cli} reached its ${limit.kind}: ${limit.message}`,
      secrets,
    ).slice(0, 1000);
    pause = { reason, ...(limit.until ? { until: limit.until } : {}) };
    // Its work so far, kept as partial work by `step: apply` with `keepPartialWork` (as a timeout).
    if (agent.keepPartialWork) changes = await collectChanges(workspace, payload.headSha);
  } else if (run.timedOut) {
    outcome = 'timed-out';
    reason = `was stopped after ${agent.timeoutMinutes} minutes (it and every process it started were killed)`;
    // Its work so far, for `step: apply` to keep as partial (it decides, with the same setting).
    if (agent.keepPartialWork) changes = await collectChanges(workspace, payload.headSha);
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
  const usage = await readUsage(dirs.output, run.stdoutTail);
  const digest = await writeResult(
    changesDir,
    {
      version: 1,
      headSha: payload.headSha,
      outcome,
      ...(reason ? { reason } : {}),
      ...(pause ? { pause } : {}),
      changes,
    },
    summary,
    { version: 1, minutes, timedOut: run.timedOut, ...(usage ? { usage } : {}) },
  );
  if (pause)
    log.warn(
      `coder-loop agent: paused at the provider's limit${pause.until ? ` until ${pause.until}` : ''} (${reason}); ${changes.length ? `its ${changes.length} changed files are handed on as partial work` : agent.keepPartialWork ? 'it changed nothing' : 'what it changed is not kept (agent.keepPartialWork is off)'}. No attempt is spent.`,
    );
  else if (reason)
    log.warn(
      `coder-loop agent: the agent ${reason}; ${changes.length ? `its ${changes.length} changed files are handed on as partial work` : 'its changes are not applied'}.`,
    );
  return { outcome, files: changes.length, ...(reason ? { reason } : {}), digest };
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
