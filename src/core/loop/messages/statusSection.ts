import { codeSpan, escapeMarkdown } from '../../markdown.js';
import type { Problem } from '../../problem.js';
import type { PlanContext } from '../../plan/validate.js';
import type { StatusLock } from '../phasePlan/phasePlan.js';
import { CLI_NAME } from '../../cliCommand.js';
import { problemList } from './replies.js';

/** The sections of the `/coder status` reply: one per plan, of either layout. */

const BOX = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;

/** A phase's line: its number and name, its tasks done of all, and whether it is the current one. */
function phaseLine(
  phase: { number: number | string; name: string; tasks: readonly { state: string }[] },
  current: boolean,
): string {
  const done = phase.tasks.filter((t) => t.state === 'done').length;
  const here = current ? ' ← current' : '';
  return `- **Phase ${phase.number}${phase.name ? `: ${escapeMarkdown(phase.name)}` : ''}** (${done}/${phase.tasks.length})${here}`;
}

/** The current phase's lock: held by a branch (and its pull request), or free for `/coder next`. */
function lockLine(plan: string, phase: number | string, lock: StatusLock): string {
  return lock.held
    ? `Phase ${phase} is locked by ${codeSpan(lock.branch)}${lock.pr !== undefined ? `, pull request #${lock.pr}` : ''}.`
    : `Phase ${phase} is free: ${codeSpan(`/coder next ${plan}`)} takes it.`;
}

/** `/coder status`: one plan's phases and tasks, where it stands, and its lock. */
export function statusSection(
  name: string,
  context: PlanContext,
  lock: StatusLock | undefined,
  cli: string = CLI_NAME,
): string {
  const lines = [`### ${escapeMarkdown(name)}`, ''];
  if (!context.checklist) lines.push('No readable checklist.');
  else {
    for (const phase of context.checklist.phases) {
      lines.push(phaseLine(phase, phase === context.current));
      for (const t of phase.tasks)
        lines.push(`  ${'  '.repeat(t.depth)}- ${BOX[t.state]} ${escapeMarkdown(t.text)}`);
    }
    if (context.current && lock) lines.push('', lockLine(name, context.current.number, lock));
    else lines.push('', 'Complete.');
  }
  if (!context.valid)
    lines.push('', `Not valid: ${codeSpan(`${cli} lint "${name}"`)} lists the problems.`);
  return lines.join('\n');
}

/** `/coder status`: a plan of another kind, as `statusSection`. */
export function kindStatusSection(
  label: string,
  kind: string,
  path: string,
  plan: {
    phases: readonly {
      number: string;
      name: string;
      tasks: readonly {
        text: string;
        state: 'todo' | 'doing' | 'done' | 'set-aside';
        optional: boolean;
        note?: string;
      }[];
    }[];
    current: { number: string } | undefined;
    complete: boolean;
    waiting: string | undefined;
    problems: readonly Problem[];
  },
  lock: StatusLock | undefined,
  cli: string = CLI_NAME,
): string {
  const lines = [`### ${escapeMarkdown(label)} (${kind}, ${codeSpan(path)})`, ''];
  for (const phase of plan.phases) {
    lines.push(phaseLine(phase, phase.number === plan.current?.number));
    for (const t of phase.tasks)
      lines.push(
        `  - ${t.state === 'set-aside' ? '[ ]' : BOX[t.state]} ${escapeMarkdown(t.text)}${t.state === 'set-aside' ? ' (set aside)' : t.note ? ` (${t.note})` : t.optional ? ' (optional)' : ''}`,
      );
  }
  if (plan.problems.length > 0) lines.push('', `Not valid:\n\n${problemList(plan.problems, cli)}`);
  else if (plan.current && lock) lines.push('', lockLine(label, plan.current.number, lock));
  else if (plan.complete) lines.push('', 'Complete.');
  else if (!plan.current)
    lines.push('', `No phase can start: ${escapeMarkdown(plan.waiting ?? '')}`);
  return lines.join('\n');
}
