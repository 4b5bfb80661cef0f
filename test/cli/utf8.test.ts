import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { firstInvalidUtf8 } from '../../src/cli/files.js';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

/** The round trip Node's decoder gives: a file is UTF-8 when decoding and encoding keeps it. */
const roundTrips = (bytes: Uint8Array) =>
  Buffer.from(Buffer.from(bytes).toString('utf8'), 'utf8').equals(Buffer.from(bytes));

describe('firstInvalidUtf8', () => {
  it('agrees with the decoder, and everything before the offset is UTF-8', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      // Mostly well-formed text, with a byte changed: the interesting cases are near valid ones.
      fc
        .tuple(
          fc.string({ unit: 'grapheme', maxLength: 20 }),
          fc.nat(),
          fc.integer({ min: 0, max: 255 }),
        )
        .map(([text, at, byte]) => {
          const b = Buffer.from(text, 'utf8');
          if (b.length > 0) b[at % b.length] = byte;
          return new Uint8Array(b);
        }),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const bad = firstInvalidUtf8(b);
        expect(bad === undefined).toBe(roundTrips(b));
        // readText asks Node's native validator first and this function only when it refuses:
        // the two must agree on every input, or a file would be refused with no line to name.
        expect(bad === undefined).toBe(isUtf8(b));
        if (bad !== undefined) expect(roundTrips(b.subarray(0, bad))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the first bad byte: a lone continuation, an overlong form, a surrogate, a cut sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('abc'))).toBeUndefined();
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0xc0, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe2, 0x82]))).toBe(2);
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
  });
});

describe('a Task Master tasks.json that is not UTF-8', () => {
  let work: string;
  const tasksJson = '.taskmaster/tasks/tasks.json';

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'coder-loop-utf8-'));
    await mkdir(join(work, '.taskmaster/tasks'), { recursive: true });
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const text = () => readFile(join(repoRoot, 'test/fixtures/taskmaster/tagged.json'), 'utf8');

  it.each([
    [
      'UTF-16 with a byte-order mark',
      async () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(await text(), 'utf16le')]),
      'not valid UTF-8: it is UTF-16, little-endian, with a byte-order mark.',
      1,
    ],
    [
      'Latin-1 bytes',
      async () =>
        Buffer.from((await text()).replace('"title": "', '"title": "Caf\u00e9 '), 'latin1'),
      'not valid UTF-8: byte 0xE9 stands alone, as in Latin-1 or Windows-1252.',
      6,
    ],
  ])(
    '%s: a plan asked for by its tag is told the file cannot be read, and why',
    async (_, bytes, why, line) => {
      await writeFile(join(work, tasksJson), await bytes());
      const run = await inProcess(work, 'status', 'master');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`No plan is named "master".`);
      expect(run.stderr).toContain(
        `${tasksJson} could not be read, so its plans are unknown: ${why} Save the file as UTF-8.`,
      );
      const lint = await inProcess(work, 'lint', tasksJson);
      expect(lint.stderr).toContain(`${tasksJson}:${line}: error: ${why}`);
    },
  );
});

describe('a BMAD story file that is not UTF-8', () => {
  let work: string;
  const dir = '_bmad-output/implementation-artifacts';
  const story = (n: string, status: string, title: string) =>
    `# Story 1.${n}: ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [${status === 'done' ? 'x' : ' '}] Task 1: do it\n`;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'coder-loop-utf8-'));
    await mkdir(join(work, dir), { recursive: true });
    await writeFile(
      join(work, dir, 'sprint-status.yaml'),
      'development_status:\n  epic-1: in-progress\n  1-1-a: done\n  1-2-b: ready-for-dev\n',
    );
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("a done story's file: a warning, and the plan goes on to the next story", async () => {
    await writeFile(
      join(work, dir, '1-1-a.md'),
      Buffer.from(story('1', 'done', 'Caf\u00e9'), 'latin1'),
    );
    await writeFile(join(work, dir, '1-2-b.md'), story('2', 'ready-for-dev', 'Next'));
    const run = await inProcess(work, 'status', 'bmad');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `${dir}/1-1-a.md:1: warning: not valid UTF-8: byte 0xE9 stands alone, as in Latin-1 or Windows-1252. It is the file of Phase 1.1, which is finished: the plan runs without its tasks.`,
    );
    expect(run.stdout.split('\n')[0]).toMatch(/: current phase 1\.2$/);
  });

  it("the current story's file: an error, nothing runs", async () => {
    await writeFile(join(work, dir, '1-1-a.md'), story('1', 'done', 'Done'));
    await writeFile(
      join(work, dir, '1-2-b.md'),
      Buffer.from(story('2', 'ready-for-dev', 'Caf\u00e9'), 'latin1'),
    );
    const run = await inProcess(work, 'status', 'bmad');
    expect(run.stderr).toContain(`${dir}/1-2-b.md:1: error: not valid UTF-8`);
    expect(run.stdout.split('\n')[0]).toMatch(/invalid/);
  });
});
