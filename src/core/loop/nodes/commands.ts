import type { Config } from '../../config.js';
import { reply } from '../messages/replies.js';
import {
  done,
  isEscalated,
  type Decided,
  type Decision,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';
import { withoutPause } from './pause.js';
import { verification } from './verification.js';

/** `/coder retry`: the gate evaluated again on the head — not while escalated. */
export function retry(snap: PullSnapshot, config: Config, thread: number): Decision {
  if (snap.pr.escalated)
    return done(snap, 'escalated', 'Escalate', [
      {
        kind: 'reply',
        to: thread,
        body: reply.escalated(snap.pr.number, config.architects, 'still escalated', [
          'Run `/coder resume` to clear the escalation first.',
        ]),
      },
    ]);
  return verification(snap, config, { again: true });
}

/**
 * `/coder resume`: the escalation cleared, the attempt count and the review rounds started again;
 * then the gate is evaluated again on the head (the adapter runs `verification` next).
 */
export function resume(snap: PullSnapshot, thread: number): Decision {
  // Not escalated by the head's record: the PR's history may still say so (a force-push).
  if (!snap.pr.escalated && snap.escalatedBefore === undefined) return { need: 'escalation' };
  if (!isEscalated(snap))
    return done(snap, 'not-escalated', undefined, [
      { kind: 'reply', to: thread, body: reply.notEscalated(snap.pr.number) },
    ]);
  const marker = { ...snap.marker };
  delete marker.escalation;
  // The escalation ended the hand-off it found: the gate, evaluated again, asks for a new one if
  // the head needs it, so a re-run of the old agent workflow run runs nothing.
  delete marker.handOff;
  return done(snap, 'resumed', 'Verification', [
    { kind: 'unlabel' },
    { kind: 'marker', marker: { ...marker, attempts: [], reviewRounds: [] } },
    { kind: 'reply', body: reply.resumed(snap.pr.number) },
  ]);
}

/**
 * `/coder stop`: the run ends with this phase. The PR keeps its state; `run` leaves its record,
 * so its merge starts nothing (`decideRunNext` finds no run), and so does a hand-off to the coding
 * agent still in flight: a stop ends the recorded hand-off, so what the agent is working on now is
 * not applied, and a re-run of its workflow run commits nothing.
 */
export function stopRun(snap: PullSnapshot, thread: number): Decided {
  const { run, pause } = snap.marker;
  if (!run && !pause)
    return done(snap, 'no-run', undefined, [
      { kind: 'reply', to: thread, body: reply.noRun(snap.pr.number) },
    ]);
  // A pause ends with it, and the hand-off it held: nothing resumes the agent by itself any more,
  // and a re-run of the paused agent workflow run runs nothing (pause.ts).
  const marker = withoutPause(snap.marker);
  delete marker.run;
  const inFlight = marker.handOff !== undefined;
  delete marker.handOff;
  const said = run
    ? reply.runStopped(snap.pr.number, run.plan)
    : `⏹️ The pause on #${snap.pr.number} is ended: the coding agent is not handed the node again by itself. Push to the branch, or \`/coder retry\` to evaluate it again.`;
  return done(snap, 'run-stopped', undefined, [
    { kind: 'marker', marker },
    {
      kind: 'reply',
      to: thread,
      body: inFlight ? `${said}\n\n${reply.handOffEnded(snap.pr.number)}` : said,
    },
  ]);
}
