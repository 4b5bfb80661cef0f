import type { Problem } from '../../problem.js';
import {
  comparePhaseNumbers,
  dialectRead,
  finish,
  readsBox,
  speckitEventsOfTree,
  type DialectPhase,
  type DialectPlan,
  type DialectState,
} from './markdownDialect.js';

/**
 * OpenSpec's tasks.md (`openspec/changes/<change>/tasks.md`), as OpenSpec's own template and
 * `apply` read it: a phase is a `## N. Group` heading (level 2, a number and a dot), a task a
 * checkbox item under it, `- [ ] 1.1 Description` (nested items count too), `[x]` or `[X]` done.
 * OpenSpec has no in-progress mark: the loop's lock branch and pull request are the record.
 */
const GROUP = /^(\d+)\.(?:\s+([\s\S]*))?$/;
/** OpenSpec's task id: `1.1`, `2.3.1`, `4.2a`, at the start of the task's text. */
const TASK_ID = /^(\d+(?:\.\d+)+(?:[A-Za-z]+)?)(?=\s|$)/;
const STATE: Record<string, DialectState> = { ' ': 'todo', '\t': 'todo', x: 'done', X: 'done' };

/**
 * OpenSpec's tasks.md. Its headings and boxes are spec-kit's events (the line scanner's fast path,
 * else remark's tree); `fast: false` reads with remark alone, the authority the scanner is
 * tested against.
 */
export function readOpenspec(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): DialectPlan {
  const read = dialectRead(source, path, 'speckit', options);
  if ('limited' in read) return read.limited;
  const { scanned, root, skip } = read;
  const events = scanned?.events ?? speckitEventsOfTree(source, root());
  const phases: DialectPhase[] = [];
  const problems: Problem[] = [];
  let current: DialectPhase | undefined;
  for (const event of events) {
    if (event.kind === 'heading') {
      if (event.depth > 2) continue;
      const m = event.depth === 2 ? GROUP.exec(event.text.trim()) : null;
      current = m
        ? { number: m[1]!, name: (m[2] ?? '').trim(), line: event.line, tasks: [] }
        : undefined;
      if (current) phases.push(current);
      continue;
    }
    if (!current) continue;
    if (!readsBox(STATE, event.mark, event.after)) continue;
    current.tasks.push({
      id: TASK_ID.exec(event.text)?.[1] ?? `${current.number}.${current.tasks.length + 1}`,
      text: event.text,
      state: STATE[event.mark]!,
      mark: event.mark,
      optional: false,
      requirements: [],
      line: event.line,
      markOffset: event.offset,
    });
  }
  const seen = new Map<string, number>();
  for (const phase of phases) {
    const before = seen.get(phase.number);
    if (before !== undefined) {
      problems.push({
        severity: 'error',
        path,
        line: phase.line,
        message: `Group ${phase.number} is also on line ${before}.`,
        fix: 'Number each "## N." group once.',
      });
    }
    seen.set(phase.number, phase.line);
  }
  phases.sort((a, b) => comparePhaseNumbers(a.number, b.number));
  return finish(
    source,
    path,
    skip,
    phases,
    problems,
    'Write a task as "- [ ] 1.1 Description" under a "## 1. Group" heading.',
    { marks: ' \txX', unread: 'it is under no "## N. Group" heading' },
  );
}
