import {
  progressPhases,
  pullProgress,
  reply,
  type Config,
  type LoopMarker,
  type NodeId,
  type ProgressPhase,
  type RunState,
} from '../../core/index.js';
import { readPlan } from '../plans.js';
import { readerFor, type LoopEnv } from './env.js';
import { writeProgress } from './progress.js';
import type { PullContext } from './snapshot.js';

/** The plan's phases on the default branch, for a progress comment made again (it was deleted). */
export function planPhases(
  env: LoopEnv,
  config: Config,
  plan: string,
): () => Promise<ProgressPhase[]> {
  return async () => {
    const reader = readerFor(env);
    const head = await reader.branchHead(env.defaultBranch);
    if (!head) return [];
    const tree = await reader.tree(head);
    const { context } = await readPlan(reader, tree, config.plansDir, plan, { contents: false });
    return progressPhases(context.checklist?.phases ?? []);
  };
}

/**
 * The `progress` effect of the PR side: the run's comment shown as the PR stands now (the record
 * as this event left it, the node on its head); `/coder stop` shows the run stopped. A comment
 * made anew (none yet, deleted, not the loop's) has its id kept in the record: the returned
 * marker, for the applier to remember.
 */
export async function showRunProgress(
  ctx: PullContext,
  run: RunState,
  shown?: NodeId,
): Promise<LoopMarker | undefined> {
  const { marker, pr } = ctx.snap;
  const stopped = !marker.run;
  const node = shown ?? ctx.ownRun?.node ?? ctx.snap.own?.node;
  const input = pullProgress(
    marker,
    run,
    pr.number,
    node,
    stopped ? { reason: reply.progressStopped(pr.number), merged: false } : undefined,
  );
  const id = await writeProgress(
    ctx.env,
    input,
    run.progress,
    planPhases(ctx.env, ctx.config, run.plan),
  );
  if (stopped || id === marker.run?.progress) return undefined;
  return { ...marker, run: { ...marker.run!, progress: id } };
}
