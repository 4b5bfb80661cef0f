import type { Problem } from '../../../problem.js';
import { scanDialect, type DialectScan, type ScanMode } from '../dialectScan.js';
import { isNotTasksHeading } from '../../criteriaWords.js';
import { withoutLeadingSymbols } from '../../text.js';
import {
  comparePhaseNumbers,
  finish,
  linesNamed,
  readHeadingBoxes,
  readsBox,
  taskIds,
  type DialectMarks,
  type DialectPhase,
  type DialectPlan,
  type DialectState,
  type DialectTask,
  writtenTaskText,
} from '../markdownDialect.js';

/**
 * A word as a pattern that matches it in either case, as the `i` flag would, without the flag: a
 * case-insensitive pattern with letters beyond ASCII in it (`fáze`, `этап`) makes its compilation
 * search Unicode's case tables, about 0.3 ms of a first read. Each letter is a class of its two
 * cases (`т` with the two forms the flag takes for it too, U+1C84 and U+1C85); `\s+` stays.
 */
function anyCase(word: string): string {
  return word.replace(/\\s\+|./gs, (c) => {
    if (c.length > 1) return c;
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    const more = lower === 'т' ? '\u1c84\u1c85' : '';
    return lower === upper && more === '' ? c : `[${lower}${upper}${more}]`;
  });
}

/**
 * The word a phase heading starts with: spec-kit's `Phase`, or the word the coding agent that
 * writes a plan in another language puts for it (`Fase` in Spanish, Portuguese and Italian, `Faz`
 * in Turkish, `Giai đoạn` in Vietnamese, `Этап` in Russian, `阶段` in Chinese, `フェーズ` in
 * Japanese, `단계` in Korean, and a few more); a space after it, but for the CJK words.
 */
const PHASE_WORD = String.raw`(?:${[
  'phase',
  'fase',
  'faz',
  'faza',
  'fáze',
  'fázis',
  'vaihe',
  'etapa',
  'tahap',
  String.raw`giai\s+đoạn`,
  'фаза',
  'этап',
  'етап',
]
  .map(anyCase)
  .join('|')})\s+|(?:阶段|階段|フェーズ|단계)\s*`;

/**
 * spec-kit's tasks.md (`specs/<feature>/tasks.md`): `## Phase N: …` headings (`### Phase 3.1`
 * nested), `- [ ] T001 [P] [US1] …` tasks under them; `[x]` or `[X]` done, no in-progress mark.
 * spec-kit's tasks are read by a coding agent, not a parser, so the heading is read as people
 * write it: the phase word and the number (PHASE_WORD), or the number first where the language
 * puts it there (Korean `1단계`, Chinese and Japanese `第1阶段`); then a colon (`:`, or the
 * full-width `：` of Chinese and Japanese plans), a hyphen or dash, a full stop and a space
 * (`Phase 1. Setup`), a space alone, or a bracket that opens the name (`Phase 1（MVP）`). The
 * number is the first group that matched (a letter after it, `Phase 2a`, orders it between 2
 * and 3), the name the last. spec-kit's own tasks command names the last phase "Final Phase:
 * Polish & Cross-Cutting Concerns", and plans write that heading as it says (FINAL_PHASE).
 */
// (The letter in either case spelled out: SPECKIT_PHASE is no case-insensitive pattern.)
const NUMBER = String.raw`(\d+(?:\.\d+)?[a-zA-Z]?)`;
/** A number in Chinese numerals, as Chinese and Japanese plans write `第一阶段` (1 to 99). */
const CJK_NUMBER = String.raw`([一二三四五六七八九十]{1,3})`;
const AFTER_NUMBER = String.raw`\s*(?:[:：\-—–]\s*|\.(?:\s+|$)|\s+|$|(?=[(（]))(.*)$`;
/**
 * `Phase N`, what nearly every plan writes: a small pattern, compiled on every first read, its
 * word's case spelled out (a case-insensitive pattern with characters beyond ASCII in it, `：` and
 * the dashes, costs its compilation a search of Unicode's case tables).
 */
