import { escapeInline } from '../../agent/escape.js';
import { codeSpan, escapeMarkdown } from '../../markdown.js';
import { NODES, type NodeId } from '../flowchart.js';
import type { LoopMarker, PhaseCounts, RunPhase, RunState } from './marker.js';
import type { Effect } from '../snapshot/pullSnapshot.js';
import {
  addCounts,
  addSpend,
  NO_COUNTS,
  NO_SPEND,
  phaseCounts,
  phaseSpend,
  type Spend,
} from '../nodes/run.js';
import { phaseInteger } from '../messages/phaseName.js';

/**
 * The progress comment of a `/coder run` (SPEC §3 item 12): ONE comment of the loop's on the
 * issue, edited in place as the run goes — every phase of the plan with its state, pull request,
 * attempts, agent time and cost, the node the loop is at and what it waits for. Everything here is
 * pure: the applier reads the comment, renders it again from the loop's record, and writes only
 * when the text changed.
 *
 * The comment ends with a hidden key (an HTML comment GitHub does not render): which issue, plan
 * and run it is about, and the plan's phases as the run last read them from the default branch
 * (numbers and titles, shown and never decided on). The loop edits a comment only when its author
 * is the loop's identity AND this key names the run; any other comment is left alone and a new
 * one is made.
 */

/** A phase of the plan as the comment lists it. */
export interface ProgressPhase {
  number: number;
  title: string;
  /** Already `[x]` on the default branch when the run read the plan (before this run's PRs). */
  done?: true;
}

/** Which run a progress comment is about. */
export interface ProgressKey {
  issue: number;
  plan: string;
  startedAt?: string;
}

/** The phase the run is at: its open PR, the loop's node on its head, what it spent so far. */
export interface ProgressCurrent {
  phase: number;
  pr: number;
  node?: NodeId;
  spend: Spend;
  counts?: PhaseCounts;
  /** Escalated to the architects (the record's reason): the phase waits for them, whatever CI says. */
  escalated?: string;
  /** Paused at the agent's provider limit: until when, and why. */
  paused?: { until: string; reason: string };
}

export interface ProgressInput {
  key: ProgressKey;
  starter: string;
  phases: readonly ProgressPhase[];
  /** The run's merged phases, from the record (`run.phases`). */
  merged: readonly RunPhase[];
  current?: ProgressCurrent;
  /** The run ended: the sentence said on the issue (complete, stopped, budget, …). */
  ended?: string;
  /** The run's spend so far, the current phase included. */
  totals: Spend;
  /** The run's counts so far (phases merged before counts were kept add nothing). */
  totalCounts?: PhaseCounts;
}

/** What the loop waits for at a node: CI, a review, a merge, an architect. */
export function waitingFor(node: NodeId | undefined): string {
  switch (node) {
    case 'Escalate':
      return 'an architect (`/coder resume`)';
    case 'CodeReview':
      return 'a review';
    case 'FinalVerify':
      return 'CI on the completion commit';
    case 'End':
      return 'a merge';
    case 'Debug':
      return 'a fix (a push: CI runs again)';
    case 'TDD':
    case undefined:
    case 'MarkInProgress':
      return 'the implementation (a push, test first)';
    default:
      return 'CI';
  }
}

const OPEN = '<!-- coder-loop:progress ';
const CLOSE = ' -->';

const money = (n: number) => `$${n.toFixed(2)}`;
const minutes = (n: number) => `${n} min`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The cost as far as it is known: an agent run that reported none makes it unknown, never $0. */
function cost(spend: Spend, counts: PhaseCounts | undefined): string {
  if (!counts || counts.unpriced === 0) return money(spend.costUsd);
  if (counts.unpriced === counts.agentRuns) return 'unknown';
  return `${money(spend.costUsd)} + unknown`;
}

/** `2026-03-10 15:00 UTC`. */
const at = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function figures(spend: Spend, counts: PhaseCounts | undefined): string[] {
  const c = counts;
  return [
    c ? String(c.agentRuns) : '',
    String(spend.failedAttempts),
    c ? (c.pauses ? `${c.pauses} (${minutes(c.pausedMinutes)})` : '0') : '',
    c ? String(c.reruns) : '',
    minutes(spend.minutes),
    cost(spend, c),
  ];
}

