/**
 * A heading of a section whose boxes are no tasks — acceptance criteria, the definition of done
 * or of ready — in English and in the languages plans are written in: `Acceptance criteria`,
 * `Criterios de aceptación`, `Critères d'acceptation`, `Akzeptanzkriterien`, `Kryteria
 * akceptacji`, `Critérios de aceitação`, `Criteri di accettazione`, `验收标准`, `驗收標準`,
 * `受け入れ基準`, `인수 기준`, `Tiêu chí chấp nhận`, `Критерии приёмки`, `DoD`. A writer ticks
 * such a box when the criterion holds, not as a step of the work.
 */
const NOT_TASKS_HEADING =
  /accept|accett|akzeptanz|akceptac|aceptaci|aceita|crit[eéè]r|definition of (?:done|ready)|\bDoD\b|验收|驗收|受け入れ|受入|인수 ?기준|tiêu chí|критери|приёмк|приемк/i;

/**
 * What each of NOT_TASKS_HEADING's words opens with, in lower case: a heading that holds none
 * of them is told by a few plain searches, and the pattern (about a quarter of a millisecond to
 * compile, on a first read) runs only on one that holds one.
 */
const STEMS = [
  'accept',
  'accett',
  'akzeptanz',
  'akceptac',
  'aceptaci',
  'aceita',
  'crit',
  'definition of',
  'dod',
  '验收',
  '驗收',
  '受け入れ',
  '受入',
  '인수',
  'tiêu chí',
  'критери',
  'приёмк',
  'приемк',
];

/** Whether a heading's text names acceptance criteria or a definition of done (NOT_TASKS_HEADING). */
export function isNotTasksHeading(text: string): boolean {
  const lower = text.toLowerCase();
  for (let i = 0; i < STEMS.length; i++) {
    if (lower.includes(STEMS[i]!)) return NOT_TASKS_HEADING.test(text);
  }
  return false;
}