const SPECKIT_PHASE = new RegExp(String.raw`^[Pp][Hh][Aa][Ss][Ee]\s+${NUMBER}${AFTER_NUMBER}`);
/**
 * The other languages' phase words, and the number first: compiled only for a heading that may
 * hold one (LOCALIZED_START), as its case-insensitive letters beyond ASCII cost a first read
 * about 0.15 ms to compile.
 */
const LOCALIZED_PHASE = new RegExp(
  String.raw`^(?:(?:${PHASE_WORD})${NUMBER}|${NUMBER}\s*단계|第\s*(?:${NUMBER}|${CJK_NUMBER})\s*(?:阶段|階段|フェーズ))${AFTER_NUMBER}`,
);
// (Case spelled out: Cyrillic's cases are both in its block, and U+1C80–U+1C88 are the forms
// of a few of its letters that a case-insensitive search takes for them.)
const LOCALIZED_START =
  /^(?:[Ff][AaÁá][SsZz]|[Vv][Aa][Ii][Hh][Ee]|[Ee][Tt][Aa][Pp][Aa]|[Tt][Aa][Hh][Aa][Pp]|[Gg][Ii][Aa][Ii]|\d|[\u0400-\u04ff\u1c80-\u1c88\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af])/;

/** `Final Phase — Polish`: the phase after the last numbered one; its name after the words. */
const FINAL_PHASE = /^[Ff][Ii][Nn][Aa][Ll]\s+[Pp][Hh][Aa][Ss][Ee](?:\s*[:：\-—–]\s*|\s+|$)(.*)$/;

/** A heading's phase number and name, or undefined for a heading that is no phase. */
function phaseHeading(heading: string): { number: string; name: string } | undefined {
  // Symbols before the word are allowed (`✅ Phase 3: Launch`), as in a coder checklist.
  const text = withoutLeadingSymbols(heading);
  const m = SPECKIT_PHASE.exec(text);
  if (m) return { number: m[1]!, name: m[2]!.trim() };
  const other = LOCALIZED_START.test(text) ? LOCALIZED_PHASE.exec(text) : null;
  if (!other) return undefined;
  const number = other[1] ?? other[2] ?? other[3] ?? cjkNumber(other[4]!);
  return number === undefined ? undefined : { number, name: other[5]!.trim() };
}

/** Whether a heading is a phase's: numbered (`phaseHeading`) or "Final Phase". */
function isPhaseHeading(heading: string): boolean {
  return phaseHeading(heading) !== undefined || FINAL_PHASE.test(withoutLeadingSymbols(heading));
}

const CJK_DIGIT = '一二三四五六七八九';

/**
 * `一` … `九十九` as digits (`十二` is 12, `二十` is 20, `二十一` 21), or undefined for what is
 * no number (`十十`, `一二`).
 */
function cjkNumber(numerals: string): string | undefined {
  const m = /^([一二三四五六七八九])?(十)?([一二三四五六七八九])?$/.exec(numerals);
  if (!m || (!m[2] && m[1] && m[3])) return undefined;
  const digit = (c: string | undefined) => (c ? CJK_DIGIT.indexOf(c) + 1 : 0);
  if (!m[2]) return String(digit(m[1] ?? m[3]));
  return String((m[1] ? digit(m[1]) : 1) * 10 + digit(m[3]));
}
/** A phase word followed by no number (`Phase N`, spec-kit's template's placeholder): the word, the token, the name. */
const UNNUMBERED_PHASE = new RegExp(
  String.raw`^(${PHASE_WORD})([^\d\s:：\-—–][^\s:：]*)\s*[:：\-—–]?\s*(.*)$`,
);
const SPECKIT_STATE: Record<string, DialectState> = {
  ' ': 'todo',
  x: 'done',
  X: 'done',
  '\t': 'todo',
};
/** The marks spec-kit writes: `[X]` done (its template's), no in-progress mark. */
export const SPECKIT_MARKS: DialectMarks = { todo: ' ', doing: undefined, done: 'X' };
/**
 * How the line scanner reads spec-kit: phases named by their headings' text, a task's id and
 * stories in its text; no requirements lines.
 */
export const SPECKIT_SCAN: ScanMode = { taskText: true, requirements: false };

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

