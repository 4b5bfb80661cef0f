import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplePayload } from '../test/helpers/payloads.js';
import { median, ms, table } from './stats.js';

/**
 * The Action bundle: its size, and the wall time of a cold `node dist/index.js` on an ignored
 * event, beside a bare `node -e 0` (what any Node program pays to start here).
 */
export function benchAction(): string {
  const size = statSync('dist/index.js').size;
  const dir = mkdtempSync(join(tmpdir(), 'coder-loop-bench-'));
  const event = join(dir, 'event.json');
  writeFileSync(event, JSON.stringify(examplePayload('push')));
  writeFileSync(join(dir, 'out'), '');
  const env = {
    PATH: process.env.PATH,
    INPUT_TOKEN: 'x',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: event,
    GITHUB_OUTPUT: join(dir, 'out'),
  };
  // A bare `node -e 0` beside it, run in turn with it: Node's own start on this machine now.
  const times: number[] = [];
  const bare: number[] = [];
  const timed = (args: string[], into: number[]) => {
    const start = performance.now();
    execFileSync(process.execPath, args, { env, stdio: 'ignore' });
    into.push(performance.now() - start);
  };
  for (let i = 0; i < 11; i++) {
    timed(['dist/index.js'], times);
    timed(['-e', '0'], bare);
  }
  rmSync(dir, { recursive: true, force: true });
  return [
    'The Action bundle (dist/index.js)',
    table(
      [
        'bundle size',
        'cold run on an ignored event (median of 11)',
        'bare `node -e 0`',
        'the bundle over bare Node',
      ],
      [
        [
          `${(size / 1024 / 1024).toFixed(2)} MB`,
          ms(median(times)),
          ms(median(bare)),
          ms(median(times) - median(bare)),
        ],
      ],
    ),
  ].join('\n');
}
