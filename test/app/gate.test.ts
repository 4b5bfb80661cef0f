import nock from 'nock';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { CHECKLIST, MASTER_LOG, examplePlanFiles } from '../helpers/plans.js';
import type { SimGitHub } from '../sim/github.js';
import { BRANCH, replies, started, world } from '../helpers/world.js';

/**
 * The record and the gate, tried again as an attacker would: each case is one way a writer (or a
 * writer's workflow) could complete, de-escalate or mislead the loop, and the rule that stops it.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const completed = (sim: SimGitHub, ref: string) =>
  (sim.files(ref)[MASTER_LOG] ?? '').includes('Coder completed');

/** Three red heads in a row: the PR is escalated to the architects. */
async function escalated(config = 'architects: [archie]\n') {
  const w = await started(config);
  for (let attempt = 1; attempt <= 3; attempt++) {
    await w.deliver.ci(BRANCH, 'failure');
    w.sim.push(BRANCH, { 'src/health.ts': `export const ok = ${attempt};\n` });
  }
  expect(replies(w.sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\*/);
  return w;
}

describe('a record belongs to one pull request and its lock branch', () => {
  it('a loop PR rebuilt on another loop PR’s head does not take on that PR’s record', async () => {
    const other = Object.fromEntries(
      Object.entries(examplePlanFiles()).map(([path, text]) => [
        path.replace('/Example/', '/Other/'),
        text,
      ]),
    );
    const { sim, deliver } = await world('architects: [archie]\n', other);
    await deliver.comment('/coder next Example');
    await deliver.comment('/coder next Other', { issue: 10 });
    const [example, theirs] = [sim.pulls[0]!, sim.pulls[1]!];
    expect(theirs.head).toBe('coder/other/phase-1');
    // A writer force-pushes the Other PR's branch onto the Example PR's head, then marks
    // Example's checklist and adds code and a test.
    sim.refs.set(theirs.head, sim.headOf(example));
    sim.push(theirs.head, {
      'test/health.test.ts': 'test("health", () => {});\n',
      'src/health.ts': 'export const ok = true;\n',
      [CHECKLIST]: sim.files(theirs.head)[CHECKLIST]!.replace('- [~] 1.2', '- [x] 1.2'),
    });
    await deliver.pullRequest('synchronize', theirs.number);
    await deliver.ci(theirs.head, 'success');
    await deliver.review(theirs.number, 'reviewer1', 'approved');
    expect(completed(sim, theirs.head)).toBe(false);
    expect(
      sim.checkRuns.filter((r) => r.head_sha === sim.headOf(theirs) && r.name === 'coder-loop'),
    ).toEqual([]);
  });
});

describe('a check that is not the CI waited for never supersedes its verdict', () => {
  it('a writer’s workflow that adds a green check run of the same name does not turn red CI green', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'failure');
    expect(replies(sim).at(-1)).toMatch(/^\*\*CI failed\*\* on pull request #2 — attempt 1 of 3/);
    // Any job with `checks: write` can create a check run named `test` as GitHub Actions.
    sim.forgeCheck(sim.headOf(pr), 'test', 'success');
    await deliver.checkSuite(BRANCH);
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'Debug', conclusion: 'failure' });
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, BRANCH)).toBe(false);
  });

  it('a real re-run of the failed job still turns it green', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'failure');
    const failed = sim.checkRuns.filter((r) => r.name === 'test').at(-1)!;
    // Re-run: the same workflow run, its next attempt.
    await deliver.ci(BRANCH, 'success');
    const rerun = sim.checkRuns.filter((r) => r.name === 'test').at(-1)!;
    expect(rerun.job).toMatchObject({ run: failed.job!.run, attempt: 2 });
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
  });

  it('a writer’s workflow that posts a green status of CI’s context does not turn red CI green', async () => {
    const { sim, deliver, pr } = await started('requiredChecks: [ci/jenkins]\n');
    sim.postStatus(sim.headOf(pr), 'ci/jenkins', 'failure', 'jenkins-ci[bot]');
    await deliver.checkSuite(BRANCH);
    expect(replies(sim).at(-1)).toMatch(/^\*\*CI failed\*\*/);
    sim.postStatus(sim.headOf(pr), 'ci/jenkins', 'success', 'github-actions[bot]');
    await deliver.checkSuite(BRANCH);
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'Debug', conclusion: 'failure' });
    // CI itself reporting again (the same creator) is what counts.
    sim.postStatus(sim.headOf(pr), 'ci/jenkins', 'success', 'jenkins-ci[bot]');
    await deliver.checkSuite(BRANCH);
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
  });

  it('CI that posts its statuses with GITHUB_TOKEN: a writer’s job posting the context green as github-actions[bot] does not turn its red green', async () => {
    const { sim, deliver, pr } = await started('requiredChecks: [ci/lint]\n');
    sim.postStatus(sim.headOf(pr), 'ci/lint', 'pending', 'github-actions[bot]');
    sim.postStatus(sim.headOf(pr), 'ci/lint', 'failure', 'github-actions[bot]');
    await deliver.checkSuite(BRANCH);
    expect(replies(sim).at(-1)).toMatch(/^\*\*CI failed\*\*/);
    // Any job with `statuses: write` posts as github-actions[bot], as that CI does.
    sim.postStatus(sim.headOf(pr), 'ci/lint', 'success', 'github-actions[bot]');
    await deliver.checkSuite(BRANCH);
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'Debug', conclusion: 'failure' });
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, BRANCH)).toBe(false);
  });
});