const isAlnum = (c: number): boolean => isDigit(c) || ((c | 32) >= 97 && (c | 32) <= 122);

/**
 * A task's own id, as the task writes it: `T` and three digits or more, with any sub-ids after
 * it (`T007.1`), then a suffix that tells a task put in beside another, a letter (`T011b`) or a
 * hyphen and one to three letters or digits (`T022-A`), then no word character
 * (`/^T\d{3,}(?:\.\d+)*(?:[A-Za-z]|-[A-Za-z0-9]{1,3}\b)?\b/`). `T022-A` is not `T022`: each
 * task is marked by the id the user sees.
 */
function speckitId(text: string): string | undefined {
  if (text[0] !== 'T') return undefined;
  let end = 1;
  for (let c = text.charCodeAt(1); c >= 48 && c <= 57; c = text.charCodeAt(++end));
  if (end < 4) return undefined;
  // A sub-id written after it, `T007.1`, is part of the id.
  while (text[end] === '.' && isDigit(text.charCodeAt(end + 1))) {
    end += 2;
    while (isDigit(text.charCodeAt(end))) end++;
  }
  if (text[end] === '-') {
    // `T022-A`, `T096-B2`: the hyphen and one to three letters or digits; a longer word after
    // it (`T001-Create`, `T001-T003`) is no suffix, and the id ends before the hyphen.
    let to = end + 1;
    while (to - end <= 3 && isAlnum(text.charCodeAt(to))) to++;
    const after = text.charCodeAt(to);
    if (to > end + 1 && !isAlnum(after) && after !== 95) end = to;
  } else if (isAlnum(text.charCodeAt(end)) && !isAlnum(text.charCodeAt(end + 1))) end++; // `T011b`
  const c = text.charCodeAt(end); // `\w` after the id (a digit or a letter stopped the loops)
  if (isAlnum(c) || c === 95) return undefined;
  return text.slice(0, end);
}

/**
 * What looks like a task id written otherwise (`T-001`, `T00A`, `T12`, `TASK-007`): a task that
 * opens with one is named, as its id is not read (speckitId).
 */
const NEAR_ID = /^(?:T[-_.]?\d[\dA-Za-z]*|TASK[-_]?\d+[A-Za-z]?)(?![\w-])/;

/** The user stories a task cites (`[US1]`), in order. */
function storiesOf(text: string): string[] {
  const out: string[] = [];
  // `/\[(US\d+)\]/g`, without a match array per task.
  for (let at = text.indexOf('[US'); at !== -1; at = text.indexOf('[US', at + 1)) {
    let end = at + 3;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end > at + 3 && text[end] === ']') out.push(text.slice(at + 1, end));
  }
  return out;
}

/** spec-kit's fast path: the line scanner's reading, or undefined where remark must read. */
export function scanSpeckit(source: string): DialectScan | undefined {
  return scanDialect(source, SPECKIT_SCAN);
}

