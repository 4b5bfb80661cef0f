import fc from 'fast-check';
import { load } from 'js-yaml';
import { parseDocument } from 'yaml';
import {
  BMAD_STATUSES,
  openBmad,
  readSprintStatus,
  readStory,
  setSprintStatus,
  setStoryTasks,
  type BmadEntry,
  type BmadEntryKind,
  type BmadFileEdit,
  type BmadPhase,
  type BmadTask,
} from '../../../src/core/plan/kinds/bmad/index.js';
import { fixSeed } from '../../helpers/seed.js';

fixSeed(import.meta.url);

/**
 * Generated stories and sprint-status files whose tasks and statuses are known: an edit changes
 * exactly the marks (one byte a task) or exactly one scalar, and keeps CRLF, tabs, comments, key
 * order and a missing final newline. Each property is checked against a deliberately broken
 * writer too, to show that it catches one.
 */

// ——— Stories

type State = 'todo' | 'done';
interface Item {
  state: State;
  upper: boolean;
  text: string;
  children: Item[];
}
const text = fc
  .tuple(
    fc.constantFrom('Task', 'Subtask', 'Add', 'Fix'),
    fc.string({
      unit: fc.constantFrom('a', 'q', '1', ' ', '.', ':', '-', '(AC: #1)', '`x`', '**b**'),
      maxLength: 8,
    }),
  )
  .map(([head, tail]) => `${head} ${tail}`.trimEnd());
const leaf = fc.record({
  state: fc.constantFrom<State>('todo', 'done'),
  upper: fc.boolean(),
  text,
  children: fc.constant<Item[]>([]),
});
const item: fc.Arbitrary<Item> = fc.record({
  state: fc.constantFrom<State>('todo', 'done'),
  upper: fc.boolean(),
  text,
  children: fc.array(
    fc.record({
      state: fc.constantFrom<State>('todo', 'done'),
      upper: fc.boolean(),
      text,
      children: fc.array(leaf, { maxLength: 2 }),
    }),
    { maxLength: 3 },
  ),
});
const fake = fc.constantFrom('- [ ] fake', '- [x] fake', '  - [ ] fake');

interface StoryCase {
  source: string;
  truth: { state: State; depth: number }[];
}

