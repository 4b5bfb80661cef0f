import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { examplePayload } from '../test/helpers/payloads.js';
import { examplePlanFiles } from '../test/helpers/plans.js';
import { SimGitHub } from '../test/sim/github.js';
import { median, ms, table } from './stats.js';

const run = promisify(execFile);

/**
 * The Action bundle: its size, and a cold `node dist/index.js` on an event it ignores (an issue
 * labeled with another label), beside a bare `node -e 0` (what any Node program pays to start
 * here). GitHub is the in-memory one on a loopback port: the run asks who its token is and checks
 * its setup before it ignores the event. Its answers take the in-memory GitHub's time (each request
 * checked against GitHub's API description), so the figure that is the Action's own is the
 * process's CPU time, read in the process itself at exit; its wall time is shown beside it.
 */
export async function benchAction(): Promise<string> {
  const size = statSync('dist/index.js').size;
  const dir = mkdtempSync(join(tmpdir(), 'coder-loop-bench-'));
  const event = join(dir, 'event.json');
  writeFileSync(event, JSON.stringify(examplePayload('issues', 'labeled')));
  writeFileSync(join(dir, 'out'), '');
  // Preloaded into both processes: their CPU time (user + system), written when they exit.
  const cpuOut = join(dir, 'cpu.txt');
  const preload = join(dir, 'cpu.mjs');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => {\n  const u = process.cpuUsage();\n  writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000));\n});\n`,
  );
  const sim = new SimGitHub(examplePlanFiles());
  const server = await sim.serve();
  const env = {
    PATH: process.env.PATH,
    INPUT_TOKEN: 'ghs_token',
    GITHUB_EVENT_NAME: 'issues',
    GITHUB_EVENT_PATH: event,
    GITHUB_API_URL: server.url,
    GITHUB_OUTPUT: join(dir, 'out'),
  };
  // A bare `node -e 0` beside it, run in turn with it: Node's own start on this machine now; and
  // one `fetch` of the repository from the same GitHub: what any Node program pays for its first
  // request (Node's HTTP client starts on it).
  const bundle = { wall: [] as number[], cpu: [] as number[] };
  const bare = { wall: [] as number[], cpu: [] as number[] };
  const fetched = { wall: [] as number[], cpu: [] as number[] };
  const oneFetch = `fetch(process.env.GITHUB_API_URL + '/repos/Codertocat/Hello-World').then((r) => r.text())`;
  const timed = async (args: string[], into: { wall: number[]; cpu: number[] }) => {
    const start = performance.now();
    await run(process.execPath, ['--import', pathToFileURL(preload).href, ...args], { env });
    into.wall.push(performance.now() - start);
    into.cpu.push(Number(readFileSync(cpuOut, 'utf8')));
  };
  try {
    // One run first, untimed: the in-memory GitHub loads GitHub's API description on its first
    // request (its checks), a cost of this benchmark's GitHub, not of the Action.
    await timed(['dist/index.js'], { wall: [], cpu: [] });
    for (let i = 0; i < 11; i++) {
      await timed(['dist/index.js'], bundle);
      await timed(['-e', '0'], bare);
      await timed(['-e', oneFetch], fetched);
    }
  } finally {
    await server.close();
  }
  rmSync(dir, { recursive: true, force: true });
  return [
    'The Action bundle (dist/index.js): a cold run on an ignored event, GitHub in memory (median of 11)',
    table(
      [
        'bundle size',
        'CPU',
        'bare `node -e 0` CPU',
        'one `fetch` CPU',
        'the bundle over one fetch (CPU)',
        'wall (GitHub included)',
        'bare wall',
      ],
      [
        [
          `${(size / 1024 / 1024).toFixed(2)} MB`,
          ms(median(bundle.cpu)),
          ms(median(bare.cpu)),
          ms(median(fetched.cpu)),
          ms(median(bundle.cpu) - median(fetched.cpu)),
          ms(median(bundle.wall)),
          ms(median(bare.wall)),
        ],
      ],
    ),
  ].join('\n');
}
