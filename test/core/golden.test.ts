import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import {
  appendLogEntry,
  DEFAULT_CONFIG,
  findTask,
  coderPlan,
  kindPlan,
  markComplete,
  type CompletionFacts,
  markPhase,
  parseChecklist,
  setTaskStates,
  writeCheckpoint,
  type LogEntry,
  type TaskState,
} from '../../src/core/index.js';
import { setDialectStates, type NamedPlan } from '../../src/core/plan/kinds/index.js';
import { KIRO_MARKS, readKiro } from '../../src/core/plan/kinds/kiro/index.js';
import { readSpeckit, SPECKIT_MARKS } from '../../src/core/plan/kinds/speckit/index.js';
import {
  readTaskmaster,
  setTaskmasterStatus,
  type TaskmasterTask,
} from '../../src/core/plan/kinds/taskmaster/index.js';
import { openKindPlan } from '../../src/core/plan/kinds/plan.js';

type Case =
  | { op: 'markPhase'; phase: number; state: TaskState; from?: TaskState[] }
  | { op: 'markTask'; id: string; state: TaskState }
  | { op: 'appendLog'; entry: LogEntry }
  | { op: 'checkpoint'; lines: string[] }
  // Another tool's plan: the phase's open tasks started (`doing`), or all of them `done`.
  | { op: 'speckit' | 'kiro' | 'taskmaster'; phase: string; state: 'doing' | 'done' }
  // The phase report the completion writes, from the plan (input) and the PR's files and commits.
  | {
      op: 'report';
      kind: 'coder' | 'speckit' | 'kiro';
      phase: string;
      facts: Pick<CompletionFacts, 'files' | 'commits'>;
    };

/** The facts of an approved PR beside the files and commits a report case gives. */
function completionFacts(given: Pick<CompletionFacts, 'files' | 'commits'>): CompletionFacts {
  const url = 'https://github.com/o/r';
  return {
    pullRequest: { number: 2, url: `${url}/pull/2` },
    issueUrl: `${url}/issues/1`,
    approver: 'reviewer1',
    reviewers: [{ login: 'reviewer1', state: 'APPROVED' }],
    attempts: [],
    now: '2026-11-22T12:00:00.000Z',
    spec: { testPaths: DEFAULT_CONFIG.testPaths, plansDir: DEFAULT_CONFIG.plansDir },
    ...given,
  };
}

/** The report a completion writes for a report case: its path and its bytes. */
function report(spec: Extract<Case, { op: 'report' }>, input: string): string {
  const facts = completionFacts(spec.facts);
  if (spec.kind === 'coder') {
    const marker = { mode: 'plan' as const, plan: 'Example', phase: Number(spec.phase), issue: 1 };
    const files = new Map([
      ['01_Master Plan/01_Checklist.md', input],
      ['00_context.md', ''],
    ]);
    const plan = coderPlan(DEFAULT_CONFIG, {
      name: 'Example',
      dir: 'docs/plans/Example',
      paths: [...files.keys()],
      files,
    });
    const done = markComplete(plan, marker, facts);
    if (!done.ok) throw new Error(JSON.stringify(done.problems));
    return done.changes.find((c) => c.path.includes('/Reports/'))!.content;
  }
  const folder = spec.kind === 'kiro' ? '.kiro/specs/user-auth' : 'specs/001-photo-albums';
  const plan: NamedPlan = {
    kind: spec.kind,
    path: `${folder}/tasks.md`,
    folder,
    sidecar: `${folder}/coder-loop`,
    name: folder.slice(folder.lastIndexOf('/') + 1),
  };
  const texts = new Map([[plan.path, input]]);
  const kp = openKindPlan(plan, [plan.path], texts);
  const marker = {
    mode: 'plan' as const,
    plan: plan.name,
    phase: 0,
    phaseId: spec.phase,
    planFile: plan.path,
    issue: 1,
  };
  const done = markComplete(kindPlan(kp, plan.name, [plan.path], texts), marker, facts);
  if (!done.ok) throw new Error(JSON.stringify(done.problems));
  return done.changes.find((c) => c.path.includes('/Reports/'))!.content;
}

/** The tasks of a Task Master phase (tag master), read afresh from `source`. */
function taskmasterTasks(source: string, phase: string): TaskmasterTask[] {
  const read = readTaskmaster(source, 'tasks.json');
  expect(read.problems).toEqual([]);
  return read.tags.find((t) => t.name === 'master')!.phases.find((p) => p.id === phase)!.tasks;
}

const root = join(repoRoot, 'test', 'fixtures', 'edits');

