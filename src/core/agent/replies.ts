import { codeSpan } from '../markdown.js';
import type { AgentNode, AgentPayload } from './payload.js';
import { defuse, escapeInline } from './escape.js';
import { sanitizeUntrusted } from './redact.js';
import { describeRun, type AgentRunEntry } from './usage.js';

/** What the agent wrote about its run, as it may appear on a PR at most. */
const MAX_SUMMARY = 20_000;

/**
 * The agent's summary for a PR comment: its markdown kept readable, but hidden channels and
 * credentials removed, raw HTML shown as text, mentions defused (no ping) and images turned
 * into links, so the text can neither notify anyone nor load anything.
 */
export function escapeSummary(text: string): string {
  let clean = sanitizeUntrusted(text).replace(/\r\n?/g, '\n').trim();
  if (clean.length > MAX_SUMMARY) clean = `${clean.slice(0, MAX_SUMMARY)}\n…(cut)`;
  return defuse(clean);
}

const NODE_NAMES: Record<AgentNode, string> = {
  tdd: 'TDD',
  'debug-fix': 'Debug & Fix',
  'review-fix': 'review fix',
  revise: 'Revise Code',
};

const short = (sha: string) => sha.slice(0, 7);

function what(p: Pick<AgentPayload, 'node' | 'attempt'>): string {
  return `the coding agent (${NODE_NAMES[p.node]}, attempt ${p.attempt})`;
}

/** Quoted, so it reads as the agent's words and not the loop's. */
function quoted(summary: string): string {
  const text = escapeSummary(summary);
  return text ? `\n\n${text.replace(/^/gm, '> ')}` : '';
}

/** The trailer that ties an agent commit to its hand-off: how a redelivery is recognised. */
export function agentTrailer(p: Pick<AgentPayload, 'node' | 'headSha' | 'attempt'>): string {
  return `Coder-Loop-Agent: ${p.node} ${p.headSha} ${p.attempt}`;
}

/** The trailer that marks an agent commit as partial work (the agent ran out of time). */
const PARTIAL_TRAILER = 'Coder-Loop-Partial: timed out';

export function agentCommitMessage(
  p: Pick<AgentPayload, 'node' | 'headSha' | 'attempt' | 'plan' | 'phase' | 'issue'>,
  options: { partial?: boolean; paused?: boolean } = {},
): string {
  const where = p.plan === null ? `issue #${p.issue}` : `${p.plan} phase ${p.phase}`;
  if (options.paused)
    return `coder-loop agent: partial ${NODE_NAMES[p.node]} for ${where} (attempt ${p.attempt}, paused at the provider's limit)\n\nWhat the agent changed before its provider's limit stopped it; it resumes from here.\n\n${agentTrailer(p)}\nCoder-Loop-Partial: paused\n`;
  if (options.partial)
    return `coder-loop agent: partial ${NODE_NAMES[p.node]} for ${where} (attempt ${p.attempt}, timed out)\n\nWhat the agent changed before its time ran out; the next attempt starts from it.\n\n${agentTrailer(p)}\n${PARTIAL_TRAILER}\n`;
  return `coder-loop agent: ${NODE_NAMES[p.node]} for ${where} (attempt ${p.attempt})\n\n${agentTrailer(p)}\n`;
}

/** The run's wall time and usage, as a line of a reply (empty without a measured run). */
function usageLine(run: Pick<AgentRunEntry, 'minutes' | 'usage'> | undefined): string {
  return run ? `\n\nAgent run: ${describeRun(run)}.` : '';
}

type RunShown = Pick<AgentRunEntry, 'minutes' | 'usage'>;

/** The comments `step: apply` posts on the loop PR. */
/** A partial agent commit: what stopped the agent (`why`), then what it costs (`after`). */
function partialCommit(
  p: AgentPayload,
  commit: string,
  why: string,
  after: string,
  summary: string,
  run?: RunShown,
): string {
  return `**Partial agent commit** ${short(commit)}: ${what(p)} ${why}. What it changed until then is committed on ${codeSpan(p.branch)} on top of ${short(p.headSha)}, marked partial. ${after}${usageLine(run)}${quoted(summary)}`;
}

export const agentReply = {
  committed: (p: AgentPayload, commit: string, summary: string, run?: RunShown): string =>
    `**Agent commit** ${short(commit)}: ${what(p)} changed the branch ${codeSpan(p.branch)} on top of ${short(p.headSha)}. CI runs on it next.${usageLine(run)}${quoted(summary)}`,

  paused: (
    p: AgentPayload,
    commit: string,
    reason: string,
    summary: string,
    run?: RunShown,
  ): string =>
    partialCommit(
      p,
      commit,
      `stopped at its provider's limit (${escapeInline(reason)})`,
      'No attempt is spent: the loop resumes it when the limit resets.',
      summary,
      run,
    ),

  partial: (
    p: AgentPayload,
    commit: string,
    reason: string,
    summary: string,
    run?: RunShown,
  ): string =>
    partialCommit(
      p,
      commit,
      escapeInline(reason),
      'This counts as a failed attempt; the next attempt starts from it.',
      summary,
      run,
    ),

  noChange: (p: AgentPayload, summary: string, run?: RunShown): string =>
    `**No change.** ${what(p)} left the checkout as it found it, so nothing was committed. This counts as a failed attempt.${usageLine(run)}${quoted(summary)}`,

  failed: (p: AgentPayload, reason: string, summary: string, run?: RunShown): string =>
    `**Agent failed.** ${what(p)} ${escapeInline(reason)}; nothing was committed. This counts as a failed attempt.${usageLine(run)}${quoted(summary)}`,

  refused: (p: AgentPayload, problems: readonly string[]): string =>
    `**Agent changes refused.** ${what(p)} changed files the agent may not change, so nothing was written:\n\n${problems
      .slice(0, 50)
      .map((problem) => `- ${codeSpan(problem)}`)
      .join('\n')}${problems.length > 50 ? `\n- …and ${problems.length - 50} more` : ''}`,

  moved: (p: AgentPayload, head: string | undefined): string =>
    `**Not applied.** ${what(p)} worked on ${short(p.headSha)}, but the branch ${codeSpan(p.branch)} ${head ? `moved to ${short(head)}` : 'is gone'} meanwhile, so nothing was written. The loop goes on from the new head.`,
};