/** spec-kit's tasks.md: `## Phase N: …` headings, `- [ ] T001 [P] [US1] …` tasks. */
export function readSpeckit(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): DialectPlan {
  const read = readHeadingBoxes(source, path, SPECKIT_SCAN, options);
  if ('limited' in read) return read.limited;
  const { events, skip } = read;
  const phases: DialectPhase[] = [];
  const problems: Problem[] = [];
  // The phases open at this point, outermost first: a heading ends those of its level or deeper,
  // so the tasks after a nested `### Phase 3.1` and its `### Notes` are `## Phase 3`'s again.
  const open: { phase: DialectPhase; level: number }[] = [];
  const seen = taskIds(path, problems);
  // The tasks with no id of their own (given one from their place).
  const idless = new Set<DialectTask>();
  // Every heading, for the reason a box under one that is no phase is not read.
  const headings: { line: number; depth: number; text: string }[] = [];
  // The acceptance-criteria sections inside phases (isNotTasksHeading), and the one open.
  const criteria: Criteria[] = [];
  let criterion: Criteria | undefined;
  // The headings that read as a phase with no number (`## Phase N: Polish`, `### Phase A — …`),
  // and the boxes outside every phase right under one: named in one warning on the heading.
  const unnumbered: Unnumbered[] = [];
  let under: Unnumbered | undefined;
  // The next phase heading's event and depth after a heading, found once for the headings before it.
  let next: { from: number; at: number; depth: number } | undefined;
  const nextPhaseDepth = (e: number): number => {
    if (next === undefined || e < next.from || e >= next.at) {
      next = { from: e, at: events.length, depth: 0 };
      for (let f = e + 1; f < events.length; f++) {
        const h = events[f]!;
        if (h.kind === 'heading' && isPhaseHeading(h.text.trim())) {
          next = { from: e, at: f, depth: h.depth };
          break;
        }
      }
    }
    return next.depth;
  };
  for (let e = 0; e < events.length; e++) {
    const event = events[e]!;
    if (event.kind === 'heading') {
      headings.push(event);
      const text = event.text.trim();
      const m = phaseHeading(text);
      const final = m ? undefined : FINAL_PHASE.exec(withoutLeadingSymbols(text));
      if (criterion && (m || final || criterion.depth >= event.depth)) criterion = undefined;
      under = undefined;
      if (!m && !final) {
        const u = UNNUMBERED_PHASE.exec(withoutLeadingSymbols(text));
        if (u) {
          under = { heading: event, word: u[1]!, token: u[2]!, name: u[3]!.trim(), boxes: [] };
          unnumbered.push(under);
        }
      }
      // A heading above the phases' level that is no phase, with the next phase heading at their
      // level (`# Note: …` between `## Phase 4` and `## Phase 5`), sits inside the phase:
      // spec-kit's implement command runs the file phase by phase, in order, so the tasks under
      // it are the phase's, as under a `### Notes` below it.
      const inside =
        !m &&
        !final &&
        open.length > 0 &&
        event.depth < open[0]!.level &&
        nextPhaseDepth(e) === open[0]!.level;
      if (!inside) {
        while (open.length > 0 && open[open.length - 1]!.level >= event.depth) open.pop();
      }
      if (m || final) {
        const phase: DialectPhase = {
          number: m ? m.number : FINAL,
          name: m ? m.name : final![1]!.trim(),
          line: event.line,
          tasks: [],
        };
        open.push({ phase, level: event.depth });
        phases.push(phase);
      } else if (!under && isNotTasksHeading(text)) {
        // Inside a phase, or after it (`## 验证清单` over `### Phase 1完成标准`, criteria the
        // writer checks once the phases are done): no task is lost, none is tracked there either.
        criterion = {
          heading: `${'#'.repeat(event.depth)} ${text}`,
          line: event.line,
          depth: event.depth,
          phase: open[open.length - 1]?.phase,
          boxes: [],
        };
        criteria.push(criterion);
      }
      continue;
    }
    const current = open[open.length - 1];
    if (!current) {
      if (!readsBox(SPECKIT_STATE, event.mark, event.after)) continue;
      if (under) under.boxes.push(event.line);
      // A box with no task id under acceptance criteria after the phases: a criterion.
      else if (criterion && speckitId(event.text) === undefined) criterion.boxes.push(event.line);
      continue;
    }
    if (!readsBox(SPECKIT_STATE, event.mark, event.after)) continue;
    const { text } = event;
    const phase = current.phase;
    const own = speckitId(text);
    // A box with no task id under an acceptance-criteria sub-heading: a criterion, no task
    // (spec-kit's tasks command: every task has its id).
    if (own === undefined && criterion) {
      criterion.boxes.push(event.line);
      continue;
    }
    if (own !== undefined) seen(own, event.line);
    const task: DialectTask = {
      id: own ?? `${phase.number}.${phase.tasks.length + 1}`,
      text: writtenTaskText(event.after, text),
      state: SPECKIT_STATE[event.mark]!,
      mark: event.mark,
      optional: false,
      requirements: storiesOf(text),
      line: event.line,
      markOffset: event.offset,
    };
    if (own === undefined) {
      idless.add(task);
      const written = NEAR_ID.exec(text)?.[0];
      if (written !== undefined)
        problems.push({
          severity: 'warning',
          path,
          line: event.line,
          message: `"${written}" is not read as a task id (spec-kit's are "T" and three digits or more, "T001"): this task is ${task.id}, by its place.`,
          fix: `Write its id as spec-kit does ("T001"), or mark it as ${task.id}.`,
        });
    }
    phase.tasks.push(task);
  }
  numberFinalPhases(phases, path, problems);
  // One phase number, several headings: the one with tasks is the phase; one without any is a
  // reference (a summary, "Dependencies & Execution Order"); two with tasks conflict, unless
  // every box of one has no task id where the other's tasks have theirs: its boxes are the
  // phase's criteria (`### Phase 1 検証` under `## チェックリスト・検証基準` after the phases).
  const byNumber = new Map<string, DialectPhase[]>();
  for (const phase of phases)
    byNumber.set(phase.number, [...(byNumber.get(phase.number) ?? []), phase]);
  const kept: DialectPhase[] = [];
  for (const [number, same] of byNumber) {
    const tasked = same.filter((p) => p.tasks.length > 0);
    const first = tasked.find((p) => p.tasks.some((t) => !idless.has(t))) ?? tasked[0] ?? same[0]!;
    for (const phase of same) {
      if (
        phase !== first &&
        phase.tasks.length > 0 &&
        first.tasks.some((t) => !idless.has(t)) &&
        phase.tasks.every((t) => idless.has(t))
      ) {
        const heading = headings.find((h) => h.line === phase.line)!;
        criteria.push({
          heading: `${'#'.repeat(heading.depth)} ${heading.text.trim()}`,
          line: phase.line,
          depth: heading.depth,
          phase: first,
          boxes: phase.tasks.map((t) => t.line),
        });
        continue;
      }
      if (phase.tasks.length === 0 && same.length > 1) {
        problems.push({
          severity: 'warning',
          path,
          line: phase.line,
          message: `Phase ${number} is also on line ${(phase === first ? same.find((p) => p !== phase)! : first).line}; this heading holds no task, so it is read as a reference.`,
          fix: 'Leave it as it is, or name it without "Phase N" if it is no phase.',
        });
        continue;
      }
      if (phase.tasks.length > 0 && phase !== first) {
        problems.push(twice(phase, first, headings, phases, path));
        continue;
      }
      kept.push(phase);
    }
  }
  phases.length = 0;
  phases.push(...kept);
  phases.sort((a, b) => comparePhaseNumbers(a.number, b.number));
  criteriaWarnings(criteria, phases, path, problems);
  // Lines of text that read as phases (`Phase 1: Setup` with no `#`): found once, and only for a
  // box outside every phase.
  let texts: PhaseText[] | undefined;
  const named = criteria.flatMap((c) => c.boxes);
  if (unnumbered.some((u) => u.boxes.length > 0)) {
    named.push(
      ...unnumberedWarnings(unnumbered, phases, path, problems, (texts ??= phaseTexts(source))),
    );
  }
  return finish(
    source,
    path,
    skip,
    phases,
    problems,
    'Write a task as "- [ ] T001 Description" under a "## Phase N: Name" heading.',
    {
      marks: ' \txX',
      named,
      unread: (line) => unreadUnder(headings, phases, line, () => (texts ??= phaseTexts(source))),
    },
  );
}

