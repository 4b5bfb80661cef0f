import {
  agentHandOff,
  changesATest,
  evaluateGate,
  reply,
  updateMarker,
  type Attempt,
  type Config,
  type LoopMarker,
  withAgent,
} from '../../core/index.js';
import { sendAgentDispatch } from '../agent.js';
import { isHttpError } from '../client.js';
import { readHeadChecks, type HeadChecks } from '../checks.js';
import { replyOnIssue } from '../issues.js';
import {
  ESCALATED_LABEL,
  findPullRequest,
  isEscalated,
  pullRequestFiles,
  requestReviews,
} from '../pulls.js';
import { showCheck, type LoopEnv, type LoopOutcome } from './env.js';
import { completeIfApproved } from './review.js';
import { trustedLoopPull, type LoopPull } from './trust.js';

export type { LoopPull } from './trust.js';

/** The open loop PR whose head is `branch`, when `sha` is still its head (else: an old head). */
export async function loopPullForHead(
  env: LoopEnv,
  branch: string | null | undefined,
  sha: string,
): Promise<LoopPull | { ignored: string }> {
  if (!branch || !branch.startsWith('coder/')) return { ignored: 'not a coder-loop branch' };
  const pr = await findPullRequest(env.gh, env.repo, branch);
  if (!pr) return { ignored: `no open pull request for ${branch}` };
  if (pr.head.sha !== sha)
    return { ignored: `old head ${sha.slice(0, 7)} (the head is ${pr.head.sha.slice(0, 7)})` };
  return trustedLoopPull(env, pr);
}

const viewBase = (marker: LoopMarker) => ({ mode: marker.mode });
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Verification (CI is the gate) on a loop PR's head, and what follows from it: Debug & Fix with
 * attempt k of N, escalation at N, Code Review when it passes — or, on the completion commit,
 * Final Verification. Each step happens once per head: the loop's own check run on the head
 * records the node it reached, and a step already recorded is not repeated.
 */
