import fc from 'fast-check';
import { readStory } from '../../../src/core/plan/kinds/bmad/index.js';
import { scanOrRefuse } from '../../../src/core/plan/kinds/dialectScan.js';
import { readInMixedPieces } from '../../helpers/pieces.js';
import { fixSeed, runs } from '../../helpers/seed.js';
import { remarkOnce } from '../../helpers/remarkOnce.js';

fixSeed(import.meta.url);
remarkOnce();

/**
 * A story's fast path (the line scanner, reading which box is nested in which and which share a
 * list) against remark alone: the same number, title, status, tasks (ids, texts, states, depths,
 * parents, lines, mark offsets) and problems for every document.
 */

/** The reader's mode for stories. */
const STORY = { taskText: true, requirements: false, structure: true };
/** Whether the line scanner reads the story whole. */
const scanned = (source: string): boolean => !('refused' in scanOrRefuse(source, STORY));

function agree(source: string): void {
  expect(readStory(source, 'story.md')).toEqual(readStory(source, 'story.md', { fast: false }));
}

const taskText = fc.constantFrom(
  'Task 1: Create the schema (AC: #1)',
  'Task 2 (AC: 1, 3)',
  '**Task 3: Bold** (AC: AC2, AC5)',
  'Subtask 3.1 write `code` (AC: 1-3)',
  '1.1 Add the migration',
  '2.3 Wire the `useUser` hook',
  'Implement it',
  'Fix _under_ and snake_case',
  '[x] box in text',
  '[ ] Task 9 box in text',
  '[x]* starred',
  'T [link](https://x.y) here',
  'Task 6 see [a](b "t") titled',
  '[Task 7](#t7) linked (AC: #2)',
  'Task 4 &amp; entity',
  '~~struck~~ Task 5',
  'trailing spaces   ',
  'a | b',
  '` spaced code `',
);
/** The texts the template mostly holds: read by the scanner. */
const plainText = fc.constantFrom(
  'Task 1: Create the schema (AC: #1)',
  'Task 2 (AC: 1, 3)',
  '**Task 3: Bold** (AC: AC2, AC5)',
  'Subtask 3.1 write `code` (AC: 1-3)',
  '1.1 Add the migration',
  'Implement it',
  'Task 8: Follow [architecture.md](../architecture.md#data) (AC: #3)',
);
const storyText = fc.oneof({ weight: 4, arbitrary: plainText }, { weight: 1, arbitrary: taskText });
const taskLine = fc
  .tuple(
    fc.constantFrom('', '', '', '  ', '  ', '    ', '      ', '   ', '\t', ' '),
    fc.constantFrom('- ', '- ', '- ', '* ', '+ ', '1. ', '2. ', '1) ', '-  ', '-'),
    fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[-]', '[P]', '[]', '[\t]', ''),
    fc.constantFrom(' ', ' ', ' ', ' ', '', '  ', '\t'),
    taskText,
  )
  .map((p) => p.join(''));
const headingLine = fc.constantFrom(
  '# Story 1.2: Account management',
  '# Story 3.4a Title',
  '# Story 7: no number',
  '# Notes',
  '## Story',
  '## Tasks / Subtasks',
  '## Tasks / Subtasks',
  '## Tasks',
  '## 任务 / 子任务 (Tasks / Subtasks)',
  '## Aufgaben',
  '## Acceptance Criteria',
  '## Критерии приёмки',
  '## Definition of Done',
  '## Dev Notes',
  '## Dev Agent Record',
  '### Review Follow-ups (AI)',
  '### Review Findings',
  '### File List',
  '## **Tasks** ##',
  '  ## Tasks / Subtasks',
);
const otherLine = fc.constantFrom(
  '',
  '',
  '',
  '',
  'Status: ready-for-dev',
  'Status: done',
  '**Status:** review ✅',
  '__Status__: in-progress',
  '  Status: drafted',
  'Status: two words',
  'As a user, I want things,',
  'so that it works.',
  '  continued text',
  '    indented text',
  '---',
  '***',
  '===',
  '-',
  '  -',
  '```',
  '```ts',
  '  ```',
  '~~~',
  '> a quote',
  '> - [ ] quoted task',
  '<!-- a comment -->',
  '<div>html</div>',
  '| AC | Test |',
  '|----|------|',
  '| 1 | [x] done |',
  '- plain bullet',
  '  - plain nested bullet',
  '1. ordered',
  '[ref]: https://x.y',
  'Some **bold** text [link](x)',
);
const line = fc.oneof(
  { weight: 5, arbitrary: taskLine },
  { weight: 2, arbitrary: headingLine },
  { weight: 4, arbitrary: otherLine },
);
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n');

