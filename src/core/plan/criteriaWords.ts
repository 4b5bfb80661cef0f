/**
 * A heading of a section whose boxes are no tasks — acceptance criteria, completion criteria,
 * the definition of done or of ready — in English and in the languages plans are written in:
 * `Acceptance criteria`, `Completion criteria`, `Criterios de aceptación`, `Critères
 * d'acceptation`, `Akzeptanzkriterien`, `Abschlusskriterien`, `Kryteria akceptacji`, `Kryteria
 * ukończenia`, `Kabul kriterleri`, `Critérios de aceitação`, `Criteri di accettazione`,
 * `验收标准`, `完成标准` (`Phase 1完成标准`), `驗收標準`, `完成標準`, `受け入れ基準`, `完了基準`,
 * `完了条件`, `인수 기준`, `완료 기준`, `Tiêu chí chấp nhận`, `Критерии приёмки`, `Критерії
 * приймання`, `DoD`. A writer ticks such a box when the criterion holds, not as a step of the
 * work.
 */
const NOT_TASKS_HEADING =
  /accept|accett|akzeptanz|akceptac|aceptaci|aceita|crit[eéè]r|kriter|kryteri|definition of (?:done|ready)|\bDoD\b|验收|驗收|完成标准|完成標準|受け入れ|受入|完了基準|完了条件|인수 ?기준|완료 ?기준|tiêu chí|критери|критері|приёмк|приемк/i;

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
  'kriter',
  'kryteri',
  'definition of',
  'dod',
  '验收',
  '驗收',
  '完成标准',
  '完成標準',
  '受け入れ',
  '受入',
  '完了基準',
  '完了条件',
  '인수',
  '완료',
  'tiêu chí',
  'критери',
  'критері',
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
