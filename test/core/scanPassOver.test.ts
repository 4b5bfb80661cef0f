import fc from 'fast-check';
import {
  isNotTextLine,
  requirementIds,
  scanOrRefuse,
  type DialectScan,
  type ScanMode,
  type ScanRefusal,
} from '../../src/core/plan/kinds/dialectScan.js';
import { fixSeed, runs } from '../helpers/seed.js';

fixSeed(import.meta.url);

/**
 * The line scanner passes over runs of plain list items after one it read (one search of the
 * source, not the loop per line), and reads the task lines right after a task by one search
 * each: held here to the loop over every line (`passOver: false`) on
 * documents made to tell them apart — items at several indentations and spacings, blank lines
 * between them, boxes, requirement lines, and what else a line can open or continue (CRLF, a lone
 * carriage return, U+2028, tabs, fences of backticks and tildes, indented code, HTML, lazy
 * continuation lines, setext underlines, block quotes, lists nested in lists). The loop over lines
 * is itself held to remark by the differential suites.
 */
const MODES: ScanMode[] = [
  { taskText: true, requirements: false },
  { taskText: false, requirements: true },
  { taskText: true, requirements: true },
];

/** A scan with each item's requirements read (they are a function of the scan). */
function plain(scan: DialectScan | ScanRefusal): unknown {
  if ('refused' in scan) return scan;
  return {
    events: scan.events.map((e) =>
      e.kind === 'item' ? { ...e, requirements: e.requirements() } : e,
    ),
    skip: [...scan.skip].sort((a, b) => a - b),
  };
}

const indent = fc.constantFrom('', '', '  ', '  ', '    ', '   ', ' ', '\t', '      ', '        ');
const marker = fc.constantFrom('-', '-', '*', '+', '1.', '2)', '-');
const spacing = fc.constantFrom(' ', ' ', '  ', '    ', '     ', '\t', '');
const content = fc.constantFrom(
  'Create the project',
  '**Type**: Setup',
  '`lib/src/` folder',
  '```',
  '~~~',
  '``a``',
  '_Requirements: 1.1, 2.3_',
  'Requirements: 4.3',
  'see requirement 2',
  'REQUIREMENTS: 1',
  '_Требования: 1.1_',
  '_需求：2.3_',
  'Exigences : 4',
  '[ ] T001 a task',
  '[x] done',
  '[X] T002 done',
  '[ ] [P] T003 a label first',
  '[ ]  two spaces',
  '[ ]  [x] two boxes',
  '[ ]   ',
  '[x] \u00a0no-break space',
  '[-] doing',
  '[ ]* optional',
  '[P] label',
  '[ ]',
  '***',
  '---',
  '- nested',
  '1. numbered',
  '# heading',
  '> quote',
  '<!-- c -->',
  '<div>',
  'a\u2028b',
  'tab\there',
  'Настроить',
  '任务',
  '(paren) text',
  '"quoted"',
  '\\escaped',
  '5 entities',
  '',
  ' ',
);
const itemLine = fc
  .tuple(indent, marker, spacing, content)
  .map(([i, m, s, c]) => `${i}${m}${s}${c}`);
const otherLine = fc.constantFrom(
  '',
  '',
  '   ',
  '## Phase 1: Setup',
  '# Title',
  'A paragraph line',
  '  lazy continuation',
  '    indented code',
  '```',
  '```ts',
  '~~~',
  '   ```',
  '<!-- comment',
  '-->',
  '<div>',
  '===',
  '---',
  '- - -',
  '> quoted text',
  '>',
  '| a | b |',
  'text\rlone',
  'a\u2028b',
  '\tTabbed',
  '-',
  '  -',
  '_Requirements: 2.1_',
);
const line = fc.oneof(
  { arbitrary: itemLine, weight: 3 },
  { arbitrary: otherLine, weight: 1 },
  // Runs of the same item, which the search passes over.
  {
    arbitrary: fc
      .tuple(indent, marker, spacing, fc.array(content, { minLength: 1, maxLength: 4 }))
      .map(([i, m, s, cs]) => cs.map((c) => `${i}${m}${s}${c}`).join('\n')),
    weight: 3,
  },
);
/** Documents of up to `maxLength` of `lines` (each one line or more), LF or CRLF, a final line end or none. */
function documentsOf(lines: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(lines, { maxLength }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([ls, ending, last]) => ls.join('\n').split('\n').join(ending) + (last ? ending : ''));
}
const documents = documentsOf(line, 24);