/** What the phase really waits for: the architects, the end of a pause, or the node's next step. */
function headlineOf(current: ProgressCurrent): string {
  const where = `Phase ${current.phase} (pull request #${current.pr})`;
  if (current.escalated !== undefined)
    return `${where} is **escalated**: waiting for an architect (\`/coder resume\`). ${current.escalated.replace(/\.?$/, '.')}`;
  if (current.paused)
    return `${where} is **paused** until ${at(current.paused.until)}: ${escapeInline(current.paused.reason, 1_000).replace(/\.?$/, '.')} No attempt was spent; \`/coder resume\` resumes now.`;
  const node = current.node ? NODES[current.node] : 'Implementation (TDD)';
  return `${where} is at **${node}**, waiting for ${waitingFor(current.node)}.`;
}

/** The comment's text: a headline, one row per phase, the run's totals, the hidden key. */
export function renderProgress(input: ProgressInput): string {
  const { key, current } = input;
  const merged = new Map(input.merged.map((p) => [p.phase, p]));
  const title = (n: number) => {
    const phase = input.phases.find((p) => p.number === n);
    return phase?.title ? `${n} — ${escapeMarkdown(phase.title)}` : String(n);
  };
  const numbers = [
    ...new Set([
      ...input.phases.map((p) => p.number),
      ...merged.keys(),
      ...(current ? [current.phase] : []),
    ]),
  ].sort((a, b) => a - b);
  const rows = numbers.map((n) => {
    const done = merged.get(n);
    const empty = ['', '', '', '', '', ''];
    if (done) return [title(n), '✅ merged', `#${done.pr}`, ...figures(done, done.counts)];
    if (current?.phase === n) {
      const node = current.node ? NODES[current.node] : 'Implementation (TDD)';
      const state =
        current.escalated !== undefined || current.node === 'Escalate'
          ? `🛑 Escalated${current.node && current.node !== 'Escalate' ? ` (at ${node})` : ''}`
          : current.paused
            ? `⏸️ Paused (${node})`
            : `${input.ended ? '⏹' : '🔄'} ${node}`;
      return [title(n), state, `#${current.pr}`, ...figures(current.spend, current.counts)];
    }
    if (input.phases.find((p) => p.number === n)?.done)
      return [title(n), '✅ done before the run', '', ...empty];
    return [title(n), '⏳ to do', '', ...empty];
  });
  const headline = input.ended ? input.ended : current ? headlineOf(current) : 'Starting.';
  const t = input.totals;
  const c = input.totalCounts;
  const extra = c
    ? `, ${plural(c.agentRuns, 'agent run')}, ${plural(c.pauses, 'pause')}${c.pauses ? ` (${minutes(c.pausedMinutes)})` : ''}, ${plural(c.reruns, 're-run')}${c.flaky ? `, ${plural(c.flaky, 'flaky check')}` : ''}`
    : '';
  return [
    `### Coder run: ${codeSpan(key.plan)}`,
    '',
    `Started by @${input.starter}${key.startedAt ? ` at ${key.startedAt}` : ''}. ${headline}`,
    '',
    '| Phase | State | Pull request | Agent runs | Failed attempts | Pauses | Re-runs | Agent time | Cost |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `**The run so far:** ${plural(t.failedAttempts, 'failed attempt')}${extra}, ${plural(t.minutes, 'agent minute')}, ${cost(t, c)}.`,
    '',
    encodeKey(key, input.phases),
  ].join('\n');
}

