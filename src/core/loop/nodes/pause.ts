import type { AgentNode } from '../../agent/payload.js';
import { escapeInline } from '../../agent/escape.js';
import type { Config } from '../../config.js';
import type { CheckRunView } from '../record/checkRun.js';
import type { NodeId } from '../flowchart.js';
import { withAgent } from '../record/handoff.js';
import type { LoopMarker, PauseState } from '../record/marker.js';
import { escalation } from './escalation.js';
import {
  done,
  handOff,
  type Decided,
  type Effect,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';

/**
 * Paused, not failed: an agent run that ended at its provider's usage or rate limit spends no
 * attempt. Its work is kept (a partial commit, by `step: apply`), the record says *paused until T*
 * and why, the issue is told once, and the same node is handed to the agent again at T — by the
 * App's delayed job, the Action's scheduled sweep, or early by `/coder resume`. Pauses that recur
 * are bounded (`agent.maxPauses`), then escalate with the reason. Pure: `now` is given.
 */

/** Where the flowchart stands while a node's agent run is paused. */
const NODE_OF: Record<AgentNode, NodeId> = {
  tdd: 'TDD',
  'debug-fix': 'Debug',
  'review-fix': 'TDD',
  revise: 'Revise',
};

/**
 * The conclusion of the loop's check run while a node's agent run is paused and when it resumes:
 * the one the node's own view had. Debug & Fix and Revise Code show the head's red verdict
 * (debugFix.ts), and Verification reads it as Debug & Fix reported on this head — so a later red
 * check or status on the same head, once the pause has resumed or been stopped, hands nothing on
 * a second time. TDD and a review's fix show the agent at work, with none.
 */
const CONCLUSION_OF: Record<AgentNode, 'failure' | undefined> = {
  tdd: undefined,
  'debug-fix': 'failure',
  'review-fix': undefined,
  revise: 'failure',
};

/** The check effect of a pause's view: with the node's conclusion, when it has one. */
function pauseCheck(node: AgentNode, view: CheckRunView): Effect {
  const conclusion = CONCLUSION_OF[node];
  return { kind: 'check', view, ...(conclusion ? { conclusion } : {}) };
}

/**
 * The pause's reason where the loop shows it (its reply, check run, escalation): the agent's own
 * output, so quoted as untrusted text — mentions that ping no one, links and images that load
 * nothing, as `step: apply`'s comment shows the same words.
 */
const said = (reason: string): string => escapeInline(reason, 1_000);

/** `2026-03-10 15:00 UTC`: a pause's end, for people. */
function formatUntil(until: string): string {
  return `${until.slice(0, 10)} ${until.slice(11, 16)} UTC`;
}

/** The pause's end: the CLI's reset time, else `agent.pauseMinutes` from now; never in the past. */
function untilOf(reported: string | undefined, now: Date, minutes: number): string {
  const at = reported ? Date.parse(reported) : NaN;
  if (Number.isFinite(at) && at > now.getTime()) return new Date(at).toISOString();
  return new Date(now.getTime() + minutes * 60_000).toISOString();
}

/**
 * What wakes the loop at a pause's end, as the host knows it: its own delayed job (the App with
 * Redis), the scheduled sweep workflow on the default branch (`isResumeSweep`), or nothing — then
 * only `/coder resume` does, and the loop says so rather than promise it.
 */
export type Waker = 'job' | 'sweep' | undefined;

/** How the pause ends, said on the issue and the check run: true to what the host can do. */
function howItResumes(pause: PauseState, waker: Waker): string {
  const until = formatUntil(pause.until);
  switch (waker) {
    case 'job':
      return `The loop hands ${pause.node} to the agent again at ${until} by itself; \`/coder resume\` resumes now, \`/coder stop\` ends it.`;
    case 'sweep':
      return `The scheduled resume workflow hands ${pause.node} to the agent again at its first run after ${until}; \`/coder resume\` resumes now, \`/coder stop\` ends it.`;
    default:
      return `Nothing here resumes it by itself (no scheduled resume workflow on the default branch, no wake-up queue): run \`/coder resume\` after ${until}; \`/coder stop\` ends it.`;
  }
}

/** What the check run shows while paused. */
function pausedView(snap: PullSnapshot, pause: PauseState, waker: Waker): CheckRunView {
  return {
    mode: snap.marker.mode,
    node: NODE_OF[pause.node],
    title: `Paused until ${formatUntil(pause.until)}`,
    next: `The coding agent stopped at its provider's limit (${said(pause.reason)}). No attempt was spent; its work so far is kept. ${howItResumes(pause, waker)}`,
  };
}

/**
 * The agent stopped at a usage or rate limit on this head (the partial commit, when it made one):
 * the pause is recorded, shown and said once; the wake-up is asked of the host (`wake`). One
 * pause past `agent.maxPauses` escalates instead. A pause already recorded for this run is not
 * recorded again (a redelivered apply).
 */
export function pauseAt(
  snap: PullSnapshot,
  config: Config,
  at: { node: AgentNode; attempt: number; reason: string; until?: string },
  now: Date,
  waker: Waker,
): Decided {
  const { marker } = snap;
  if (marker.pause && marker.pause.node === at.node && marker.pause.attempt === at.attempt)
    return done(snap, 'paused', NODE_OF[at.node], [], { reason: 'already paused' });
  const since = now.toISOString();
  const pause: PauseState = {
    node: at.node,
    attempt: at.attempt,
    until: untilOf(at.until, now, config.agent?.pauseMinutes ?? 60),
    since,
    reason: at.reason.slice(0, 1_000),
    ...(waker === 'job' ? { wake: 'job' as const } : {}),
  };
  const pauses = [...(marker.pauses ?? []), { since, until: pause.until, reason: pause.reason }];
  const max = config.agent?.maxPauses ?? 3;
  if (pauses.length > max) {
    const updated: LoopMarker = { ...marker, pauses };
    delete updated.pause;
    const reason = `the coding agent reached its provider's limit ${pauses.length} times (the limit is ${max} pauses): ${said(pause.reason)}`;
    return done(
      snap,
      'escalated',
      'Escalate',
      [{ kind: 'marker', marker: updated }, ...escalation(snap, config, reason, [])],
      { reason },
    );
  }
  const updated: LoopMarker = { ...marker, pause, pauses };
  return done(
    snap,
    'paused',
    NODE_OF[at.node],
    [
      // The host's wake-up first: the record says it is scheduled only once it is.
      ...(waker === 'job' ? [{ kind: 'wake' as const, at: pause.until }] : []),
      { kind: 'marker', marker: updated },
      pauseCheck(pause.node, pausedView(snap, pause, waker)),
      {
        kind: 'reply',
        body: `⏸️ Paused until **${formatUntil(pause.until)}** on #${snap.pr.number}: the coding agent (${at.node}, attempt ${at.attempt}) stopped at its provider's limit — ${said(pause.reason)}. No attempt was spent and its work so far is kept. ${howItResumes(pause, waker)}`,
      },
    ],
    { reason: `paused until ${pause.until}: ${pause.reason}` },
  );
}

/**
 * A pause someone else recorded — the Action's `step: apply`, which has no wake-up queue — seen by
 * a host that has one (the App with Redis), on any event about the loop PR: the host schedules its
 * delayed job for the pause's end, and the record says so (`wake`), so that the next event, a
 * redelivery or another replica schedules nothing more (the job's id is per head and time too).
 * The check run and the issue say the loop now resumes by itself. Undefined: nothing to schedule
 * (no pause, no queue here, scheduled already, escalated).
 */
export function scheduleWake(snap: PullSnapshot, waker: Waker): Decided | undefined {
  const { marker } = snap;
  const pause = marker.pause;
  if (!pause || waker !== 'job' || pause.wake === 'job' || marker.escalation) return undefined;
  const updated: LoopMarker = { ...marker, pause: { ...pause, wake: 'job' } };
  return done(
    snap,
    'paused',
    NODE_OF[pause.node],
    [
      { kind: 'wake', at: pause.until },
      { kind: 'marker', marker: updated },
      pauseCheck(pause.node, pausedView(snap, pause, 'job')),
      {
        kind: 'reply',
        body: `⏰ #${snap.pr.number} is paused until **${formatUntil(pause.until)}** (${said(pause.reason)}). ${howItResumes(pause, 'job')}`,
      },
    ],
    { reason: `paused until ${pause.until}: its wake-up is scheduled` },
  );
}

/**
 * The record without its pause. A pause ends the hand-off it holds: the node is handed on again
 * only by a new dispatch (which the applier records before it sends it), so a writer's re-run of
 * the paused agent workflow run — GitHub delivers the loop's own dispatch again — runs nothing
 * once the pause is stopped, or ends with a head that goes on without the agent.
 */
export function withoutPause(marker: LoopMarker): LoopMarker {
  const updated: LoopMarker = { ...marker };
  if (!updated.pause) return updated;
  delete updated.pause;
  delete updated.handOff;
  return updated;
}

/** Whether the record's pause is due at `now`. */
export function pauseDue(marker: LoopMarker, now: Date): boolean {
  return !!marker.pause && Date.parse(marker.pause.until) <= now.getTime();
}

/**
 * The paused node goes on: the same hand-off again, on the head as it is now (the partial commit
 * included), with the pause cleared. Not due yet (a job early, a sweep): nothing, unless `early`
 * (`/coder resume`). No pause (resumed already, stopped): nothing.
 */
export function resumePause(
  snap: PullSnapshot,
  config: Config,
  now: Date,
  options: { early?: boolean; thread?: number } = {},
): Decided {
  const { marker } = snap;
  const pause = marker.pause;
  if (!pause) return done(snap, 'ignored', undefined, [], { reason: 'not paused' });
  if (!options.early && !pauseDue(marker, now))
    return done(snap, 'not-due', NODE_OF[pause.node], [], {
      reason: `paused until ${pause.until}`,
    });
  const updated = withoutPause(marker);
  const payload = handOff(snap, config, pause.node, pause.attempt, updated);
  const view: CheckRunView = {
    mode: marker.mode,
    node: NODE_OF[pause.node],
    title: 'Resumed after the pause',
    next: 'The pause ended: the node goes on.',
  };
  const effects: Effect[] = [
    { kind: 'marker', marker: updated },
    pauseCheck(pause.node, withAgent(view, payload, snap.repoUrl)),
    ...(payload ? [{ kind: 'dispatch' as const, payload }] : []),
  ];
  if (options.early)
    effects.push({
      kind: 'reply',
      ...(options.thread !== undefined ? { to: options.thread } : {}),
      body: `▶️ Resumed #${snap.pr.number} before ${formatUntil(pause.until)}: ${pause.node} goes to the coding agent again now.`,
    });
  return done(snap, 'resumed', NODE_OF[pause.node], effects, {
    reason: options.early ? 'resumed early' : `resumed at ${now.toISOString()}`,
  });
}
