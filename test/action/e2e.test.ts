import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workflowContext } from '../helpers/bundle.js';
import { CI_APP } from '../helpers/github.js';
import { examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';
import { decodeRecord, gitBlobSha, withRecord, type LoopMarker } from '../../src/core/index.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * The BUILT Action (dist/index.js) as a child process, with the Actions environment, against a
 * loopback HTTP server that answers as GitHub (the simulator), records every request and checks
 * it against the OpenAPI description.
 */
const DIST = join(repoRoot, 'dist', 'index.js');
const BRANCH = 'coder/example/phase-1';

interface Run {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

let sim: SimGitHub;
let server: { url: string; close: () => Promise<void> };
let work: string;
let requests: string[];

beforeEach(async () => {
  sim = new SimGitHub({ ...examplePlanFiles(), 'src/server.ts': 'export {};\n' });
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write'); // reviews count only from write users
  requests = [];
  server = await sim.serve((method, url) => {
    requests.push(`${method} ${decodeURIComponent(url.pathname)}`);
  });
  work = await mkdtemp(join(tmpdir(), 'coder-loop-action-'));
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
  expect(sim.violations).toEqual([]);
});

function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const re = /^([^<\n]+)<<(ghadelimiter_[\w-]+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) outputs[m[1]!] = m[3]!;
  return outputs;
}

async function action(
  event: string,
  payload: unknown,
  extraEnv: Record<string, string> = {},
): Promise<Run> {
  const eventPath = join(work, 'event.json');
  const output = join(work, 'output.txt');
  const summary = join(work, 'summary.md');
  await writeFile(eventPath, JSON.stringify(payload));
  await writeFile(output, '');
  await writeFile(summary, '');
  const env = {
    PATH: process.env.PATH,
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: server.url,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    // Which ref's workflow runs, as GitHub sets it for this event (the loop's own workflow file).
    ...workflowContext(event, payload),
    INPUT_TOKEN: 'ghs_app_installation_token',
    // As docs/github-action.md's workflow passes it: the App the token belongs to.
    'INPUT_APP-SLUG': 'coder-loop',
    ...extraEnv,
  };
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [DIST], { env }, (error, out) =>
      resolve({ code: error ? Number(error.code) : 0, stdout: out }),
    );
  });
  return {
    code,
    stdout,
    outputs: parseOutputs(await readFile(output, 'utf8')),
    summary: await readFile(summary, 'utf8'),
  };
}

function comment(body: string) {
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = body;
  delete payload.issue.pull_request;
  return payload;
}

/** A human push with a test and green CI on the loop PR: the check_suite event that says so. */
function greenCi() {
  sim.push(BRANCH, { 'test/a.test.ts': 'test\n', 'src/a.ts': 'a\n' });
  sim.ci(sim.refs.get(BRANCH)!, 'success', 'build');
  const ci = examplePayload('check_suite', 'completed');
  ci.check_suite.head_branch = BRANCH;
  ci.check_suite.head_sha = sim.refs.get(BRANCH)!;
  return ci;
}

/** reviewer1 approves the loop PR's head: the review, as GitHub keeps it. */
function review() {
  const pr = sim.pull(2);
  sim.reviews.push({
    id: sim.reviews.length + 1,
    pr: 2,
    user: 'reviewer1',
    state: 'APPROVED',
    commit_id: sim.headOf(pr),
  });
  return pr;
}

/** The pull_request_review event of reviewer1's approval (it runs the PR's own workflow). */
function approval() {
  const pr = review();
  const payload = examplePayload('pull_request_review', 'submitted');
  payload.review.state = 'approved';
  payload.review.commit_id = sim.headOf(pr);
  payload.review.user.login = 'reviewer1';
  payload.pull_request = { ...payload.pull_request, ...sim.pullJson(pr) };
  return payload;
}

/** reviewer1's approval through the review relay's workflow_run. */
function relayedApproval() {
  const pr = review();
  return reviewRelayRun(BRANCH, sim.headOf(pr), 'reviewer1');
}

// The bundle spaces writes a second apart, as GitHub asks of integrations (throttling plugin).
jest.setTimeout(60_000);

