import type { AgentPayload } from '../agent/payload.js';
import type { Config } from '../config.js';
import type { CheckRunView } from './checkRun.js';
import type { NodeId } from './flowchart.js';
import { changesATest, evaluateGate, touchedLockedItems, type CheckResult } from './gate.js';
import { agentHandOff, reviewRound, withAgent } from './handoff.js';
import type { Attempt, LoopMarker, RunState } from './marker.js';
import type { LoopOutcome, LoopState } from './outcome.js';
import { spentAtGreen } from './budget.js';
import { budgetSpent, phaseSpend, runSpend } from './run.js';
import { reply } from './replies.js';
import { chooseApproval, reviewStanding, type Permission } from './trust.js';

/**
 * The PR side of the loop, from Verification to Final Verification, as pure decisions: a
 * snapshot of the loop PR read from GitHub goes in, an outcome and the list of effects to carry
 * out come out (XState's `transition()`, release-please's build-then-create). Every branch of the
 * flowchart is here; `src/github/loop` reads the snapshot and applies the effects.
 *
 * Where a decision needs a fact the snapshot does not hold yet (the PR's files, the approvals of
 * the head, whether an approver is an architect), it says so (`need`), so each resource is read
 * only when a branch needs it — the request counts stay those of the straight code.
 */

/** A file the PR changes; a rename names its old path too (it touches both). */
export interface PullFile {
  path: string;
  previous?: string;
  additions: number;
  deletions: number;
}

/** Every path a list of changed files touches: a rename's old and new path alike. */
export function touchedPaths(files: readonly PullFile[]): string[] {
  return files.flatMap((f) => (f.previous ? [f.path, f.previous] : [f.path]));
}

/** The loop's own state on a head, as its check run (or commit status) keeps it. */
export interface OwnState {
  node: NodeId | undefined;
  /** Final verification: the next phase's number, written by the completion step. */
  next?: number;
  conclusion: string | null;
}

/** What the PR side reads of GitHub before deciding. */
export interface PullSnapshot {
  repo: { owner: string; repo: string };
  repoUrl: string;
  pr: {
    number: number;
    url: string;
    body: string;
    head: { sha: string; ref: string };
    /** From the loop's record (`marker.escalation`), never from the label people can change. */
    escalated: boolean;
  };
  /** The loop's record of the PR (record.ts), as of this head. */
  marker: LoopMarker;
  /** The loop's check run on the head; absent before the loop showed anything there. */
  own?: OwnState;
  /**
   * Every check run and commit status of the head but the loop's own, once read
   * (`need: 'checks'`; `own` is known from then on too).
   */
  checks?: readonly CheckResult[];
  /** The PR's files, once read (`need: 'files'`). */
  files?: readonly PullFile[];
  /** GitHub stopped listing the files (3,000): what the PR touches cannot be known whole. */
  filesIncomplete?: true;
  /** GitHub stopped listing the commits (250): who pushed cannot be known whole. */
  commitsIncomplete?: true;
}

/** One thing to do on GitHub. The applier (src/github/loop/apply.ts) carries each out once. */
export type Effect =
  /** Show where the head stands: the loop's check run on the PR head (or on `sha`). */
  | {
      kind: 'check';
      view: CheckRunView;
      conclusion?: 'success' | 'failure';
      /** Data kept beside the node for a later event (the next phase). */
      next?: number;
      sha?: string;
      when?: 'merged' | 'not-merged';
    }
  /** A reply on the orchestrator's issue; `when` ties it to the outcome of a `merge`. */
  | { kind: 'reply'; body: string; when?: 'merged' | 'not-merged'; to?: number }
  /** The PR body's marker (and its attempts section) rewritten. */
  | { kind: 'marker'; marker: LoopMarker }
  | { kind: 'requestReviews'; names: readonly string[] }
  /**
   * Escalate: the record notes it (with the head and the reason), and the `coder:escalated` label
   * shows it on the PR and its issue (created in the repository if missing).
   */
  | { kind: 'label'; reason: string }
  /** The escalation cleared in the record, and its label removed. */
  | { kind: 'unlabel' }
  /** The hand-off to the coding agent (`repository_dispatch`). */
  | { kind: 'dispatch'; payload: AgentPayload }
  /** Merge the PR at its head (autoMerge); refused merges are not errors. */
  | { kind: 'merge' }
  /** Free the lock: delete the PR's branch (`when`: only once the loop's merge went through). */
  | { kind: 'deleteBranch'; when?: 'merged' }
  /** Mark [x] → Report → Update context → Log: ONE commit, compare-and-swap, by `approver`. */
  | { kind: 'complete'; approver: string }
  /** The run's progress comment on the issue, shown again (progress.ts: `withProgress`). */
  | { kind: 'progress'; run: RunState; node?: NodeId; when?: 'not-merged' };

