import type { Config } from '../config.js';
import { codeSpan, encodePath } from '../markdown.js';
import { oneLine } from '../plan/text.js';
import type { Phase } from '../plan/checklist.js';
import { PLAN_FILES, phaseBranch, planPath } from '../plan/layout.js';
import { markPhase } from '../plan/mark.js';
import { appendLogEntry } from '../plan/masterLog.js';
import type { PlanContext, PlanFiles } from '../plan/validate.js';
import { renderMarker, type LoopMarker } from './marker.js';

export interface Orchestrator {
  issue: number;
  issueUrl: string;
  actor: string;
  comment?: number;
}

export interface FileChange {
  /** Repository path. */
  path: string;
  content: string;
}

export interface PhaseStart {
  phase: Phase;
  branch: string;
  marker: LoopMarker;
  changes: FileChange[];
  message: string;
}

/**
 * MarkInProgress: every `[ ]` task of the current phase becomes `[~]` and "Coder started" is
 * appended to the master log — the file changes of the one start commit on the lock branch.
 */
export function markInProgress(
  config: Config,
  plan: PlanFiles,
  context: PlanContext & { current: Phase },
  who: Orchestrator,
  now: string,
): PhaseStart {
  const phase = context.current;
  const checklist = plan.files.get(PLAN_FILES.checklist)!;
  const marked = markPhase(checklist, phase, 'doing', ['todo']).source;
  const log = appendLogEntry(plan.files.get(PLAN_FILES.masterLog), {
    timestamp: now,
    event: 'Coder started',
    plan: plan.name,
    phase: { number: phase.number, name: phase.name },
    actor: who.actor,
    links: [{ label: `#${who.issue}`, url: who.issueUrl }],
  });
  const at = (file: string) => planPath(config.plansDir, plan.name, file);
  const changes: FileChange[] = [];
  if (marked !== checklist) changes.push({ path: at(PLAN_FILES.checklist), content: marked });
  changes.push({ path: at(PLAN_FILES.masterLog), content: log });
  const marker: LoopMarker = {
    mode: 'plan',
    plan: plan.name,
    phase: phase.number,
    issue: who.issue,
    ...(who.comment !== undefined ? { comment: who.comment } : {}),
  };
  const title = phaseTitle(phase);
  return {
    phase,
    branch: phaseBranch(plan.name, phase.number),
    marker,
    changes,
    message: `coder-loop: ${plan.name} ${title} — Coder started\n\nMark the phase's tasks [~] and log "Coder started" (#${who.issue}).\n\n${renderMarker(marker)}\n`,
  };
}

export function phaseTitle(phase: { number: number; name: string }): string {
  return `Phase ${phase.number}${phase.name ? ` — ${phase.name}` : ''}`;
}

export interface PullRequestText {
  title: string;
  body: string;
}

/** Automatic PR per phase: the task plan, the tasks, the guidance links, `Refs #issue`. */
export function phasePullRequest(
  config: Config,
  plan: PlanFiles,
  context: PlanContext,
  start: PhaseStart,
  repoUrl: string,
): PullRequestText {
  const { phase, branch } = start;
  const at = (file: string) => planPath(config.plansDir, plan.name, file);
  const link = (file: string) =>
    `[${oneLine(file)}](${repoUrl}/blob/${encodePath(branch)}/${encodePath(at(file))})`;
  const lines = [
    renderMarker(start.marker),
    // Plan, phase and task text come from the default branch, written by people with write
    // access: shown as the markdown they are. Untrusted text (comments, titles) is escaped.
    `Phase ${phase.number} of plan ${codeSpan(plan.name)}${phase.name ? `: ${oneLine(phase.name)}` : ''}.`,
    '',
    `Refs #${start.marker.issue}`,
    '',
    '### Tasks',
    '',
  ];
  for (const task of phase.tasks) {
    const box = task.state === 'done' ? '[x]' : '[~]';
    lines.push(`${'  '.repeat(task.depth)}- ${box} ${oneLine(task.text)}`);
  }
  lines.push('', '### Task plan', '');
  if (context.taskPlan) {
    lines.push(`From ${link(context.taskPlan)}:`, '');
    const text = plan.files.get(context.taskPlan) ?? '';
    lines.push(
      ...text
        .slice(0, 20_000)
        .split(/\r?\n/)
        .map((l) => `> ${l}`),
    );
  }
  lines.push('', '### Guidance', '');
  if (context.codemap) lines.push(`- Codemap: ${link(context.codemap)}`);
  for (const r of context.requirements) lines.push(`- Requirements: ${link(r)}`);
  lines.push(
    `- Context: ${link(PLAN_FILES.context)}`,
    `- Checklist: ${link(PLAN_FILES.checklist)}`,
  );
  lines.push(
    '',
    '### How this pull request moves',
    '',
    `Push the implementation to ${codeSpan(branch)}, test first. CI on this pull request is the verification gate (up to ${config.maxRetries} failed attempts before escalation); an approving review marks the tasks \`[x]\`, writes the phase report and updates the context and the master log. The \`coder-loop\` check shows where the phase stands.`,
  );
  return { title: `[coder] ${plan.name}: ${phaseTitle(phase)}`, body: lines.join('\n') };
}