describe('the built Action (dist/index.js)', () => {
  it('/coder next: lock branch, [~] commit, PR, check run; outputs and the job summary', async () => {
    const run = await action('issue_comment', comment('/coder next'));
    expect(run.code).toBe(0);
    expect(run.outputs).toEqual({
      state: 'started',
      mode: 'plan',
      phase: '1',
      branch: BRANCH,
      'pull-request': '2',
    });
    expect(run.summary).toContain('## coder-loop: started');
    expect(run.summary).toContain('class TDD current');
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [~] 1.1 Test');
    const writes = requests.filter((r) => !r.startsWith('GET'));
    expect(writes.slice(0, 5)).toEqual([
      'POST /repos/Codertocat/Hello-World/issues/comments/492700400/reactions',
      'POST /repos/Codertocat/Hello-World/git/trees',
      'POST /repos/Codertocat/Hello-World/git/commits',
      'POST /repos/Codertocat/Hello-World/git/refs',
      'POST /repos/Codertocat/Hello-World/pulls',
    ]);
    // Once the pull request is open, the reply and the check run go out in one round.
    expect(writes.slice(5).sort()).toEqual([
      'POST /repos/Codertocat/Hello-World/check-runs',
      'POST /repos/Codertocat/Hello-World/issues/1/comments',
    ]);
  });

  it('a workflow_run failure on the loop PR: attempt 1, a reply, the failing check run', async () => {
    await action('issue_comment', comment('/coder next'));
    sim.push(BRANCH, { 'test/a.test.ts': 'test\n', 'src/a.ts': 'a\n' });
    sim.ci(sim.refs.get(BRANCH)!, 'failure', 'build');
    const payload = examplePayload('workflow_run', 'completed');
    payload.workflow_run.head_branch = BRANCH;
    payload.workflow_run.head_sha = sim.refs.get(BRANCH)!;
    payload.workflow_run.conclusion = 'failure';
    payload.repository.default_branch = sim.defaultBranch; // this example's says `main`
    const run = await action('workflow_run', payload);
    expect(run.stdout).not.toContain('::error::');
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ state: 'failed', branch: BRANCH, 'pull-request': '2' });
    expect(sim.comments.at(-1)!.body).toMatch(
      /^\*\*CI failed\*\* on pull request #2 — attempt 1 of 3/,
    );
    expect(run.summary).toContain('class Debug current');
  });

  it('an approval after green CI, through the review relay: the completion commit', async () => {
    await action('issue_comment', comment('/coder next'));
    expect((await action('check_suite', greenCi())).outputs.state).toBe('code-review');
    const run = await action('workflow_run', relayedApproval());
    expect(run.code).toBe(0);
    expect(run.outputs.state).toBe('completing');
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [x] 1.1 Test');
  });

  it('an event the loop ignores ends green with a notice', async () => {
    const run = await action('issues', examplePayload('issues', 'labeled'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('::notice::coder-loop ignored this issues event: label bug');
    expect(run.outputs.state).toBe('ignored');
    expect(requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
  });

  it('warns in the log when it runs on the default GITHUB_TOKEN', async () => {
    const run = await action('push', examplePayload('push'), {
      GITHUB_TOKEN: 'ghs_app_installation_token',
    });
    expect(run.stdout).toContain('::warning::coder-loop runs on the default GITHUB_TOKEN');
  });

  it('with a PAT (check runs refused): the loop keeps its state in a coder-loop commit status', async () => {
    sim.checkRunsRefused = 'Resource not accessible by personal access token';
    sim.actingAs = 'pat-user'; // a PAT: its user opens the PRs, and GET /user names them
    const pat = { 'INPUT_APP-SLUG': '' };
    const started = await action('issue_comment', comment('/coder next'), pat);
    expect(started.code).toBe(0);
    expect(started.outputs.state).toBe('started');
    expect(requests.filter((r) => r.includes('/check-runs') || r.includes('/statuses/'))).toEqual([
      'POST /repos/Codertocat/Hello-World/check-runs',
      `POST /repos/Codertocat/Hello-World/statuses/${sim.refs.get(BRANCH)}`,
    ]);
    const own = () => sim.statuses.filter((s) => s.context === 'coder-loop').at(-1)!;
    expect(own()).toMatchObject({ state: 'pending', sha: sim.refs.get(BRANCH) });
    expect(own().description).toMatch(/^\[TDD\] /);

    // CI passes on a new head: the state is read back from the status and moves on.
    expect((await action('check_suite', greenCi(), pat)).outputs.state).toBe('code-review');
    expect(own()).toMatchObject({ state: 'pending', sha: sim.refs.get(BRANCH) });
    expect(own().description).toMatch(/^\[CodeReview\] /);

    // The loop's own status event is not a CI result.
    const status = examplePayload('status');
    status.context = 'coder-loop';
    status.state = 'success';
    status.sha = sim.refs.get(BRANCH)!;
    status.branches = [{ name: BRANCH, commit: { sha: status.sha, url: '' }, protected: false }];
    expect((await action('status', status, pat)).outputs.state).toBe('ignored');

    const approved = await action('workflow_run', relayedApproval(), pat);
    expect(approved.outputs.state).toBe('completing');
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [x] 1.1 Test');
    expect(sim.checkRuns.filter((r) => r.name === 'coder-loop')).toEqual([]);
  });

  it('a run from a fork or Dependabot has no token: green, with a notice, nothing done', async () => {
    const review = examplePayload('pull_request_review', 'submitted');
    review.pull_request.head.repo.full_name = 'someone/Hello-World';
    const fork = await action('pull_request_review', review, { INPUT_TOKEN: '' });
    expect(fork.code).toBe(0);
    expect(fork.stdout).toContain(
      '::notice::coder-loop did nothing: a workflow run for a pull request from the fork someone/Hello-World gets no secrets',
    );
    const dependabot = await action('pull_request', examplePayload('pull_request', 'synchronize'), {
      INPUT_TOKEN: '',
      GITHUB_ACTOR: 'dependabot[bot]',
    });
    expect(dependabot.code).toBe(0);
    expect(dependabot.stdout).toContain('Dependabot gets no Actions secrets');
    expect(requests).toEqual([]);
    // Anywhere else an empty token is a mistake in the workflow: red.
    const missing = await action('issue_comment', comment('/coder next'), { INPUT_TOKEN: '' });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('::error::coder-loop: the `token` input is empty');
    expect(missing.stdout).toContain('the secret CODER_LOOP_PRIVATE_KEY');
  });

  it("with the App token, a branch's workflow (a review, a push, a pull request, a dispatch) refuses with one clear error and writes nothing", async () => {
    await action('issue_comment', comment('/coder next'));
    expect((await action('check_suite', greenCi())).outputs.state).toBe('code-review');
    requests.length = 0;
    const push = examplePayload('push');
    push.ref = `refs/heads/${BRANCH}`;
    const pull = examplePayload('pull_request', 'synchronize');
    pull.pull_request = { ...pull.pull_request, ...sim.pullJson(sim.pull(2)) };
    // A dispatch runs the workflow file of the branch whoever dispatches it picks.
    const dispatched = examplePayload('workflow_dispatch');
    dispatched.ref = `refs/heads/${BRANCH}`;
    dispatched.repository = push.repository;
    for (const [event, payload, ref] of [
      ['pull_request_review', approval(), 'refs/pull/2/merge'],
      ['push', push, `refs/heads/${BRANCH}`],
      ['pull_request', pull, 'refs/pull/2/merge'],
      ['workflow_dispatch', dispatched, `refs/heads/${BRANCH}`],
    ] as const) {
      const run = await action(event, payload);
      expect(run.code).toBe(1);
      const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error::'));
      expect(errors).toEqual([
        expect.stringContaining(
          `::error::coder-loop: this job holds the loop's token, but it was started by a ${event} event, which runs the workflow of ${ref}.`,
        ),
      ]);
      expect(errors[0]).toContain('environment: coder-loop');
      expect(errors[0]).toContain('docs/github-action.md');
    }
    expect(requests).toEqual([]);
    expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [~] 1.1 Test');
  });

  it('with the App token, a job outside an environment limited to the default branch refuses with the same error', async () => {
    const cases: [string, () => void, string][] = [
      [
        'missing',
        () => sim.environments.delete('coder-loop'),
        'the environment "coder-loop" does not exist',
      ],
      [
        'every branch',
        () => sim.environments.set('coder-loop', {}),
        'the environment "coder-loop" admits every branch',
      ],
      [
        'protected branches',
        () => sim.environments.set('coder-loop', { protectedBranches: true }),
        'the environment "coder-loop" admits every protected branch, not only master',
      ],
      [
        'a pattern',
        () =>
          sim.environments.set('coder-loop', {
            branches: [
              { name: 'master', type: 'branch' },
              { name: 'coder/*', type: 'branch' },
            ],
          }),
        'the environment "coder-loop" admits branch coder/*, not only master',
      ],
    ];
    for (const [, setUp, problem] of cases) {
      setUp();
      const run = await action('issue_comment', comment('/coder next'));
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `::error::coder-loop: this job holds the loop's token, but ${problem}.`,
      );
    }
    // The workflow's `environment` input names another one: that one is checked.
    sim.environments.set('loop-key', { branches: [{ name: 'master', type: 'branch' }] });
    const named = await action('issue_comment', comment('/coder next'), {
      INPUT_ENVIRONMENT: 'loop-key',
    });
    expect(named.outputs.state).toBe('started');
    expect(requests.filter((r) => !r.startsWith('GET')).length).toBeGreaterThan(0);
  });

  it('with the default GITHUB_TOKEN: the first reply says every writer can act as the loop, and a check run another job writes cannot make it merge', async () => {
    sim.push(sim.defaultBranch, { '.github/coder.yml': 'autoMerge: true\n' });
    sim.tokenApp = { id: CI_APP.id, slug: CI_APP.slug }; // every workflow job's token
    const workflowToken = {
      INPUT_TOKEN: 'ghs_workflow_token',
      GITHUB_TOKEN: 'ghs_workflow_token',
      'INPUT_APP-SLUG': '',
    };
    const started = await action('issue_comment', comment('/coder next'), workflowToken);
    expect(started.outputs.state).toBe('started');
    expect(sim.comments.at(-1)!.body).toContain(
      "every writer's workflow acts as `github-actions[bot]`, the loop's identity",
    );
    expect(sim.comments.at(-1)!.body).toContain('the loop merges nothing (`autoMerge` is off)');
    expect((await action('check_suite', greenCi(), workflowToken)).outputs.state).toBe(
      'code-review',
    );

    // A writer's workflow job (checks: write) copies the loop's check run, its record included,
    // and says the phase is at Final Verification.
    const head = sim.refs.get(BRANCH)!;
    const own = sim.checkRuns.filter((r) => r.name === 'coder-loop' && r.head_sha === head).at(-1)!;
    const forged = await fetch(`${server.url}/repos/Codertocat/Hello-World/check-runs`, {
      method: 'POST',
      headers: {
        authorization: 'token ghs_another_jobs_token',
        'x-github-api-version': '2022-11-28',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        name: 'coder-loop',
        head_sha: head,
        status: 'in_progress',
        external_id: 'FinalVerify',
        output: own.output,
      }),
    });
    expect(forged.status).toBe(201);
    requests.length = 0;
    const ci = examplePayload('check_suite', 'completed');
    ci.check_suite.head_branch = BRANCH;
    ci.check_suite.head_sha = head;
    const run = await action('check_suite', ci, workflowToken);
    expect(run.code).toBe(0);
    expect(run.outputs.state).toBe('complete');
    expect(requests).not.toContain('PUT /repos/Codertocat/Hello-World/pulls/2/merge');
    expect(sim.pull(2).merged).toBe(false);
  });

  describe('the review relay: only the run GitHub started for a review of the loop PR, at its head', () => {
    /** reviewer1 asks for changes on the head `sha` of the loop PR, as GitHub keeps it. */
    function changesRequested(sha: string) {
      sim.reviews.push({
        id: sim.reviews.length + 1,
        pr: 2,
        user: 'reviewer1',
        state: 'CHANGES_REQUESTED',
        commit_id: sha,
      });
    }

    it("a writer's re-run of an old relay run (GitHub keeps its actor) applies no old change request", async () => {
      await action('issue_comment', comment('/coder next'));
      sim.push(BRANCH, { 'src/old.ts': 'old\n' });
      const old = sim.refs.get(BRANCH)!;
      changesRequested(old);
      const first = reviewRelayRun(BRANCH, old, 'reviewer1');
      expect((await action('workflow_run', first)).outputs.state).toBe('changes-requested');
      expect((await action('check_suite', greenCi())).outputs.state).toBe('code-review');
      const replies = sim.comments.length;
      // "Re-run all jobs" of that old run, by a writer: GitHub keeps the actor, names the writer
      // as the triggering actor, and counts the attempt.
      const rerun = structuredClone(first);
      rerun.workflow_run.run_attempt = 2;
      rerun.workflow_run.triggering_actor = { ...rerun.workflow_run.actor, login: 'Codertocat' };
      requests.length = 0;
      const run = await action('workflow_run', rerun);
      expect(run.code).toBe(0);
      expect(run.outputs.state).toBe('ignored');
      expect(run.stdout).toContain('a re-run');
      expect(requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
      expect(sim.comments.length).toBe(replies);
    });

    it('the same change request relayed for a head it was not made on is not counted', async () => {
      await action('issue_comment', comment('/coder next'));
      sim.push(BRANCH, { 'src/old.ts': 'old\n' });
      changesRequested(sim.refs.get(BRANCH)!);
      expect((await action('check_suite', greenCi())).outputs.state).toBe('code-review');
      // A first attempt that names the loop PR at its new head, and reviewer1's newest review:
      // the change request was made on the older head.
      requests.length = 0;
      const run = await action(
        'workflow_run',
        reviewRelayRun(BRANCH, sim.refs.get(BRANCH)!, 'reviewer1'),
      );
      expect(run.outputs.state).toBe('ignored');
      expect(requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
    });

    it("a reviewer's review of an outsider's fork PR with the lock branch's name moves nothing", async () => {
      await action('issue_comment', comment('/coder next'));
      expect((await action('check_suite', greenCi())).outputs.state).toBe('code-review');
      const head = sim.refs.get(BRANCH)!;
      changesRequested(head); // reviewer1's newest review of the loop PR, relayed before
      // reviewer1 reviews the fork's PR (same branch name, same commit): GitHub runs the relay
      // for the fork's head repository and names no pull request of this repository.
      const fork = reviewRelayRun(BRANCH, head, 'reviewer1');
      fork.workflow_run.head_repository = {
        ...fork.workflow_run.head_repository,
        id: 999001,
        name: 'Hello-World',
        full_name: 'outsider/Hello-World',
        owner: { ...fork.workflow_run.head_repository.owner, login: 'outsider', id: 999002 },
      };
      fork.workflow_run.pull_requests = [];
      requests.length = 0;
      const run = await action('workflow_run', fork);
      expect(run.outputs.state).toBe('ignored');
      expect(run.stdout).toContain('outsider/Hello-World');
      expect(requests.filter((r) => !r.startsWith('GET'))).toEqual([]);
    });
  });

  describe('with the default GITHUB_TOKEN, nothing a job writes decides that an architect is not needed', () => {
    const workflowToken = {
      INPUT_TOKEN: 'ghs_workflow_token',
      GITHUB_TOKEN: 'ghs_workflow_token',
      'INPUT_APP-SLUG': '',
    };
    /** What any writer's job can do with its own token: GitHub names it github-actions[bot]. */
    async function asAnotherJob(method: string, path: string, body?: unknown) {
      const response = await fetch(`${server.url}/repos/Codertocat/Hello-World${path}`, {
        method,
        headers: {
          authorization: 'token ghs_another_jobs_token',
          'x-github-api-version': '2022-11-28',
          'content-type': 'application/json',
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(response.status).toBeLessThan(300);
    }
    /**
     * The loop's newest record, rewritten by another job as a newer `coder-loop` check run on the
     * PR's head.
     */
    async function forgeRecord(edit: (marker: LoopMarker) => LoopMarker, node?: string) {
      const head = sim.refs.get(BRANCH)!;
      const own = sim.checkRuns.filter((r) => r.name === 'coder-loop').at(-1)!;
      const marker = decodeRecord(own.output?.text, own.head_sha)!;
      expect(marker).toBeDefined();
      await asAnotherJob('POST', '/check-runs', {
        name: 'coder-loop',
        head_sha: head,
        status: own.status,
        ...(own.conclusion ? { conclusion: own.conclusion } : {}),
        external_id: node ?? own.external_id,
        output: { ...own.output, text: withRecord(own.output?.text, edit(marker), head) },
      });
    }
    beforeEach(() => {
      sim.tokenApp = { id: CI_APP.id, slug: CI_APP.slug }; // every workflow job's token
    });

    it("a record forged to call the PR's checklist edit the loop's own bytes: a non-architect's approval completes nothing", async () => {
      expect(
        (await action('issue_comment', comment('/coder next'), workflowToken)).outputs.state,
      ).toBe('started');
      // The PR marks phase 2 done in the checklist, along with its code and test.
      const checklist = sim.files(BRANCH)[CHECKLIST]!.replace('- [ ] 2.1', '- [x] 2.1');
      sim.push(BRANCH, { [CHECKLIST]: checklist });
      const ci = greenCi();
      expect((await action('check_suite', ci, workflowToken)).outputs.state).toBe('code-review');
      await forgeRecord((m) => ({
        ...m,
        // The loop's own files as it wrote them, but the checklist's bytes are the PR's.
        loopFiles: [
          ...(m.loopFiles ?? []).filter((f) => f.path !== CHECKLIST),
          { path: CHECKLIST, blob: gitBlobSha(checklist) },
        ],
      }));
      const run = await action('workflow_run', relayedApproval(), workflowToken);
      expect(run.code).toBe(0);
      expect(run.outputs.state).toBe('approval-not-counted');
      expect(sim.comments.at(-1)!.body).toContain('An architect reviews and merges it by hand');
      expect(sim.files(BRANCH)[CHECKLIST]).toContain('- [~] 1.1 Test');
    });

    it('an escalation dropped from a forged record and its label removed as github-actions[bot]: a non-architect completes nothing', async () => {
      sim.push(sim.defaultBranch, { '.github/coder.yml': 'maxRetries: 1\n' });
      expect(
        (await action('issue_comment', comment('/coder next'), workflowToken)).outputs.state,
      ).toBe('started');
      sim.push(BRANCH, { 'test/a.test.ts': 'test\n', 'src/a.ts': 'broken\n' });
      sim.ci(sim.refs.get(BRANCH)!, 'failure', 'build');
      const red = examplePayload('check_suite', 'completed');
      red.check_suite.head_branch = BRANCH;
      red.check_suite.head_sha = sim.refs.get(BRANCH)!;
      expect((await action('check_suite', red, workflowToken)).outputs.state).toBe('escalated');
      expect([...sim.pull(2).labels]).toContain('coder:escalated');
      // A writer fixes it, and puts the checklist back as the default branch has it (the PR
      // then touches no plan document); CI passes on the new head, still escalated.
      sim.push(BRANCH, { [CHECKLIST]: sim.files(sim.defaultBranch)[CHECKLIST]! });
      expect((await action('check_suite', greenCi(), workflowToken)).outputs.state).toBe(
        'escalated',
      );
      // Another job drops the escalation from the record and takes the label off.
      await forgeRecord((m) => {
        const forged = { ...m };
        delete forged.escalation;
        return forged;
      }, 'CodeReview');
      await asAnotherJob('DELETE', '/issues/2/labels/coder:escalated');
      expect([...sim.pull(2).labels]).not.toContain('coder:escalated');
      const run = await action('workflow_run', relayedApproval(), workflowToken);
      expect(run.code).toBe(0);
      expect(run.outputs.state).not.toBe('completing');
      expect(sim.comments.at(-1)!.body).toContain('An architect reviews and merges it by hand');
      expect(sim.files(BRANCH)[CHECKLIST]).not.toContain('- [x] 1.1 Test');
    });
  });

  it('fails the step with a clear message when the API refuses', async () => {
    sim.faults.set('GET /permission', 401);
    const run = await action('issue_comment', comment('/coder next'));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::coder-loop: /);
  });
});
