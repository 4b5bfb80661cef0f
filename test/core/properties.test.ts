import fc from 'fast-check';
import { parseChecklist, setTaskStates, type TaskState } from '../../src/core/index.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { remarkOnce } from '../helpers/remarkOnce.js';

fixSeed(import.meta.url);
// The fast path and remark read each text; remark's side parses it once (see the helper).
remarkOnce();

/**
 * Generated checklists whose true tasks are known: phases, lists with nested tasks and every
 * bullet style, plus code fences, HTML comments and indented code full of fake tasks.
 */
const MARK: Record<TaskState, string[]> = { todo: [' '], doing: ['~'], done: ['x', 'X'] };
const state = fc.constantFrom<TaskState>('todo', 'doing', 'done');
const text = fc
  .tuple(
    fc.constantFrom('a', 'b', 'T', 'z'),
    fc.string({
      unit: fc.constantFrom('a', 'q', '1', ' ', '[', ']', '~', 'x', '.', ':', '-'),
      maxLength: 12,
    }),
  )
  .map(([head, tail]) => (head + tail).trimEnd());
const bullet = fc.constantFrom('-', '*', '+', '1.', '2)');
const sep = fc.constantFrom(' ', '\t');

interface Item {
  bullet: string;
  sep: string;
  state: TaskState;
  upper: boolean;
  text: string;
  children: Item[];
}

const item: fc.Arbitrary<Item> = fc.record({
  bullet,
  sep,
  state,
  upper: fc.boolean(),
  text,
  children: fc.array(
    fc.record({ bullet, sep, state, upper: fc.boolean(), text, children: fc.constant<Item[]>([]) }),
    { maxLength: 2 },
  ),
});

type Block =
  | { kind: 'list'; items: Item[] }
  | { kind: 'fence'; lines: string[] }
  | { kind: 'html'; lines: string[] }
  | { kind: 'indented'; lines: string[] }
  | { kind: 'para'; text: string };

const fakeLines = fc.array(
  fc
    .tuple(fc.constantFrom('- ', '* ', '1. '), fc.constantFrom('[ ]', '[~]', '[x]'), text)
    .map((p) => `${p[0]}${p[1]} ${p[2]}`),
  { minLength: 1, maxLength: 3 },
);
const block: fc.Arbitrary<Block> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(item, { minLength: 1, maxLength: 4 })
      .map((items) => ({ kind: 'list' as const, items })),
  },
  { weight: 1, arbitrary: fakeLines.map((lines) => ({ kind: 'fence' as const, lines })) },
  { weight: 1, arbitrary: fakeLines.map((lines) => ({ kind: 'html' as const, lines })) },
  { weight: 1, arbitrary: fakeLines.map((lines) => ({ kind: 'indented' as const, lines })) },
  { weight: 1, arbitrary: text.map((t) => ({ kind: 'para' as const, text: `Note ${t}` })) },
);

const doc = fc.record({
  phases: fc.array(fc.array(block, { maxLength: 4 }), { minLength: 1, maxLength: 4 }),
  eol: fc.constantFrom('\n', '\r\n'),
  finalNewline: fc.boolean(),
});

interface Rendered {
  source: string;
  tasks: { state: TaskState; phase: number }[];
  /** [start, end) of every fence, comment and indented block: bytes that must never change. */
  frozen: [number, number][];
}

