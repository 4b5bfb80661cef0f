import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { repoRoot } from '../paths.js';
import {
  currentTaskmasterPhase,
  readTaskmaster,
  setTaskmasterStatus,
  StaleTasksJsonError,
  TASKMASTER_STATUSES,
} from '../../src/core/plan/kinds/taskmaster/index.js';
import {
  type JsonNode,
  JsonSyntaxError,
  lineAt,
  lineStarts,
  parseJsonWithOffsets,
} from '../../src/core/plan/kinds/jsonOffsets.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

const fixture = (name: string): string =>
  readFileSync(join(repoRoot, 'test', 'fixtures', 'taskmaster', name), 'utf8');

describe('Task Master tasks.json', () => {
  it('reads the tagged format: tags, phases per top-level task, subtasks as tasks', () => {
    const plan = readTaskmaster(fixture('tagged.json'), '.taskmaster/tasks/tasks.json');
    expect(plan.problems).toEqual([]);
    expect(plan.tags.map((t) => t.name)).toEqual(['master', 'feature-x']);
    const master = plan.tags[0]!;
    expect(master.phases.map((p) => [p.id, p.tasks.map((t) => t.id)])).toEqual([
      ['1', ['1']],
      ['2', ['2.1', '2.2']],
      ['3', ['3']],
    ]);
    expect(master.phases[1]!.tasks[0]).toMatchObject({
      title: 'Configure OAuth',
      status: 'pending',
      state: 'todo',
      details: 'Add the client id to the config.',
      line: 31,
    });
    expect(currentTaskmasterPhase(master)?.id).toBe('2');
    // A deferred task is set aside: nothing is current in that tag.
    expect(currentTaskmasterPhase(plan.tags[1]!)).toBeUndefined();
  });

  it('a tag whose value is the list itself reads no task, as in Task Master: the error names the tag and its shape', () => {
    const source =
      '{\n  "master": [\n    { "id": "1", "title": "Set up", "status": "pending" }\n  ]\n}\n';
    const plan = readTaskmaster(source, '.taskmaster/tasks/tasks.json');
    expect(plan.tags).toEqual([]);
    expect(plan.problems).toEqual([
      {
        severity: 'error',
        path: '.taskmaster/tasks/tasks.json',
        line: 2,
        message:
          'no task list found: the tag "master" is a list of tasks, where Task Master keeps { "tasks": [...] } under a tag, so it reads none there.',
        fix: 'Write "master": { "tasks": [ … ] }.',
      },
    ]);
    // Nothing that looks like a task list at all: the plain error on line 1.
    expect(readTaskmaster('{ "name": "x" }', 'tasks.json').problems).toEqual([
      expect.objectContaining({ line: 1, message: 'no task list found.' }),
    ]);
  });

  it('reads the legacy format as the tag "master" and keeps CRLF and the missing final newline', () => {
    const source = fixture('legacy-crlf-no-final-newline.json');
    const plan = readTaskmaster(source, 'tasks/tasks.json');
    expect(plan.problems).toEqual([]);
    expect(plan.tags).toHaveLength(1);
    expect(plan.tags[0]).toMatchObject({ name: 'master', legacy: true });
    const task = plan.tags[0]!.phases[0]!.tasks[0]!;
    const written = setTaskmasterStatus(source, task, 'in-progress');
    expect(written).toBe(source.replace('"pending"', '"in-progress"'));
    expect(written.endsWith('}')).toBe(true);
  });

  it('a dependency that is not done keeps a phase from being current', () => {
    const source = fixture('tagged.json');
    const master = readTaskmaster(source, 'tasks.json').tags[0]!;
    let edited = source;
    // Each write moves the offsets after it: read again before the next one.
    for (const id of master.phases[1]!.tasks.map((t) => t.id)) {
      const fresh = readTaskmaster(edited, 'tasks.json').tags[0]!.phases[1]!.tasks;
      edited = setTaskmasterStatus(
        edited,
        fresh.find((t) => t.id === id)!,
        'done',
      );
    }
    // Task Master counts a dependency done by the task's own status, not by its subtasks'.
    const after = readTaskmaster(edited, 'tasks.json').tags[0]!;
    expect(currentTaskmasterPhase(after)?.id).toBe('2');
    const parentDone = edited.replace(
      '"dependencies": [1],\n        "status": "pending"',
      '"dependencies": [1],\n        "status": "done"',
    );
    expect(parentDone).not.toBe(edited);
    expect(currentTaskmasterPhase(readTaskmaster(parentDone, 'tasks.json').tags[0]!)?.id).toBe('3');
  });

  it('names bad JSON and unknown statuses with file:line and a fix', () => {
    const bad = readTaskmaster('{\n  "master": {\n    "tasks": [,]\n  }\n}\n', 'tasks.json');
    expect(bad.problems).toEqual([
      expect.objectContaining({ severity: 'error', path: 'tasks.json', line: 3 }),
    ]);
    expect(bad.problems[0]!.fix).toBeDefined();
    const unknown = readTaskmaster(
      '{"tasks": [\n{"id": 1, "title": "a",\n "status": "wip"}]}',
      'tasks.json',
    );
    expect(unknown.problems).toEqual([
      expect.objectContaining({ line: 3, message: expect.stringContaining('"wip"') }),
    ]);
  });

  it('names a subtask with an unknown status, a task with no id or a status not a string, with line and fix', () => {
    const source = [
      '{"master": {"tasks": [',
      '  {"id": 1, "title": "a", "status": "pending", "subtasks": [',
      '    {"id": 1, "title": "s", "status": "todo"},',
      '    {"title": "no id", "status": "pending"},',
      '    {"id": 3, "title": "no status"},',
      '    {"id": 4, "title": "number", "status": 2}',
      '  ]},',
      '  {"title": "no id", "status": "pending"},',
      '  {"id": 3, "title": "no status"}',
      ']}}',
    ].join('\n');
    const read = readTaskmaster(source, '.taskmaster/tasks/tasks.json');
    expect(read.problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      ['error', 3, 'task 1.1 has status "todo", which Task Master does not use.'],
      ['error', 4, 'a subtask of task 1 has no id.'],
      // No status at all is Task Master's `pending` (find-next-task.js: `st.status || 'pending'`).
      ['error', 6, 'task 1.4 has no "status" string.'],
      ['error', 8, 'a task in tag "master" has no id.'],
    ]);
    for (const p of read.problems) {
      expect(p.path).toBe('.taskmaster/tasks/tasks.json');
      expect(p.fix).toBeTruthy();
    }
  });

  it('a task done by its own status with subtasks still open is read as done, with a warning that names them', () => {
    const source = [
      '{"master": {"tasks": [',
      '  {"id": 1, "title": "a", "status": "done", "subtasks": [',
      '    {"id": 1, "title": "s", "status": "done"},',
      '    {"id": 2, "title": "t", "status": "pending"},',
      '    {"id": 3, "title": "u", "status": "in-progress"},',
      '    {"id": 4, "title": "v", "status": "deferred"},',
      '    {"id": 5, "title": "no status"}',
      '  ]},',
      '  {"id": 2, "title": "b", "status": "pending", "dependencies": [1]}',
      ']}}',
    ].join('\n');
    const read = readTaskmaster(source, '.taskmaster/tasks/tasks.json');
    expect(read.problems).toEqual([
      {
        severity: 'warning',
        path: '.taskmaster/tasks/tasks.json',
        line: 2,
        message:
          'task 1 is done, but its subtasks 1.2, 1.3 are not: the task is read as done, and the loop will not run them.',
        fix: 'Set them done ("task-master set-status --id=1 --status=done" sets a task and its subtasks), or set task 1 back to "in-progress".',
      },
    ]);
    // Done as Task Master counts it: task 2, which depends on it, is next.
    expect(currentTaskmasterPhase(read.tags[0]!)?.id).toBe('2');
  });

  it('refuses to write over a status that changed since it was read', () => {
    const source = fixture('tagged.json');
    const task = readTaskmaster(source, 'tasks.json').tags[0]!.phases[2]!.tasks[0]!;
    const changed = setTaskmasterStatus(source, task, 'done');
    expect(() => setTaskmasterStatus(changed, task, 'in-progress')).toThrow(StaleTasksJsonError);
  });

  it('property: marking any task of any valid tasks.json changes exactly its status value', () => {
    const status = fc.constantFrom(...TASKMASTER_STATUSES);
    const id = fc.oneof(
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 50 }).map(String),
    );
    const sub = fc.record({ id, title: fc.string(), status, details: fc.string() });
    const task = fc.record({
      id,
      title: fc.string(),
      description: fc.string(),
      status,
      dependencies: fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 3 }),
      subtasks: fc.uniqueArray(sub, { selector: (s) => String(s.id), maxLength: 4 }),
    });
    const tasks = fc.uniqueArray(task, {
      selector: (t) => String(t.id),
      minLength: 1,
      maxLength: 6,
    });
    const doc = fc.oneof(
      tasks.map((ts) => ({ tasks: ts }) as unknown),
      fc
        .tuple(tasks, fc.string({ minLength: 1 }))
        .map(([ts, tag]) => ({ [tag]: { tasks: ts, metadata: { description: tag } } }) as unknown),
    );
    const layout = fc.constantFrom<[number | string, string]>(
      [2, '\n'],
      [4, '\r\n'],
      ['\t', '\n'],
      [0, ''],
    );
    fc.assert(
      fc.property(
        doc,
        layout,
        fc.boolean(),
        fc.nat(),
        fc.constantFrom('in-progress', 'done'),
        (d, [indent, eol], finalNewline, pick, to) => {
          let source = JSON.stringify(d, null, indent).replace(/\n/g, eol);
          if (finalNewline) source += eol || '\n';
          const plan = readTaskmaster(source, 'tasks.json');
          const all = plan.tags.flatMap((t) => t.phases.flatMap((p) => p.tasks));
          if (all.length === 0) return;
          const chosen = all[pick % all.length]!;
          const written = setTaskmasterStatus(source, chosen, to as 'in-progress' | 'done');
          // Outside the one value, every byte is the same.
          const tail = source.length - chosen.statusEnd;
          expect(written.slice(0, chosen.statusStart)).toBe(source.slice(0, chosen.statusStart));
          expect(written.slice(written.length - tail)).toBe(source.slice(chosen.statusEnd));
          expect(written.slice(chosen.statusStart, written.length - tail)).toBe(JSON.stringify(to));
          // And the JSON reads as before with only that status changed.
          const reread = readTaskmaster(written, 'tasks.json');
          const after = reread.tags.flatMap((t) => t.phases.flatMap((p) => p.tasks));
          expect(
            after.map((t) => (t.id === chosen.id && t.line === chosen.line ? t.status : null)),
          ).toEqual(all.map((t) => (t === chosen ? to : null)));
          expect(after.map((t) => t.status)).toEqual(
            all.map((t) => (t === chosen ? to : t.status)),
          );
        },
      ),
    );
  });
});

