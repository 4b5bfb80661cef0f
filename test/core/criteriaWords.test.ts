import { isNotTasksHeading } from '../../src/core/plan/criteriaWords.js';

describe('a heading of acceptance criteria or a definition of done', () => {
  it('is told in the languages plans are written in', () => {
    for (const heading of [
      'Acceptance criteria',
      'ACCEPTANCE CRITERIA',
      'Success Criteria',
      'Definition of Done',
      'DoD',
      'Criterios de aceptación',
      "Critères d'acceptation",
      'Akzeptanzkriterien',
      'Kryteria akceptacji',
      'Critérios de aceitação',
      'Criteri di accettazione',
      '验收标准',
      '驗收標準',
      '受け入れ基準',
      '인수 기준',
      'Tiêu chí chấp nhận',
      'Критерии приёмки',
      'КРИТЕРИИ ПРИЕМКИ',
      'Completion criteria',
      'Abschlusskriterien',
      'Kryteria ukończenia',
      'Kabul kriterleri',
      'Phase 1完成标准',
      'US1完成標準',
      '完了基準',
      '完了条件',
      '완료 기준',
      'Критерії приймання',
    ])
      expect([heading, isNotTasksHeading(heading)]).toEqual([heading, true]);
  });

  it("is not any of spec-kit's own sub-headings, nor a word that holds a stem's letters", () => {
    for (const heading of [
      'Tests for User Story 1 (OPTIONAL - only if tests requested) ⚠️',
      'Implementation for User Story 1',
      'Tasks',
      '任务列表',
      'Notes',
      'Critical path',
      'Dodge the cache',
      'Independent Test',
    ])
      expect([heading, isNotTasksHeading(heading)]).toEqual([heading, false]);
  });
});
