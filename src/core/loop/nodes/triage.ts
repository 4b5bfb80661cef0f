import type { Config } from '../../config.js';
import { escapeMarkdown } from '../../markdown.js';
import type { CheckResult } from './gate.js';
import type { LoopMarker, RerunEntry } from '../record/marker.js';
import { reply } from '../messages/replies.js';
import { escalation } from './escalation.js';
import { done, type Decided, type Effect, type PullSnapshot } from '../snapshot/pullSnapshot.js';

/**
 * Triage, before Debug & Fix: a red head's failures sorted without a model. What is not the
 * code's fault — a run cancelled, one that never started (`startup_failure`), a `stale` one, a
 * job that failed before any of the project's steps ran (a runner that never came, GitHub's own
 * set-up failing), a job GitHub annotated with its own outage (a runner lost mid-job) — is re-run by the loop through the API, and no attempt is counted; the same
 * again is named as infrastructure on the issue and re-run once more; past `rerun.perHead`
 * re-runs it escalates. With `rerun.failures`, a real failure is re-run once too: a check that
 * then passes on the same head is flaky — named, listed in the report, no attempt counted.
 * Everything else is a real failure: an attempt, Debug & Fix. Pure: the head's checks (with
 * each failing GitHub Actions job's run, attempt and steps) and the record in, a decision out.
 */

const INFRASTRUCTURE = new Set(['cancelled', 'startup_failure', 'stale']);

/**
 * GitHub's own words for a job it failed, as GitHub Actions annotates the job (on `.github`, at
 * the failure level) — the start of the message, exactly: a runner (hosted or self-hosted) that
 * lost communication with the server or was shut down mid-job, a job no runner took, GitHub
 * Actions' internal error. Nothing a project's step prints starts so; anything else is not read.
 */
const OUTAGE = [
  /^The (?:self-hosted |hosted )?runner(?:: [^\n]{1,200})? lost communication with the server\b/,
  /^The runner has received a shutdown signal\b/,
  /^The job was not acquired by Runner of type \S+ even after multiple attempts\b/,
  /^GitHub Actions has encountered an internal error when running your job\b/,
];

/**
 * The annotation of a failed job that is GitHub's own outage sign (`OUTAGE`), if one is: only
 * GitHub's, on the workflow folder, at the failure level. Pure; src/github reads the annotations.
 */
export function outageSign(
  annotations: readonly { path: string; annotation_level: string | null; message: string | null }[],
): string | undefined {
  return (
    annotations.find(
      (a) =>
        a.path === '.github' &&
        a.annotation_level === 'failure' &&
        OUTAGE.some((sign) => sign.test(a.message ?? '')),
    )?.message ?? undefined
  );
}

/**
 * GitHub's own words for a job it stopped at the job's `timeout-minutes` (or the runner's time
 * limit): GitHub cancels such a job, so its conclusion is `cancelled`, but a job that hangs is the
 * code's failure, not infrastructure. Both wordings GitHub has used: "The job has exceeded the
 * maximum execution time of 15m0s", and "The job running on runner … has exceeded the maximum
 * execution time of 360 minutes."
 */
const TIMED_OUT =
  /^The job (?:running on runner [^\n]{1,200} )?has exceeded the maximum execution time of \d/;

/** GitHub's annotation of a job it stopped for its time limit (`TIMED_OUT`), if one is. */
export function timeoutSign(
  annotations: readonly { path: string; annotation_level: string | null; message: string | null }[],
): string | undefined {
  return (
    annotations.find(
      (a) =>
        a.path === '.github' && a.annotation_level === 'failure' && TIMED_OUT.test(a.message ?? ''),
    )?.message ?? undefined
  );
}

/** A failure outside the project's code: only a GitHub Actions job (re-runnable) is judged so. */
function isInfrastructure(check: CheckResult): boolean {
  if (!check.job || check.job.timedOut !== undefined) return false;
  return (
    INFRASTRUCTURE.has(check.conclusion ?? '') ||
    !check.job.projectRan ||
    check.job.outage !== undefined
  );
}

/** What triage makes of a red head. */
type Triage =
  /** Debug & Fix as before: an attempt. */
  | { verdict: 'real' }
  /** The re-run asked for these attempts has not started yet: nothing new. */
  | { verdict: 'waiting'; checks: string[] }
  /** GitHub refused to re-run these attempts, and that was said: a person acts next. */
  | { verdict: 'refused'; checks: string[] }
  | { verdict: 'rerun'; infrastructure: boolean; again: boolean; reruns: RerunEntry[] }
  /** Infrastructure failures outlasted `rerun.perHead` re-runs of the head. */
  | { verdict: 'persists'; reruns: number };

