import fc from 'fast-check';
import {
  checkPlanName,
  phaseBranch,
  planSlug,
  quickBranch,
  reportPath,
  slugConflicts,
  taskPlanPhase,
} from '../../src/core/index.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

describe('plan layout', () => {
  it.each([
    ['Example', 'example'],
    ['My Plan', 'my-plan'],
    ['  Über --- Plan!! 2 ', 'uber-plan-2'],
    ['Café', 'cafe'],
    ['Cafe\u0301', 'cafe'],
    ['Ærø Ångström', 'r-angstrom'],
    ['API_v2.0', 'api-v2-0'],
  ])('slug of %j is %j', (name, slug) => {
    expect(planSlug(name)).toBe(slug);
  });

  it('never gives an empty slug, and gives NFC and NFD spellings one slug', () => {
    for (const name of ['計画', 'План', '🚀', '---']) {
      expect(planSlug(name)).toMatch(/^plan-[0-9a-f]{8}$/);
      expect(phaseBranch(name, 1)).not.toContain('//');
    }
    expect(planSlug('計画')).not.toBe(planSlug('План'));
    expect(planSlug('Caf\u00e9')).toBe(planSlug('Cafe\u0301'));
    expect(planSlug('計画'.normalize('NFD'))).toBe(planSlug('計画'));
  });

  it('finds plans whose slugs collide', () => {
    expect([...slugConflicts(['Caf\u00e9', 'Cafe\u0301', 'My Plan', 'my-plan', 'Other'])]).toEqual([
      ['Caf\u00e9', 'Cafe\u0301'],
      ['Cafe\u0301', 'Caf\u00e9'],
      ['My Plan', 'my-plan'],
      ['my-plan', 'My Plan'],
    ]);
  });

  it('names lock branches', () => {
    expect(phaseBranch('My Plan', 3)).toBe('coder/my-plan/phase-3');
    expect(quickBranch(42)).toBe('coder/quick/issue-42');
  });

  it.each([
    [1, 'Setup', 'Reports/01_Setup.md'],
    [12, 'Build the API', 'Reports/12_Build_the_API.md'],
    [3, 'In/Out', 'Reports/03_In_Out.md'],
    // spec-kit's template puts `(Priority: P1)` in every story phase, often an emoji after it.
    [
      2,
      'User Story 1 - Browse the catalogue (Priority: P1) 🎯 MVP',
      'Reports/02_User_Story_1_-_Browse_the_catalogue_(Priority_P1)_MVP.md',
    ],
    [5, 'Why? <Because> "we" | can*', 'Reports/05_Why_Because_we_can.md'],
    [6, 'Polish...', 'Reports/06_Polish.md'],
    [7, 'Ship it 🚀 ', 'Reports/07_Ship_it.md'],
    [8, 'Family 👨‍👩‍👧 time', 'Reports/08_Family_time.md'],
    [9, 'Überprüfung – Daten', 'Reports/09_Überprüfung_–_Daten.md'],
    [10, '🎯', 'Reports/10_Phase_10.md'],
    [4, '', 'Reports/04_Phase_4.md'],
    [1, 'Master Log', 'Reports/01_Master_Log_Report.md'],
  ])('report of phase %d %j is %j', (n, name, path) => {
    expect(reportPath(n, name)).toBe(path);
  });

  it('a report already written under the name an earlier version gave it keeps that name', () => {
    const title = 'User Story 1 (Priority: P1) 🎯 MVP';
    const old = 'Reports/02_User_Story_1_(Priority:_P1)_🎯_MVP.md';
    expect(reportPath(2, title, [old])).toBe(old);
    expect(reportPath(2, title, [])).toBe('Reports/02_User_Story_1_(Priority_P1)_MVP.md');
    expect(reportPath(3, title, [old])).toBe('Reports/03_User_Story_1_(Priority_P1)_MVP.md');
  });

  it('every report name is one Windows can check out', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (n, name) => {
          const file = reportPath(n, name).slice('Reports/'.length);
          // eslint-disable-next-line no-control-regex
          expect(file).not.toMatch(/[<>:"/\\|?*\u0000-\u001f]/);
          expect(file).not.toMatch(/\p{Extended_Pictographic}|\p{Cs}/u);
          expect(file.slice(0, -'.md'.length)).not.toMatch(/[. ]$/);
          expect(file).toMatch(/^\d{2,}_\S+\.md$/);
        },
      ),
    );
  });

  it.each([
    ['Phase 1 - Setup.md', 1],
    ['phase_02.md', 2],
    ['03_API.md', 3],
    ['v2 Phase 4.md', 4],
    ['Notes.md', undefined],
  ])('task plan %j is for phase %j', (file, phase) => {
    expect(taskPlanPhase(file)).toBe(phase);
  });

  it.each([
    ['..', 'the plan name contains ".."'],
    ['a/b', 'the plan name contains a path separator (`/` or `\\`)'],
    ['a\\b', 'the plan name contains a path separator (`/` or `\\`)'],
    ['%2e%2e', 'the plan name contains an encoded path character'],
    ['a\u0000b', 'the plan name contains a control character'],
    ['line\nbreak', 'the plan name contains a control character'],
    ['', 'the plan name is empty'],
    ['x'.repeat(101), 'the plan name is longer than 100 characters'],
  ])('refuses the plan name %j', (name, reason) => {
    expect(checkPlanName(name)).toBe(reason);
  });

  it('accepts names with spaces and unicode', () => {
    expect(checkPlanName('My Plan')).toBeUndefined();
    expect(checkPlanName('Überprüfung 2')).toBeUndefined();
  });
});