describe('an escalation ends only by /coder resume or an architect’s approval', () => {
  it('a force-push of the fix onto the loop’s start commit does not drop it', async () => {
    const { sim, deliver, pr } = await escalated();
    const start = sim.pulls[0] && sim.commits.get(sim.headOf(pr));
    expect(start).toBeDefined();
    // The loop's start commit: the first commit of the branch (its parent is the default branch).
    let first = sim.headOf(pr);
    while (sim.commits.get(first)!.parents[0] !== sim.refs.get('master'))
      first = sim.commits.get(first)!.parents[0]!;
    sim.refs.set(BRANCH, first);
    sim.push(BRANCH, {
      'test/health.test.ts': 'test("health", () => {});\n',
      'src/health.ts': 'export const ok = true;\n',
    });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, BRANCH)).toBe(false);
    expect(replies(sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\*/);
    await deliver.review(pr.number, 'archie', 'approved');
    expect(completed(sim, BRANCH)).toBe(true);
  });
});

describe('the loop PR of a lock branch is found among every PR from it', () => {
  it('a second PR from the same branch to another base does not shadow the loop’s PR', async () => {
    const { sim, deliver, pr } = await started();
    sim.refs.set('release', sim.refs.get('master')!);
    // GitHub allows one open PR per head and base: a writer opens one to another base.
    sim.pulls.push({
      number: 40,
      title: 'shadow',
      body: '',
      head: BRANCH,
      base: 'release',
      state: 'open',
      merged: false,
      labels: new Set(),
      requested: [],
      author: 'reviewer1',
    });
    await deliver.ci(BRANCH, 'success');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
  });
});

describe('the record stays within GitHub’s limits whatever the input', () => {
  it('an issue too long for the record gets a clear reply, and nothing is written', async () => {
    const { sim, deliver } = await world();
    // 12,000 dashes: each is escaped in the record, which would pass GitHub's 65,535 characters.
    await deliver.label('coder:quick', { title: 'Fix the typo', body: '-'.repeat(12_000) });
    expect(replies(sim)).toEqual([
      expect.stringMatching(/^The issue’s text is too long for quick mode/),
    ]);
    expect(sim.refs.has('coder/quick/issue-1')).toBe(false);
    expect(sim.pulls).toEqual([]);
  });

  it('a long issue that fits is kept whole, and its PR is judged', async () => {
    const { sim, deliver } = await world();
    await deliver.label('coder:quick', { title: 'Fix the typo', body: '-'.repeat(3_000) });
    const pr = sim.pulls[0]!;
    sim.push(pr.head, { 'src/typo.ts': 'export const greeting = "Hello";\n' });
    await deliver.ci(pr.head, 'success');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ conclusion: 'success' });
  });
});
