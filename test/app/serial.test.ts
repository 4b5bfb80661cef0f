import { redisSerialByKey, serialByKey } from '../../src/app/serial.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis } from '../helpers/redis.js';

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

describe('redisSerialByKey: two replicas sharing one Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const open: { close: () => Promise<void> }[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(open.map((o) => o.close()));
    redis.process.kill('SIGTERM');
  });
  const replica = () => {
    const r = redisSerialByKey(redis.url);
    open.push(r);
    return r.serial;
  };

  it('one key’s work on two replicas runs one piece at a time; another key’s beside it', async () => {
    const [a, b] = [replica(), replica()];
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = a('repo@head', async () => {
      log.push('a start');
      await held;
      log.push('a end');
    });
    // Replica a holds the head's lease: b's piece of the same head waits for it.
    while (!log.includes('a start')) await tick();
    const second = b('repo@head', async () => log.push('b same head'));
    await b('repo@other', async () => log.push('b other head'));
    // Time enough for b to take the lease were it free (a few Redis round trips).
    await sleep(300);
    expect(log).toEqual(['a start', 'b other head']);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['a start', 'b other head', 'a end', 'b same head']);
  });

  it('work that fails gives the lease back', async () => {
    const [a, b] = [replica(), replica()];
    await expect(
      a('repo@red', async () => {
        throw new Error('GitHub answered 502');
      }),
    ).rejects.toThrow('GitHub answered 502');
    await expect(b('repo@red', async () => 'ran')).resolves.toBe('ran');
  });
});
