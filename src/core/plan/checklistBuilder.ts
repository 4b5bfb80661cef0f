import type { Problem } from '../problem.js';
import {
  nearPhaseReason,
  readPhaseHeading,
  STATE_OF,
  type Checklist,
  type Phase,
  type TaskMark,
} from './checklistModel.js';
import { endOfLine } from './text.js';

const WRITTEN_ID = /^(\d+(?:\.\d+)+|[A-Z]{1,5}-?\d+(?:\.\d+)*)(?=$|[\s:.)—–-])/;

/**
 * Reads phases and tasks from the events of one walk over the document (remark's tree, or the
 * line scanner's plain subset): headings, list items and bold lines, in document order.
 */
export class ChecklistBuilder {
  private readonly phases: { phase: Phase; level: number }[] = [];
  private readonly problems: Problem[] = [];
  private readonly seenId = new Map<string, number>();
  private current: { phase: Phase; level: number } | undefined;
  /** The heading that ended the last phase, for the message of a task after it. */
  private ended: { line: number; text: string } | undefined;

  constructor(
    private readonly source: string,
    private readonly path: string,
  ) {}

  private warn(line: number, message: string, fix?: string): void {
    this.problems.push({
      severity: 'warning',
      path: this.path,
      line,
      message,
      ...(fix ? { fix } : {}),
    });
  }

  /** A heading at the top level of the document. */
  heading(level: number, text: string, line: number): void {
    const phase = readPhaseHeading(text);
    if (phase) {
      this.current = { phase: { ...phase, line, tasks: [] }, level };
      this.phases.push(this.current);
      this.ended = undefined;
      return;
    }
    const reason = nearPhaseReason(text);
    if (reason) {
      this.warn(
        line,
        `"${text.trim()}" is not a phase: ${reason}.`,
        'Write a phase heading as "## Phase 1: Name".',
      );
    }
    if (this.current && level <= this.current.level) {
      this.ended = { line, text: text.trim() };
      this.current = undefined;
    }
  }

  /**
   * A heading inside a block quote or a list item: never a phase. When it reads as one, or would
   * end the current phase by its level, the rest of its container is not tracked (returns true).
   */
  nestedHeading(level: number, text: string, line: number): boolean {
    const phaseLike = readPhaseHeading(text) !== undefined || nearPhaseReason(text) !== undefined;
    if (phaseLike) {
      this.warn(
        line,
        `"${text.trim()}" is inside a block quote or a list item, so it is not a phase.`,
        'Move the heading out of the quote or list to make it a phase.',
      );
    }
    return phaseLike || (this.current !== undefined && level <= this.current.level);
  }

  /** A paragraph at the top level that opens with bold text, such as `**Phase 1:** Setup`. */
  boldLine(text: string, line: number): void {
    if (readPhaseHeading(text) === undefined && nearPhaseReason(text) === undefined) return;
    const where = this.current
      ? `its tasks count in Phase ${this.current.phase.number}`
      : 'its tasks are not tracked';
    this.warn(
      line,
      `"${text.trim()}" is bold text, not a heading, so it is not a phase (${where}).`,
      `Write it as a heading: "## ${text.trim().replace(/:$/, '')}".`,
    );
  }

