import {
  decideRunNext,
  pullProgress,
  loopPullProblem,
  mayCommand,
  phaseBranch,
  type Config,
  type LoopMarker,
  type LoopOutcome,
  type RunPlanState,
} from '../../core/index.js';
import type { GitReader, Tree } from '../git.js';
import { keepsStatus, type OwnCheckRun } from '../checks.js';
import { readPermission } from '../identity.js';
import { openRecordedOnTree } from '../openPlan.js';
import { openPulls, type PullRequest } from '../pulls.js';
import type { RepoEffect } from './repoEffect.js';
import { readerFor, type LoopEnv } from './env.js';
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
  /**
   * What the close itself says (the PR merged, its branch deleted): said last in the comment of
   * the run's next step — the next phase's start, or why the run stops — not in one of its own.
   */
  said?: string;
}

/**
 * `/coder run` goes on (SPEC §3 item 12): after a phase PR of a run closes, reads what
 * `decideRunNext` needs — the starter's permission now, the plan on the default branch's new head,
 * the plan's other open phase PRs — and starts the next phase through the start path of
 * `/coder next` (its lock branch is the one start), or says once on the issue why the run stops
 * (the run is taken out of the closed PR's record first, so a redelivery says nothing: the
 * effects, in that order, for the caller's applier). Undefined when the record holds no run: the
 * close was all there was.
 */
export async function continueRun(
  env: LoopEnv,
  config: Config,
  closed: ClosedPhase,
): Promise<{ outcome: LoopOutcome; effects: RepoEffect[] } | undefined> {
  const { marker } = closed;
  const run = marker.run;
  if (!run || marker.mode !== 'plan' || marker.plan !== run.plan) return undefined;
  const { gh, repo } = env;
  const reader = readerFor(env);
  const [permission, tree, pulls] = await Promise.all([
    readPermission(gh, repo, run.starter),
    reader.base(env.defaultBranch),
    openPulls(gh, repo),
  ]);
  if (!tree) throw new Error(`The default branch ${env.defaultBranch} has no head commit.`);
  const where = await planState(reader, tree, config, marker);
  const phasePrefix = phaseBranch(run.plan, 0).replace(/0$/, '');
  const identity = await env.identity();
  const decision = decideRunNext({
    record: marker,
    pr: closed.pr.number,
    merged: closed.merged,
    verified: closed.verified,
    starterPermitted: mayCommand(permission),
    ...where,
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
      const effects: RepoEffect[] = runTakenOut(closed, keepsStatus(identity));
      const body = closed.said ? `${decision.reason}\n\n${closed.said}` : decision.reason;
      effects.push({ kind: 'reply', to: marker.issue, body });
      // The progress comment ends with the same sentence (and the merged phase's row).
      effects.push({
        kind: 'progress',
        input: pullProgress(marker, run, closed.pr.number, closed.own?.node, {
          reason: decision.reason,
          merged: closed.merged,
        }),
        id: run.progress,
        plan: run.plan,
        plansDir: config.plansDir,
        ...(marker.planFile !== undefined ? { planFile: marker.planFile } : {}),
      });
      return { outcome: { state: decision.state, mode: 'plan', plan: run.plan }, effects };
    }
    case 'start': {
      const { plan, ...carried } = decision.run;
      const outcome = await start(env, {
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
        ...(closed.said !== undefined ? { note: closed.said } : {}),
      });
      // The run went on to the next phase, whose record carries it now: the closed PR's record
      // lets it go, so that this close heard again (its workflow run re-run, a redelivery) after
      // the run stopped (`/coder stop`, its budget, its end) starts nothing. Only once the start
      // is through: a start that failed leaves the run here, for the close delivered again.
      return { outcome, effects: runTakenOut(closed, keepsStatus(identity)) };
    }
  }
}

/** The closed PR's record without its run: where the loop keeps it (check run, or PR body). */
function runTakenOut(closed: ClosedPhase, asPerson: boolean): RepoEffect[] {
  const rest = { ...closed.marker };
  delete rest.run;
  // Acting as a person (no check runs): the record is the marker in the PR's body.
  if (asPerson || closed.own?.commitStatus)
    return [
      { kind: 'bodyRecord', pr: closed.pr.number, body: closed.pr.body ?? null, marker: rest },
    ];
  if (closed.own)
    return [{ kind: 'record', own: closed.own, marker: rest, sha: closed.pr.head.sha }];
  return [];
}

/**
 * Where the run's plan stands on the default branch: its next phase in the plan's order (Task
 * Master: dependencies), complete or waiting, whether the merged phase is finished there.
 */
async function planState(
  reader: GitReader,
  tree: Tree,
  config: Config,
  marker: LoopMarker,
): Promise<RunPlanState> {
  const plan = await openRecordedOnTree(
    reader,
    tree,
    config,
    {
      plan: marker.run!.plan,
      ...(marker.planFile !== undefined ? { planFile: marker.planFile } : {}),
    },
    { contents: false },
  );
  return 'problems' in plan ? { nextPhase: undefined, planComplete: false } : plan.runState(marker);
}