export type Need = 'checks' | 'files' | 'architects';

export type Decision =
  { outcome: LoopOutcome; effects: Effect[]; then?: 'approvals' } | { need: Need };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function outcomeOf(snap: PullSnapshot, state: LoopState, node?: NodeId): LoopOutcome {
  const { marker, pr } = snap;
  return {
    state,
    ...(node ? { node } : {}),
    mode: marker.mode,
    branch: pr.head.ref,
    pullRequest: pr.number,
    ...(marker.plan ? { plan: marker.plan } : {}),
    ...(marker.phase ? { phase: marker.phase } : {}),
  };
}

const done = (
  snap: PullSnapshot,
  state: LoopState,
  node: NodeId | undefined,
  effects: Effect[],
  extra: Partial<LoopOutcome> = {},
): Decision => ({ outcome: { ...outcomeOf(snap, state, node), ...extra }, effects });

/** A hand-off at a node of the Implementation Track, for this snapshot's head. */
function handOff(
  snap: PullSnapshot,
  config: Pick<Config, 'agent'>,
  node: AgentPayload['node'],
  attempt: number,
  marker: LoopMarker = snap.marker,
): AgentPayload | undefined {
  return agentHandOff(config, {
    node,
    repo: snap.repo,
    branch: snap.pr.head.ref,
    headSha: snap.pr.head.sha,
    pullRequest: snap.pr.number,
    marker,
    attempt,
  });
}

/** Verification shown on a head the loop has shown nothing on yet. */
function waitingForCi(snap: PullSnapshot, next: string): Effect[] {
  if (snap.own) return [];
  const view: CheckRunView = {
    mode: snap.marker.mode,
    node: 'Verification',
    title: 'Verification: waiting for CI',
    next,
  };
  return [{ kind: 'check', view }];
}

/**
 * Verification (CI is the gate) on the PR head, and what follows: Debug & Fix (attempt k of N,
 * escalation at N), Code Review when it passes — or, on the completion commit, Final
 * Verification. Each step happens once per head: the loop's check run records the node reached,
 * and a step already recorded is not repeated (unless `again`: `/coder retry`).
 */
export function verification(
  snap: PullSnapshot,
  config: Config,
  options: { again?: boolean } = {},
): Decision {
  const { own, marker } = snap;
  const again = options.again === true;
  if (snap.pr.escalated)
    return done(snap, 'escalated', 'Escalate', [], {
      reason: 'escalated: waiting for /coder resume',
    });
  if (!snap.checks) return { need: 'checks' };
  const gate = evaluateGate(snap.checks, config);
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
    return debugFix(
      snap,
      config,
      gate.failing.map((c) => ({
        name: c.name,
        conclusion: c.conclusion ?? 'failure',
        ...(c.url ? { url: c.url } : {}),
      })),
    );
  }

  // passed
  if (marker.mode === 'quick') {
    if (own?.conclusion === 'success' && !again) return reported('passed', 'End');
    return done(snap, 'passed', 'End', [
      {
        kind: 'check',
        view: {
          mode: 'quick',
          node: 'End',
          title: 'Quick mode: CI passed',
          next: 'Review and merge.',
        },
        conclusion: 'success',
      },
      { kind: 'reply', body: reply.quickPassed(snap.pr.number) },
    ]);
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
  if (
    !changesATest(
      snap.files.map((f) => f.path),
      config,
    )
  ) {
    if (own?.conclusion === 'failure' && !again) return reported('failed', 'Debug');
    return debugFix(
      snap,
      config,
      [],
      'Write failing test: the pull request changes no test file (`testPaths`).',
    );
  }
  return {
    ...done(snap, 'code-review', 'CodeReview', [
      {
        kind: 'check',
        view: {
          mode: 'plan',
          node: 'CodeReview',
          title: 'Code review',
          next: 'CI passed. An approving review of this head completes the phase; changes requested send it back to implementation.',
        },
      },
      { kind: 'requestReviews', names: config.reviewers },
      { kind: 'reply', body: reply.ciPassed(snap.pr.number, config.reviewers) },
    ]),
    // An approval that came before CI passed completes the phase now.
    then: 'approvals',
  };
}