describe('the line scanner passes over plain list items', () => {
  it('reads every document as its loop over every line does', () => {
    fc.assert(
      fc.property(documents, (source) => {
        for (const mode of MODES) {
          expect(plain(scanOrRefuse(source, mode))).toEqual(
            plain(scanOrRefuse(source, mode, { passOver: false })),
          );
        }
      }),
      runs(2500),
    );
  });
});

// Task lines after a task, the search that reads them (TASK_LINE) told apart from the loop: what
// follows the box (one space or two, a bracket, a no-break space; and, rarer, as a refusal drops
// what was read before it, white space alone or nothing), the box's mark, the indentation and the
// bullet, with no tab or lone carriage return (which leave every line to the loop).
const box = fc.constantFrom('[ ]', '[ ]', '[x]', '[X]', '[-]', '[~]', '[]');
const afterBox = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ' T001 a task',
      ' T002 [P] [US1] `src/a.ts`',
      ' [P] label first',
      '  two spaces',
      ' \u00a0no-break space',
      ' **T003** strong',
      ' a\u2028b',
      ' see [docs',
      ' [a](b) link',
      ' a ![i](p) image',
      ' a &amp; b',
      ' two trailing  ',
      ' a_b',
      ' [^1] note',
      ' [x][y] reference',
    ),
    weight: 12,
  },
  {
    arbitrary: fc.constantFrom(
      '  [x] two boxes',
      '   ',
      ' ',
      '',
      '\u00a0',
      ' \u00a0',
      ':colon',
      '(p)',
      '[l]',
    ),
    weight: 1,
  },
);
// Runs of task lines at one indentation and bullet (what the search reads), and lines alone.
const taskLines = fc
  .tuple(
    fc.constantFrom('', '', '  ', ' ', '    '),
    fc.constantFrom('- ', '- ', '- ', '-  ', '* ', '1. '),
    fc.array(fc.tuple(box, afterBox), { minLength: 1, maxLength: 5 }),
  )
  .map(([i, b, tasks]) => tasks.map(([x, after]) => `${i}${b}${x}${after}`).join('\n'));
const taskDocuments = documentsOf(
  fc.oneof(
    { arbitrary: taskLines, weight: 6 },
    {
      arbitrary: fc.constantFrom('', 'a continuation', '  more', '](x) link end', '## Phase 2'),
      weight: 1,
    },
  ),
  6,
);

describe('the line scanner reads the task lines after a task by one search', () => {
  it('reads every document as its loop over every line does', () => {
    fc.assert(
      fc.property(taskDocuments, (source) => {
        // (The mode the search is made for: one that reads task text and no requirements.)
        const mode = MODES[0]!;
        expect(plain(scanOrRefuse(source, mode))).toEqual(
          plain(scanOrRefuse(source, mode, { passOver: false })),
        );
      }),
      runs(5000),
    );
  });
});