function apply(spec: Case, input: string): string {
  switch (spec.op) {
    case 'markPhase': {
      const checklist = parseChecklist(input, 'input.md');
      const phase = checklist.phases.find((p) => p.number === spec.phase);
      if (!phase) throw new Error(`no phase ${spec.phase}`);
      return markPhase(input, phase, spec.state, spec.from).source;
    }
    case 'markTask': {
      const task = findTask(parseChecklist(input, 'input.md'), spec.id);
      if (!task) throw new Error(`no task ${spec.id}`);
      return setTaskStates(input, [task], spec.state).source;
    }
    case 'appendLog':
      return appendLogEntry(input, spec.entry);
    case 'checkpoint':
      return writeCheckpoint(input, 'input.md', spec.lines);
    case 'speckit':
    case 'kiro': {
      const plan =
        spec.op === 'kiro' ? readKiro(input, 'tasks.md') : readSpeckit(input, 'tasks.md');
      expect(plan.problems).toEqual([]);
      const phase = plan.phases.find((p) => p.number === spec.phase)!;
      const tasks =
        spec.state === 'doing' ? phase.tasks.filter((t) => t.state === 'todo') : phase.tasks;
      const marks = spec.op === 'kiro' ? KIRO_MARKS : SPECKIT_MARKS;
      return setDialectStates(input, marks, tasks, spec.state);
    }
    case 'taskmaster': {
      // One status value at a time, each read afresh: a longer value moves what follows it.
      const status = spec.state === 'doing' ? 'in-progress' : 'done';
      const from = spec.state === 'doing' ? ['todo'] : ['todo', 'doing'];
      let source = input;
      const ids = taskmasterTasks(input, spec.phase)
        .filter((t) => from.includes(t.state))
        .map((t) => t.id);
      for (const id of ids) {
        const task = taskmasterTasks(source, spec.phase).find((t) => t.id === id)!;
        source = setTaskmasterStatus(source, task, status);
      }
      return source;
    }
    case 'report':
      return report(spec, input);
  }
}

/** Indexes of the bytes that differ between two equally long buffers. */
function changedBytes(a: Buffer, b: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

describe('golden edits: input → expected, byte for byte', () => {
  const cases = readdirSync(root).sort();

  it('has fixtures, for the coder kind and for spec-kit, Kiro and Task Master', () => {
    expect(cases.length).toBeGreaterThanOrEqual(33);
    // Spec-kit has no in-progress mark (a start writes nothing: below), so its second case per
    // layout is the last phase done, whose boxes sit on the file's last lines.
    const ops = {
      speckit: ['last-done', 'done'],
      kiro: ['start', 'done'],
      taskmaster: ['start', 'done'],
    };
    for (const [kind, names] of Object.entries(ops)) {
      for (const variant of ['crlf', 'no-final-newline', 'tabs']) {
        for (const op of names) expect(cases).toContain(`${kind}-${variant}-${op}`);
      }
    }
    // The phase report a completion writes, with its traceability section.
    for (const kind of ['coder', 'speckit-crlf', 'kiro'])
      expect(cases).toContain(`report-${kind}-trace`);
  });

  it('spec-kit has no in-progress mark: a start returns the file as it was', () => {
    for (const variant of ['crlf', 'no-final-newline', 'tabs']) {
      const input = readFileSync(join(root, `speckit-${variant}-done`, 'input.md'), 'utf8');
      expect(apply({ op: 'speckit', phase: '2', state: 'doing' }, input)).toBe(input);
    }
  });

  it.each(cases)('%s', (name) => {
    const dir = join(root, name);
    const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as Case;
    const ext = spec.op === 'taskmaster' ? 'json' : 'md';
    const input = readFileSync(join(dir, `input.${ext}`));
    const expected = readFileSync(join(dir, `expected.${ext}`));
    const output = Buffer.from(apply(spec, input.toString('utf8')), 'utf8');
    // A case where nothing changes cannot fail for its line endings, tabs or final newline.
    expect(expected.equals(input)).toBe(false);
    expect(output.toString('utf8')).toBe(expected.toString('utf8'));
    expect(output.equals(expected)).toBe(true);

    if (
      spec.op === 'markPhase' ||
      spec.op === 'markTask' ||
      spec.op === 'speckit' ||
      spec.op === 'kiro'
    ) {
      // A mark changes one byte per task, and each changed byte sits between brackets.
      expect(output.length).toBe(input.length);
      for (const i of changedBytes(input, output)) {
        expect(String.fromCharCode(input[i - 1]!, input[i + 1]!)).toBe('[]');
      }
    }
    if (spec.op === 'taskmaster') {
      // Only status values change: the text outside them is the same, and so is the JSON.
      const before = input.toString('utf8');
      const after = output.toString('utf8');
      const outside = (source: string): string[] => {
        const tasks = readTaskmaster(source, 'tasks.json').tags.flatMap((t) =>
          t.phases.flatMap((p) => p.tasks),
        );
        const cuts = tasks.map((t) => [t.statusStart, t.statusEnd]).sort((a, b) => a[0]! - b[0]!);
        const parts: string[] = [];
        let from = 0;
        for (const [start, end] of cuts) {
          parts.push(source.slice(from, start));
          from = end!;
        }
        parts.push(source.slice(from));
        return parts;
      };
      expect(outside(after)).toEqual(outside(before));
      const statuses = (source: string): unknown =>
        JSON.parse(source, (key, value: unknown) => (key === 'status' ? undefined : value));
      expect(statuses(after)).toEqual(statuses(before));
    }
    if (spec.op === 'appendLog') {
      // Appending adds bytes at the end only (after a line break when the file had none).
      const kept = input.toString('utf8');
      expect(output.toString('utf8').startsWith(kept)).toBe(true);
    }
  });
});