const UNREADABLE = {
  files:
    'GitHub lists no more than 3,000 files of a pull request, so the loop cannot see everything this one changes (locked paths, plan documents, tests). Split it into smaller pull requests.',
  commits:
    'GitHub lists no more than 250 commits of a pull request, so the loop cannot tell who pushed to this one. Squash or split it.',
} as const;

/**
 * A list the verdict needs cannot be read whole: not passed, and the check run and the thread say
 * why (once per head). Nothing else moves; a smaller PR is judged afresh.
 */
function unreadable(snap: PullSnapshot, what: keyof typeof UNREADABLE): Decision {
  if (snap.own?.node === 'Verification' && snap.own.conclusion === 'failure')
    return done(snap, 'unreadable', 'Verification', [], { reason: 'already reported' });
  return done(
    snap,
    'unreadable',
    'Verification',
    [
      {
        kind: 'check',
        view: {
          mode: snap.marker.mode,
          node: 'Verification',
          title: 'Verification: the pull request is too large to judge',
          next: UNREADABLE[what],
        },
        conclusion: 'failure',
      },
      { kind: 'reply', body: reply.tooLargeToJudge(snap.pr.number, UNREADABLE[what]) },
    ],
    { reason: `the ${what} of the pull request cannot be read whole` },
  );
}

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

/**
 * Escalate to Architect: the label on PR and issue, review requested from the architects, the
 * check run, one comment that names them and the reason.
 */
export function escalation(
  snap: PullSnapshot,
  config: Pick<Config, 'architects'>,
  reason: string,
  details: readonly string[],
): Effect[] {
  return [
    { kind: 'label', reason },
    { kind: 'requestReviews', names: config.architects },
    {
      kind: 'check',
      view: {
        mode: snap.marker.mode,
        node: 'Escalate',
        title: 'Escalated to architect',
        next: `${reason}. Waiting for an architect; \`/coder resume\` continues.`,
      },
      conclusion: 'failure',
    },
    {
      kind: 'reply',
      body: reply.escalated(snap.pr.number, config.architects, reason, details),
    },
  ];
}

/** Final Verification → Pass: the phase is complete; with `autoMerge`, the PR is merged first. */
export function finalVerification(snap: PullSnapshot, config: Config): Decision {
  const { marker, pr, own } = snap;
  const phase = marker.phase ?? 0;
  const next = own?.next !== undefined ? { number: own.next } : undefined;
  const say = (merged: boolean): Effect[] => [
    {
      kind: 'check',
      view: {
        mode: 'plan',
        node: 'End',
        title: `Phase ${phase} complete`,
        next: merged
          ? 'Merged. `/coder next` takes the next phase.'
          : 'Merge this pull request; then `/coder next` takes the next phase.',
      },
      conclusion: 'success',
    },
    {
      kind: 'reply',
      body: reply.phaseComplete(marker.plan ?? '', phase, pr.number, next, merged),
    },
  ];
  if (!config.autoMerge) return done(snap, 'complete', 'End', say(false));
  // The merge may be refused (a required review is missing, the head moved): each text comes in
  // both forms, and the applier keeps the one the merge's result calls for.
  const when = (effects: Effect[], w: 'merged' | 'not-merged') =>
    effects.map((e) => ({ ...e, when: w }) as Effect);
  return done(snap, 'complete', 'End', [
    { kind: 'merge' },
    ...when(say(true), 'merged'),
    ...when(say(false), 'not-merged'),
    // The loop's own `closed` event is ignored, so the lock goes with the loop's merge.
    ...(config.deleteBranchOnMerge
      ? [{ kind: 'deleteBranch' as const, when: 'merged' as const }]
      : []),
  ]);
}

/** A review's author, as the reader established it before anything is decided. */
export interface ReviewFacts {
  login: string;
  type?: string;
  permission: Permission | string;
  kind: 'approval' | 'changes';
  /** The reviewed commit. */
  commit: string;
  /** Whether the reviewer is an architect (read only when the PR is escalated). */
  architect?: boolean;
}

/**
 * Code Review: a `pull_request_review` on the loop PR. The reviewer must count (write
 * permission; the applier never sees an outsider's review: `reviewStanding` is asked first).
 */
