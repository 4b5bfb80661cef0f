import nock from 'nock';
import {
  afterScenario,
  API,
  BASE,
  beforeScenario,
  bodyOf,
  created,
  FakeRepo,
  loopPull,
  OWNER,
  permission,
  sha,
  testProbot,
  writes,
} from '../helpers/github.js';
import { restError, restIssue, restRef } from '../helpers/rest.js';
import { examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles, MASTER_LOG } from '../helpers/plans.js';

const BRANCH = 'coder/quick/issue-1';
const START = sha('quick-start');

function mockQuickWrites({ tree = false, reaction = true } = {}) {
  const scope = nock(API);
  if (reaction)
    scope.post(`${BASE}/issues/comments/492700400/reactions`).reply(201, created.reaction());
  if (tree) scope.post(`${BASE}/git/trees`).reply(201, created.tree(sha('qt')));
  scope
    .post(`${BASE}/git/commits`)
    .reply(201, created.commit(START))
    .post(`${BASE}/git/refs`)
    .reply(201, restRef(`refs/heads/${BRANCH}`, START))
    .post(`${BASE}/pulls`)
    .reply(201, created.pull(9, START))
    .post(`${BASE}/issues/1/comments`)
    .reply(201, created.comment(2, 1))
    .post(`${BASE}/check-runs`)
    .reply(201, created.checkRun(3));
}

/** GitHub's issue as it is now: open, with the quick label on it (a label start reads it). */
function issueNow(payload: { issue: { number: number; title: string; body?: string | null } }) {
  const { number, title, body } = payload.issue;
  nock(API)
    .get(`${BASE}/issues/${number}`)
    .reply(
      200,
      restIssue({ number, title, body: body ?? '', author: 'Codertocat', labels: ['coder:quick'] }),
    );
}

function quickComment(title: string, body: string | null = null) {
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = '/coder quick';
  payload.issue.title = title;
  payload.issue.body = body;
  return { id: 'd-quick', name: 'issue_comment' as const, payload };
}

beforeEach(beforeScenario);
afterEach(afterScenario);

describe('quick mode', () => {
  it('/coder quick: branch coder/quick/issue-N, a PR that says Fixes #N, no plan file touched', async () => {
    const repo = new FakeRepo(examplePlanFiles());
    repo.mount();
    permission('Codertocat', 'write');
    mockQuickWrites();
    await (await testProbot()).receive(quickComment('Fix typo in README'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/git/commits`,
      `POST ${BASE}/git/refs`,
      `POST ${BASE}/pulls`,
      `POST ${BASE}/issues/1/comments`,
      `POST ${BASE}/check-runs`,
    ]);
    // An empty commit on the default head: the PR needs a commit, the plan needs no change.
    expect(bodyOf('POST', '/git/commits')).toMatchObject({
      tree: repo.treeSha,
      parents: [repo.head],
    });
    expect(bodyOf('POST', '/git/refs')).toEqual({ ref: `refs/heads/${BRANCH}`, sha: START });
    const pr = bodyOf('POST', '/pulls') as { title: string; body: string; head: string };
    expect(pr.title).toBe('[coder] Quick: Fix typo in README');
    expect(pr.head).toBe(BRANCH);
    expect(pr.body).toContain('Fixes #1');
    const reply = (bodyOf('POST', '/issues/1/comments') as { body: string }).body;
    expect(reply).toBe(
      '**Quick mode**: branch `coder/quick/issue-1`, pull request #9. CI is the gate; no plan bookkeeping.',
    );
  });

  it('proceeds when the assessment calls it plan work, and says why it would not have', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    permission('Codertocat', 'write');
    mockQuickWrites();
    await (
      await testProbot()
    ).receive(quickComment('Implement OAuth login', 'Redesign the session architecture'));
    const reply = (bodyOf('POST', '/issues/1/comments') as { body: string }).body;
    expect(reply).toContain(
      'The assessment would have chosen **plan mode**; proceeding because quick mode was asked for:',
    );
    expect(reply).toContain('- New feature implementation: the text says "Implement"');
    expect(reply).toContain('- Refactoring with architectural impact: the text says "Redesign"');
  });

  it('with quick.log, one master-log entry on the quick branch', async () => {
    const files = examplePlanFiles();
    new FakeRepo(files, 'master', 'quick:\n  log: true\n').mount();
    permission('Codertocat', 'write');
    mockQuickWrites({ tree: true });
    await (await testProbot()).receive(quickComment('Fix typo'));
    const tree = bodyOf('POST', '/git/trees') as { tree: { path: string; content: string }[] };
    expect(tree.tree.map((t) => t.path)).toEqual([MASTER_LOG]);
    expect(tree.tree[0]!.content).toBe(
      `${files[MASTER_LOG]}- 2026-11-22T12:00:00.000Z — **Quick mode started** — Example — @Codertocat — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );
  });

  it('the coder:quick label starts it too, and an untrusted title is escaped in the PR body', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    permission('Codertocat', 'write');
    mockQuickWrites({ reaction: false });
    const payload = examplePayload('issues', 'labeled');
    payload.label.name = 'coder:quick';
    payload.issue.title = 'Typo <img src=x onerror=alert(1)> @everyone';
    issueNow(payload);
    await (await testProbot()).receive({ id: 'd-label', name: 'issues', payload });
    const pr = bodyOf('POST', '/pulls') as { body: string };
    expect(pr.body).toContain(
      'Quick mode for #1: Typo \\<img src=x onerror=alert\\(1\\)\\> @\u200beveryone',
    );
    expect(pr.body).toContain(`Fixes #${payload.issue.number}`);
  });

  it('ignores other labels without a write', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    const payload = examplePayload('issues', 'labeled');
    await (await testProbot()).receive({ id: 'd-bug', name: 'issues', payload });
    expect(writes()).toEqual([]);
  });

  it('a second quick label on a running quick PR does nothing', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    permission('Codertocat', 'write');
    nock(API)
      .post(`${BASE}/git/commits`)
      .reply(201, created.commit(sha('again')))
      .post(`${BASE}/git/refs`)
      .reply(422, restError('Reference already exists'))
      .get(`${BASE}/git/ref/${encodeURIComponent(`heads/${BRANCH}`)}`)
      .reply(200, restRef(`refs/heads/${BRANCH}`, START))
      .get(`${BASE}/pulls`)
      .query({ head: `${OWNER}:${BRANCH}`, state: 'open', per_page: '100', page: '1' })
      .reply(200, [loopPull(9, BRANCH, '<!-- coder-loop {"mode":"quick","issue":1} -->', START)]);
    const payload = examplePayload('issues', 'labeled');
    payload.label.name = 'coder:quick';
    issueNow(payload);
    await (await testProbot()).receive({ id: 'd-label-2', name: 'issues', payload });
    expect(writes()).toEqual([`POST ${BASE}/git/commits`, `POST ${BASE}/git/refs`]);
  });
});