/**
 * The error for a phase number two headings with tasks share; when the second is under another
 * section than the first (a second round of `### Phase 1…` appended under `## Bug Fix`), it says
 * so, and which numbers are free.
 */
function twice(
  phase: DialectPhase,
  first: DialectPhase,
  headings: readonly { line: number; depth: number; text: string }[],
  phases: readonly DialectPhase[],
  path: string,
): Problem {
  const section = (p: DialectPhase) => {
    const at = headings.findIndex((h) => h.line === p.line);
    const depth = headings[at]!.depth;
    for (let h = at - 1; h >= 0; h--) if (headings[h]!.depth < depth) return headings[h];
    return undefined;
  };
  const mine = section(phase);
  const theirs = section(first);
  if (mine && mine !== theirs) {
    const last = phases.reduce((n, p) => Math.max(n, parseInt(p.number, 10) || 0), 0);
    return {
      severity: 'error',
      path,
      line: phase.line,
      message: `Phase ${phase.number} is also on line ${first.line}: the phases under "${'#'.repeat(mine.depth)} ${mine.text.trim()}" (line ${mine.line}) start their numbers again.`,
      fix: `Number each phase once: go on from Phase ${last + 1}, or move that section's phases to a tasks file of their own.`,
    };
  }
  return {
    severity: 'error',
    path,
    line: phase.line,
    message: `Phase ${phase.number} is also on line ${first.line}.`,
    fix: 'Number each phase once.',
  };
}