export function codeReview(snap: PullSnapshot, config: Config, review: ReviewFacts): Decision {
  const { marker, pr, own } = snap;
  if (snap.pr.escalated && (review.kind !== 'approval' || review.architect !== true))
    return done(snap, 'escalated', 'Escalate', [], {
      reason: 'escalated: waiting for an architect',
    });

  if (review.kind === 'changes') {
    if (!snap.checks) return { need: 'checks' };
    // Code Review → Issues with a coding agent: one review-fix round per head, at most
    // `agent.maxReviewRounds` of them; past that, the architects decide.
    const round = config.agent ? reviewRound(marker, pr.head.sha, config) : undefined;
    if (round && !round.repeat && round.exhausted) {
      const max = config.agent!.maxReviewRounds;
      return done(
        snap,
        'escalated',
        'Escalate',
        escalation(
          snap,
          config,
          `${plural(max, 'review round')} handed to the coding agent (the limit is ${max}), and @${review.login} asked for changes again`,
          [],
        ),
        { reason: 'review rounds exhausted' },
      );
    }
    const payload =
      round && !round.repeat ? handOff(snap, config, 'review-fix', round.round) : undefined;
    const view: CheckRunView = {
      mode: 'plan',
      node: 'TDD',
      title: 'Changes requested',
      next: `@${review.login} asked for changes: back to implementation. Push to this branch; CI runs again.`,
    };
    return done(snap, 'changes-requested', 'TDD', [
      { kind: 'check', view: withAgent(view, payload, snap.repoUrl) },
      { kind: 'reply', body: reply.changesRequested(pr.number, review.login) },
      // The round is recorded before the hand-off: a redelivery finds it and sends no second one.
      ...(payload
        ? [
            {
              kind: 'marker' as const,
              marker: { ...marker, reviewRounds: [...(marker.reviewRounds ?? []), pr.head.sha] },
            },
            { kind: 'dispatch' as const, payload },
          ]
        : []),
    ]);
  }

  if (review.commit !== pr.head.sha)
    return done(snap, 'stale-approval', 'CodeReview', [
      { kind: 'reply', body: reply.staleApproval(pr.number, review.commit, pr.head.sha) },
    ]);
  if (!snap.checks) return { need: 'checks' };
  if (own?.node === 'FinalVerify' || own?.node === 'End')
    return done(snap, 'ignored', undefined, [], { reason: 'the phase is already completing' });
  const passed = evaluateGate(snap.checks, config).verdict === 'passed';
  if (snap.pr.escalated) {
    // The architect decides the escalation, but not CI: the head must pass the gate.
    if (passed && !snap.files) return { need: 'files' };
    if (passed && snap.filesIncomplete) return unreadable(snap, 'files');
    if (
      !passed ||
      !changesATest(
        (snap.files ?? []).map((f) => f.path),
        config,
      )
    )
      return done(
        snap,
        'escalated',
        'Escalate',
        [{ kind: 'reply', body: reply.architectApprovalBeforeGate(pr.number, review.login) }],
        { reason: 'CI has not passed on the head' },
      );
    return { outcome: outcomeOf(snap, 'approved', 'LockCheck2'), effects: [], then: 'approvals' };
  }
  if (!passed || own?.node !== 'CodeReview')
    return done(snap, 'waiting-for-ci', 'Verification', [
      { kind: 'reply', body: reply.approvalBeforeGate(pr.number) },
    ]);
  if (!snap.files) return { need: 'files' };
  if (snap.filesIncomplete) return unreadable(snap, 'files');
  return { outcome: outcomeOf(snap, 'approved', 'LockCheck2'), effects: [], then: 'approvals' };
}

/** An approval of the head by a user with write permission, with what the rules need to know. */
export interface Approval {
  login: string;
  permission: Permission | string;
  /** Authored or committed a commit of the PR (the loop's own excluded). */
  pushed: boolean;
  /** Known once asked (`need: 'architects'`); only asked when the PR touches locked items. */
  architect?: boolean;
}

/**
 * Approvals of the head → (self-approval rule) → Touched Locked Items? → Escalate, or Mark [x].
 * The approval that decides is the one whose role the decision needs: an architect's when the PR
 * touches locked paths or plan documents. An architect's approval of an escalated head clears
 * the escalation. No approval at all: nothing to do.
 */
