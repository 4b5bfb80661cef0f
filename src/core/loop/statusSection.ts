import { codeSpan, escapeMarkdown } from '../markdown.js';
import type { Problem } from '../problem.js';
import type { PlanContext } from '../plan/validate.js';
import { problemList } from './replies.js';

/** The sections of the `/coder status` reply: one per plan, of either layout. */

const BOX = { todo: '[ ]', doing: '[~]', done: '[x]' } as const;

/** `/coder status`: one plan's phases and tasks, where it stands, and its lock. */
export function statusSection(
  name: string,
  context: PlanContext,
  lock: { branch: string; held: boolean; pr?: number } | undefined,
): string {
  const lines = [`### ${escapeMarkdown(name)}`, ''];
  if (!context.checklist) lines.push('No readable checklist.');
  else {
    for (const phase of context.checklist.phases) {
      const done = phase.tasks.filter((t) => t.state === 'done').length;
      const here = phase === context.current ? ' ← current' : '';
      lines.push(
        `- **Phase ${phase.number}${phase.name ? `: ${escapeMarkdown(phase.name)}` : ''}** (${done}/${phase.tasks.length})${here}`,
      );
      for (const t of phase.tasks)
        lines.push(`  ${'  '.repeat(t.depth)}- ${BOX[t.state]} ${escapeMarkdown(t.text)}`);
    }
    if (context.current && lock)
      lines.push(
        '',
        lock.held
          ? `Phase ${context.current.number} is locked by ${codeSpan(lock.branch)}${lock.pr !== undefined ? `, pull request #${lock.pr}` : ''}.`
          : `Phase ${context.current.number} is free: ${codeSpan(`/coder next ${name}`)} takes it.`,
      );
    else lines.push('', 'Complete.');
  }
  if (!context.valid)
    lines.push('', `Not valid: ${codeSpan(`npx coder-loop lint "${name}"`)} lists the problems.`);
  return lines.join('\n');
}

/** `/coder status`: a plan of another kind (spec-kit, Kiro, Task Master), as `statusSection`. */
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
  lock: { branch: string; held: boolean; pr?: number } | undefined,
): string {
  const lines = [`### ${escapeMarkdown(label)} (${kind}, ${codeSpan(path)})`, ''];
  for (const phase of plan.phases) {
    const done = phase.tasks.filter((t) => t.state === 'done').length;
    const here = phase.number === plan.current?.number ? ' ← current' : '';
    lines.push(
      `- **Phase ${phase.number}${phase.name ? `: ${escapeMarkdown(phase.name)}` : ''}** (${done}/${phase.tasks.length})${here}`,
    );
    for (const t of phase.tasks)
      lines.push(
        `  - ${t.state === 'set-aside' ? '[ ]' : BOX[t.state]} ${escapeMarkdown(t.text)}${t.state === 'set-aside' ? ' (set aside)' : t.note ? ` (${t.note})` : t.optional ? ' (optional)' : ''}`,
      );
  }
  if (plan.problems.length > 0) lines.push('', `Not valid:\n\n${problemList(plan.problems)}`);
  else if (plan.current && lock)
    lines.push(
      '',
      lock.held
        ? `Phase ${plan.current.number} is locked by ${codeSpan(lock.branch)}${lock.pr !== undefined ? `, pull request #${lock.pr}` : ''}.`
        : `Phase ${plan.current.number} is free: ${codeSpan(`/coder next ${label}`)} takes it.`,
    );
  else if (plan.complete) lines.push('', 'Complete.');
  else if (!plan.current)
    lines.push('', `No phase can start: ${escapeMarkdown(plan.waiting ?? '')}`);
  return lines.join('\n');
}
