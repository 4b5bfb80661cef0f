import { serialByKey } from '../../src/app/serial.js';

/** `serialByKey`: one key's work one piece at a time, other keys' beside it. */

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('serialByKey', () => {
  it('runs one key’s pieces one after the other, in the order they came', async () => {
    const serial = serialByKey();
    const log: string[] = [];
    const piece = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      serial('a', piece('1')),
      serial('a', piece('2')),
      serial('a', piece('3')),
    ]);
    expect(results).toEqual(['1', '2', '3']);
    expect(log).toEqual(['1 start', '1 end', '2 start', '2 end', '3 start', '3 end']);
  });

  it('runs other keys’ pieces, and pieces without a key, beside it', async () => {
    const serial = serialByKey();
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const a = serial('a', async () => {
      log.push('a start');
      await held;
      log.push('a end');
    });
    await serial('b', async () => log.push('b'));
    await serial(undefined, async () => log.push('none'));
    release();
    await a;
    expect(log).toEqual(['a start', 'b', 'none', 'a end']);
  });

  it('a piece that fails fails alone: the next one under its key still runs', async () => {
    const serial = serialByKey();
    const failed = serial('a', async () => {
      throw new Error('GitHub answered 502');
    });
    const next = serial('a', async () => 'ran');
    await expect(failed).rejects.toThrow('GitHub answered 502');
    await expect(next).resolves.toBe('ran');
  });
});
