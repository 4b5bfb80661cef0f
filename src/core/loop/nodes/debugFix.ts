import type { Config } from '../../config.js';
import type { CheckRunView } from '../record/checkRun.js';
import { withAgent } from '../record/handoff.js';
import type { Attempt, LoopMarker, SpecRecord } from '../record/marker.js';
import { budgetSpent, phaseSpend, runSpend } from './run.js';
import { reply } from '../messages/replies.js';
import { escalation } from './escalation.js';
import { withoutPause } from './pause.js';
import {
  done,
  handOff,
  plural,
  type Decision,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';

/**
 * Debug & Fix: one more failed attempt on this head (per distinct failed head, and per failed
 * agent run on a head: `agent`); at `maxRetries` in plan mode, escalation. While attempts are
 * left, the head goes to the coding agent when one is configured. `revise`: Passes Spec? said no
 * (passesSpec.ts) — the same attempt, shown as Revise Code, with the verdict and its table. A
 * pause the record held ends here.
 */
export function debugFix(
  snap: PullSnapshot,
  config: Config,
  failing: Attempt['checks'],
  reason?: string,
  agent?: string,
  revise?: { spec: SpecRecord; table: string },
): Decision {
  const { marker, pr } = snap;
  const head = pr.head.sha;
  const attempts = [
    ...(marker.attempts ?? []).filter((a) => a.sha !== head || a.agent !== agent),
    { sha: head, checks: failing, ...(reason ? { reason } : {}), ...(agent ? { agent } : {}) },
  ];
  // A failed attempt ends a pause (a person re-ran the paused agent job, and it failed): the node
  // goes on from here, so the pause's end resumes nothing.
  const updated: LoopMarker = withoutPause({
    ...marker,
    attempts,
    ...(revise ? { spec: revise.spec } : {}),
  });
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
      k >= config.maxRetries ? attemptsSaid(attempts, config.maxRetries) : (spent ?? ''),
      failing
        .map((c) => `${c.name}: ${c.conclusion}${c.url ? ` (${c.url})` : ''}`)
        .concat(reason ? [reason] : [])
        .concat(revise?.spec.missing ?? []),
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
    k < config.maxRetries
      ? handOff(snap, config, revise ? 'revise' : 'debug-fix', k, updated)
      : undefined;
  const view: CheckRunView = {
    mode: marker.mode,
    node: revise ? 'Revise' : 'Debug',
    title: `${revise ? 'Passes Spec? no — Revise Code' : 'Debug & Fix'} (attempt ${k} of ${config.maxRetries})`,
    next:
      reason ??
      (agent
        ? 'The coding agent made no commit.'
        : 'Fix the failing checks and push; CI runs again on the new head.'),
    attempt: { number: k, of: config.maxRetries },
    ...(revise ? { spec: revise.table } : {}),
  };
  return done(
    snap,
    'failed',
    revise ? 'Revise' : 'Debug',
    [
      { kind: 'marker', marker: updated },
      { kind: 'check', view: withAgent(view, payload, snap.repoUrl), conclusion: 'failure' },
      {
        kind: 'reply',
        body: revise
          ? reply.specMissing(pr.number, k, config.maxRetries, revise.spec.missing)
          : agent && failing.length === 0
            ? reply.agentFailed(pr.number, k, config.maxRetries, reason ?? 'no commit')
            : reply.ciFailed(pr.number, k, config.maxRetries, failing, reason),
      },
      ...(payload ? [{ kind: 'dispatch' as const, payload }] : []),
    ],
    payload ? { reason: `${stated.reason}; handed to the coding agent` } : stated,
  );
}

/**
 * What the failed attempts were, for the escalation: CI that failed, an agent run that made no
 * commit (no CI ran), Passes Spec? that said no (CI passed) — never "failed CI" for what was not.
 */
function attemptsSaid(attempts: readonly Attempt[], max: number): string {
  const agent = attempts.filter((a) => a.agent).length;
  const spec = attempts.filter((a) => !a.agent && a.checks.length === 0 && a.reason).length;
  const ci = attempts.length - agent - spec;
  const limit = `(the limit is ${max})`;
  if (ci === attempts.length) return `${plural(ci, 'failed CI attempt')} ${limit}`;
  const kinds = [
    ci ? plural(ci, 'red CI') : '',
    agent ? `${plural(agent, 'agent run')} without a commit (no CI ran)` : '',
    spec ? `${spec} × Passes Spec? no (CI passed)` : '',
  ].filter(Boolean);
  return `${plural(attempts.length, 'failed attempt')} ${limit}: ${kinds.join(', ')}`;
}
