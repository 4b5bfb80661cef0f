import fc from 'fast-check';
import { firstInvalidUtf8 } from '../../src/cli/files.js';

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
