import fc from 'fast-check';
import { lookalikeWarnings } from '../../src/core/plan/kinds/markdownDialect.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

/**
 * Which lines the lookalike-task warnings consider: two searches over the whole source (so that a
 * first read in a process runs them at full speed), held here to the plain reading they replace,
 * line by line: a line that looks like a task, not inside a top-level fence, not a task read.
 */
const LOOKS_LIKE_TASK =
  /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]*)?\[(?:[^\p{L}\p{N}\]\n]|[xX])?\]|\|[^\n]*\[[ xX~-]\]/u;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

function lineByLine(source: string, taskLines: ReadonlySet<number>): number[] {
  const lines = source.split('\n');
  const out: number[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_LINE.exec(lines[i]!);
    if (open) {
      const marker = open[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && open[2]!.trim() === '') {
        fence = undefined;
      }
      continue;
    }
    if (fence !== undefined) continue;
    if (!taskLines.has(i + 1) && LOOKS_LIKE_TASK.test(lines[i]!)) out.push(i + 1);
  }
  return out;
}

const line = fc.constantFrom(
  '- [ ] T001 a task',
  '- [x] done',
  '  - [-] doing',
  '1. [ ] numbered',
  '-[ ] no space',
  '> - [ ] quoted',
  '| a | [x] |',
  'text | and [ ] here',
  '[ ] a box in a paragraph',
  '- [P] a label',
  '- [é] a letter',
  '- [ß] a letter',
  '- [٣] a digit beyond ASCII',
  '- [7] a digit',
  '- [X] done',
  '- [] empty',
  '- [⏳] a symbol',
  '- [😀] a symbol beyond the BMP',
  '- [𝐀] a letter beyond the BMP',
  '- [\ud800] a lone surrogate',
  '[a] | [x] |',
  '```',
  '```js',
  '````',
  '~~~',
  '   ```',
  '    ```',
  '``` \r',
  '```\u2028x',
  '- [ ]\r',
  'a\r- [ ] after a carriage return',
  'a\u2028- [ ] after a line separator',
  'plain text',
  '',
);
const documents = fc
  .tuple(
    fc.array(line, { maxLength: 16 }),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean(),
    fc.array(fc.nat(20)),
  )
  .map(([lines, ending, last, tasks]) => ({
    source: lines.join(ending) + (last ? ending : ''),
    taskLines: new Set(tasks),
  }));

describe('lookalike lines', () => {
  it('are the lines a line-by-line reading finds (every document)', () => {
    fc.assert(
      fc.property(documents, ({ source, taskLines }) => {
        const warned = lookalikeWarnings(source, 't.md', () => new Set(), taskLines, 'fix').map(
          (p) => p.line,
        );
        expect(warned).toEqual(lineByLine(source, taskLines));
      }),
      { numRuns: 3000 },
    );
  });

  it('are the same when the lines read as tasks are known by where they start', () => {
    fc.assert(
      fc.property(documents, ({ source, taskLines }) => {
        // Where each line starts: the lines read as tasks are passed by their offset.
        const starts = new Map<number, number>();
        let at = 0;
        source.split('\n').forEach((text, i) => {
          if (taskLines.has(i + 1)) starts.set(at, i + 1);
          at += text.length + 1;
        });
        const warned = lookalikeWarnings(
          source,
          't.md',
          () => new Set(),
          taskLines,
          'fix',
          undefined,
          starts,
        ).map((p) => p.line);
        expect(warned).toEqual(lineByLine(source, taskLines));
      }),
      { numRuns: 3000 },
    );
  });
});
