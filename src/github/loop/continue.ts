import {
  decideRunNext,
  pullProgress,
  loopPullProblem,
  mayCommand,
  phaseBranch,
  type Config,
  type LoopMarker,
  type LoopOutcome,
  updateMarker,
} from '../../core/index.js';
import { keepsStatus, writeRecord, type OwnCheckRun } from '../checks.js';
import { readPermission } from '../identity.js';
import { replyOnIssue } from '../issues.js';
import { readPlan } from '../plans.js';
import { openPulls, setPullBody, type PullRequest } from '../pulls.js';
import { readerFor, type LoopEnv } from './env.js';
import { writeProgress } from './progress.js';
import { planPhases } from './runProgress.js';
import { start } from './start.js';

/** The closed phase PR of a run, as the loop read it (its record from its head's check run). */
export interface ClosedPhase {
  pr: Pick<PullRequest, 'number' | 'head'> & { body?: string | null };
  /** The loop's record of the PR's last head (trust.ts): never its body, labels or comments. */
  marker: LoopMarker;
  /** The loop's check run on that head (where a stopped run is written off). */
  own: OwnCheckRun | undefined;
  merged: boolean;
  /** The loop's final verification passed on that head (its check run shows End, green). */
  verified: boolean;
}

/**
 * `/coder run` goes on (SPEC §3 item 12): after a phase PR of a run closes, reads what
 * `decideRunNext` needs — the starter's permission now, the plan on the default branch's new head,
 * the plan's other open phase PRs — and starts the next phase through the start path of
 * `/coder next` (its lock branch is the one start), or says once on the issue why the run stops
 * (the run is taken out of the closed PR's record first, so a redelivery says nothing).
 * Undefined when the record holds no run: the close was all there was.
 */
export async function continueRun(
  env: LoopEnv,
  config: Config,
  closed: ClosedPhase,
): Promise<LoopOutcome | undefined> {
  const { marker } = closed;
  const run = marker.run;
  if (!run || marker.mode !== 'plan' || marker.plan !== run.plan) return undefined;
  const { gh, repo } = env;
  const reader = readerFor(env);
  const head = await reader.branchHead(env.defaultBranch);
  if (!head) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
  const [permission, tree, pulls] = await Promise.all([
    readPermission(gh, repo, run.starter),
    reader.tree(head),
    openPulls(gh, repo),
  ]);
  const { context } = await readPlan(reader, tree, config.plansDir, run.plan, { contents: false });
  const phasePrefix = phaseBranch(run.plan, 0).replace(/0$/, '');
  const identity = await env.identity();
  const decision = decideRunNext({
    record: marker,
    pr: closed.pr.number,
    merged: closed.merged,
    verified: closed.verified,
    starterPermitted: mayCommand(permission),
    nextPhase: context.current?.number,
    planComplete: context.checklist !== undefined && context.current === undefined,
    // Only the loop's own phase PRs hold a run up: a fork's PR (or anyone's) named like a phase
    // branch is not a phase of the plan.
    otherPhaseOpen: pulls.some(
      (p) =>
        p.number !== closed.pr.number &&
        p.head.ref.startsWith(phasePrefix) &&
        !loopPullProblem(p, identity),
    ),
    ...(config.budget ? { budget: config.budget } : {}),
    now: env.now().toISOString(),
  });
  switch (decision.kind) {
    case 'none':
      return undefined;
    case 'stop': {
      const rest = { ...marker };
      delete rest.run;
      if (keepsStatus(identity) || closed.own?.commitStatus) {
        // Acting as a person (no check runs): the record is the marker in the PR's body.
        await setPullBody(gh, repo, closed.pr.number, updateMarker(closed.pr.body ?? '', rest));
      } else if (closed.own) {
        await writeRecord(gh, repo, closed.own, rest, closed.pr.head.sha);
      }
      await replyOnIssue(gh, repo, marker.issue, decision.reason);
      // The progress comment ends with the same sentence (and the merged phase's row).
      await writeProgress(
        env,
        pullProgress(marker, run, closed.pr.number, closed.own?.node, {
          reason: decision.reason,
          merged: closed.merged,
        }),
        run.progress,
        planPhases(env, config, run.plan),
      );
      return { state: decision.state, mode: 'plan', plan: run.plan };
    }
    case 'start': {
      const { plan, ...carried } = decision.run;
      return start(env, {
        config,
        who: {
          issue: marker.issue,
          issueUrl: `${env.repoUrl}/issues/${marker.issue}`,
          actor: run.starter,
          run: carried,
        },
        via: 'command',
        repo,
        repoUrl: env.repoUrl,
        defaultBranch: env.defaultBranch,
        now: env.now().toISOString(),
        mode: 'plan',
        plan,
      });
    }
  }
}
