import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { run } from '../../src/action/main.js';
import { examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import { SimGitHub } from '../sim/github.js';
import { repoRoot } from '../paths.js';

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

async function runWith(
  event: string,
  payload: unknown,
  apiUrl = 'http://127.0.0.1:9',
  extra: Record<string, string> = {},
) {
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
    ...extra,
  };
  process.env = env;
  await run(env);
  return {
    out: await readFile(join(work, 'out'), 'utf8'),
    summary: await readFile(SUMMARY, 'utf8'),
  };
}

/** The loop's workflow, run from the default branch's definition (the payloads' is master). */
const WORKFLOW_REF = {
  GITHUB_WORKFLOW_REF: 'Codertocat/Hello-World/.github/workflows/coder-loop.yml@refs/heads/master',
};

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
      expect(sim.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('/coder next, with the CI workflow named Tests while the loop waits for CI: the reply names the line to change', async () => {
    const loopWorkflow = await readFile(
      join(repoRoot, 'examples/workflows/coder-loop.yml'),
      'utf8',
    );
    const relayWorkflow = await readFile(
      join(repoRoot, 'examples/workflows/coder-loop-review.yml'),
      'utf8',
    );
    const waits = loopWorkflow.split('\n').findIndex((l) => /^\s*workflows:/.test(l)) + 1;
    const sim = new SimGitHub({
      ...examplePlanFiles(),
      '.github/workflows/coder-loop.yml': loopWorkflow,
      '.github/workflows/coder-loop-review.yml': relayWorkflow,
      '.github/workflows/tests.yml':
        'name: Tests\non: [pull_request]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
    });
    sim.permissions.set('Codertocat', 'write');
    const server = await sim.serve();
    try {
      const payload = examplePayload('issue_comment', 'created');
      payload.comment.body = '/coder next';
      delete payload.issue.pull_request;
      const { out } = await runWith('issue_comment', payload, server.url, WORKFLOW_REF);
      expect(out).toMatch(/^state<<ghadelimiter_[\w-]+\nstarted\n/);
      const replies = sim.comments.map((c) => c.body);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toContain(
        `- .github/workflows/coder-loop.yml:${waits}: error: The loop waits for the workflow "CI", and no workflow here has that name: loop pull requests wait for CI forever. The workflows here that run on pull requests: "Tests" (.github/workflows/tests.yml). Change line ${waits} to \`workflows: [coder-loop-review, Tests]`,
      );
      expect(sim.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('/coder next with the CI workflow named as the loop waits for: nothing more is said', async () => {
    const loopWorkflow = await readFile(
      join(repoRoot, 'examples/workflows/coder-loop.yml'),
      'utf8',
    );
    const relayWorkflow = await readFile(
      join(repoRoot, 'examples/workflows/coder-loop-review.yml'),
      'utf8',
    );
    const sim = new SimGitHub({
      ...examplePlanFiles(),
      '.github/workflows/coder-loop.yml': loopWorkflow,
      '.github/workflows/coder-loop-review.yml': relayWorkflow,
      '.github/workflows/ci.yml':
        'name: CI\non: [pull_request]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
    });
    sim.permissions.set('Codertocat', 'write');
    const server = await sim.serve();
    try {
      const payload = examplePayload('issue_comment', 'created');
      payload.comment.body = '/coder next';
      delete payload.issue.pull_request;
      await runWith('issue_comment', payload, server.url, WORKFLOW_REF);
      expect(sim.comments).toHaveLength(1);
      expect(sim.comments[0]!.body).not.toContain('CI will not reach');
      expect(sim.comments[0]!.body).toContain('**Coder started** on Phase 1');
      expect(sim.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('the scheduled sweep from an event that names no repository: the run reads its own, and finds nothing due', async () => {
    const sim = new SimGitHub(examplePlanFiles());
    const server = await sim.serve();
    try {
      const { out } = await runWith('schedule', { schedule: '*/15 * * * *' }, server.url, {
        GITHUB_REPOSITORY: 'Codertocat/Hello-World',
        GITHUB_REF: 'refs/heads/master',
        GITHUB_WORKFLOW_REF:
          'Codertocat/Hello-World/.github/workflows/coder-resume.yml@refs/heads/master',
        'INPUT_APP-SLUG': 'coder-loop',
      });
      expect(process.exitCode).toBeUndefined();
      expect(out).toMatch(/^state<<ghadelimiter_[\w-]+\nnot-due\n/);
      expect(sim.violations).toEqual([]);
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

  it('fails when the token input is missing, naming the secret and the variable to set', async () => {
    await writeFile(
      join(work, 'x.json'),
      JSON.stringify(examplePayload('issue_comment', 'created')),
    );
    const env = {
      ...saved,
      INPUT_TOKEN: '',
      GITHUB_EVENT_NAME: 'issue_comment',
      GITHUB_EVENT_PATH: join(work, 'x.json'),
      // The repository of the step's `uses:` reference: the CLI the error names is that one.
      GITHUB_ACTION_REPOSITORY: 'my-org/coder-loop',
    };
    process.env = env;
    const written: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await run(env);
    } finally {
      spy.mockRestore();
    }
    expect(process.exitCode).toBe(1);
    const error = written.find((line) => line.startsWith('::error::'));
    expect(error).toContain('the secret CODER_LOOP_PRIVATE_KEY is set');
    expect(error).toContain('the variable CODER_LOOP_APP_ID');
    expect(error).toContain('`npx github:my-org/coder-loop doctor` in your repository');
    expect(error).not.toContain('Input required and not supplied');
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
      expect(sim.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