export async function evaluate(
  env: LoopEnv,
  config: Config,
  { pr, marker }: LoopPull,
  options: { again?: boolean } = {},
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const head = pr.head.sha;
  const branch = pr.head.ref;
  const outcome: LoopOutcome = {
    state: 'pending',
    mode: marker.mode,
    branch,
    pullRequest: pr.number,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
  if (isEscalated(pr))
    return { ...outcome, state: 'escalated', reason: 'escalated: waiting for /coder resume' };
  const checks = await readHeadChecks(gh, repo, head, await env.identity());
  const own = checks.own;
  const finalStep = own?.node === 'FinalVerify' || own?.node === 'End';
  const gate = evaluateGate(checks.results, config);

  if (gate.verdict === 'pending') {
    if (!own) {
      await showCheck(env, { sha: head, ref: branch }, undefined, {
        view: {
          ...viewBase(marker),
          node: 'Verification',
          title: 'Verification: waiting for CI',
          next: `Waiting for ${gate.waiting.length ? gate.waiting.join(', ') : 'CI to report'}.`,
        },
      });
    }
    return {
      ...outcome,
      state: 'pending',
      reason: gate.waiting.join(', ') || 'no check has reported',
    };
  }

  if (gate.verdict === 'failed') {
    if (own?.conclusion === 'failure' && !options.again)
      return { ...outcome, state: 'failed', reason: 'already reported' };
    return fail(
      env,
      config,
      { pr, marker },
      checks,
      gate.failing.map((c) => ({
        name: c.name,
        conclusion: c.conclusion ?? 'failure',
        ...(c.url ? { url: c.url } : {}),
      })),
    );
  }

  // passed
  if (marker.mode === 'quick') {
    if (own?.conclusion === 'success' && !options.again)
      return { ...outcome, state: 'passed', reason: 'already reported' };
    await showCheck(env, { sha: head, ref: branch }, own, {
      view: {
        mode: 'quick',
        node: 'End',
        title: 'Quick mode: CI passed',
        next: 'Review and merge.',
      },
      conclusion: 'success',
    });
    await replyOnIssue(gh, repo, marker.issue, reply.quickPassed(pr.number));
    return { ...outcome, state: 'passed' };
  }
  if (finalStep) {
    if (own?.conclusion === 'success' && !options.again)
      return { ...outcome, state: 'complete', reason: 'already reported' };
    return finalVerificationPassed(env, config, { pr, marker }, checks);
  }
  if (own?.node === 'CodeReview' && !options.again)
    return { ...outcome, state: 'code-review', reason: 'already reported' };

  const files = await pullRequestFiles(gh, repo, pr.number);
  if (
    !changesATest(
      files.map((f) => f.path),
      config,
    )
  ) {
    if (own?.conclusion === 'failure' && !options.again)
      return { ...outcome, state: 'failed', reason: 'already reported' };
    return fail(
      env,
      config,
      { pr, marker },
      checks,
      [],
      'Write failing test: the pull request changes no test file (`testPaths`).',
    );
  }
  await showCheck(env, { sha: head, ref: branch }, own, {
    view: {
      mode: 'plan',
      node: 'CodeReview',
      title: 'Code review',
      next: 'CI passed. An approving review of this head completes the phase; changes requested send it back to implementation.',
    },
  });
  await requestReviews(gh, repo, pr.number, config.reviewers);
  await replyOnIssue(gh, repo, marker.issue, reply.ciPassed(pr.number, config.reviewers));
  // An approval that came before CI passed completes the phase now.
  const completed = await completeIfApproved(env, config, { pr, marker }, files);
  return completed ?? { ...outcome, state: 'code-review' };
}

/** Debug & Fix: one more failed attempt on this head; at `maxRetries`, escalation. */
async function fail(
  env: LoopEnv,
  config: Config,
  { pr, marker }: LoopPull,
  checks: HeadChecks,
  failing: Attempt['checks'],
  reason?: string,
  agent?: string,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const head = pr.head.sha;
  // One attempt per failed head — and per failed agent run on a head (`agent`: node#attempt).
  const attempts = [
    ...(marker.attempts ?? []).filter((a) => a.sha !== head || a.agent !== agent),
    { sha: head, checks: failing, ...(reason ? { reason } : {}), ...(agent ? { agent } : {}) },
  ];
  const updated: LoopMarker = { ...marker, attempts };
  await setMarker(env, pr, updated);
  const k = attempts.length;
  const outcome: LoopOutcome = {
    state: 'failed',
    mode: marker.mode,
    branch: pr.head.ref,
    pullRequest: pr.number,
    reason: reason ?? `attempt ${k} of ${config.maxRetries}`,
  };
  if (marker.mode === 'plan' && k >= config.maxRetries) {
    await escalate(
      env,
      config,
      { pr, marker: updated },
      checks,
      `${plural(k, 'failed CI attempt')} (the limit is ${config.maxRetries})`,
      failing
        .map((c) => `${c.name}: ${c.conclusion}${c.url ? ` (${c.url})` : ''}`)
        .concat(reason ? [reason] : []),
    );
    return { ...outcome, state: 'escalated' };
  }
  // Debug & Fix: handed to the coding agent while attempts are left (SPEC §9).
  const handOff =
    k < config.maxRetries
      ? agentHandOff(config, {
          node: 'debug-fix',
          repo,
          branch: pr.head.ref,
          headSha: head,
          pullRequest: pr.number,
          marker: updated,
          attempt: k,
        })
      : undefined;
  const view = {
    mode: marker.mode,
    node: 'Debug' as const,
    title: `Debug & Fix (attempt ${k} of ${config.maxRetries})`,
    next: reason ?? 'Fix the failing checks and push; CI runs again on the new head.',
    attempt: { number: k, of: config.maxRetries },
  };
  await showCheck(env, { sha: head, ref: pr.head.ref }, checks.own, {
    view: withAgent(view, handOff, env.repoUrl),
    conclusion: 'failure',
  });
  await replyOnIssue(
    gh,
    repo,
    marker.issue,
    reply.ciFailed(pr.number, k, config.maxRetries, failing, reason),
  );
  if (handOff) await sendAgentDispatch(gh, repo, handOff);
  return handOff
    ? { ...outcome, reason: `${outcome.reason}; handed to the coding agent` }
    : outcome;
}

/**
 * A failed agent run (`step: apply` found no change, refused changes, or the agent failed or
 * timed out): one more failed attempt on the head it was handed, then Debug & Fix again or, at
 * `maxRetries`, escalation — as for a red CI.
 */
export async function agentRunFailed(
  env: LoopEnv,
  config: Config,
  handOff: { branch: string; headSha: string; node: string; attempt: number },
  reason: string,
): Promise<LoopOutcome> {
  const loop = await loopPullForHead(env, handOff.branch, handOff.headSha);
  if ('ignored' in loop) return { state: 'ignored', reason: loop.ignored };
  if (isEscalated(loop.pr)) return { state: 'escalated', reason: 'escalated' };
  const checks = await readHeadChecks(env.gh, env.repo, handOff.headSha, await env.identity());
  return fail(
    env,
    config,
    loop,
    checks,
    [],
    `The coding agent (${handOff.node}, attempt ${handOff.attempt}) produced no commit: ${reason}`,
    `${handOff.node}#${handOff.attempt}`,
  );
}

/** Rewrites the loop's marker (and the attempts section) in its PR's body. */
export async function setMarker(
  env: LoopEnv,
  pr: { number: number; body: string | null },
  marker: LoopMarker,
): Promise<void> {
  await env.gh.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...env.repo,
    pull_number: pr.number,
    body: updateMarker(pr.body ?? '', marker),
  });
}

