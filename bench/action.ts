import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplePayload } from '../test/helpers/payloads.js';
import { median, ms, table } from './stats.js';

/** The Action bundle: its size, and the wall time of a cold `node dist/index.js` on an ignored event. */
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
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const start = performance.now();
    execFileSync(process.execPath, ['dist/index.js'], { env, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  rmSync(dir, { recursive: true, force: true });
  return [
    'The Action bundle (dist/index.js)',
    table(
      ['bundle size', 'cold run on an ignored event (median of 11)'],
      [[`${(size / 1024 / 1024).toFixed(2)} MB`, ms(median(times))]],
    ),
  ].join('\n');
}
