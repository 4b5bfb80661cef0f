import fc from 'fast-check';
import { lineOutput, type Stream } from '../../src/cli/output.js';
import { fixSeed } from '../helpers/seed.js';

fixSeed(import.meta.url);

const stream = fc.constantFrom<Stream>('stdout', 'stderr');

describe('lineOutput: the CLI lines, a run to one stream in one write', () => {
  it('every line, in its order, each stream its own; one write per run of lines to a stream', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(stream, fc.string())), async (lines) => {
        const writes: [Stream, string][] = [];
        const out = lineOutput((to, text) => writes.push([to, text]));
        for (const [to, text] of lines) out[to](text);
        expect(writes).toEqual([]); // nothing yet: the turn has not ended
        await Promise.resolve();
        // Written in order: joined, the writes are the lines, each with its newline.
        expect(writes.map(([, text]) => text).join('')).toBe(
          lines.map(([, text]) => `${text}\n`).join(''),
        );
        for (const to of ['stdout', 'stderr'] as const) {
          expect(
            writes
              .filter(([s]) => s === to)
              .map(([, t]) => t)
              .join(''),
          ).toBe(
            lines
              .filter(([s]) => s === to)
              .map(([, t]) => `${t}\n`)
              .join(''),
          );
        }
        const runs = lines.filter((l, i) => i === 0 || lines[i - 1]![0] !== l[0]).length;
        expect(writes).toHaveLength(runs);
      }),
    );
  });

  it('nothing is held across a wait: lines of a turn are written before the next begins', async () => {
    const writes: string[] = [];
    const out = lineOutput((to, text) => writes.push(`${to}:${text}`));
    out.stderr('problem');
    out.stdout('one');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['stderr:problem\n', 'stdout:one\n']);
    out.stdout('two');
    out.stdout('three');
    out.flush(); // at exit: at once
    expect(writes).toEqual(['stderr:problem\n', 'stdout:one\n', 'stdout:two\nthree\n']);
    await Promise.resolve();
    expect(writes).toHaveLength(3); // the flush left nothing for the turn's end to write again
  });
});
