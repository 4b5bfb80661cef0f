import type { AgentNode } from '../../agent/payload.js';
import type { AgentRunEntry } from '../../agent/usage.js';
/**
 * What the loop believes about one of its pull requests: which plan, phase, issue and command it
 * belongs to, and its verdicts so far. Later events — on any replica, or in the Action — read it
 * back from the loop's record (record.ts: the `coder-loop` check run of each head, which only the
 * loop writes). The HTML-comment form below is what people see in PR bodies and commit messages;
 * it is read back only where no check run can be written (a loop acting with a personal token).
 */
export interface LoopMarker {
  mode: 'plan' | 'quick';
  /**
   * The pull request and lock branch the record belongs to: a record read on a commit of another
   * PR (one rebuilt on this PR's commits) is not that PR's.
   */
  pr?: number;
  branch?: string;
  /**
   * The base branch the loop opened the PR against. A PR whose base is any other is not judged
   * until it is set back (`baseProblem`): another base shows another diff — one that can hide a
   * change to a locked item — to reviewers, to the files list and to Passes Spec?.
   */
  base?: string;
  plan?: string;
  phase?: number;
  /**
   * A plan of another kind: the tasks file (`path#tag` for a tagged kind's) the PR side, the
   * completion and a run reopen. Absent: a coder plan under `plansDir`.
   */
  planFile?: string;
  /** That plan's phase as its kind numbers it (`3.1`; a task id). */
  phaseId?: string;
  issue: number;
  /** The comment that started it (absent when a label did). */
  comment?: number;
  /** Failed CI attempts, one per distinct failed head commit (and per failed agent run). */
  attempts?: Attempt[];
  /** Heads a counting reviewer asked changes on, handed to the agent: the review rounds. */
  reviewRounds?: string[];
  /** Quick mode: the PR outgrew the quick limits and plan mode was proposed (once). */
  grew?: true;
  /** Escalated to the architects, on which head and why; only `/coder resume` clears it. */
  escalation?: { reason: string; sha: string };
  /** Who pushed to the branch (`pull_request.synchronize` senders): their approvals never count. */
  pushers?: string[];
  /** The issue's text as it stood when a permitted user acted on it (quick mode's assignment). */
  vetted?: { title: string; body: string };
  /** Every coding-agent run on the PR (written by `step: apply`): wall time and reported usage. */
  agentRuns?: AgentRunEntry[];
  /** `/coder run`: the run this phase belongs to, carried from phase to phase by the loop. */
  run?: RunState;
  /** The agent stopped at its provider's usage or rate limit: the node resumes at `until`. */
  pause?: PauseState;
  /** Every pause of the phase so far (bounded by `agent.maxPauses`), for the counts and report. */
  pauses?: PauseEntry[];
  /** Passes Spec?: the verdict computed on `sha`, and the tasks that lacked evidence there. */
  spec?: SpecRecord;
  /** Triage (triage.ts): every workflow run the loop asked GitHub to re-run, per head. */
  reruns?: RerunEntry[];
  /** Checks that failed and passed on a re-run of the same head: flaky, named in the report. */
  flaky?: { sha: string; name: string }[];
  /**
   * The hand-off the loop sent last, written on the head it names before it is sent: the agent's
   * jobs run only a dispatch the loop's record asked for (anyone with `contents: write` can send
   * a `repository_dispatch`).
   */
  handOff?: HandOffRecord;
  /** How many hand-offs the loop asked for on this PR: each one's id holds its number. */
  handOffs?: number;
  /** The head on which no CI had reported for `ciStallMinutes`, once the issue was told. */
  ciStall?: string;
  /**
   * The files the loop's own commits wrote on the branch (the start's marks and log entry, the
   * completion's), each as the git blob it left: at review, one of the loop's plan files is the
   * loop's only while the head holds exactly that blob (planChanges.ts).
   */
  loopFiles?: LoopFile[];
}

/** A file one of the loop's commits wrote, and the git blob id of the bytes it wrote there. */
export interface LoopFile {
  path: string;
  blob: string;
}

/** A re-run the loop asked for: the workflow run and its attempt that failed, on which head. */
export interface RerunEntry {
  sha: string;
  run: number;
  attempt: number;
  /** The failing checks of that attempt, by name. */
  checks: string[];
  /** Infrastructure (cancelled, never started, failed before the project's steps), not a test. */
  infrastructure?: true;
  /** GitHub refused the re-run: nothing re-runs that attempt, and it is not asked again. */
  refused?: true;
}

/**
 * A hand-off as the record asks for it: the node, the attempt, the head it is for, and its id —
 * the same node, attempt and head are asked for again by a resume. A record an older coder-loop
 * wrote has no id.
 */
export interface HandOffRecord {
  node: AgentNode;
  attempt: number;
  sha: string;
  id?: string;
}

