import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import {
  appendLogEntry,
  findTask,
  markPhase,
  parseChecklist,
  setTaskStates,
  writeCheckpoint,
  type LogEntry,
  type TaskState,
} from '../../src/core/index.js';

type Case =
  | { op: 'markPhase'; phase: number; state: TaskState; from?: TaskState[] }
  | { op: 'markTask'; id: string; state: TaskState }
  | { op: 'appendLog'; entry: LogEntry }
  | { op: 'checkpoint'; lines: string[] };

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
  }
}

/** Indexes of the bytes that differ between two equally long buffers. */
function changedBytes(a: Buffer, b: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

describe('golden edits: input.md → expected.md, byte for byte', () => {
  const cases = readdirSync(root).sort();

  it('has fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)('%s', (name) => {
    const dir = join(root, name);
    const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as Case;
    const input = readFileSync(join(dir, 'input.md'));
    const expected = readFileSync(join(dir, 'expected.md'));
    const output = Buffer.from(apply(spec, input.toString('utf8')), 'utf8');
    expect(output.toString('utf8')).toBe(expected.toString('utf8'));
    expect(output.equals(expected)).toBe(true);

    if (spec.op === 'markPhase' || spec.op === 'markTask') {
      // A mark changes one byte per task, and each changed byte sits between brackets.
      expect(output.length).toBe(input.length);
      for (const i of changedBytes(input, output)) {
        expect(String.fromCharCode(input[i - 1]!, input[i + 1]!)).toBe('[]');
      }
    }
    if (spec.op === 'appendLog') {
      // Appending adds bytes at the end only (after a line break when the file had none).
      const kept = input.toString('utf8');
      expect(output.toString('utf8').startsWith(kept)).toBe(true);
    }
  });
});