function encodeKey(key: ProgressKey, phases: readonly ProgressPhase[]): string {
  const value = {
    ...key,
    phases: phases.map((p) => ({ n: p.number, t: p.title, ...(p.done ? { d: 1 } : {}) })),
  };
  // `<`, `>` and `-` escaped: nothing in the JSON can end the comment early.
  const json = JSON.stringify(value).replace(
    /[<>-]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${OPEN}${json}${CLOSE}`;
}

/**
 * A progress comment's key and phases, when its text holds a well-formed one about `key`;
 * undefined for any other comment (another run's, a person's, a malformed key).
 */
export function readProgress(
  body: string | null | undefined,
  key: ProgressKey,
): { phases: ProgressPhase[] } | undefined {
  if (!body) return undefined;
  const start = body.lastIndexOf(OPEN);
  if (start === -1) return undefined;
  const end = body.indexOf(CLOSE, start + OPEN.length);
  if (end === -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.slice(start + OPEN.length, end));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.issue !== key.issue || v.plan !== key.plan || v.startedAt !== key.startedAt)
    return undefined;
  const phases: ProgressPhase[] = [];
  if (Array.isArray(v.phases))
    for (const p of v.phases.slice(0, 500) as { n?: unknown; t?: unknown; d?: unknown }[]) {
      if (typeof p?.n !== 'number' || !Number.isInteger(p.n) || typeof p.t !== 'string') continue;
      phases.push({
        number: p.n,
        title: p.t.slice(0, 300),
        ...(p.d ? { done: true as const } : {}),
      });
    }
  return { phases };
}

/** The plan's phases for the comment, from a checklist read on the default branch. */
export function progressPhases(
  phases: readonly { number: number; name: string; tasks: readonly { state: string }[] }[],
): ProgressPhase[] {
  return phases.map((p) => ({
    number: p.number,
    title: p.name,
    ...(p.tasks.length > 0 && p.tasks.every((t) => t.state === 'done')
      ? { done: true as const }
      : {}),
  }));
}

/** A plan of another kind's phases, as the progress comment lists them (in the kind's order). */
export function kindProgressPhases(
  phases: readonly {
    number: string;
    name: string;
    tasks: readonly { state: string; optional: boolean }[];
  }[],
): ProgressPhase[] {
  return phases.map((p) => ({
    number: phaseInteger(p.number),
    title: p.name,
    ...(p.tasks.length > 0 &&
    p.tasks.every((t) => t.state === 'done' || t.state === 'set-aside' || t.optional)
      ? { done: true as const }
      : {}),
  }));
}

/** The progress comment as a run's phase PR stands: its record, the node on its head. */
export function pullProgress(
  marker: LoopMarker,
  run: RunState,
  pr: number,
  node: NodeId | undefined,
  ended?: { reason: string; merged: boolean },
): ProgressInput {
  const spend = phaseSpend(marker);
  const counts = phaseCounts(marker);
  const phase = marker.phase;
  const mergedNow = ended?.merged && phase !== undefined;
  const totalCounts = [...(run.phases ?? []).map((p) => p.counts ?? NO_COUNTS), counts].reduce(
    addCounts,
  );
  return {
    key: {
      issue: marker.issue,
      plan: run.plan,
      ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    },
    starter: run.starter,
    phases: [],
    merged: [
      ...(run.phases ?? []).filter((p) => !mergedNow || p.phase !== phase),
      ...(mergedNow ? [{ phase, pr, ...spend, counts }] : []),
    ],
    ...(phase !== undefined && !mergedNow
      ? {
          current: {
            phase,
            pr,
            ...(node ? { node } : {}),
            spend,
            counts,
            ...(marker.escalation ? { escalated: marker.escalation.reason } : {}),
            ...(marker.pause
              ? { paused: { until: marker.pause.until, reason: marker.pause.reason } }
              : {}),
          },
        }
      : {}),
    ...(ended ? { ended: ended.reason } : {}),
    totals: addSpend(run.totals ?? NO_SPEND, spend),
    totalCounts,
  };
}

/**
 * A decision's effects, and after them the run's progress comment when the PR belongs to a run
 * and the event moved it (a check-run node, the record, an escalation, a completion) — with a
 * merge, only when the merge was refused: a merged phase's run goes on (or ends) and says so.
 * `/coder stop` shows the run stopped.
 */
export function withProgress(marker: LoopMarker, effects: readonly Effect[]): Effect[] {
  const moved = effects.some(
    (e) =>
      e.kind === 'check' ||
      e.kind === 'label' ||
      e.kind === 'unlabel' ||
      e.kind === 'marker' ||
      e.kind === 'complete',
  );
  const run =
    marker.run ??
    effects.find((e): e is Extract<Effect, { kind: 'marker' }> => e.kind === 'marker')?.marker.run;
  if (!moved || !run || marker.mode !== 'plan') return [...effects];
  const merging = effects.some((e) => e.kind === 'merge');
  // The node the PR is at after these effects: the last one shown on its head, or Final
  // Verification once the completion commit is made.
  let node: NodeId | undefined;
  for (const e of effects) {
    if (e.kind === 'check' && !e.sha && e.when !== 'not-merged') node = e.view.node;
    if (e.kind === 'complete') node = 'FinalVerify';
  }
  return [
    ...effects,
    {
      kind: 'progress',
      run,
      ...(node ? { node } : {}),
      ...(merging ? { when: 'not-merged' as const } : {}),
    },
  ];
}

/** The line a run PR's `coder-loop` check run shows: a link to the run's progress comment. */
export function progressLink(repoUrl: string, record: LoopMarker | undefined): string {
  const run = record?.run;
  if (!record || !run?.progress) return '';
  return `\n\nPart of a \`/coder run\` of ${codeSpan(run.plan)}: [the run's progress](${repoUrl}/issues/${record.issue}#issuecomment-${run.progress}).`;
}