describe('JSON with offsets', () => {
  const valueOf = (node: JsonNode): unknown => {
    switch (node.kind) {
      case 'object':
        return Object.fromEntries(node.entries.map((e) => [e.key, valueOf(e.value)]));
      case 'array':
        return node.items.map(valueOf);
      default:
        return node.value;
    }
  };
  const nodes = (node: JsonNode): JsonNode[] => [
    node,
    ...(node.kind === 'object'
      ? node.entries.flatMap((e) => nodes(e.value))
      : node.kind === 'array'
        ? node.items.flatMap(nodes)
        : []),
  ];

  it('reads what JSON.parse reads, and every value sits where its offsets say', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(0, 2, '\t'), (value, space) => {
        const source = JSON.stringify(value, null, space);
        const root = parseJsonWithOffsets(source);
        expect(valueOf(root)).toEqual(JSON.parse(source));
        for (const node of nodes(root)) {
          expect(JSON.parse(source.slice(node.start, node.end))).toEqual(valueOf(node));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads escapes and refuses raw control characters in strings', () => {
    const root = parseJsonWithOffsets('{"a": "x\\"y\\u00e9", "b": "plain"}');
    expect(valueOf(root)).toEqual({ a: 'x"yé', b: 'plain' });
    expect(() => parseJsonWithOffsets('{"a": "x\ny"}')).toThrow(JsonSyntaxError);
  });

  it('finds the line of an offset from the index its caller builds', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r') }), (source) => {
        const starts = lineStarts(source);
        for (let i = 0; i <= source.length; i++) {
          expect(lineAt(starts, i)).toBe(source.slice(0, i).split('\n').length);
        }
      }),
    );
  });
});