/** Escalate to Architect: the label on PR and issue, review requested from architects, one comment. */
export async function escalate(
  env: LoopEnv,
  config: Config,
  { pr, marker }: LoopPull,
  checks: HeadChecks | undefined,
  reason: string,
  details: string[],
): Promise<void> {
  const { gh, repo } = env;
  try {
    await gh.request('POST /repos/{owner}/{repo}/labels', {
      ...repo,
      name: ESCALATED_LABEL,
      color: 'b60205',
      description: 'coder-loop: waiting for an architect',
    });
  } catch (error) {
    if (!isHttpError(error, 422)) throw error; // already exists
  }
  for (const issue of new Set([pr.number, marker.issue])) {
    await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      ...repo,
      issue_number: issue,
      labels: [ESCALATED_LABEL],
    });
  }
  await requestReviews(gh, repo, pr.number, config.architects);
  await showCheck(env, { sha: pr.head.sha, ref: pr.head.ref }, checks?.own, {
    view: {
      mode: marker.mode,
      node: 'Escalate',
      title: 'Escalated to architect',
      next: `${reason}. Waiting for an architect; \`/coder resume\` continues.`,
    },
    conclusion: 'failure',
  });
  await replyOnIssue(
    gh,
    repo,
    marker.issue,
    reply.escalated(pr.number, config.architects, reason, details),
  );
}

/** Final Verification → Pass: the phase is complete; with `autoMerge`, the PR is merged. */
async function finalVerificationPassed(
  env: LoopEnv,
  config: Config,
  { pr, marker }: LoopPull,
  checks: HeadChecks,
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  let merged = false;
  if (config.autoMerge) {
    try {
      await gh.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        ...repo,
        pull_number: pr.number,
        sha: pr.head.sha,
        merge_method: 'merge',
      });
      merged = true;
    } catch (error) {
      // 405 (not mergeable, e.g. a required review is missing) or 409 (head moved): say so, do not fail.
      if (!isHttpError(error, 405) && !isHttpError(error, 409)) throw error;
      env.log.warn(
        `auto-merge of #${pr.number} refused: ${String((error as { message?: unknown }).message)}`,
      );
    }
  }
  const phase = marker.phase ?? 0;
  await showCheck(env, { sha: pr.head.sha, ref: pr.head.ref }, checks.own, {
    view: {
      mode: 'plan',
      node: 'End',
      title: `Phase ${phase} complete`,
      next: merged
        ? 'Merged. `/coder next` takes the next phase.'
        : 'Merge this pull request; then `/coder next` takes the next phase.',
    },
    conclusion: 'success',
  });
  // The completion step wrote the next phase into its check run: "FinalVerify;next=2".
  const nextNumber = /;next=(\d+)/.exec(checks.own?.externalId ?? '')?.[1];
  const next = nextNumber ? { number: Number(nextNumber) } : undefined;
  await replyOnIssue(
    gh,
    repo,
    marker.issue,
    reply.phaseComplete(marker.plan ?? '', phase, pr.number, next, merged),
  );
  return {
    state: 'complete',
    mode: 'plan',
    pullRequest: pr.number,
    branch: pr.head.ref,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
}
