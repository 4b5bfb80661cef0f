import type { Config } from '../../config.js';
import { spentAtGreen } from './budget.js';
import type { NodeId } from '../flowchart.js';
import { evaluateGate } from './gate.js';
import { validateVsSpec } from './passesSpec.js';
import type { LoopState } from '../record/outcome.js';
import { reply } from '../messages/replies.js';
import { debugFix } from './debugFix.js';
import { escalation } from './escalation.js';
import { finalVerification } from './finalVerification.js';
import {
  done,
  waitingForCi,
  type Decided,
  type Decision,
  type PullSnapshot,
} from '../snapshot/pullSnapshot.js';
import { scheduleWake, withoutPause, type Waker } from './pause.js';
import { flakyOnPass, triaged } from './triage.js';
import { unreadable } from './unreadable.js';
import { quickPassed, withApprovals } from './approvals.js';
import { architectItems } from './planChanges.js';

/**
 * Verification (CI is the gate) on the PR head, and what follows: Debug & Fix (attempt k of N,
 * escalation at N), Passes Spec? when it passes (Revise Code when a task lacks evidence), then
 * Code Review — or, on the completion commit, Final
 * Verification. Each step happens once per head: the loop's check run records the node reached,
 * and a step already recorded is not repeated (unless `again`: `/coder retry`).
 */
export function verification(
  snap: PullSnapshot,
  config: Config,
  options: {
    again?: boolean;
    /** What wakes a pause's end here: a host with its own queue schedules it (pause.ts). */
    waker?: Waker;
  } = {},
): Decision {
  const { own, marker } = snap;
  const again = options.again === true;
  if (snap.pr.escalated)
    return done(snap, 'escalated', 'Escalate', [], {
      reason: 'escalated: waiting for /coder resume',
    });
  if (!snap.checks) return { need: 'checks' };
  const gate = evaluateGate(snap.checks, config);
  // Paused at the agent's limit (pause.ts): the node waits for its resume — scheduled here first
  // when this host has a wake-up queue and nobody scheduled it yet. CI on the head is still
  // judged: a paused Debug & Fix whose head passes has nothing left to fix, so the pause ends and
  // the head goes on as passed — its attempt given back when the failure passed on a re-run of
  // the same head (flaky), kept when a new head (its partial commit) passes.
  if (marker.pause && !again) {
    const green = marker.pause.node === 'debug-fix' && gate.verdict === 'passed';
    if (!green)
      return (
        scheduleWake(snap, options.waker) ??
        done(snap, 'paused', undefined, [], { reason: `paused until ${marker.pause.until}` })
      );
    const flaky = flakyOnPass(snap, gate.checks);
    const givenBack =
      flaky && (flaky.marker.attempts?.length ?? 0) < (marker.attempts?.length ?? 0);
    const unpaused = withoutPause(givenBack ? flaky.marker : marker);
    const decided = passed({ ...snap, marker: unpaused }, config, again);
    if ('need' in decided) return decided;
    return {
      ...decided,
      effects: [
        ...(givenBack
          ? flaky.effects.map((e) => (e.kind === 'marker' ? { ...e, marker: unpaused } : e))
          : [{ kind: 'marker' as const, marker: unpaused }]),
        ...decided.effects,
      ],
    };
  }
  // `/coder retry` while paused evaluates the head now, so the pause ends with it: on a red head
  // Debug & Fix hands the node on (ending the pause itself), on a green one the head goes on to
  // review and completion, never as a phase that is both complete and paused.
  if (marker.pause && again) {
    const unpaused = withoutPause(marker);
    const decided = verification({ ...snap, marker: unpaused }, config, options);
    if ('need' in decided) return decided;
    return {
      ...decided,
      effects: [{ kind: 'marker' as const, marker: unpaused }, ...decided.effects],
    };
  }
  const reported = (state: LoopState, node: NodeId) =>
    done(snap, state, node, [], { reason: 'already reported' });

  if (gate.verdict === 'pending') {
    const effects = waitingForCi(
      snap,
      `Waiting for ${gate.waiting.length ? gate.waiting.join(', ') : 'CI to report'}.`,
    );
    return done(snap, 'pending', 'Verification', effects, {
      reason: gate.waiting.join(', ') || 'no check has reported',
    });
  }

  if (gate.verdict === 'failed') {
    if (own?.conclusion === 'failure' && !again) return reported('failed', 'Debug');
    const fix = () =>
      debugFix(
        snap,
        config,
        gate.failing.map((c) => ({
          name: c.name,
          conclusion: c.conclusion ?? 'failure',
          ...(c.url ? { url: c.url } : {}),
        })),
      ) as Decided;
    // Triage (triage.ts): what is not the code's fault is re-run, not counted (`/coder retry`
    // asks for Debug & Fix itself).
    return (again ? undefined : triaged(snap, config, gate.failing, fix)) ?? fix();
  }

  // passed: a check that failed and passed on a re-run of this head is flaky (triage.ts).
  const flaky = flakyOnPass(snap, gate.checks);
  if (!flaky) return passed(snap, config, again);
  const decided = passed({ ...snap, marker: flaky.marker }, config, again);
  if ('need' in decided) return decided;
  return { ...decided, effects: [...flaky.effects, ...decided.effects] };
}

