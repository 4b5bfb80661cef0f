import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  agentReply,
  ChangeSetSchema,
  RunFileSchema,
  type RunFile,
  type AgentPayload,
  type ChangeSet,
  type LoopIdentity,
} from '../../core/index.js';
import { agentPullRequest, applyAgentRun, type AgentApplyOutcome } from '../../github/agent.js';
import type { GitHub, Repo } from '../../github/client.js';
import { replyOnIssue } from '../../github/issues.js';
import { changesDigest } from './step.js';

/** `changes.json` larger than this is not read (the change limits are far below it). */
const MAX_CHANGES_JSON = 32 * 1024 * 1024;

/** `run.json` larger than this is not what `step: agent` writes. */
const MAX_RUN_JSON = 8 * 1024;

/**
 * `run.json` (the run's wall time and usage), as bytes for the digest and, when it is in shape,
 * parsed. Untrusted like the rest of changes-dir: out of shape, it records nothing.
 */
async function readRunFile(dir: string): Promise<{ bytes?: Buffer; run?: RunFile }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, 'run.json'));
  } catch {
    return {};
  }
  if (bytes.length > MAX_RUN_JSON) return { bytes };
  try {
    const parsed = RunFileSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? { bytes, run: parsed.data } : { bytes };
  } catch {
    return { bytes };
  }
}

async function readChangeSet(
  dir: string,
  digest: string,
  summary: Buffer,
  runBytes: Buffer | undefined,
): Promise<ChangeSet | string> {
  let text: string;
  try {
    const bytes = await readFile(join(dir, 'changes.json'));
    if (bytes.length > MAX_CHANGES_JSON)
      return `changes.json is ${bytes.length} bytes, more than the ${MAX_CHANGES_JSON} read`;
    // Without the digest step agent handed on, nothing tells these files from anyone's.
    if (!digest)
      return 'came without the digest step agent wrote (the `changes-digest` input is empty): nothing is applied that step agent did not vouch for — pass `changes-digest: ${{ needs.agent.outputs.digest }}`';
    if (changesDigest(bytes, summary, runBytes) !== digest)
      return 'left a changes-dir that is not what step agent wrote (its digest differs: something altered it after the agent step)';
    text = bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return 'left no changes.json (did the agent job fail before it wrote one?)';
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'left a changes.json that is not JSON';
  }
  const parsed = ChangeSetSchema.safeParse(data);
  return parsed.success
    ? parsed.data
    : `left a changes.json out of shape (${parsed.error.issues[0]?.path.join('.') || 'top level'}: ${parsed.error.issues[0]?.message})`;
}

/**
 * `step: apply`, with the App token: only for a loop PR of this repository, the changes the agent
 * job left in `changes-dir` become one commit on the branch (or a comment saying why not).
 */
export async function applyStep(input: {
  gh: GitHub;
  repo: Repo;
  payload: AgentPayload;
  plansDir: string;
  /** The config's `plans` globs: every plan's documents are refused (absent: the defaults). */
  plans?: readonly string[];
  changesDir: string;
  /** Step agent's `digest` output, handed on by the workflow; empty when the workflow does not. */
  digest?: string;
  /** The writing token's identity: the PR must be the loop's own. */
  identity: LoopIdentity;
  /** `agent.keepPartialWork` of the default branch's config. */
  keepPartialWork?: boolean;
  /** The repository's page: the loop's check run on a new commit links into it. */
  repoUrl?: string;
}): Promise<AgentApplyOutcome | { state: 'ignored'; reason: string; failedAttempt: false }> {
  const { gh, repo, payload } = input;
  const pr = await agentPullRequest(gh, repo, payload, input.identity);
  if ('reason' in pr) return { state: 'ignored', reason: pr.reason, failedAttempt: false };
  let summaryBytes = Buffer.alloc(0);
  try {
    summaryBytes = await readFile(join(input.changesDir, 'summary.md'));
  } catch {
    // No summary: the comment goes without one.
  }
  const measured = await readRunFile(input.changesDir);
  const run = await readChangeSet(
    input.changesDir,
    input.digest ?? '',
    summaryBytes,
    measured.bytes,
  );
  if (typeof run === 'string') {
    await replyOnIssue(
      gh,
      repo,
      payload.pullRequest,
      agentReply.failed(payload, run, ''),
      async () => input.identity.login,
    );
    return { state: 'agent-failed', failedAttempt: true, reason: run };
  }
  const summary = summaryBytes.toString('utf8');
  return applyAgentRun(gh, repo, payload, run, summary, input.plansDir, {
    keepPartialWork: input.keepPartialWork ?? false,
    ...(input.plans ? { plans: input.plans } : {}),
    ...(pr.pull.baseSha ? { baseSha: pr.pull.baseSha } : {}),
    ...(measured.run ? { measured: measured.run } : {}),
    record: {
      identity: input.identity,
      repoUrl: input.repoUrl ?? `https://github.com/${repo.owner}/${repo.repo}`,
    },
  });
}
