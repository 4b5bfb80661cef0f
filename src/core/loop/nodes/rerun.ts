import type { RunState } from '../record/marker.js';
import type { Decision, PullSnapshot } from '../snapshot/pullSnapshot.js';
import { reply } from '../messages/replies.js';

/**
 * `/coder run` while the plan's current phase already has its open PR (a run stopped with
 * `/coder stop`, or a phase started with `/coder next`): the run goes on from that PR. Its record
 * gets the run (who starts it now, when), the PR keeps its state, and its merge starts the next
 * phase. A run already on the PR is said, not written again (a twin or a second command).
 */
export function resumeRunOn(
  snap: PullSnapshot,
  run: Omit<RunState, 'plan'>,
  thread: number,
): Decision {
  const { marker, pr } = snap;
  const plan = marker.plan ?? '';
  const outcome = {
    mode: 'plan' as const,
    plan,
    branch: pr.head.ref,
    pullRequest: pr.number,
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
  if (marker.run && marker.run.plan === plan)
    return {
      outcome: { ...outcome, state: 'already-started' },
      effects: [{ kind: 'reply', to: thread, body: reply.runGoing(pr.number, plan) }],
    };
  return {
    outcome: { ...outcome, state: 'run-resumed' },
    effects: [
      { kind: 'marker', marker: { ...marker, run: { ...run, plan } } },
      { kind: 'reply', to: thread, body: reply.runResumed(pr.number, plan, marker.phase) },
    ],
  };
}
