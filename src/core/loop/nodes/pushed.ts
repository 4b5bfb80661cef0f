import type { Config } from '../../config.js';
import type { LoopMarker } from '../record/marker.js';
import { reply } from '../messages/replies.js';
import {
  done,
  waitingForCi,
  type Decision,
  type Effect,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';

/** The legacy form of the quick "grew" flag: a comment appended to the PR body. */
const GREW_COMMENT = '<!-- coder-loop:grew -->';

/**
 * A push to a loop PR (`synchronize`): the check run shows Verification on the new head; a quick
 * PR that outgrew the quick limits gets one proposal to move to plan mode (the marker remembers).
 */
export function pushed(snap: PullSnapshot, config: Config | undefined, pusher?: string): Decision {
  if (!snap.checks) return { need: 'checks' };
  const { pr } = snap;
  // Who pushed is recorded from the event itself: whatever email the commits carry, that
  // person's approval never counts (SPEC §3.8).
  const known = (snap.marker.pushers ?? []).some((p) => p.toLowerCase() === pusher?.toLowerCase());
  const marker: LoopMarker =
    pusher && !known
      ? { ...snap.marker, pushers: [...(snap.marker.pushers ?? []), pusher] }
      : snap.marker;
  const effects: Effect[] = [
    ...(marker !== snap.marker ? [{ kind: 'marker' as const, marker }] : []),
    ...waitingForCi(snap, 'CI runs on this head; the gate decides when it completes.'),
  ];
  if (marker.mode === 'quick') {
    if (!config) return done(snap, 'config-invalid', undefined, effects);
    if (!snap.files) return { need: 'files' };
    const lines = snap.files.reduce((n, f) => n + f.additions + f.deletions, 0);
    const files = snap.files.length;
    const grew = files > config.quick.maxFiles || lines >= config.quick.maxLines;
    if (grew && !marker.grew && !pr.body.includes(GREW_COMMENT))
      return done(snap, 'quick-grew', 'QuickMode', [
        ...effects,
        { kind: 'marker', marker: { ...marker, grew: true } },
        {
          kind: 'reply',
          body: reply.quickGrew(
            pr.number,
            files,
            lines,
            config.quick.maxFiles,
            config.quick.maxLines,
          ),
        },
      ]);
  }
  return done(snap, 'verification', 'Verification', effects);
}
