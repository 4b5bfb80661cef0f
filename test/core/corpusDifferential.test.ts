import { parseChecklist } from '../../src/core/index.js';
import { readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';
import { readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { corpusDir, corpusFiles } from '../helpers/corpus.js';
import { realKiro, realSpeckit } from '../helpers/realShapes.js';
import fc from 'fast-check';
import { fixSeed } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// Each file is read by four readers, each both ways: remark parses it once (see the helper).
remarkOnce();

/**
 * The fast path against remark alone on every markdown file people wrote (the shared corpus,
 * when it is beside the clone): each reader, spec-kit's, Kiro's, OpenSpec's and the checklist's,
 * gives the same plan both ways, problems included. Without the corpus, the same check runs on
 * generated real-shaped documents only.
 */
const files = corpusFiles().filter((f) => f.path.endsWith('.md'));
if (!corpusDir()) console.log('The shared corpus is absent: checking generated documents only.');

const readers: [string, (source: string, fast: boolean) => unknown][] = [
  ['spec-kit', (s, fast) => readSpeckit(s, 'tasks.md', { fast })],
  ['Kiro', (s, fast) => readKiro(s, 'tasks.md', { fast })],
  ['OpenSpec', (s, fast) => readOpenspec(s, 'tasks.md', { fast })],
  ['checklist', (s, fast) => parseChecklist(s, 'c.md', { fast })],
];

describe('fast path against remark on real files', () => {
  // One test per real file; none when the corpus is absent (the test below still runs).
  for (const { path, source } of files) {
    it(`agrees on ${path}`, () => {
      for (const [name, read] of readers) {
        expect([name, read(source, true)]).toEqual([name, read(source, false)]);
      }
    });
  }

  it('agrees on 200 generated real-shaped documents (whether or not the corpus is there)', () => {
    fc.assert(
      fc.property(fc.oneof(realSpeckit, realKiro), (source) => {
        for (const [name, read] of readers) {
          expect([name, read(source, true)]).toEqual([name, read(source, false)]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
