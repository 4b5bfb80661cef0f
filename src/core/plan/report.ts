import {
  describeRun,
  formatCost,
  formatMinutes,
  totalUsage,
  type AgentRunEntry,
} from '../agent/usage.js';
import { escapeInline } from '../agent/escape.js';
import type { Task } from './checklistModel.js';
import { oneLine } from './text.js';

export interface ReportCommit {
  sha: string;
  message: string;
  url?: string;
}

export interface ReportCheck {
  name: string;
  conclusion: string;
  url?: string;
}

/** One CI run of the gate on one head commit. */
export interface ReportAttempt {
  number: number;
  sha: string;
  outcome: 'passed' | 'failed';
  checks: ReportCheck[];
}

export interface ReportReviewer {
  login: string;
  state: string;
}

export interface ReportFile {
  path: string;
  additions?: number;
  deletions?: number;
}

/** How a task stands in Passes Spec?'s verdict on the approved head. */
export type TraceStatus = 'evidence' | 'missing' | 'unchecked' | 'done' | 'optional';

/** A task of the phase → the evidence the verdict found, the tests and commits that cover it. */
export interface TraceTask {
  id: string;
  status: TraceStatus;
  /** The verdict's one line for the task. */
  line: string;
  tests: string[];
  commits: ReportCommit[];
}

/** A requirement (user story, criterion) the phase's tasks cite → who covers it. */
export interface TraceRequirement {
  id: string;
  tasks: string[];
  tests: string[];
  commits: ReportCommit[];
}

/** The report's traceability section: Passes Spec?'s verdict, recomputed at completion. */
export interface ReportTrace {
  passed: boolean;
  tasks: TraceTask[];
  requirements: TraceRequirement[];
  /** The phase's test rule, in one line. */
  testRule: string;
}

/** Everything a phase report says; the GitHub side fills in commits, attempts and reviews. */
export interface PhaseReport {
  plan: string;
  phase: { number: number | string; name: string };
  tasks: readonly Pick<Task, 'depth' | 'state' | 'text'>[];
  /** ISO-8601 time the report was written (the loop writes it when the phase completes). */
  completedAt: string;
  pullRequest?: { number: number; url: string };
  issue?: { number: number; url: string };
  commits?: ReportCommit[];
  attempts?: ReportAttempt[];
  reviewers?: ReportReviewer[];
  approver?: string;
  files?: ReportFile[];
  /** The coding agent's runs on the PR, from the loop's record: wall time and reported usage. */
  agentRuns?: readonly AgentRunEntry[];
  /** Each task and requirement → the tests and commits covering it (absent: `specCheck: off`). */
  trace?: ReportTrace;
  /** What the phase cost besides its agent runs: failed attempts, pauses, re-runs, flaky checks. */
  cost?: ReportCost;
}

