import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonWithOffsets } from '../../src/core/plan/kinds/jsonOffsets.js';
import { readTaskmaster } from '../../src/core/plan/kinds/taskmaster/index.js';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';

// A Task Master file is read once while its text is the same: discovery, `status`, lint and a
// write share one reading and one JSON tree. That holds only if none of them changes what it was
// given: here both are frozen, deep, before the commands run on the same text, and each command
// must print what it printed with nothing frozen (in strict mode a write to a frozen object throws).

function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  }
  return Object.freeze(value);
}

const PATH = '.taskmaster/tasks/tasks.json';
let dir: string;
let source: string;

beforeAll(async () => {
  source = await readFile(join(repoRoot, 'test', 'fixtures', 'taskmaster', 'tagged.json'), 'utf8');
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'coder-loop-tm-once-'));
  await mkdir(join(dir, '.taskmaster', 'tasks'), { recursive: true });
  await writeFile(join(dir, PATH), source);
});

afterEach(() => rm(dir, { recursive: true, force: true }));

const COMMANDS: string[][] = [
  ['status'],
  ['status', 'master', '--json'],
  ['status', 'feature-x'],
  ['lint'],
  ['plans'],
  ['spec', 'master'],
];

describe('a Task Master reading, shared while the text is the same, is never changed', () => {
  it('every reading command prints the same with the reading and the JSON tree frozen', async () => {
    const free = [];
    for (const args of COMMANDS) free.push(await inProcess(dir, ...args));
    // The same text the commands read from disk: the reading they get is this frozen one.
    const reading = deepFreeze(readTaskmaster(source, PATH));
    const tree = deepFreeze(parseJsonWithOffsets(source));
    expect(Object.isFrozen(reading.tags[0]!.phases[0]!.tasks[0])).toBe(true);
    for (const [i, args] of COMMANDS.entries()) {
      expect(await inProcess(dir, ...args)).toEqual(free[i]);
    }
    expect(readTaskmaster(source, PATH)).toBe(reading);
    expect(parseJsonWithOffsets(source)).toBe(tree);
  });

  it('a mark reads the frozen reading and writes one value; the next reading is of the new text', async () => {
    const reading = deepFreeze(readTaskmaster(source, PATH));
    deepFreeze(parseJsonWithOffsets(source));
    const task = reading.tags[0]!.phases[1]!.tasks[0]!;
    const marked = await inProcess(dir, 'mark', 'master', task.id, 'done');
    expect(marked.stderr).toBe('');
    expect(marked.code).toBe(0);
    const after = await readFile(join(dir, PATH), 'utf8');
    expect(after).not.toBe(source);
    const again = readTaskmaster(after, PATH);
    expect(again).not.toBe(reading);
    expect(again.tags[0]!.phases[1]!.tasks[0]!.state).toBe('done');
  });
});