/** A "Final Phase" heading's number until the phases before it are known. */
const FINAL = '\u0000final';

/**
 * Numbers each "Final Phase" heading as the phase after the last numbered one (a warning says
 * which number it is read as), and the tasks with no id of their own after it.
 */
function numberFinalPhases(phases: DialectPhase[], path: string, problems: Problem[]): void {
  let last = 0;
  for (const p of phases) if (p.number !== FINAL) last = Math.max(last, parseInt(p.number, 10));
  for (const phase of phases) {
    if (phase.number !== FINAL) continue;
    phase.number = String(++last);
    for (const task of phase.tasks)
      if (task.id.startsWith(`${FINAL}.`))
        task.id = `${phase.number}${task.id.slice(FINAL.length)}`;
    problems.push({
      severity: 'warning',
      path,
      line: phase.line,
      message: `"Final Phase" is read as Phase ${phase.number}, the phase after the last numbered one.`,
      fix: `Leave it, or number it: "Phase ${phase.number}: ${phase.name}".`,
    });
  }
}

/** A heading that reads as a phase with no number (`### Phase A — …`), and the boxes right under it. */
interface Unnumbered {
  heading: { line: number; depth: number; text: string };
  /** The phase word as written (`Phase `), the token where the number should be (`A`), the name. */
  word: string;
  token: string;
  name: string;
  boxes: number[];
}

/**
 * One warning for each heading that reads as a phase with no number (spec-kit's template's
 * `## Phase N: Polish`, or a letter, `### Phase A — …`: spec-kit numbers its phases 1, 2, 3 and
 * its tasks T001, T002) with boxes right under it: they are not read as tasks, and the warning
 * names their lines and the number to write, one no other phase has (after the last numbered
 * one, in order). Returns the lines it named. A box under a line of text that reads as a phase,
 * below the heading, is left to `unreadUnder`, which names that line.
 */
function unnumberedWarnings(
  unnumbered: readonly Unnumbered[],
  phases: readonly DialectPhase[],
  path: string,
  problems: Problem[],
  texts: readonly PhaseText[],
): number[] {
  const named: number[] = [];
  let last = phases.reduce((n, p) => Math.max(n, parseInt(p.number, 10) || 0), 0);
  for (const u of unnumbered) {
    const boxes = u.boxes.filter((line) => {
      const meant = lastBefore(texts, line);
      return !meant || meant.line < u.heading.line;
    });
    if (boxes.length === 0) continue;
    named.push(...boxes);
    const heading = `${'#'.repeat(u.heading.depth)} ${u.heading.text.trim()}`;
    const placeholder = /^[NX]$/i.test(u.token);
    const why = placeholder
      ? `"${u.token}" is no phase number (spec-kit's template leaves it for you to fill in)`
      : `"${u.token}" is no phase number (spec-kit numbers its phases 1, 2, 3, …)`;
    const n = boxes.length;
    const lines = linesNamed(boxes);
    const number = ++last;
    problems.push({
      severity: 'warning',
      path,
      line: u.heading.line,
      message:
        n === 1
          ? `The box under "${heading}" (${lines}) is not read as a task: ${why}.`
          : `The ${n} boxes under "${heading}" (${lines}) are not read as tasks: ${why}.`,
      fix: `Number the phase to run ${n === 1 ? 'it' : 'them'}: "${'#'.repeat(u.heading.depth)} ${u.word}${number}${u.name ? `: ${u.name}` : ''}".`,
    });
  }
  return named;
}

