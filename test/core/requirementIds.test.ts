import fc from 'fast-check';
import { requirementIds } from '../../src/core/plan/kinds/dialectScan.js';
import { readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

/** The ids a requirements line cites (`_Requirements: 1.1, 2.3_`), ranges included. */
describe('requirementIds', () => {
  it('reads a list without a dash as its ids split at commas and white space', () => {
    const piece = fc.constantFrom('1', '12', '1.2', '3.10', '.', '..', '1.', '.2', ',', ' ', '\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const cited = pieces.join('');
        expect(requirementIds(cited)).toEqual(
          cited.split(/[,\s]+/).filter((r) => /^\d+(?:\.\d+)*$/.test(r)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['6.1-6.11', ['6.1', '6.2', '6.3', '6.4', '6.5', '6.6', '6.7', '6.8', '6.9', '6.10', '6.11']],
    ['1.1–1.3, 4.1–4.2', ['1.1', '1.2', '1.3', '4.1', '4.2']],
    ['2.1 - 2.3, 5', ['2.1', '2.2', '2.3', '5']],
    ['3-5', ['3', '4', '5']],
    ['1.2.1—1.2.3', ['1.2.1', '1.2.2', '1.2.3']],
    ['1.1〜1.3, 2.1～2.2', ['1.1', '1.2', '1.3', '2.1', '2.2']],
    // Ends that differ before their last number, or run backwards: the two ends.
    ['1.3–2.2', ['1.3', '2.2']],
    ['1.5-1.2', ['1.5', '1.2']],
    ['1.1-1.1', ['1.1']],
    // A number with a leading zero: the ends as written, never ids nobody wrote (`6.1` for `6.01`).
    ['6.01-6.03', ['6.01', '6.03']],
    // More than a hundred: the two ends, never thousands of ids.
    ['1.1-1.500', ['1.1', '1.500']],
    // A dash with no id after it: the id before it.
    ['1.1 - ', ['1.1']],
    ['1.1-', ['1.1']],
    // Neither an id nor a range: nothing.
    ['1..2-1.3, 4', ['4']],
    ['-1.2', []],
    ['1-2-3', []],
  ])('%j', (cited, ids) => {
    expect(requirementIds(cited)).toEqual(ids);
  });

  it('a Kiro task citing ranges cites every requirement they span, read the same both ways', () => {
    const source = [
      '- [ ] 1. Set up',
      '  - [ ] 1.1 Create the schema',
      '    - Add the tables',
      '    - _Requirements: 1.1–1.3, 4.1-4.2_',
      '',
      '  - [ ] 1.2 Migrate',
      '    - _要件: 2.1 - 2.2_',
      '',
    ].join('\n');
    const read = readKiro(source, 'tasks.md');
    expect(read).toEqual(readKiro(source, 'tasks.md', { fast: false }));
    expect(read.phases[0]!.tasks.map((t) => [t.id, t.requirements])).toEqual([
      ['1.1', ['1.1', '1.2', '1.3', '4.1', '4.2']],
      ['1.2', ['2.1', '2.2']],
    ]);
  });
});