/** The phase's counts, from the loop's record. */
export interface ReportCost {
  failedAttempts: number;
  pauses: readonly { since: string; until: string; reason: string }[];
  reruns: readonly { sha: string; checks: readonly string[]; infrastructure?: true }[];
  flaky: readonly { sha: string; name: string }[];
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** `## What the phase cost`: agent runs and their cost (unknown where none was reported), the rest. */
function renderCost(cost: ReportCost, runs: readonly AgentRunEntry[]): string[] {
  const unpriced = runs.filter((r) => r.usage?.costUsd === undefined).length;
  const priced = runs.reduce((sum, r) => sum + (r.usage?.costUsd ?? 0), 0);
  const money =
    runs.length === 0
      ? 'no agent run'
      : unpriced === runs.length
        ? 'cost unknown: no run reported one'
        : unpriced > 0
          ? `${formatCost(priced)} reported, plus ${unpriced} run${unpriced === 1 ? '' : 's'} of unknown cost`
          : formatCost(priced);
  const lines = [
    '',
    '## What the phase cost',
    '',
    `- Agent runs: ${runs.length} (${money})`,
    `- Failed attempts: ${cost.failedAttempts}`,
    `- Pauses at the agent's limit: ${cost.pauses.length}`,
  ];
  for (const p of cost.pauses) {
    const span = Math.max(0, Math.round((Date.parse(p.until) - Date.parse(p.since)) / 60_000)) || 0;
    // The reason is the agent's CLI's line: its words, shown as untrusted text (no link, image or
    // mention), as the loop's replies show it.
    lines.push(
      `  - ${utc(p.since)} until ${utc(p.until)} (${span} min): ${escapeInline(p.reason, 1_000)}`,
    );
  }
  const infra = cost.reruns.filter((r) => r.infrastructure).length;
  lines.push(
    `- Re-runs asked by the loop: ${cost.reruns.length}${cost.reruns.length ? ` (${infra} for infrastructure)` : ''}`,
  );
  for (const r of cost.reruns)
    lines.push(
      `  - \`${r.sha.slice(0, 7)}\`: ${r.checks.map(cell).join(', ')}${r.infrastructure ? ' (infrastructure)' : ''}`,
    );
  lines.push(`- Flaky checks: ${cost.flaky.length}`);
  for (const f of cost.flaky)
    lines.push(`  - ${cell(f.name)} on \`${f.sha.slice(0, 7)}\`: failed, then passed on a re-run`);
  return lines;
}

const STATE_BOX = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;

function cell(text: string): string {
  return oneLine(text).replace(/\|/g, '\\|');
}

function link(label: string, url: string | undefined): string {
  return url ? `[${cell(label)}](${url})` : cell(label);
}

/** The phase report `Reports/{NN}_{Phase_Name}.md`, as lines (the caller picks the line ending). */
export function renderPhaseReport(report: PhaseReport): string[] {
  const { phase } = report;
  const title = `Phase ${phase.number}${phase.name ? `: ${oneLine(phase.name)}` : ''}`;
  const lines = [`# ${title} — report`, ''];
  lines.push(`- Plan: ${oneLine(report.plan)}`);
  lines.push(`- Date: ${report.completedAt}`);
  if (report.pullRequest) {
    lines.push(`- Pull request: ${link(`#${report.pullRequest.number}`, report.pullRequest.url)}`);
  }
  if (report.issue)
    lines.push(`- Orchestrator issue: ${link(`#${report.issue.number}`, report.issue.url)}`);
  if (report.approver) lines.push(`- Approved by: @${cell(report.approver)}`);

  lines.push('', '## Tasks', '');
  for (const task of report.tasks) {
    lines.push(`${'  '.repeat(task.depth)}- ${STATE_BOX[task.state]} ${oneLine(task.text)}`);
  }
  if (report.tasks.length === 0) lines.push('No tasks.');

  if (report.trace) lines.push(...renderTrace(report.trace));

  if (report.commits) {
    lines.push('', '## Commits', '');
    for (const c of report.commits) {
      const subject = oneLine(c.message.split('\n')[0] ?? '');
      lines.push(`- ${link(c.sha.slice(0, 7), c.url)} ${subject}`);
    }
    if (report.commits.length === 0) lines.push('No commits.');
  }

  if (report.attempts) {
    lines.push('', '## CI attempts', '');
    if (report.attempts.length === 0) lines.push('No CI runs were recorded.');
    for (const a of report.attempts) {
      lines.push(`${a.number}. ${a.outcome} on \`${a.sha.slice(0, 7)}\``);
      for (const check of a.checks) {
        lines.push(`   - ${link(check.name, check.url)}: ${cell(check.conclusion)}`);
      }
    }
  }

  if (report.reviewers) {
    lines.push('', '## Reviews', '');
    if (report.reviewers.length === 0) lines.push('No reviews.');
    for (const r of report.reviewers) lines.push(`- @${cell(r.login)}: ${cell(r.state)}`);
  }

  if (report.agentRuns?.length) {
    const names = {
      tdd: 'TDD',
      'debug-fix': 'Debug & Fix',
      'review-fix': 'Review fix',
      revise: 'Revise Code',
    } as const;
    lines.push('', '## Agent runs', '');
    report.agentRuns.forEach((r, i) => {
      lines.push(
        `${i + 1}. ${names[r.node]} on \`${r.sha.slice(0, 7)}\`${r.partial ? ' (partial: timed out)' : ''}: ${describeRun(r)}`,
      );
    });
    const total = totalUsage(report.agentRuns);
    const u = total.usage;
    lines.push(
      '',
      `Total: ${formatMinutes(total.minutes)}${u?.inputTokens !== undefined ? `, ${u.inputTokens.toLocaleString('en-US')} input tokens` : ''}${u?.outputTokens !== undefined ? `, ${u.outputTokens.toLocaleString('en-US')} output tokens` : ''}${u?.costUsd !== undefined ? `, ${formatCost(u.costUsd)}` : ''} (tokens and cost as the agent reported them, where it did).`,
    );
  }

  const c = report.cost;
  if (
    c &&
    (report.agentRuns?.length ||
      c.failedAttempts ||
      c.pauses.length ||
      c.reruns.length ||
      c.flaky.length)
  )
    lines.push(...renderCost(c, report.agentRuns ?? []));

  if (report.files) {
    lines.push('', '## Files changed', '');
    if (report.files.length === 0) lines.push('No files changed.');
    else {
      lines.push('| File | + | − |', '| --- | ---: | ---: |');
      for (const f of report.files) {
        lines.push(`| \`${cell(f.path)}\` | ${f.additions ?? ''} | ${f.deletions ?? ''} |`);
      }
    }
  }
  return lines;
}

/** At most this many tests or commits in one cell of the traceability tables; the rest counted. */
const CELL_ITEMS = 10;

function items(list: readonly string[]): string {
  if (list.length === 0) return '—';
  const shown = list.slice(0, CELL_ITEMS).join(', ');
  return list.length > CELL_ITEMS ? `${shown} and ${list.length - CELL_ITEMS} more` : shown;
}

const testCells = (tests: readonly string[]) => items(tests.map((t) => `\`${cell(t)}\``));
const commitCells = (commits: readonly ReportCommit[]) =>
  items(commits.map((c) => link(c.sha.slice(0, 7), c.url)));

/** The traceability section: one row per task, one per requirement cited, the test rule. */
function renderTrace(trace: ReportTrace): string[] {
  const traced = trace.tasks.filter((t) => t.status === 'evidence').length;
  const lacking = trace.tasks.filter((t) => t.status === 'missing').length;
  const lines = [
    '',
    '## Traceability',
    '',
    `Passes Spec? ${trace.passed ? 'yes' : 'no'} on the approved head: ${traced} of ${trace.tasks.length} tasks traced to evidence, ${lacking} lacking.`,
  ];
  if (trace.tasks.length) {
    lines.push('', '| Task | Evidence | Tests | Commits |', '| --- | --- | --- | --- |');
    for (const t of trace.tasks)
      lines.push(
        `| \`${cell(t.id)}\` | ${t.status === 'missing' ? 'missing: ' : ''}${cell(t.line)} | ${testCells(t.tests)} | ${commitCells(t.commits)} |`,
      );
  }
  if (trace.requirements.length) {
    lines.push('', '| Requirement | Tasks | Tests | Commits |', '| --- | --- | --- | --- |');
    for (const r of trace.requirements)
      lines.push(
        `| \`${cell(r.id)}\` | ${items(r.tasks.map((t) => `\`${cell(t)}\``))} | ${testCells(r.tests)} | ${commitCells(r.commits)} |`,
      );
  }
  lines.push('', `- ${cell(trace.testRule)}`);
  return lines;
}