function document(l: fc.Arbitrary<string>, ends = eol) {
  return fc
    .tuple(fc.array(fc.tuple(l, ends), { minLength: 1, maxLength: 40 }), fc.boolean())
    .map(([lines, final]) => {
      const t = lines.map(([x, e]) => x + e).join('');
      return final ? t : t.replace(/\r?\n$/, '');
    });
}

/** A story as BMAD's template writes it: tasks nested by spaces, blocks between and around them. */
interface Item {
  mark: string;
  bullet: string;
  text: string;
  children: Item[];
}
const leaf: fc.Arbitrary<Item> = fc.record({
  mark: fc.constantFrom(' ', 'x', 'X', 'P'),
  bullet: fc.constantFrom('-', '-', '-', '*', '1.'),
  text: storyText,
  children: fc.constant([]),
});
const item: fc.Arbitrary<Item> = fc.record({
  mark: fc.constantFrom(' ', 'x', 'X'),
  bullet: fc.constantFrom('-', '-', '-', '*', '1.'),
  text: storyText,
  children: fc.array(
    fc.record({
      mark: fc.constantFrom(' ', 'x', 'X', 'P'),
      bullet: fc.constantFrom('-', '-', '-', '*', '1.'),
      text: storyText,
      children: fc.array(leaf, { maxLength: 2 }),
    }),
    { maxLength: 3 },
  ),
});
const between = fc.constantFrom(
  '',
  '',
  '',
  '',
  'A paragraph between.',
  '  A paragraph in the item above.',
  '```bash\n- [ ] fake in code\n```',
  "  ```ts\n  - [ ] fake in an item's code\n  ```",
  '| a | b |\n|---|---|\n| - [ ] x | y |',
  '-',
  '---',
  '<!-- - [ ] commented -->',
  '- plain bullet\n  - [ ] nested under a plain one',
  '### Review Follow-ups (AI)',
  '-[ ] no space',
  '- [?] odd mark',
  '  lazy continuation',
);
const story = fc
  .record({
    eol: fc.constantFrom('\n', '\n', '\r\n'),
    indent: fc.constantFrom('  ', '  ', '    ', '   '),
    status: fc.constantFrom(
      'Status: ready-for-dev',
      '**Status:** done',
      'Status: in progress',
      'No status here.',
    ),
    heading: fc.constantFrom(
      '## Tasks / Subtasks',
      '## Tasks / Subtasks',
      '## Tasks',
      '## Aufgaben',
      '## Implementation',
    ),
    acceptance: fc.array(fc.constantFrom('- [ ] AC one', '1. AC two', '- [x] AC three'), {
      maxLength: 3,
    }),
    groups: fc.array(
      fc.record({
        items: fc.array(item, { minLength: 1, maxLength: 3 }),
        between: between,
        blank: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    notes: fc.array(fc.oneof(between, taskLine), { maxLength: 4 }),
  })
  .map(({ eol, indent, status, heading, acceptance, groups, notes }) => {
    const lines = [
      '# Story 4.2: Generated',
      '',
      status,
      '',
      '## Story',
      '',
      'As a user, I want it.',
      '',
      '## Acceptance Criteria',
      '',
      ...acceptance,
      '',
      heading,
    ];
    const write = (it: Item, depth: number) => {
      const pad = indent.repeat(depth);
      const bullet = it.bullet === '1.' ? '1. ' : `${it.bullet} `;
      lines.push(`${pad}${bullet}[${it.mark}] ${it.text}`);
      for (const child of it.children) write(child, depth + (it.bullet === '1.' ? 1.5 : 1));
    };
    for (const group of groups) {
      if (group.blank) lines.push('');
      for (const it of group.items) write(it, 0);
      lines.push(...group.between.split('\n'));
    }
    lines.push('', '## Dev Notes', '', ...notes, '', '## Dev Agent Record', '', '### File List');
    return `${lines.join('\n').replace(/\n/g, eol)}${eol}`;
  });

describe('BMAD story fast path against remark (differential)', () => {
  it('agrees on 500 mixed documents: nesting, markers, fences, tables, quotes, tabs, CRLF…', () => {
    // Those the scanner refuses as a whole are read in pieces: count those read by both readers.
    let mixed = 0;
    fc.assert(
      fc.property(document(line), (source) => {
        if (readInMixedPieces(source, STORY)) mixed++;
        agree(source);
      }),
      runs(500),
    );
    expect(mixed).toBeGreaterThan(25);
  });

  it('agrees on 250 stories of the template, most of them read by the scanner alone', () => {
    let fast = 0;
    let mixed = 0;
    fc.assert(
      fc.property(story, (source) => {
        if (scanned(source)) fast++;
        else if (readInMixedPieces(source, STORY)) mixed++;
        agree(source);
      }),
      runs(250),
    );
    // The scanner must really run: it gives up only on what it leaves to remark.
    expect(fast).toBeGreaterThan(50);
    expect(mixed).toBeGreaterThan(25);
  });
});