// A task, its detail bullets and the requirement line after them, as Kiro writes them; the line
// the search reads (REQUIREMENT_ITEM) told apart from the loop: its column, bullet and spacing
// against the details', the citation's spelling (a range, a space before the closing `_`, two
// spaces after the colon, no closing run, another run), and what follows it.
const citation = fc.constantFrom(
  '_Requirements: 1.1, 2.3_',
  '_Requirements: 15.1-15.8_',
  '_Requirements: 1.1-1.3, 2.4_',
  '_Requirement: 3_',
  '_Requirements: 1.1,2.3_',
  '_Requirements: 1..2, .3, 4._',
  '_Requirements: 1-2-3, 4_',
  '_Requirements: 1.1, -_',
  '_Requirements: 1_',
  '_Requirements:  1.1_',
  '_Requirements: 1.1 _',
  '_Requirements: 1.1_ extra',
  '_Requirements: 1.1, 2.3',
  '__Requirements: 1.1__',
  '*Requirements: 1.1*',
  '_requirements: 1.1_',
  '_Requirements: All_',
  '_Requirements: 1.1_\u00a0',
  '**Validates: Requirements 1.2**',
  '_Требования: 1.1, 2.2_',
  '_Требование: 3_',
  '_要件: 2.3_',
  '_需求：1.1_',
  '_需求： 1.1-1.3_',
  '_요구사항: 6.1_',
  '_요구 사항: 6.2_',
  '_Exigences : 1.4_',
  '_Requisitos: 5.1 _',
  '_Anforderungen: 7_ extra',
  '_ТРЕБОВАНИЯ: 1.1_',
  '_Priority: 1_',
);
const detail = fc.constantFrom(
  'Add a column',
  '**Type**: setup',
  '`lib/src/` folder',
  'see requirement 2',
  'Настроить',
  'Требования к модели',
  '[ ] 1.9 a box',
);
const kiroTask = fc
  .tuple(
    fc.constantFrom('', '', '  '),
    fc.constantFrom('[ ]', '[x]', '[-]', '[ ]*'),
    fc.constantFrom('', '  ', '    ', ' ', '   '),
    fc.constantFrom('-', '-', '-', '*', '+'),
    fc.constantFrom(' ', ' ', '  '),
    fc.array(detail, { maxLength: 4 }),
    fc.tuple(
      fc.constantFrom('same', 'same', 'same', 'other indent', 'other bullet', 'other spacing'),
      citation,
    ),
    fc.boolean(),
    // Lines after it, each indented from the details' content column (which an item opened at
    // another column would tell apart), after a blank line or none.
    fc.array(
      fc.tuple(
        fc.boolean(),
        fc.integer({ min: -3, max: 4 }),
        fc.constantFrom('text', '- an item', '[ ] 1.2 b', '_Requirements: 9.9_'),
      ),
      { maxLength: 2 },
    ),
  )
  .map(([ti, b, di, bullet, sp, details, [how, cited], gap, next]) => {
    const column = ti.length + di.length + bullet.length + sp.length;
    const after = next.flatMap(([blank, by, text]) => [
      ...(blank ? [''] : []),
      `${' '.repeat(Math.max(0, column + by))}${text}`,
    ]);
    const at = (text: string) => `${ti}${di}${bullet}${sp}${text}`;
    const req =
      how === 'other indent'
        ? `${ti}${di} ${bullet}${sp}${cited}`
        : how === 'other bullet'
          ? `${ti}${di}${bullet === '-' ? '*' : '-'}${sp}${cited}`
          : how === 'other spacing'
            ? `${ti}${di}${bullet}${sp} ${cited}`
            : at(cited);
    const lines = [`${ti}- ${b} 1.1 A task`, ...details.map(at), ...(gap ? [''] : []), req];
    return [...lines, ...after].join('\n');
  });
const kiroDocuments = documentsOf(
  fc.oneof(
    { arbitrary: kiroTask, weight: 6 },
    { arbitrary: fc.constantFrom('', '- [ ] 2. A top task', '## Tasks'), weight: 2 },
  ),
  6,
);

describe("the line scanner reads the requirement line after a task's details by one search", () => {
  it('reads every document as its loop over every line does', () => {
    fc.assert(
      fc.property(kiroDocuments, (source) => {
        // (The modes that read requirements.)
        for (const mode of [MODES[1]!, MODES[2]!]) {
          expect(plain(scanOrRefuse(source, mode))).toEqual(
            plain(scanOrRefuse(source, mode, { passOver: false })),
          );
        }
      }),
      runs(1500),
    );
  });
});

describe('character-code readings the scanner uses instead of patterns', () => {
  const NOT_TEXT_LINE = /^(?:[-:|=][-:|= ]*|(?:\* *){3,}|(?:_ *){3,})$/;
  it('tells a rule or an underline as its pattern does', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('-', ':', '|', '=', '*', '_', ' ', 'a', '\t', '\u00a0'), {
            maxLength: 8,
          })
          .map((cs) => cs.join('')),
        (s) => {
          expect(isNotTextLine(s)).toBe(NOT_TEXT_LINE.test(s));
        },
      ),
      runs(2500),
    );
  });

  it('reads cited requirements as the split and filter do', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('1', '2', '0', '.', ',', ' ', '\t', '\u00a0', '\u2028', '..'), {
            maxLength: 12,
          })
          .map((cs) => cs.join('')),
        (s) => {
          expect(requirementIds(s)).toEqual(
            s.split(/[,\s]+/).filter((r) => /^\d+(?:\.\d+)*$/.test(r)),
          );
        },
      ),
      runs(2500),
    );
  });
});
