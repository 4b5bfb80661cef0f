import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/action/main.js';
import { examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { SimGitHub } from '../sim/github.js';

/** The Action's adapter in-process (the end-to-end test runs the bundle): env in, outputs out. */
let work: string;
const SUMMARY = join(tmpdir(), `coder-loop-summary-${process.pid}.md`);
const saved = { ...process.env };

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-main-'));
  process.exitCode = undefined;
});
afterEach(async () => {
  process.env = { ...saved };
  process.exitCode = undefined;
  await rm(work, { recursive: true, force: true });
});

async function runWith(event: string, payload: unknown, apiUrl = 'http://127.0.0.1:9') {
  const eventPath = join(work, 'event.json');
  await writeFile(eventPath, JSON.stringify(payload));
  await writeFile(join(work, 'out'), '');
  // @actions/core keeps the summary file's path for the process: one file for every test here.
  await writeFile(SUMMARY, '');
  const env = {
    ...saved,
    INPUT_TOKEN: 'ghs_token',
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: apiUrl,
    GITHUB_OUTPUT: join(work, 'out'),
    GITHUB_STEP_SUMMARY: SUMMARY,
  };
  process.env = env;
  await run(env);
  return {
    out: await readFile(join(work, 'out'), 'utf8'),
    summary: await readFile(SUMMARY, 'utf8'),
  };
}

describe('action main: run()', () => {
  it('an issue labeled with another label is ignored, green, with the reason', async () => {
    const sim = new SimGitHub(examplePlanFiles());
    const server = await sim.serve();
    try {
      const { out, summary } = await runWith(
        'issues',
        examplePayload('issues', 'labeled'),
        server.url,
      );
      expect(process.exitCode).toBeUndefined();
      expect(out).toMatch(/^state<<ghadelimiter_[\w-]+\nignored\n/);
      expect(summary).toContain('label bug');
    } finally {
      await server.close();
    }
  });

  it('fails with one clear message when the event file is missing', async () => {
    const env = {
      ...saved,
      INPUT_TOKEN: 'x',
      GITHUB_EVENT_NAME: 'issue_comment',
      GITHUB_EVENT_PATH: join(work, 'nope.json'),
    };
    process.env = env;
    await run(env);
    expect(process.exitCode).toBe(1);
  });

  it('fails when the token input is missing', async () => {
    const env = {
      ...saved,
      INPUT_TOKEN: '',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: join(work, 'x.json'),
    };
    process.env = env;
    await run(env);
    expect(process.exitCode).toBe(1);
  });

  it('escapes what it echoes into the job summary: a branch name cannot inject HTML', async () => {
    const sim = new SimGitHub(examplePlanFiles());
    const server = await sim.serve();
    try {
      const payload = examplePayload('check_suite', 'completed');
      payload.check_suite.head_branch = 'x<img src=x onerror=alert(1)>';
      payload.action = 'requested<script>alert(1)</script>';
      const { summary } = await runWith('check_suite', payload, server.url);
      expect(summary).toContain('check\\_suite\\.requested\\<script\\>alert\\(1\\)\\</script\\>');
      expect(summary).not.toMatch(/<script>|<img/);
    } finally {
      await server.close();
    }
  });
});