/** A sub-heading of a phase whose boxes with no task id are acceptance criteria. */
interface Criteria {
  /** The heading as written (`### 验收标准`), its line and level. */
  heading: string;
  line: number;
  depth: number;
  /** The phase it is in; none after the phases (a box there is no phase's task either way). */
  phase: DialectPhase | undefined;
  /** The lines of the boxes under it with no task id. */
  boxes: number[];
}

/** A task id's number (`T012`). */
const T_NUMBER = /^T(\d+)/;

/**
 * One warning for each acceptance-criteria section with boxes that have no task id: they are
 * not read as tasks (they never hold a phase open), and the warning says so, with the id a box
 * would take to be a task (the one after the plan's highest).
 */
function criteriaWarnings(
  criteria: readonly Criteria[],
  phases: readonly DialectPhase[],
  path: string,
  problems: Problem[],
): void {
  let highest = 0;
  for (const p of phases) {
    for (const t of p.tasks) {
      const n = T_NUMBER.exec(t.id);
      if (n) highest = Math.max(highest, Number(n[1]));
    }
  }
  const free = `T${String(highest + 1).padStart(3, '0')}`;
  for (const c of criteria) {
    const n = c.boxes.length;
    if (n === 0) continue;
    const lines = linesNamed(c.boxes);
    const of = c.phase ? `of Phase ${c.phase.number}` : '(it is under no phase)';
    problems.push({
      severity: 'warning',
      path,
      line: c.line,
      message:
        n === 1
          ? `The box under "${c.heading}" (${lines}) has no task id: it is read as an acceptance criterion, not as a task ${of}.`
          : `The ${n} boxes under "${c.heading}" (${lines}) have no task id: they are read as acceptance criteria, not as tasks ${c.phase ? of : '(they are under no phase)'}.`,
      fix: c.phase
        ? n === 1
          ? `Leave it so, or give it a task id ("- [ ] ${free} …") if it is a task.`
          : `Leave them so, or give a box a task id ("- [ ] ${free} …") if it is a task.`
        : n === 1
          ? `Leave it so, or move it under its phase's heading with a task id ("- [ ] ${free} …") if it is a task.`
          : `Leave them so, or move a box under its phase's heading with a task id ("- [ ] ${free} …") if it is a task.`,
    });
  }
}

/**
 * Why a box outside every phase is not read, said for where it is: under no heading, or under a
 * heading that is no phase — spec-kit's template's `## Phase N: Polish`, its N left unnumbered.
 */
