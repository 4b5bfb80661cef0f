import nock from 'nock';
import { decodeRecord, readMarker, updateMarker, withRecord } from '../../src/core/index.js';
import { dispatch, type LoopEnv } from '../../src/github/loop/index.js';
import { afterScenario, beforeScenario, CI_APP, NOW, OWNER, REPO } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, simLoopEnv, world } from '../helpers/world.js';
import type { SimGitHub, SimPull } from '../sim/github.js';

/**
 * With the default `GITHUB_TOKEN` the loop's record is any job's to write (docs/security.md,
 * "Needs an architect, in reduced mode"): what needs an architect is decided only from what no job
 * can write. The base a PR is judged against is one such fact: a job that writes a record naming
 * another base, with the PR's base switched to it, hides nothing.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const CONFIG = 'locked: ["src/core/**"]\narchitects: [archie]\n';

/** The loop as the Action runs it with the default GITHUB_TOKEN: github-actions[bot]. */
function withWorkflowToken(sim: SimGitHub) {
  sim.tokenApp = { id: CI_APP.id, slug: CI_APP.slug };
  return simLoopEnv(sim, {
    token: 'ghs_token',
    identity: { login: 'github-actions[bot]', app: { id: CI_APP.id, slug: CI_APP.slug } },
    now: () => NOW,
  });
}

/** A personal access token's loop: its record is the PR body's marker, GitHub refusing it check runs. */
function withPersonalToken(sim: SimGitHub) {
  sim.checkRunsRefused = 'Resource not accessible by personal access token';
  sim.actingAs = 'pat-user';
  sim.permissions.set('pat-user', 'write');
  return simLoopEnv(sim, { token: 'ghp_loop', identity: { login: 'pat-user' }, now: () => NOW });
}

/**
 * The phase started; a writer's branch `decoy` holds the locked change alone and the lock branch
 * merges it, with the code and its test; the PR's base is switched to `decoy`, and `forge` makes
 * the record name it. CI passes, a writer approves: what the approval comes to.
 */
async function approvedOverForgedBase(
  mode: (sim: SimGitHub) => LoopEnv,
  forge: (env: LoopEnv, sim: SimGitHub, pr: SimPull, head: string) => Promise<void>,
) {
  const { sim } = await world(CONFIG, { 'src/core/auth.ts': 'export const strict = true;\n' });
  const env = mode(sim);
  const next = examplePayload('issue_comment', 'created');
  next.comment.body = '/coder next';
  delete next.issue.pull_request;
  expect((await dispatch(env, 'issue_comment', next)).state).toBe('started');
  const pr = sim.pulls[0]!;
  const master = sim.refs.get('master')!;
  const decoy = sim.commit(
    { ...sim.files(master), 'src/core/auth.ts': 'export const strict = false;\n' },
    [master],
    'decoy',
  );
  sim.refs.set('decoy', decoy);
  const lock = sim.refs.get(BRANCH)!;
  const planFiles = Object.fromEntries(
    Object.entries(sim.files(master)).filter(([path]) => path.startsWith('docs/plans/')),
  );
  const merge = sim.commit(
    {
      ...sim.files(lock),
      ...planFiles,
      'src/core/auth.ts': 'export const strict = false;\n',
      'test/a.test.ts': 'test\n',
      'src/a.ts': 'a\n',
    },
    [lock, decoy],
    'work',
  );
  sim.commits.get(merge)!.author = 'dev-pusher';
  sim.refs.set(BRANCH, merge);
  sim.recordRef(BRANCH, lock, merge, 'dev-pusher');
  pr.base = 'decoy';
  await forge(env, sim, pr, merge);
  sim.ci(merge, 'success', 'build');
  const ci = examplePayload('check_suite', 'completed');
  ci.check_suite.head_branch = BRANCH;
  ci.check_suite.head_sha = merge;
  await dispatch(env, 'check_suite', ci);
  sim.listReview(pr.number, 'reviewer1', 'APPROVED', merge);
  const review = examplePayload('pull_request_review', 'submitted');
  review.review.state = 'approved';
  review.review.commit_id = merge;
  review.review.user.login = 'reviewer1';
  review.pull_request = { ...review.pull_request, ...sim.pullJson(pr) };
  const outcome = await dispatch(env, 'pull_request_review', review);
  return { sim, outcome };
}

describe('with the default GITHUB_TOKEN, a record naming another base decides nothing', () => {
  it('a job’s record names a base that holds the locked change, the PR switched to it: a writer’s approval completes nothing', async () => {
    const { sim, outcome } = await approvedOverForgedBase(
      withWorkflowToken,
      async (env, sim, _pr, head) => {
        // A job's record, on the head, names the base.
        const own = sim.checkRuns.filter((r) => r.name === 'coder-loop').at(-1)!;
        const marker = decodeRecord(own.output?.text, own.head_sha)!;
        await env.gh.request('POST /repos/{owner}/{repo}/check-runs', {
          owner: OWNER,
          repo: REPO,
          name: 'coder-loop',
          head_sha: head,
          status: 'in_progress',
          external_id: own.external_id ?? 'Verification',
          output: {
            title: own.output?.title ?? 'Verification',
            summary: own.output?.summary ?? '',
            text: withRecord(own.output?.text, { ...marker, base: 'decoy' }, head),
          },
        });
      },
    );
    expect(outcome.state).not.toBe('completing');
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
  });
});

describe('with a personal access token, the PR body’s record names no base the loop takes', () => {
  it('a writer edits the marker’s base to a branch holding the locked change, the PR switched to it: the approval completes nothing', async () => {
    const { sim, outcome } = await approvedOverForgedBase(withPersonalToken, async (_e, _s, pr) => {
      const marker = readMarker(pr.body)!;
      expect(marker.base).toBe('master');
      pr.body = updateMarker(pr.body, { ...marker, base: 'decoy' });
    });
    expect(outcome.state).not.toBe('completing');
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
  });
});