export function approvals(
  snap: PullSnapshot,
  config: Config,
  found: readonly Approval[],
): Decision {
  const { marker, pr } = snap;
  if (found.length === 0) return done(snap, 'code-review', 'CodeReview', []);
  if (snap.commitsIncomplete && !config.allowSelfApproval)
    return done(
      snap,
      'approval-not-counted',
      'CodeReview',
      [{ kind: 'reply', body: reply.approvalNotCounted(pr.number, UNREADABLE.commits) }],
      { reason: 'the commits of the pull request cannot be read whole' },
    );
  if (!snap.files) return { need: 'files' };
  if (snap.filesIncomplete) return unreadable(snap, 'files');
  const counting: Approval[] = [];
  const refused: string[] = [];
  for (const a of found) {
    const standing = reviewStanding(a, 'approval', config.allowSelfApproval);
    if (standing.counts) counting.push(a);
    else if (!standing.quiet) refused.push(standing.why);
  }
  if (counting.length === 0) {
    if (refused.length === 0) return done(snap, 'code-review', 'CodeReview', []);
    return done(
      snap,
      'approval-not-counted',
      'CodeReview',
      [{ kind: 'reply', body: reply.approvalNotCounted(pr.number, refused.join('; ')) }],
      { reason: refused.join('; ') },
    );
  }
  const { locked, planDocuments } = touchedLockedItems(
    touchedPaths(snap.files),
    config,
    marker.plan,
  );
  const needsArchitect = locked.length > 0 || planDocuments.length > 0;
  if (needsArchitect && counting.some((a) => a.architect === undefined))
    return { need: 'architects' };
  const chosen = chooseApproval(
    counting.map((a) => ({ ...a, architect: a.architect === true })),
    needsArchitect,
  )!;
  if (chosen.escalate) {
    const reason = locked.length ? 'locked paths touched' : 'plan change needed';
    return done(
      snap,
      'escalated',
      'Escalate',
      escalation(snap, config, `${reason}, and @${chosen.approval.login} is not an architect`, [
        ...locked.map((p) => `locked: \`${p}\``),
        ...planDocuments.map((p) => `plan document: \`${p}\``),
      ]),
      { reason },
    );
  }
  return done(snap, 'completing', 'FinalVerify', [
    ...(snap.pr.escalated ? [{ kind: 'unlabel' as const }] : []),
    { kind: 'complete', approver: chosen.approval.login },
  ]);
}

/**
 * A loop PR closed by someone with write permission (the adapter checks): the lock is freed — the
 * branch deleted unless merged with `deleteBranchOnMerge: false` — and the orchestrator told.
 */
export function closed(
  snap: PullSnapshot,
  config: Pick<Config, 'deleteBranchOnMerge'> | undefined,
  merged: boolean,
): Decision {
  const deleteBranch = !merged || (config?.deleteBranchOnMerge ?? true);
  return done(snap, merged ? 'merged' : 'closed', merged ? 'End' : undefined, [
    ...(deleteBranch ? [{ kind: 'deleteBranch' as const }] : []),
    {
      kind: 'reply',
      body: reply.prClosed(snap.pr.number, merged, snap.pr.head.ref, deleteBranch),
    },
  ]);
}

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
  if (!snap.pr.escalated)
    return done(snap, 'not-escalated', undefined, [
      { kind: 'reply', to: thread, body: reply.notEscalated(snap.pr.number) },
    ]);
  const marker = { ...snap.marker };
  delete marker.escalation;
  return done(snap, 'resumed', 'Verification', [
    { kind: 'unlabel' },
    { kind: 'marker', marker: { ...marker, attempts: [], reviewRounds: [] } },
    { kind: 'reply', body: reply.resumed(snap.pr.number) },
  ]);
}

/**
 * `/coder stop`: the run ends with this phase. The PR keeps its state; only `run` leaves its
 * record, so its merge starts nothing (`decideRunNext` finds no run).
 */
export function stopRun(snap: PullSnapshot, thread: number): Decision {
  const run = snap.marker.run;
  if (!run)
    return done(snap, 'no-run', undefined, [
      { kind: 'reply', to: thread, body: reply.noRun(snap.pr.number) },
    ]);
  const marker = { ...snap.marker };
  delete marker.run;
  return done(snap, 'run-stopped', undefined, [
    { kind: 'marker', marker },
    { kind: 'reply', to: thread, body: reply.runStopped(snap.pr.number, run.plan) },
  ]);
}