function unreadUnder(
  headings: readonly { line: number; depth: number; text: string }[],
  phases: readonly DialectPhase[],
  line: number,
  texts: () => readonly PhaseText[],
): { why: string; fix?: string } {
  const above = lastBefore(headings, line);
  // A line of text that reads as a phase, after the heading above: the phase the writer meant.
  const meant = lastBefore(texts(), line);
  if (meant && (!above || meant.line > above.line)) {
    return {
      why: `the line "${meant.text}" above it (line ${meant.line}) is text, not a heading, so it is no phase`,
      fix: `Write it as a heading: "## ${meant.text.replace(/:$/, '')}".`,
    };
  }
  if (!above) return { why: 'it is under no "## Phase N" heading' };
  const heading = `${'#'.repeat(above.depth)} ${above.text.trim()}`;
  // A phase heading not read: its number is another phase's (an error on that line says which).
  const refused = phaseHeading(above.text.trim());
  if (refused && !phases.some((p) => p.line === above.line)) {
    return {
      why: `it is under "${heading}" (line ${above.line}), and Phase ${refused.number} is another heading's`,
      fix: 'Number each phase once.',
    };
  }
  // A section above it whose heading names a phase after other words (`## Deferred Phase 2: …`),
  // with no phase read between it and the line: the heading that leaves its boxes unread.
  const lastPhase = phases.reduce((n, p) => (p.line < line && p.line > n ? p.line : n), 0);
  let named: { h: (typeof headings)[number]; m: RegExpExecArray } | undefined;
  for (const h of headings) {
    if (h.line >= line) break;
    const m = h.line > lastPhase ? WORDS_BEFORE_PHASE.exec(h.text.trim()) : null;
    // Only a phase named as a heading names one (`Deferred Phase 2: Later`), not a sentence that
    // cites one (`Note: T005 belongs to Phase 2 too`), and only with a number no phase has.
    if (
      m &&
      !/[:：]/.test(m[1]!) &&
      /^\s*(?:$|[:：\-—–(（.])/.test(m[3]!) &&
      !phases.some((p) => p.number === m[2]!.replace(/^phase\s+/i, ''))
    )
      named = { h, m };
  }
  if (named) {
    const { h, m } = named;
    return {
      why: `it is under "${'#'.repeat(h.depth)} ${h.text.trim()}" (line ${h.line}), which is no phase heading: "${m[1]}" stands before "${m[2]}"`,
      fix: `Start the heading with "${m[2]}" ("${'#'.repeat(h.depth)} ${m[2]}${m[3]}") to run its tasks; else they stay unread.`,
    };
  }
  // A heading above the level of the phase before it, that is no phase (`# Note: …` after the
  // last `## Phase`): it ends that phase.
  let before: DialectPhase | undefined;
  for (const p of phases) if (p.line < line && (!before || p.line > before.line)) before = p;
  const phaseHeadingOf = before && headings.find((h) => h.line === before.line);
  const closer =
    phaseHeadingOf &&
    headings.find(
      (h) =>
        h.line > phaseHeadingOf.line &&
        h.line < line &&
        h.depth < phaseHeadingOf.depth &&
        !isPhaseHeading(h.text.trim()),
    );
  if (phaseHeadingOf && closer) {
    return {
      why: `it is under "${'#'.repeat(closer.depth)} ${closer.text.trim()}" (line ${closer.line}), a level-${closer.depth} heading that is no phase, so it ends "${'#'.repeat(phaseHeadingOf.depth)} ${phaseHeadingOf.text.trim()}" (line ${phaseHeadingOf.line})`,
      fix: `Write that heading as a paragraph or a "${'#'.repeat(phaseHeadingOf.depth + 1)}" heading, so that it stays inside the phase, or move the tasks under a phase's heading.`,
    };
  }
  return {
    why: `it is under no "## Phase N" heading (the nearest heading above it is "${heading}", line ${above.line})`,
  };
}

/** A heading with words before its phase (`Deferred Phase 2: Later`): the words, the phase, the rest. */
const WORDS_BEFORE_PHASE = /^(\S.*?)\s+(phase\s+\d+(?:\.\d+)?[a-z]?)\b(.*)$/i;

/** A line of text, no heading, that reads as a phase (`Phase 1: Setup`, `**Phase 2:** Core`). */
interface PhaseText {
  line: number;
  text: string;
}

/**
 * The last of `items` (in document order) on a line before `line`: a search, not a pass over
 * them for each of a plan's hundred boxes outside every phase.
 */
function lastBefore<T extends { line: number }>(items: readonly T[], line: number): T | undefined {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.line < line) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? items[lo - 1] : undefined;
}

/**
 * The lines of `source` outside code fences that are neither a heading, a list item, a quote nor
 * a table, and read as a phase heading would (`Phase 1: Setup`; bold or italic around it, as in
 * `**Phase 1:** Setup`, taken off).
 */
function phaseTexts(source: string): PhaseText[] {
  const out: PhaseText[] = [];
  const lines = source.split(/\r?\n/);
  let fence: string | undefined;
  for (let l = 0; l < lines.length; l++) {
    const raw = lines[l]!;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
    if (f) {
      if (fence === undefined) fence = f[1]!;
      else if (f[1]![0] === fence[0] && f[1]!.length >= fence.length && raw.trim() === f[1])
        fence = undefined;
      continue;
    }
    if (fence !== undefined || /^ {0,3}(?:[#>|]|[-*+]\s|\d{1,9}[.)]\s)/.test(raw)) continue;
    const text = raw
      .trim()
      .replace(/\*\*|__|(?<!\w)[*_]|[*_](?!\w)/g, '')
      .trim();
    if (text !== '' && phaseHeading(text)) out.push({ line: l + 1, text });
  }
  return out;
}
