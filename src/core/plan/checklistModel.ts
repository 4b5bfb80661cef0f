import type { Problem } from '../problem.js';
import { withoutLeadingSymbols } from './text.js';

/**
 * What a checklist is: its phases and tasks, the marks between a task's brackets, and what a
 * phase heading reads as (`parseChecklist` in checklist.ts reads them from a source).
 */

export type TaskState = 'todo' | 'doing' | 'done';
/** The character between a task's brackets (a tab where GFM reads `[\t]` as unchecked). */
export type TaskMark = ' ' | '\t' | '~' | 'x' | 'X';

export interface Task {
  /** Written id (`1.2`, `T003`) or `<phase>.<index>`. */
  id: string;
  state: TaskState;
  mark: TaskMark;
  /** The task's first line after the checkbox, as written (the next line when that one is empty). */
  text: string;
  phase: number;
  /** 1-based position inside its phase, nested tasks included, in document order. */
  index: number;
  /** 0 for a top-level list item, 1 for one nested inside another task's list, … */
  depth: number;
  line: number;
  /** Offset (in `source`) of the character between the brackets: the only one a mark changes. */
  markOffset: number;
}

export interface Phase {
  number: number;
  name: string;
  line: number;
  tasks: Task[];
}

export interface Checklist {
  phases: Phase[];
  problems: Problem[];
}
// The number, then a colon (`:`, or the full-width `：` of Chinese and Japanese text), a hyphen or
// dash, a space, or a bracket that opens the name (`Phase 1（MVP）`); then the name.
const PHASE_HEADING = /^phase\s+(\d+)(?:\s*[:：\-—–]\s*|\s+|$|(?=[(（]))(.*)$/i;
const NEAR_PHASE = /^phase\s+([^\s:：—–(（-]+)/i;
const NUMBER_WORDS =
  /^(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third)$/i;

export const STATE_OF: Record<TaskMark, TaskState> = {
  ' ': 'todo',
  '\t': 'todo',
  '~': 'doing',
  x: 'done',
  X: 'done',
};
export const MARK_OF: Record<TaskState, TaskMark> = { todo: ' ', doing: '~', done: 'x' };

export function stateOfMark(mark: TaskMark): TaskState {
  return STATE_OF[mark];
}

/** `Phase 2: API`, `✅ Phase 3 — Launch` → { number, name }; anything else → undefined. */
export function readPhaseHeading(text: string): { number: number; name: string } | undefined {
  const m = PHASE_HEADING.exec(withoutLeadingSymbols(text.trim()));
  if (!m) return undefined;
  return { number: Number(m[1]), name: (m[2] ?? '').trim() };
}

/**
 * Why a text that almost reads as a phase (`Phase N`, `Phase I`, `Phase 1.5`, `Phase 1. Setup`)
 * is not one; undefined for a phase and for text that does not look like one (`Phase out …`).
 */
export function nearPhaseReason(text: string): string | undefined {
  const trimmed = withoutLeadingSymbols(text.trim());
  if (PHASE_HEADING.test(trimmed)) return undefined;
  const token = NEAR_PHASE.exec(trimmed)?.[1];
  if (token === undefined) return undefined;
  if (/^[NX#?]$/i.test(token)) return `"${token}" is a placeholder, not a phase number`;
  if (/^[IVXLC]+\.?$/i.test(token))
    return `"${token}" is a roman numeral; phases are numbered 1, 2, 3`;
  if (/^\d+[.,]\d+/.test(token))
    return `"${token}" is not a whole number; phases are numbered 1, 2, 3`;
  if (/^\d+\.$/.test(token) || /^\d+[^\d\s]/.test(token)) {
    return /^\d+[.)]?$/.test(token)
      ? `the number must be followed by ":", "-", "—" or a space, not "${token.slice(-1)}"`
      : `"${token}" is not a whole number; phases are numbered 1, 2, 3`;
  }
  if (NUMBER_WORDS.test(token)) return `"${token}" is a word; write the phase number in digits`;
  return undefined;
}

/** The first phase, in document order, with a task not done; undefined when the plan is complete. */
export function currentPhase(checklist: Checklist): Phase | undefined {
  return checklist.phases.find((p) => p.tasks.some((t) => t.state !== 'done'));
}

export function findTask(checklist: Checklist, id: string): Task | undefined {
  for (const phase of checklist.phases) {
    const task = phase.tasks.find((t) => t.id === id);
    if (task) return task;
  }
  return undefined;
}
