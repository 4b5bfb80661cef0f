import fc from 'fast-check';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import type { Nodes, Root } from 'mdast';
import { parseChecklist, setTaskStates } from '../../src/core/index.js';
import { KIRO_MARKS, readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { setDialectStates, type DialectPlan } from '../../src/core/plan/kinds/markdownDialect.js';
import { readSpeckit, SPECKIT_MARKS } from '../../src/core/plan/kinds/speckit/index.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// The fast path and remark read each text; remark's side parses it once (see the helper).
remarkOnce();

/**
 * A box GFM accepts is a task in every markdown dialect, and only such a box (SPEC §2b): remark-gfm
 * is the authority. Each generated document holds one candidate line (list marker, spaces and
 * tabs, a box, text); the readers must call it a task exactly when remark-gfm gives its list item
 * a `checked` value. A dialect's own marks (`[~]` for the coder kind, `[-]` and `[ ]*` for Kiro)
 * count where GFM would read the box written as `[ ]`.
 */
const gfm = unified().use(remarkParse).use(remarkGfm);

function someNode(source: string, test: (node: Nodes) => boolean): boolean {
  const stack: Nodes[] = [gfm.parse(source) as Root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (test(node)) return true;
    if ('children' in node) stack.push(...(node.children as Nodes[]));
  }
  return false;
}

const gfmTask = (source: string): boolean =>
  someNode(source, (n) => n.type === 'listItem' && (n.checked === true || n.checked === false));

/** Code is never a task, and no lookalike either. */
const hasCode = (source: string): boolean => someNode(source, (n) => n.type === 'code');

interface Candidate {
  before: string; // a parent item and its line break, or nothing
  quote: string;
  indent: string;
  marker: string;
  gap: string;
  mark: string;
  after: string;
  text: string;
}

const candidate: fc.Arbitrary<Candidate> = fc.record({
  before: fc.constantFrom('', '', '- Parent\n', '1. Parent\n'),
  quote: fc.constantFrom('', '', '', '> ', '>\t'),
  indent: fc.constantFrom('', '', ' ', '  ', '   ', '\t', '    ', ' \t', '  \t', '\t '),
  marker: fc.constantFrom('-', '-', '*', '+', '1.', '2)', '10.'),
  gap: fc.constantFrom(' ', ' ', '\t', '  ', ' \t', '\t ', '   \t', '', '     '),
  mark: fc.constantFrom(' ', ' ', '\t', '\t', 'x', 'X', '~', '-', '?', ''),
  after: fc.constantFrom(' ', ' ', '\t', '  ', ' \t', '', '*', '* ', '*\t'),
  text: fc.constantFrom('1. Do it', '1. `code` first', '1. **bold** then text'),
});

const lineOf = (c: Candidate, mark = c.mark, after = c.after): string =>
  `${c.quote}${c.indent}${c.marker}${c.gap}[${mark}]${after}${c.text}`;

/** Line number of the candidate in a document `head` + before + line. */
function candidateLine(head: string, c: Candidate): number {
  return (head + c.before).split('\n').length;
}

/** GFM's reading, with a dialect's own marks read where GFM would read `[ ]`. */
function expected(
  c: Candidate,
  head: string,
  extra: { marks: string[]; optionalStar: boolean },
): boolean {
  let mark = c.mark;
  let after = c.after;
  if (extra.marks.includes(mark)) mark = ' ';
  if (extra.optionalStar && after.startsWith('*')) after = after.slice(1);
  if (after.startsWith('*')) return false;
  return gfmTask(head + c.before + lineOf(c, mark, after) + '\n');
}

function changedOffsets(a: string, b: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

const settings = runs(500);

describe('tab boxes: every markdown dialect reads a task where remark-gfm does', () => {
  it('remark-gfm itself: [\\t] is a box where its tab is one column wide', () => {
    expect(gfmTask('- [\t] x')).toBe(true);
    expect(gfmTask('-\t[ ] x')).toBe(true);
    expect(gfmTask('- [ ]\tx')).toBe(true);
    expect(gfmTask('-\t[\t] x')).toBe(false); // the tab spans three columns
    expect(gfmTask('-   [\t] x')).toBe(false);
  });

  it('coder checklist: tasks, marks and no silent drop agree with remark-gfm', () => {
    const head = '## Phase 1: Work\n\n';
    fc.assert(
      fc.property(candidate, (c) => {
        const source = head + c.before + lineOf(c) + '\n';
        const line = candidateLine(head, c);
        const checklist = parseChecklist(source, 'c.md', { fast: false });
        const fast = parseChecklist(source, 'c.md');
        expect(fast).toEqual(checklist);
        const task = checklist.phases[0]?.tasks.find((t) => t.line === line);
        const want = expected(c, head, { marks: ['~'], optionalStar: false });
        expect(task !== undefined).toBe(want);
        if (!task) {
          if (hasCode(source)) return;
          if (!/\[.?\]/.test(lineOf(c))) return;
          expect(checklist.problems.some((p) => p.line === line)).toBe(true);
          return;
        }
        expect(source[task.markOffset - 1] + source[task.markOffset + 1]!).toBe('[]');
        expect(task.mark).toBe(c.mark);
        const done = setTaskStates(source, [task], 'done').source;
        const changed = changedOffsets(source, done);
        expect(changed).toEqual(task.state === 'done' ? [] : [task.markOffset]);
        expect(done.length).toBe(source.length);
        const again = parseChecklist(done, 'c.md').phases[0]!.tasks.find((t) => t.line === line);
        expect(again?.state).toBe('done');
      }),
      settings,
    );
  });

  it('spec-kit: tasks, marks and no silent drop agree with remark-gfm', () => {
    const head = '# Tasks\n\n## Phase 1: Setup\n\n';
    fc.assert(
      fc.property(candidate, (c) => {
        const source = head + c.before + lineOf(c) + '\n';
        const line = candidateLine(head, c);
        const plan = readSpeckit(source, 'tasks.md');
        expect(plan).toEqual(readSpeckit(source, 'tasks.md', { fast: false }));
        const task = plan.phases[0]?.tasks.find((t) => t.line === line);
        expect(task !== undefined).toBe(expected(c, head, { marks: [], optionalStar: false }));
        checkDialect(source, line, plan, task, 'speckit', lineOf(c));
      }),
      settings,
    );
  });

  it('Kiro: tasks ([-] and [ ]* included), marks and no silent drop agree with remark-gfm', () => {
    const head = '# Implementation Plan\n\n';
    fc.assert(
      fc.property(candidate, (c) => {
        const source = head + c.before + lineOf(c) + '\n';
        const line = candidateLine(head, c);
        const plan = readKiro(source, 'tasks.md');
        const task = plan.phases.flatMap((p) => p.tasks).find((t) => t.line === line);
        expect(task !== undefined).toBe(
          expected(c, head, { marks: ['-', '~'], optionalStar: true }),
        );
        checkDialect(source, line, plan, task, 'kiro', lineOf(c));
      }),
      settings,
    );
  });
});

function checkDialect(
  source: string,
  line: number,
  plan: DialectPlan,
  task: DialectPlan['phases'][number]['tasks'][number] | undefined,
  kind: 'speckit' | 'kiro',
  written: string,
): void {
  if (!task) {
    if (hasCode(source)) return;
    if (!/\[.?\]/.test(written)) return;
    expect(plan.problems.some((p) => p.line === line)).toBe(true);
    return;
  }
  expect(source[task.markOffset - 1] + source[task.markOffset + 1]!).toBe('[]');
  const done = setDialectStates(
    source,
    kind === 'kiro' ? KIRO_MARKS : SPECKIT_MARKS,
    [task],
    'done',
  );
  expect(changedOffsets(source, done)).toEqual(task.state === 'done' ? [] : [task.markOffset]);
  expect(done.length).toBe(source.length);
  const read = kind === 'kiro' ? readKiro(done, 'tasks.md') : readSpeckit(done, 'tasks.md');
  const again = read.phases.flatMap((p) => p.tasks).find((t) => t.line === line);
  expect(again?.state).toBe('done');
}

describe('tab boxes: examples', () => {
  const cases: [string, string][] = [
    ['- [\t] 1. Tab in the box', ' '],
    ['-\t[ ] 1. Tab before the box', ' '],
    ['*\t[ ]\t1. Tabs around the box', ' '],
    ['1.\t[x] 1. Ordered, tab after the marker', 'x'],
  ];
  it.each(cases)('%j is a task in the coder checklist, spec-kit and Kiro', (line) => {
    const c = parseChecklist(`## Phase 1: A\n\n${line}\n`, 'c.md');
    expect(c.phases[0]!.tasks).toHaveLength(1);
    const s = readSpeckit(`## Phase 1: A\n\n${line}\n`, 'tasks.md');
    expect(s.phases[0]!.tasks).toHaveLength(1);
    const k = readKiro(`${line}\n`, 'tasks.md');
    expect(k.phases).toHaveLength(1);
  });

  it('marking a [\\t] box replaces the tab only, the tabs around it stay', () => {
    const source = '## Phase 1: A\n\n-\t[\t]\tDo it\r\n'.replace('-\t[\t]', '- [\t]');
    const task = parseChecklist(source, 'c.md').phases[0]!.tasks[0]!;
    expect(setTaskStates(source, [task], 'doing').source).toBe('## Phase 1: A\n\n- [~]\tDo it\r\n');
    const kiro = '-\t[ ]\t1. Do it\n\t- [\t] 1.1 Sub\n';
    const plan = readKiro(kiro, 'tasks.md');
    expect(setDialectStates(kiro, KIRO_MARKS, plan.phases[0]!.tasks, 'done')).toBe(
      '-\t[ ]\t1. Do it\n\t- [x] 1.1 Sub\n',
    );
  });
});