/**
 * Writes JSON as people and tools lay it out: any whitespace between tokens (spaces, tabs, LF,
 * CRLF), keys in any order, strings sometimes escaped (`\u0064one`). `pick` supplies the choices.
 */
function layOut(value: unknown, pick: () => number): string {
  const gaps = ['', ' ', '  ', '\n', '\r\n', '\t', '\n  ', '\r\n\t\t', ' \n    '];
  const gap = (): string => gaps[pick() % gaps.length]!;
  const str = (text: string): string =>
    pick() % 4 === 0 && text.length > 0
      ? `"\\u${text.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(text.slice(1)).slice(1)}`
      : JSON.stringify(text);
  const write = (v: unknown): string => {
    if (Array.isArray(v))
      return `[${gap()}${v.map((x) => write(x)).join(`${gap()},${gap()}`)}${gap()}]`;
    if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i > 0; i--) {
        const j = pick() % (i + 1);
        [keys[i], keys[j]] = [keys[j]!, keys[i]!];
      }
      const entries = keys.map(
        (k) => `${gap()}${str(k)}${gap()}:${gap()}${write((v as Record<string, unknown>)[k])}`,
      );
      return `{${entries.join(`${gap()},`)}${gap()}}`;
    }
    return typeof v === 'string' ? str(v) : JSON.stringify(v);
  };
  return `${gap()}${write(value)}${gap()}`;
}