/** A pause in force: the hand-off to send again at `until`, and why. */
export interface PauseState {
  node: AgentNode;
  attempt: number;
  /** ISO 8601: when the limit resets (the CLI's own time, or `agent.pauseMinutes` from `since`). */
  until: string;
  since: string;
  reason: string;
  /** The host's own delayed job for `until` is scheduled (the App with Redis): not again. */
  wake?: 'job';
}

/** A pause, as the record lists it. */
export interface PauseEntry {
  since: string;
  until: string;
  reason: string;
}

/** The Passes Spec? verdict of one head (passesSpec.ts), as the record keeps it: bounded. */
export interface SpecRecord {
  sha: string;
  passed: boolean;
  /** One line per task lacking evidence (the first 50), as the Revise hand-off gives them. */
  missing: string[];
}

/** A `/coder run` in progress: who started it, on which plan, and what the phases before spent. */
export interface RunState {
  starter: string;
  plan: string;
  startedAt?: string;
  /** Totals of the run's phases already merged (this phase's own figures are on its record). */
  totals?: { failedAttempts: number; minutes: number; costUsd: number };
  /** The run's progress comment on the issue (progress.ts): the loop edits it in place. */
  progress?: number;
  /** The run's merged phases: each one's PR and what it spent (the progress comment's rows). */
  phases?: RunPhase[];
}

/**
 * What a phase did besides its spend, for the progress comment and the report: its agent runs
 * (and how many reported no cost: unknown, never $0), pauses at the provider's limit and how long
 * they lasted, the re-runs triage asked, the checks found flaky.
 */
export interface PhaseCounts {
  agentRuns: number;
  /** Agent runs that reported no cost: the phase's cost is unknown for them. */
  unpriced: number;
  pauses: number;
  pausedMinutes: number;
  reruns: number;
  flaky: number;
}

/** A merged phase of a run, as its record carried it on. */
export interface RunPhase {
  phase: number;
  pr: number;
  failedAttempts: number;
  minutes: number;
  costUsd: number;
  /** Its agent runs, pauses, re-runs and flaky checks (run.ts: `phaseCounts`). */
  counts?: PhaseCounts;
}

export interface Attempt {
  sha: string;
  checks: { name: string; conclusion: string; url?: string }[];
  reason?: string;
  /** A failed agent run on `sha` (no change, refused, timed out): `<node>#<attempt>`. */
  agent?: string;
}

const PREFIX = '<!-- coder-loop ';
const SUFFIX = ' -->';

/** An HTML comment holding the marker as JSON (`<` and `>` escaped, so it cannot end early). */
export function renderMarker(marker: LoopMarker): string {
  const json = JSON.stringify(marker).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  return `${PREFIX}${json}${SUFFIX}`;
}

const ATTEMPTS_START = '<!-- coder-loop:attempts -->';
const ATTEMPTS_END = '<!-- /coder-loop:attempts -->';

/**
 * A PR body with its marker replaced and its "CI attempts" section rewritten: the PR body is
 * where the loop keeps the attempt history, so every replica (and the Action) reads the same.
 */
export function updateMarker(body: string, marker: LoopMarker): string {
  let text = body;
  const start = text.indexOf(PREFIX);
  const end = start === -1 ? -1 : text.indexOf(SUFFIX, start + PREFIX.length);
  text =
    start === -1 || end === -1
      ? `${renderMarker(marker)}\n${text}`
      : text.slice(0, start) + renderMarker(marker) + text.slice(end + SUFFIX.length);
  const block = renderAttempts(marker.attempts ?? []);
  const a = text.indexOf(ATTEMPTS_START);
  const b = text.indexOf(ATTEMPTS_END);
  if (a !== -1 && b > a) return text.slice(0, a) + block + text.slice(b + ATTEMPTS_END.length);
  return `${text}\n\n${block}`;
}

function renderAttempts(attempts: readonly Attempt[]): string {
  const lines = [ATTEMPTS_START, '### CI attempts', ''];
  if (attempts.length === 0) lines.push('No failed attempt yet.');
  attempts.forEach((a, i) => {
    const checks = a.checks.map((c) => (c.url ? `[${c.name}](${c.url})` : c.name)).join(', ');
    lines.push(
      `${i + 1}. \`${a.sha.slice(0, 7)}\` failed: ${checks || a.reason || 'no check named'}`,
    );
  });
  lines.push(ATTEMPTS_END);
  return lines.join('\n');
}

export function readMarker(text: string | null | undefined): LoopMarker | undefined {
  if (!text) return undefined;
  const start = text.indexOf(PREFIX);
  if (start === -1) return undefined;
  const end = text.indexOf(SUFFIX, start + PREFIX.length);
  if (end === -1) return undefined;
  try {
    const value = JSON.parse(text.slice(start + PREFIX.length, end)) as Partial<LoopMarker>;
    if ((value.mode !== 'plan' && value.mode !== 'quick') || typeof value.issue !== 'number') {
      return undefined;
    }
    return value as LoopMarker;
  } catch {
    return undefined;
  }
}