/** Sorts a red head's failing checks (`failing`, from the gate) by the record's re-runs of it. */
function triage(
  failing: readonly CheckResult[],
  marker: LoopMarker,
  head: string,
  config: Pick<Config, 'rerun'>,
): Triage {
  const asked = (marker.reruns ?? []).filter((r) => r.sha === head);
  const askedFor = (c: CheckResult, refused: boolean) =>
    asked.some(
      (r) => c.job && r.run === c.job.run && r.attempt === c.job.attempt && !!r.refused === refused,
    );
  const refused = failing.filter((c) => askedFor(c, true));
  if (refused.length > 0) return { verdict: 'refused', checks: refused.map((c) => c.name) };
  const waiting = failing.filter((c) => askedFor(c, false));
  if (waiting.length > 0) return { verdict: 'waiting', checks: waiting.map((c) => c.name) };
  const infrastructure = failing.length > 0 && failing.every(isInfrastructure);
  const rerunnable = failing.length > 0 && failing.every((c) => c.job !== undefined);
  const rerun = config.rerun;
  if (infrastructure && rerun.infrastructure) {
    if (asked.length >= rerun.perHead) return { verdict: 'persists', reruns: asked.length };
  } else if (!(rerun.failures && rerunnable && asked.length === 0)) return { verdict: 'real' };
  const runs = new Map<number, RerunEntry>();
  for (const c of failing) {
    const job = c.job!;
    const entry = runs.get(job.run) ?? {
      sha: head,
      run: job.run,
      attempt: job.attempt,
      checks: [],
      ...(infrastructure ? { infrastructure: true as const } : {}),
    };
    entry.checks.push(c.name);
    runs.set(job.run, entry);
  }
  return {
    verdict: 'rerun',
    infrastructure,
    again: asked.some((r) => r.infrastructure),
    reruns: [...runs.values()],
  };
}

/**
 * Triage's decision on a red head, or undefined for a real failure (the caller goes on to Debug &
 * Fix, whose decision `realFailure` is: what the loop does instead when GitHub refuses a re-run).
 */
export function triaged(
  snap: PullSnapshot,
  config: Config,
  failing: readonly CheckResult[],
  realFailure: () => Decided,
): Decided | undefined {
  const { marker } = snap;
  const head = snap.pr.head.sha;
  const sorted = triage(failing, marker, head, config);
  const named = (checks: readonly CheckResult[]) => checks.map((c) => c.name).join(', ');
  switch (sorted.verdict) {
    case 'real':
      return undefined;
    case 'waiting':
      return done(snap, 'pending', 'Verification', [], {
        reason: `re-run asked: ${sorted.checks.join(', ')}`,
      });
    case 'refused':
      return done(snap, 'failed', 'Verification', [], {
        reason: `GitHub refused the re-run of ${sorted.checks.join(', ')}: said already`,
      });
    case 'persists': {
      const reason = `CI failed for a reason outside the code ${sorted.reruns + 1} times on the same head (${sorted.reruns} re-runs by the loop): infrastructure`;
      return done(
        snap,
        'escalated',
        'Escalate',
        escalation(
          snap,
          config,
          reason,
          failing.map((c) => `${c.name}: ${c.conclusion ?? 'failed'}${c.url ? ` (${c.url})` : ''}`),
        ),
        { reason },
      );
    }
    case 'rerun': {
      const updated: LoopMarker = {
        ...marker,
        reruns: [...(marker.reruns ?? []), ...sorted.reruns],
      };
      const refused = (run: number) => (message: string) =>
        sorted.infrastructure
          ? infrastructureRefused(snap, failing, sorted.reruns, run, message)
          : withRefusal(realFailure(), message);
      const what = sorted.infrastructure ? 'infrastructure, not the code' : 'a re-run tells flaky';
      const effects: Effect[] = [
        ...sorted.reruns.map((r): Effect => ({
          kind: 'rerun',
          run: r.run,
          whole: failing.some((c) => c.job?.run === r.run && c.job.whole),
          refused: refused(r.run),
        })),
        { kind: 'marker', marker: updated },
        {
          kind: 'check',
          view: {
            mode: marker.mode,
            node: 'Verification',
            title: `Triage: re-running ${named(failing)}`,
            next: `The failure looks like ${what}: the loop asked GitHub to re-run it. No attempt is counted; CI's new verdict on this head decides.`,
          },
        },
        ...(sorted.infrastructure && sorted.again
          ? [{ kind: 'reply' as const, body: reply.infrastructure(snap.pr.number, failing, true) }]
          : []),
      ];
      return done(snap, 'rerun', 'Verification', effects, {
        reason: `re-run ${sorted.infrastructure ? '(infrastructure)' : '(once, before an attempt)'}: ${named(failing)}`,
      });
    }
  }
}