  /**
   * A list item: `at` is the offset of its box's `[` (undefined when it is no task), `line` the
   * box's line, `depth` the list items around it, `suspendedBy` the line of a heading in a block
   * quote or list item that ended tracking for the rest of it.
   */
  item(at: number | undefined, line: number, depth: number, suspendedBy: number | undefined): void {
    if (at === undefined) return;
    if (!this.current || suspendedBy !== undefined) {
      const why =
        suspendedBy !== undefined
          ? `it follows the heading on line ${suspendedBy} inside a block quote or list item, which is not a phase`
          : this.ended
            ? `the heading "${this.ended.text}" on line ${this.ended.line} ended the phase before it`
            : this.phases.length === 0
              ? 'it comes before the first "Phase <N>" heading'
              : 'it is not under a "Phase <N>" heading';
      this.warn(
        line,
        `This task is not tracked by the loop: ${why}.`,
        'Move it under a phase heading if the loop should do it.',
      );
      return;
    }
    const phase = this.current.phase;
    const mark = this.source[at + 1] as TaskMark;
    const text = taskText(this.source, at);
    const written = WRITTEN_ID.exec(text)?.[1];
    const index = phase.tasks.length + 1;
    const id = written ?? `${phase.number}.${index}`;
    const firstLine = this.seenId.get(id);
    if (firstLine !== undefined) {
      this.problems.push({
        severity: 'error',
        path: this.path,
        line,
        message: `Task id ${id} is used twice (first on line ${firstLine}).`,
        fix: 'Write a unique id at the start of each task, like "1.2" or "T003".',
      });
    } else {
      this.seenId.set(id, line);
    }
    if (text === '')
      this.warn(line, 'This task has no text.', 'Say what the task is after the checkbox.');
    phase.tasks.push({
      id,
      state: STATE_OF[mark],
      mark,
      text,
      phase: phase.number,
      index,
      depth,
      line,
      markOffset: at + 1,
    });
  }

  finish(): Checklist {
    const { problems } = this;
    // Headings that share a number conflict only when both hold tasks: an H1 title or an appendix
    // that mentions "Phase 1" is not a second Phase 1.
    const kept: Phase[] = [];
    const byNumber = new Map<number, Phase>();
    for (const { phase } of this.phases) {
      const before = byNumber.get(phase.number);
      if (before === undefined) {
        byNumber.set(phase.number, phase);
        kept.push(phase);
      } else if (phase.tasks.length === 0) {
        continue;
      } else if (before.tasks.length === 0) {
        kept[kept.indexOf(before)] = phase;
        byNumber.set(phase.number, phase);
      } else {
        problems.push({
          severity: 'error',
          path: this.path,
          line: phase.line,
          message: `Phase ${phase.number} is defined twice, and both hold tasks (first on line ${before.line}).`,
          fix: 'Give each phase its own number.',
        });
        kept.push(phase);
      }
    }
    if (kept.length === 0) {
      problems.push({
        severity: 'error',
        path: this.path,
        line: 1,
        message: 'The checklist has no phase.',
        fix: 'Add a heading such as "## Phase 1: Setup" with tasks like "- [ ] 1.1 Do something" below it.',
      });
    } else if (kept.every((p) => p.tasks.length === 0)) {
      problems.push({
        severity: 'error',
        path: this.path,
        line: kept[0]!.line,
        message:
          'No phase holds a task, so the loop has nothing to do (the plan is not complete, it is empty).',
        fix: 'Add tasks such as "- [ ] 1.1 Do something" below the phase headings.',
      });
    } else {
      for (const phase of kept) {
        if (phase.tasks.length === 0) {
          this.warn(
            phase.line,
            `Phase ${phase.number} has no tasks; the loop skips it.`,
            'Add tasks such as "- [ ] Do something" below the heading.',
          );
        }
      }
    }
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { phases: kept, problems };
  }
}

/** The text after a task's box: the rest of its line, else the next line when the item goes on. */
function taskText(source: string, at: number): string {
  const end = endOfLine(source, at + 3);
  let from = at + 3;
  let to = end;
  while (from < to && isSpace(source.charCodeAt(from))) from++;
  while (to > from && isSpace(source.charCodeAt(to - 1))) to--;
  if (from < to) return source.slice(from, to).trim(); // one slice; trim() for other spaces
  if (end === source.length) return '';
  const next = end + (source[end] === '\r' ? 2 : 1);
  const rest = source.slice(next, endOfLine(source, next)).replace(/^[ \t>]*/, '');
  // A new item, heading or blank line is not the task's text.
  if (rest === '' || /^([-*+]|\d{1,9}[.)])([ \t]|$)|^#/.test(rest)) return '';
  return rest.trim();
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}
