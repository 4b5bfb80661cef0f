import { ActionOctokit } from '../../src/action/octokit.js';
import { commentOnIssue } from '../../src/github/issues.js';
import { OWNER, REPO } from '../helpers/github.js';
import {
  checkedFetch,
  NOCK_TRANSPORT,
  requestLog,
  resetRequestLog,
  transport,
  violations,
} from '../helpers/openapi.js';
import { SimGitHub } from '../sim/github.js';

/** The Action's client: a comment GitHub made though it answered 502 is not made again. */

afterEach(() => {
  transport.fetch = NOCK_TRANSPORT;
  resetRequestLog();
});

const repo = { owner: OWNER, repo: REPO };

function actionClient() {
  const sim = new SimGitHub({ 'README.md': 'hi\n' });
  transport.fetch = sim.fetch;
  sim.actingAs = 'loop-user';
  const gh = new ActionOctokit({
    auth: 'ghp_loop',
    request: { fetch: checkedFetch },
    retry: { retryAfterBaseValue: 1 },
  });
  return { sim, gh };
}

const posts = () => requestLog.filter((r) => r.method === 'POST').length;

describe("the Action's client: a comment is made once", () => {
  it('carried out, answered 502: found on the thread, not made again, its id answered', async () => {
    const { sim, gh } = actionClient();
    sim.faultsAfter.add('POST /issues/1/comments');
    const id = await commentOnIssue(gh, repo, 1, 'Phase 1 done.', async () => 'loop-user');
    expect(sim.comments.map((c) => [c.id, c.body])).toEqual([[id, 'Phase 1 done.']]);
    expect(posts()).toBe(1);
    expect(violations).toEqual([]);
  });

  it('refused with 502 (not carried out): made on the retry', async () => {
    const { sim, gh } = actionClient();
    sim.faults.set('POST /issues/1/comments', 502);
    const id = await commentOnIssue(gh, repo, 1, 'Phase 1 done.', async () => 'loop-user');
    expect(sim.comments.map((c) => [c.id, c.body])).toEqual([[id, 'Phase 1 done.']]);
    expect(posts()).toBe(2);
  });

  it('answered at once: the thread is never read, nor who the loop is asked', async () => {
    const { sim, gh } = actionClient();
    let asked = 0;
    await commentOnIssue(gh, repo, 1, 'Phase 1 done.', async () => {
      asked++;
      return 'loop-user';
    });
    expect(sim.comments).toHaveLength(1);
    expect(requestLog.map((r) => r.method)).toEqual(['POST']);
    expect(asked).toBe(0);
  });
});
