import fc from 'fast-check';
import { findCheckpoint, writeCheckpoint } from '../../src/core/plan/checkpoint.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

/**
 * The checkpoint markers of 00_context.md: a line reading finds them where it is sure to agree
 * with remark (the authority), and remark reads the rest; both give the same block and problems.
 */
const START = '<!-- coder-loop:checkpoint -->';
const END = '<!-- /coder-loop:checkpoint -->';

const line = fc.constantFrom(
  START,
  END,
  `${START}  `,
  `${END}\t`,
  ` ${START}`,
  `   ${END}`,
  `\t${START}`,
  `- ${START}`,
  `> ${START}`,
  `1. ${END}`,
  `text ${START}`,
  `\`${START}\``,
  '# Context',
  '## Checkpoint',
  '- Updated: 2026-11-22',
  '  - nested',
  '> quoted',
  'A paragraph line',
  '| a | b |',
  '|---|---|',
  '```',
  '~~~md',
  '    indented code',
  '<div>',
  '</div>',
  '<!-- a comment',
  '-->',
  '<!-- other -->',
  '---',
  '+++',
  '===',
  '[^1]: a footnote',
  '',
  '',
  '',
);
const eol = fc.constantFrom('\n', '\r\n', '\r');
const documents = fc
  .tuple(fc.array(line, { maxLength: 14 }), eol, fc.boolean())
  .map(([lines, ending, last]) => lines.join(ending) + (last ? ending : ''));

describe('findCheckpoint', () => {
  it('reads the markers line by line as remark reads them (every document)', () => {
    fc.assert(
      fc.property(documents, (source) => {
        expect(findCheckpoint(source, 'c.md')).toEqual(
          findCheckpoint(source, 'c.md', { fast: false }),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('finds the block between the markers, with CRLF and trailing spaces', () => {
    const source = `# Goal\r\n\r\nText\r\n${START}  \r\n## Checkpoint\r\n${END}\r\n`;
    const { block, problems } = findCheckpoint(source, 'c.md');
    expect(problems).toEqual([]);
    expect(source.slice(block!.innerStart, block!.innerEnd)).toBe('\r\n## Checkpoint\r\n');
  });

  it('does not count markers inside a code fence or a list item', () => {
    const source = ['```', START, END, '```', '', `- ${START}`, ''].join('\n');
    expect(findCheckpoint(source, 'c.md')).toEqual({ problems: [] });
  });

  it('names a repeated marker and an end before its start', () => {
    expect(findCheckpoint([START, START, END].join('\n'), 'c.md').problems).toMatchObject([
      { line: 2, message: expect.stringContaining('(2 start, 1 end)') },
    ]);
    expect(findCheckpoint([END, START].join('\n'), 'c.md').problems).toMatchObject([
      { line: 1, message: 'The checkpoint end marker comes before its start marker.' },
    ]);
  });

  it('rewrites only what lies between the markers', () => {
    const source = `# Goal\n\n${START}\nold\n${END}\nafter\n`;
    expect(writeCheckpoint(source, 'c.md', ['new'])).toBe(
      `# Goal\n\n${START}\nnew\n${END}\nafter\n`,
    );
  });
});