const story: fc.Arbitrary<StoryCase> = fc
  .record({
    eol: fc.constantFrom('\n', '\r\n'),
    finalNewline: fc.boolean(),
    indent: fc.constantFrom('  ', '\t', '    '),
    status: fc.constantFrom('ready-for-dev', 'in-progress', 'review'),
    groups: fc.array(
      fc.record({
        items: fc.array(item, { minLength: 1, maxLength: 3 }),
        fence: fc.option(fc.array(fake, { minLength: 1, maxLength: 2 })),
        heading: fc.option(fc.constantFrom('### Review Follow-ups (AI)', '### Review Findings')),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    notes: fc.array(fake, { maxLength: 2 }),
  })
  .map(({ eol, finalNewline, indent, status, groups, notes }) => {
    const lines = ['# Story 4.2: Generated', '', `Status: ${status}`, '', '## Tasks / Subtasks'];
    const truth: StoryCase['truth'] = [];
    const write = (it: Item, depth: number) => {
      const mark = it.state === 'todo' ? ' ' : it.upper ? 'X' : 'x';
      lines.push(`${indent.repeat(depth)}- [${mark}] ${it.text}`);
      truth.push({ state: it.state, depth });
      for (const child of it.children) write(child, depth + 1);
    };
    for (const group of groups) {
      lines.push('');
      if (group.heading) lines.push(group.heading, '');
      for (const it of group.items) write(it, 0);
      if (group.fence) lines.push('', '```md', ...group.fence, '```');
    }
    lines.push('', '## Dev Notes', '', ...notes, '');
    let source = lines.join(eol);
    if (!finalNewline) source = source.slice(0, -eol.length);
    return { source, truth };
  });

type StoryWriter = (source: string, tasks: readonly BmadTask[], state: State) => string;

/** The story property: every task read as written; an edit changes its tasks' mark bytes alone. */
const storyEdit = (write: StoryWriter) =>
  fc.property(
    story,
    fc.array(fc.nat(), { maxLength: 6 }),
    fc.constantFrom<State>('todo', 'done'),
    ({ source, truth }, picks, state) => {
      const read = readStory(source, 'story.md');
      // Generated texts may write the same "Task 1" twice: that warning is the reader's due.
      expect(read.problems.filter((p) => !p.message.startsWith('Task id '))).toEqual([]);
      expect(read.tasks.map((t) => ({ state: t.state, depth: t.depth }))).toEqual(truth);
      const chosen = [...new Set(picks.map((p) => read.tasks[p % read.tasks.length]!))];
      const out = write(source, chosen, state);
      const changed = chosen.filter((t) => t.state !== state).map((t) => t.markOffset);
      expect(out.length).toBe(source.length);
      const differ: number[] = [];
      for (let i = 0; i < source.length; i++) if (out[i] !== source[i]) differ.push(i);
      expect(differ).toEqual(changed.sort((a, b) => a - b));
      for (const at of changed) expect(out[at]).toBe(state === 'done' ? 'x' : ' ');
      const again = readStory(out, 'story.md');
      expect(again.tasks.map((t) => t.state)).toEqual(
        read.tasks.map((t) => (chosen.includes(t) ? state : t.state)),
      );
    },
  );

describe('story edits (generated)', () => {
  it('change exactly the marks of the tasks whose state changes', () => {
    fc.assert(storyEdit(setStoryTasks), { numRuns: 150 });
  });

  it('catch a writer that drops CRLF, and one that ticks the first box it finds', () => {
    const lf: StoryWriter = (s, t, st) => setStoryTasks(s, t, st).replace(/\r\n/g, '\n');
    const first: StoryWriter = (s, tasks, st) =>
      tasks
        .filter((t) => t.state !== st)
        .reduce(
          (out) =>
            out.replace(st === 'done' ? '[ ]' : /\[[xX]\]/, `[${st === 'done' ? 'x' : ' '}]`),
          s,
        );
    for (const broken of [lf, first]) {
      expect(fc.check(storyEdit(broken), { numRuns: 150 }).failed).toBe(true);
    }
  });
});

// ——— sprint-status.yaml

interface Row {
  key: string;
  kind: BmadEntryKind;
  raw: string;
  quote: '' | "'" | '"';
  comment: string | null;
  above: string | null;
}

const statusOf = (kind: BmadEntryKind) =>
  fc.constantFrom(...BMAD_STATUSES[kind], ...(kind === 'story' ? ['drafted', 'contexted'] : []));
const epicRows = (n: number): fc.Arbitrary<Row[]> =>
  fc
    .tuple(
      statusOf('epic'),
      fc.array(fc.tuple(statusOf('story'), fc.constantFrom('login', 'sign-up', 'x2')), {
        minLength: 1,
        maxLength: 4,
      }),
      statusOf('retrospective'),
      fc.array(fc.constantFrom<Row['quote']>('', "'", '"'), { minLength: 6, maxLength: 6 }),
      fc.array(fc.option(fc.constantFrom('# note', '# ─── done ───', '#x')), {
        minLength: 6,
        maxLength: 6,
      }),
    )
    .map(([epic, stories, retro, quotes, comments]) => {
      const rows: Omit<Row, 'quote' | 'comment' | 'above'>[] = [
        { key: `epic-${n}`, kind: 'epic', raw: epic },
        ...stories.map(([raw, slug], i) => ({
          key: `${n}-${i + 1}-${slug}`,
          kind: 'story' as const,
          raw,
        })),
        { key: `epic-${n}-retrospective`, kind: 'retrospective', raw: retro },
      ];
      return rows.map((r, i) => ({
        ...r,
        quote: quotes[i % 6]!,
        comment: comments[i % 6]!,
        above: i === 0 ? `# Epic ${n}: generated` : null,
      }));
    });

interface SprintCase {
  source: string;
  rows: Row[];
}

const sprint: fc.Arbitrary<SprintCase> = fc
  .record({
    eol: fc.constantFrom('\n', '\r\n'),
    finalNewline: fc.boolean(),
    indent: fc.constantFrom('  ', '    '),
    epics: fc
      .integer({ min: 1, max: 3 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => epicRows(i + 1)))),
    actions: fc.boolean(),
  })
  .map(({ eol, finalNewline, indent, epics, actions }) => {
    const lines = [
      '# STATUS DEFINITIONS:',
      '#   - review: Implementation complete, ready for review',
      '',
      'generated: 05-06-2025 21:30',
      'last_updated: 05-06-2025 21:30',
      'story_location: "{project-root}/_bmad-output/implementation-artifacts"',
      '',
      'development_status:',
    ];
    const rows = epics.flat();
    for (const r of rows) {
      if (r.above) lines.push(`${indent}${r.above}`);
      const value = `${r.quote}${r.raw}${r.quote}`;
      lines.push(`${indent}${r.key}: ${value}${r.comment ? `  ${r.comment}` : ''}`);
    }
    if (actions) lines.push('', 'action_items:', '  - epic: 1', '    status: open');
    let source = lines.join(eol) + eol;
    if (!finalNewline) source = source.slice(0, -eol.length);
    return { source, rows };
  });

type SprintWriter = (source: string, entry: BmadEntry, status: string) => string;

/** The sprint-status property: one scalar changes, every other line and byte is kept. */
const sprintEdit = (write: SprintWriter) =>
  fc.property(sprint, fc.nat(), fc.nat(), ({ source, rows }, pick, statusPick) => {
    const read = readSprintStatus(source, 'sprint-status.yaml');
    expect(read.problems).toEqual([]);
    expect(read.entries.map((e) => [e.key, e.raw])).toEqual(rows.map((r) => [r.key, r.raw]));
    const entry = read.entries[pick % read.entries.length]!;
    const legal = BMAD_STATUSES[entry.kind];
    const status = legal[statusPick % legal.length]!;
    const out = write(source, entry, status);
    // js-yaml, the other reader: the one value changed, nothing else.
    const before = load(source) as { development_status: Record<string, string> };
    const after = load(out) as typeof before;
    expect(after).toEqual({
      ...before,
      development_status: { ...before.development_status, [entry.key]: status },
    });
    expect(Object.keys(after.development_status)).toEqual(Object.keys(before.development_status));
    // Every line but the entry's is kept byte for byte; on it, the key before and the comment after.
    const a = source.split('\n');
    const b = out.split('\n');
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) {
      if (i === entry.line - 1) continue;
      expect(b[i]).toBe(a[i]);
    }
    const row = rows.find((r) => r.key === entry.key)!;
    const line = a[entry.line - 1]!;
    const at = line.indexOf(`${row.key}: `) + row.key.length + 2;
    const written = `${row.quote}${row.raw}${row.quote}`;
    expect(b[entry.line - 1]).toBe(
      `${line.slice(0, at)}${row.quote}${status}${row.quote}${line.slice(at + written.length)}`,
    );
  });

describe('sprint-status edits (generated)', () => {
  it('change one scalar, in its quotes, and keep comments, order, CRLF and the final newline', () => {
    fc.assert(sprintEdit(setSprintStatus), { numRuns: 150 });
  });

  it('catch a writer that re-serializes the YAML, and one that rewrites the first equal value', () => {
    const reserialize: SprintWriter = (s, entry, status) => {
      const doc = parseDocument(s);
      doc.setIn(['development_status', entry.key], status);
      return String(doc);
    };
    const firstEqual: SprintWriter = (s, entry, status) =>
      s.replace(`: ${entry.value!.quote}${entry.raw}`, `: ${entry.value!.quote}${status}`);
    for (const broken of [reserialize, firstEqual]) {
      expect(fc.check(sprintEdit(broken), { numRuns: 150 }).failed).toBe(true);
    }
  });
});

// ——— A whole plan: sprint-status.yaml and the current story's file

/** The offsets at which two texts of one length differ. */
const differences = (a: string, b: string) => {
  expect(b.length).toBe(a.length);
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
};

type Finisher = (plan: ReturnType<typeof openBmad>, phase: BmadPhase) => BmadFileEdit[];

/**
 * The plan property: a start changes the current story's value alone; a completion changes its
 * open boxes' mark bytes and its Status word in the story file, and its value in sprint-status.yaml.
 */
const planEdit = (finish: Finisher) =>
  fc.property(sprint, story, ({ source }, { source: storySource }) => {
    const path = 'sprint-status.yaml';
    const read = readSprintStatus(source, path);
    const storyKeys = read.entries.filter((e) => e.kind === 'story').map((e) => e.key);
    // Every story has a file (the generated one), so the current story is BMAD's status view's
    // pick (the first in-progress, else review, else ready-for-dev, else backlog) unless in review.
    const texts = new Map([
      [path, source],
      ...storyKeys.map((k) => [`${k}.md`, storySource] as const),
    ]);
    const plan = openBmad(path, [...texts.keys()], texts);
    const stories = read.entries.filter((e) => e.kind === 'story');
    const entry = ['in-progress', 'review', 'ready-for-dev', 'backlog']
      .map((status) => stories.find((e) => e.status === status))
      .find((e) => e !== undefined);
    if (!entry || entry.status === 'review') {
      expect(plan.current).toBeUndefined();
      return;
    }
    expect(plan.current?.key).toBe(entry.key);
    const phase = plan.current!;
    const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;
    const start = plan.start(phase);
    if (entry.status === 'in-progress') expect(start).toEqual([]);
    else {
      expect(start.map((e) => e.path)).toEqual([path]);
      expect(
        new Set(
          start[0]!.text
            .split('\n')
            .flatMap((l, i) => (l !== source.split('\n')[i] ? [i + 1] : [])),
        ),
      ).toEqual(new Set([entry.line]));
    }
    const edits = new Map(finish(plan, phase).map((e) => [e.path, e.text]));
    const storyPath = `${entry.key}.md`;
    const storyRead = readStory(storySource, storyPath);
    const open = storyRead.tasks.filter((t) => t.state !== 'done').map((t) => t.markOffset);
    const word = storyRead.status!;
    const wordChanged = word.raw !== 'done';
    const storyOut = edits.get(storyPath) ?? storySource;
    if (wordChanged) {
      // The word changes length: the bytes before it are the open boxes' only, after it the same.
      expect(storyOut.slice(0, word.start)).toBe(storySource.slice(0, word.start));
      expect(storyOut.slice(word.start!, word.start! + 4)).toBe('done');
      const rest = storySource.slice(word.end);
      const restOut = storyOut.slice(word.start! + 4);
      expect(differences(rest, restOut).map((i) => i + word.end!)).toEqual(
        open.filter((o) => o >= word.end!),
      );
    } else expect(differences(storySource, storyOut)).toEqual(open);
    expect(readStory(storyOut, storyPath).tasks.every((t) => t.state === 'done')).toBe(true);
    const sprintOut = edits.get(path)!;
    const lines = source.split('\n');
    sprintOut.split('\n').forEach((l, i) => {
      if (i + 1 !== entry.line) expect(l).toBe(lines[i]);
    });
    expect(lineOf(sprintOut, sprintOut.indexOf(`${entry.key}:`))).toBe(entry.line);
    expect(readSprintStatus(sprintOut, path).entries.find((e) => e.key === entry.key)?.status).toBe(
      'done',
    );
  });

describe('plan edits (generated)', () => {
  it('a start changes one scalar; a completion the story’s open boxes, its Status word and its scalar', () => {
    fc.assert(
      planEdit((plan, phase) => plan.finish(phase)),
      { numRuns: 60 },
    );
  });

  it('catch a completion that forgets the story’s Status, and one that forgets sprint-status.yaml', () => {
    const noStatus: Finisher = (plan, phase) =>
      plan.finish(phase).map((e) =>
        e.path.endsWith('.md')
          ? {
              ...e,
              text: e.text.replace(
                /^Status: done/m,
                `Status: ${phase.status === 'backlog' ? 'ready-for-dev' : phase.status}`,
              ),
            }
          : e,
      );
    const noSprint: Finisher = (plan, phase) =>
      plan.finish(phase).filter((e) => e.path.endsWith('.md'));
    for (const broken of [noStatus, noSprint]) {
      expect(fc.check(planEdit(broken), { numRuns: 60 }).failed).toBe(true);
    }
  });
});
