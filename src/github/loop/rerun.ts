import { resumeRunOn, type Config, type LoopOutcome, type RunState } from '../../core/index.js';
import { getPull } from '../pulls.js';
import type { LoopEnv } from './env.js';
import { apply } from './apply.js';
import { pullContext } from './snapshot.js';
import { trustedLoopPull } from './trust.js';

/**
 * `/coder run` found the current phase locked by the open PR `number`: when that PR is the loop's
 * own plan-mode PR (its record read as every loop PR's is), the run goes on from it
 * (`resumeRunOn`, carried out by the PR side's applier); anything else gets the locked reply.
 */
export async function goOnFromHeld(
  env: LoopEnv,
  config: Config,
  number: number,
  run: Omit<RunState, 'plan'>,
  thread: number,
  locked: () => Promise<LoopOutcome>,
): Promise<LoopOutcome> {
  const pr = await getPull(env.gh, env.repo, number);
  if (pr.state !== 'open') return locked();
  const loop = await trustedLoopPull(env, pr);
  if ('ignored' in loop || loop.marker.mode !== 'plan') return locked();
  const ctx = pullContext(env, config, loop);
  const decided = resumeRunOn(ctx.snap, run, thread);
  if ('need' in decided) throw new Error('resuming a run needs nothing read');
  return apply(ctx, decided.effects, decided.outcome);
}
