import type { Config } from '../config.js';
import type { CheckRunView } from './checkRun.js';
import { withAgent } from './handoff.js';
import type { Attempt, LoopMarker } from './marker.js';
import { budgetSpent, phaseSpend, runSpend } from './run.js';
import { reply } from './replies.js';
import { escalation } from './escalation.js';
import { done, handOff, plural, type Decision, type PullSnapshot } from './pullSnapshot.js';

/**
 * Debug & Fix: one more failed attempt on this head (per distinct failed head, and per failed
 * agent run on a head: `agent`); at `maxRetries` in plan mode, escalation. While attempts are
 * left, the head goes to the coding agent when one is configured.
 */
export function debugFix(
  snap: PullSnapshot,
  config: Config,
  failing: Attempt['checks'],
  reason?: string,
  agent?: string,
): Decision {
  const { marker, pr } = snap;
  const head = pr.head.sha;
  const attempts = [
    ...(marker.attempts ?? []).filter((a) => a.sha !== head || a.agent !== agent),
    { sha: head, checks: failing, ...(reason ? { reason } : {}), ...(agent ? { agent } : {}) },
  ];
  const updated: LoopMarker = { ...marker, attempts };
  const k = attempts.length;
  const stated = { reason: reason ?? `attempt ${k} of ${config.maxRetries}` };
  const spent =
    marker.mode === 'plan'
      ? budgetSpent(config.budget, phaseSpend(updated), runSpend(updated))
      : undefined;
  if (marker.mode === 'plan' && (k >= config.maxRetries || spent)) {
    const escalated = escalation(
      { ...snap, marker: updated },
      config,
      k >= config.maxRetries
        ? `${plural(k, 'failed CI attempt')} (the limit is ${config.maxRetries})`
        : (spent ?? ''),
      failing
        .map((c) => `${c.name}: ${c.conclusion}${c.url ? ` (${c.url})` : ''}`)
        .concat(reason ? [reason] : []),
    );
    return done(
      snap,
      'escalated',
      'Escalate',
      [{ kind: 'marker', marker: updated }, ...escalated],
      stated,
    );
  }
  const payload =
    k < config.maxRetries ? handOff(snap, config, 'debug-fix', k, updated) : undefined;
  const view: CheckRunView = {
    mode: marker.mode,
    node: 'Debug',
    title: `Debug & Fix (attempt ${k} of ${config.maxRetries})`,
    next: reason ?? 'Fix the failing checks and push; CI runs again on the new head.',
    attempt: { number: k, of: config.maxRetries },
  };
  return done(
    snap,
    'failed',
    'Debug',
    [
      { kind: 'marker', marker: updated },
      { kind: 'check', view: withAgent(view, payload, snap.repoUrl), conclusion: 'failure' },
      {
        kind: 'reply',
        body: reply.ciFailed(pr.number, k, config.maxRetries, failing, reason),
      },
      ...(payload ? [{ kind: 'dispatch' as const, payload }] : []),
    ],
    payload ? { reason: `${stated.reason}; handed to the coding agent` } : stated,
  );
}