describe('tasks.json: a status change in any layout', () => {
  it('property: only that one string value changes, and JSON.parse reads the input with it changed', () => {
    const status = fc.constantFrom(...TASKMASTER_STATUSES);
    const sub = fc.record({ id: fc.integer({ min: 1, max: 9 }), title: fc.string(), status });
    const task = fc.record({
      id: fc.integer({ min: 1, max: 30 }),
      title: fc.string(),
      status,
      priority: fc.constantFrom('high', 'medium', 'low'),
      dependencies: fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 2 }),
      subtasks: fc.uniqueArray(sub, { selector: (t) => t.id, maxLength: 3 }),
    });
    const tasks = fc.uniqueArray(task, { selector: (t) => t.id, minLength: 1, maxLength: 5 });
    const doc = fc.oneof(
      tasks.map((ts) => ({ tasks: ts }) as Record<string, unknown>),
      fc
        .tuple(tasks, fc.constantFrom('master', 'feature-x', 'ünï'))
        .map(([ts, tag]) => ({ [tag]: { tasks: ts, metadata: { created: 'x' } } })),
    );
    fc.assert(
      fc.property(
        doc,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.constantFrom<'in-progress' | 'done'>('in-progress', 'done'),
        (d, choices, which, to) => {
          let n = 0;
          const source = layOut(d, () => choices[n++ % choices.length]! + n);
          expect(JSON.parse(source)).toEqual(d);
          const plan = readTaskmaster(source, 'tasks.json');
          const tags = plan.tags;
          const all = tags.flatMap((t) => t.phases.flatMap((p) => p.tasks.map((k) => ({ t, k }))));
          if (all.length === 0) return;
          const { t: tag, k: chosen } = all[which % all.length]!;
          const written = setTaskmasterStatus(source, chosen, to);
          // The bytes outside the one value are the input's.
          const tail = source.length - chosen.statusEnd;
          expect(written.slice(0, chosen.statusStart)).toBe(source.slice(0, chosen.statusStart));
          expect(written.slice(written.length - tail)).toBe(source.slice(chosen.statusEnd));
          // JSON.parse of the output is the input's value with that status changed.
          const want = structuredClone(d) as Record<string, { tasks: typeof d.tasks }>;
          const list = (tag.legacy ? want : want[tag.name]!).tasks as {
            id: number;
            status: string;
            subtasks: { id: number; status: string }[];
          }[];
          const [top, subId] = chosen.id.split('.');
          const parent = list.find((x) => String(x.id) === top)!;
          if (subId === undefined) parent.status = to;
          else parent.subtasks.find((x) => String(x.id) === subId)!.status = to;
          expect(JSON.parse(written)).toEqual(want);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
