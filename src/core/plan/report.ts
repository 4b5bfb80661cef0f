import {
  describeRun,
  formatCost,
  formatMinutes,
  totalUsage,
  type AgentRunEntry,
} from '../agent/usage.js';
import type { Task } from './checklist.js';
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