/** Verification passed on the head: quick mode's end, Final Verification, or Passes Spec?. */
function passed(snap: PullSnapshot, config: Config, again: boolean): Decision {
  const { own, marker } = snap;
  const reported = (state: LoopState, node: NodeId) =>
    done(snap, state, node, [], { reason: 'already reported' });
  if (marker.mode === 'quick') {
    if (own?.conclusion === 'success' && !again) return reported('passed', 'End');
    // Touched Locked Items?: locked paths and plan documents need an architect, as in plan mode.
    if (!snap.files) return { need: 'files' };
    if (snap.filesIncomplete) return unreadable(snap, 'files');
    const items = architectItems(snap, config);
    if ('need' in items) return items;
    if (items.locked.length === 0 && items.planDocuments.length === 0)
      return done(snap, 'passed', 'End', quickPassed(snap));
    if (own?.node === 'CodeReview' && !again) return reported('code-review', 'CodeReview');
    const listed = [
      ...items.locked.map((p) => `locked: \`${p}\``),
      ...items.planDocuments.map((p) => `plan document: \`${p}\``),
    ];
    return withApprovals(
      snap,
      config,
      done(snap, 'code-review', 'CodeReview', [
        {
          kind: 'check',
          view: {
            mode: 'quick',
            node: 'CodeReview',
            title: 'An architect’s approval is needed',
            next: `CI passed, but this pull request touches ${items.locked.length ? 'locked paths' : 'plan documents'}: an architect's approval of this head completes it.`,
          },
        },
        { kind: 'requestReviews', names: config.architects },
        {
          kind: 'reply',
          body: reply.quickNeedsArchitect(snap.pr.number, config.architects, listed),
        },
      ]),
    );
  }
  if (own?.node === 'FinalVerify' || own?.node === 'End') {
    if (own.conclusion === 'success' && !again) return reported('complete', 'End');
    return finalVerification(snap, config);
  }
  if (own?.node === 'CodeReview' && !again) return reported('code-review', 'CodeReview');
  const spent = spentAtGreen(marker, config, again);
  if (spent)
    return done(snap, 'escalated', 'Escalate', escalation(snap, config, spent, []), {
      reason: spent,
    });
  if (!snap.files) return { need: 'files' };
  if (snap.filesIncomplete) return unreadable(snap, 'files');
  // Passes Spec? (passesSpec.ts): no → Revise Code; yes (or `report`) → Code Review.
  const spec = validateVsSpec(snap, config, again);
  if (!('passed' in spec)) return spec;
  const { table } = spec.passed;
  // An approval that came before CI passed completes the phase now.
  return withApprovals(
    snap,
    config,
    done(snap, 'code-review', 'CodeReview', [
      ...spec.passed.effects,
      {
        kind: 'check',
        view: {
          mode: 'plan',
          node: 'CodeReview',
          title: 'Code review',
          next: `CI passed${table ? ' and each task of the phase is traced below' : ''}. An approving review of this head completes the phase; changes requested send it back to implementation.`,
          ...(table ? { spec: table } : {}),
        },
      },
      { kind: 'requestReviews', names: config.reviewers },
      {
        kind: 'reply',
        body: reply.ciPassed(snap.pr.number, config.reviewers, table !== undefined),
      },
    ]),
  );
}