function render(d: { phases: Block[][]; eol: string; finalNewline: boolean }): Rendered {
  const lines: string[] = [];
  const tasks: Rendered['tasks'] = [];
  const frozenLines: [number, number][] = [];
  const box = (i: Item) => `[${i.state === 'done' && i.upper ? 'X' : MARK[i.state][0]}]`;
  d.phases.forEach((blocks, p) => {
    lines.push(`## Phase ${p + 1}: P${p + 1}`, '');
    for (const b of blocks) {
      let frozenStart = lines.length;
      if (b.kind === 'list') {
        // One list per block: keep one bullet character so items do not split into lists.
        const marker = b.items[0]!.bullet;
        b.items.forEach((it, k) => {
          const m = /\d/.test(marker) ? `${k + 1}${marker.slice(-1)}` : marker;
          lines.push(`${m}${it.sep}${box(it)} ${it.text}`);
          tasks.push({ state: it.state, phase: p + 1 });
          const indent = ' '.repeat(m.length + 1);
          for (const c of it.children) {
            lines.push(`${indent}- ${box(c)} ${c.text}`);
            tasks.push({ state: c.state, phase: p + 1 });
          }
        });
      } else if (b.kind === 'fence') lines.push('```', ...b.lines, '```');
      else if (b.kind === 'html') lines.push('<!--', ...b.lines, '-->');
      else if (b.kind === 'indented') {
        // A paragraph first: indented lines right after a list would continue its last item.
        lines.push('Code:', '');
        frozenStart = lines.length;
        lines.push(...b.lines.map((l) => `    ${l}`));
      } else lines.push(b.text);
      if (b.kind !== 'list' && b.kind !== 'para') frozenLines.push([frozenStart, lines.length]);
      lines.push('');
    }
  });
  const offsets: number[] = [];
  let at = 0;
  for (const l of lines) {
    offsets.push(at);
    at += l.length + d.eol.length;
  }
  let source = lines.join(d.eol);
  source = d.finalNewline ? source + d.eol : source.replace(/(\r?\n)+$/, '');
  const frozen = frozenLines.map(([a, b]): [number, number] => [
    offsets[a]!,
    offsets[b - 1]! + lines[b - 1]!.length,
  ]);
  return { source, tasks, frozen };
}

const settings = runs(200);

describe('checklist properties', () => {
  it('parsing finds exactly the real tasks, with their states and phases', () => {
    fc.assert(
      fc.property(doc, (d) => {
        const { source, tasks } = render(d);
        const checklist = parseChecklist(source, 'c.md');
        const found = checklist.phases.flatMap((p) =>
          p.tasks.map((t) => ({ state: t.state, phase: t.phase })),
        );
        expect(found).toEqual(tasks);
      }),
      settings,
    );
  });

  it('a mark changes exactly one byte, between brackets, and re-parses to the new state', () => {
    fc.assert(
      fc.property(doc, fc.nat(), state, (d, pick, target) => {
        const { source } = render(d);
        const before = parseChecklist(source, 'c.md');
        const all = before.phases.flatMap((p) => p.tasks);
        fc.pre(all.length > 0);
        const task = all[pick % all.length]!;
        const { source: after } = setTaskStates(source, [task], target);
        const a = Buffer.from(source);
        const b = Buffer.from(after);
        expect(b.length).toBe(a.length);
        const diff = [...a.keys()].filter((i) => a[i] !== b[i]);
        expect(diff.length).toBe(task.state === target ? 0 : 1);
        for (const i of diff) expect(String.fromCharCode(a[i - 1]!, a[i + 1]!)).toBe('[]');
        const reparsed = parseChecklist(after, 'c.md').phases.flatMap((p) => p.tasks);
        expect(reparsed.map((t) => t.state)).toEqual(
          all.map((t) => (t === task ? target : t.state)),
        );
      }),
      settings,
    );
  });

  it('marking every phase leaves fences, comments and indented code untouched', () => {
    fc.assert(
      fc.property(doc, state, (d, target) => {
        const { source, frozen } = render(d);
        const checklist = parseChecklist(source, 'c.md');
        const { source: after } = setTaskStates(
          source,
          checklist.phases.flatMap((p) => p.tasks),
          target,
        );
        for (const [from, to] of frozen) expect(after.slice(from, to)).toBe(source.slice(from, to));
        expect(
          parseChecklist(after, 'c.md')
            .phases.flatMap((p) => p.tasks)
            .every((t) => t.state === target),
        ).toBe(true);
      }),
      settings,
    );
  });
});