/** GitHub's refusal as the loop quotes it: one line, bounded. */
function quoted(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim().slice(0, 300);
  return line ? `“${escapeMarkdown(line)}”` : 'without a reason';
}

/**
 * A real failure whose re-run (to tell a flaky check, `rerun.failures`) GitHub refused: it is
 * what it would have been without the re-run — an attempt, Debug & Fix or the escalation — and
 * its reply says the re-run was refused.
 */
function withRefusal(decided: Decided, message: string): Decided {
  const note = `The loop asked GitHub to re-run it first, to tell a flaky check; GitHub refused (${quoted(message)}).`;
  let said = false;
  const effects = decided.effects.map((e): Effect => {
    if (e.kind !== 'reply' || said) return e;
    said = true;
    return { ...e, body: `${e.body}\n\n${note}` };
  });
  return {
    effects: said ? effects : [...effects, { kind: 'reply', body: note }],
    outcome: decided.outcome,
  };
}

/**
 * An infrastructure failure whose re-run GitHub refused (the run over a month old, running
 * already, not retriable, no `actions: write`): still not the code's fault, so no attempt — the
 * issue is told once, naming it as infrastructure and the refusal, and what a person can do. The
 * record keeps the refusal, so the same attempt is not asked again; a new run or attempt of CI on
 * the head is triaged afresh.
 */
function infrastructureRefused(
  snap: PullSnapshot,
  failing: readonly CheckResult[],
  reruns: readonly RerunEntry[],
  run: number,
  message: string,
): Decided {
  const { marker } = snap;
  const kept = reruns.map((r) => (r.run === run ? { ...r, refused: true as const } : r));
  const updated: LoopMarker = { ...marker, reruns: [...(marker.reruns ?? []), ...kept] };
  return done(
    snap,
    'failed',
    'Verification',
    [
      { kind: 'marker', marker: updated },
      {
        kind: 'check',
        view: {
          mode: marker.mode,
          node: 'Verification',
          title: 'Triage: GitHub refused the re-run',
          next: `CI failed for a reason outside the code, and GitHub refused to re-run it (${quoted(message)}). No attempt is counted: re-run it on GitHub or push to the branch, or \`/coder retry\` to hand it to Debug & Fix.`,
        },
      },
      { kind: 'reply', body: reply.rerunRefused(snap.pr.number, failing, quoted(message)) },
    ],
    { reason: `GitHub refused the re-run of workflow run ${run}: ${message}` },
  );
}

/**
 * The head passed: the checks of it that failed first and passed on a re-run — the loop's
 * (`rerun.failures`), or anyone's after an attempt was counted on this head — are flaky. The
 * record lists them (and drops the attempt they cost), the issue is told once. One named before
 * that flakes again on the head gives its attempt back too, unsaid. Nothing when none.
 */
export function flakyOnPass(
  snap: PullSnapshot,
  passing: readonly CheckResult[],
): { marker: LoopMarker; effects: Effect[] } | undefined {
  const { marker } = snap;
  const head = snap.pr.head.sha;
  const passed = new Set(passing.map((c) => c.name));
  const fromReruns = (marker.reruns ?? [])
    .filter((r) => r.sha === head && !r.infrastructure)
    .flatMap((r) => r.checks);
  const attempts = marker.attempts ?? [];
  const retracted = attempts.filter(
    (a) =>
      a.sha === head &&
      a.agent === undefined &&
      a.checks.length > 0 &&
      a.checks.every((c) => passed.has(c.name)),
  );
  const known = new Set((marker.flaky ?? []).filter((f) => f.sha === head).map((f) => f.name));
  const names = [
    ...new Set([...fromReruns, ...retracted.flatMap((a) => a.checks.map((c) => c.name))]),
  ].filter((n) => passed.has(n) && !known.has(n));
  // A check already named flaky on this head that flakes again: its attempt goes back too, unsaid.
  if (names.length === 0 && retracted.length === 0) return undefined;
  const updated: LoopMarker = {
    ...marker,
    attempts: attempts.filter((a) => !retracted.includes(a)),
    flaky: [...(marker.flaky ?? []), ...names.map((name) => ({ sha: head, name }))],
  };
  if (updated.attempts!.length === 0) delete updated.attempts;
  if (updated.flaky!.length === 0) delete updated.flaky;
  return {
    marker: updated,
    effects: [
      { kind: 'marker', marker: updated },
      ...(names.length
        ? [{ kind: 'reply' as const, body: reply.flaky(snap.pr.number, names) }]
        : []),
    ],
  };
}
