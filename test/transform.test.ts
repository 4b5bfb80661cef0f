import { describe, expect, it } from '@jest/globals';

/**
 * Jest's transform (test/helpers/transform.js) strips TypeScript with esbuild; its source map must
 * put a failure on the line of the .ts file as written, above the types it removed.
 */
interface Shape {
  line: number;
  // Lines that hold only types are gone from the transformed code.
  of: string;
}
type Lines = readonly Shape[];

function lineOfStack(stack: string | undefined): number {
  const match = /transform\.test\.ts:(\d+):\d+/.exec(stack ?? '');
  return Number(match?.[1]);
}

describe('the TypeScript transform', () => {
  it('reports a stack line as it is in the source file', () => {
    const lines: Lines = [];
    const error = new Error('here'); // this line's number, below
    expect(lines).toEqual([]);
    expect(lineOfStack(error.stack)).toBe(22);
  });
});
