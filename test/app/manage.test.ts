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
  recordOnHead,
  sha,
  testProbot,
  writes,
} from '../helpers/github.js';
import { restError, restRef } from '../helpers/rest.js';
import { examplePayload } from '../helpers/payloads.js';
import { requestLog, transport } from '../helpers/openapi.js';
import { CHECKLIST, examplePlanFiles } from '../helpers/plans.js';
import { SimGitHub } from '../sim/github.js';

function comment(body: string, onPullRequest = false, commentId?: number) {
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = body;
  // Each command a comment of its own (one comment delivered again is taken once).
  if (commentId !== undefined) payload.comment.id = commentId;
  if (!onPullRequest) delete payload.issue.pull_request;
  else
    payload.issue.pull_request = {
      url: `${API}${BASE}/pulls/1`,
      html_url: '',
      diff_url: '',
      patch_url: '',
    };
  return { id: `d-${body}`, name: 'issue_comment' as const, payload };
}
const eyes = () =>
  nock(API).post(`${BASE}/issues/comments/492700400/reactions`).reply(201, created.reaction());
const pullJson = (n: number, ref: string, body: string) => loopPull(n, ref, body);

beforeEach(beforeScenario);
afterEach(afterScenario);

describe('/coder status', () => {
  it('replies with phases, tasks and the current lock and PR, and writes nothing else', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    permission('Codertocat', 'write');
    eyes();
    nock(API)
      .get(`${BASE}/git/ref/${encodeURIComponent('heads/coder/example/phase-1')}`)
      .reply(200, restRef('refs/heads/coder/example/phase-1', sha('x')))
      .get(`${BASE}/pulls`)
      .query({ head: `${OWNER}:coder/example/phase-1`, state: 'open', per_page: '100', page: '1' })
      .reply(200, [pullJson(7, 'coder/example/phase-1', '')])
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    // The PR shown is read for a CI stall: its head's checks, and its commits for the record.
    const head = pullJson(7, 'coder/example/phase-1', '').head.sha;
    nock(API)
      .get(`${BASE}/commits/${head}/check-runs`)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .get(`${BASE}/commits/${head}/statuses`)
      .query(true)
      .reply(200, [])
      .get(`${BASE}/pulls/7/commits`)
      .query(true)
      .reply(200, []);
    await (await testProbot()).receive(comment('/coder status'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    const reply = (bodyOf('POST', '/issues/1/comments') as { body: string }).body;
    expect(reply).toContain('- **Phase 1: Endpoint** (0/3) ← current');
    expect(reply).toContain('  - [ ] 1\\.2 Route and handler');
    expect(reply).toContain('Phase 1 is locked by `coder/example/phase-1`, pull request #7.');
  });

  it('answers again from the plans it parsed, by blob sha: no blob read twice, edits seen at once', async () => {
    // A checklist no other test has (the cache is per process and keyed by content).
    const files = examplePlanFiles();
    files[CHECKLIST] += '\nNotes for the cache test.\n';
    const sim = new SimGitHub(files);
    transport.fetch = sim.fetch;
    sim.permissions.set('Codertocat', 'write');
    const probot = await testProbot();
    const blobReads = () => requestLog.filter((r) => r.path.includes('/git/blobs/')).length;
    const lastReply = () => sim.comments[sim.comments.length - 1]!.body;

    await probot.receive(comment('/coder status', false, 6001));
    const first = blobReads();
    expect(first).toBeGreaterThan(0);
    expect(lastReply()).toContain('- **Phase 1: Endpoint** (0/3) ← current');
    await probot.receive(comment('/coder status', false, 6002));
    expect(blobReads()).toBe(first);
    expect(lastReply()).toContain('- **Phase 1: Endpoint** (0/3) ← current');

    // A changed checklist is a new blob: read and parsed again.
    const checklist = sim.files('master')[CHECKLIST]!;
    sim.push('master', { [CHECKLIST]: checklist.replace('- [ ] 1.1', '- [x] 1.1') });
    await probot.receive(comment('/coder status', false, 6003));
    expect(blobReads()).toBeGreaterThan(first);
    expect(lastReply()).toContain('- **Phase 1: Endpoint** (1/3) ← current');

    // Commands that write still read every file they edit.
    const before = blobReads();
    await probot.receive(comment('/coder next', false, 6004));
    expect(blobReads()).toBeGreaterThan(before);
    expect(sim.refs.has('coder/example/phase-1')).toBe(true);
  });
});

describe('/coder release', () => {
  it("on the issue: closes the loop PR of this issue and deletes its branch; other issues' locks stay", async () => {
    permission('Codertocat', 'write');
    eyes();
    nock(API)
      .get(`${BASE}/git/matching-refs/${encodeURIComponent('heads/coder/')}`)
      .reply(200, [
        restRef('refs/heads/coder/example/phase-1', sha('a')),
        restRef('refs/heads/coder/other/phase-2', sha('b')),
      ])
      .get(`${BASE}/pulls`)
      .query({ state: 'open', per_page: '100', page: '1' })
      .reply(200, [
        pullJson(
          7,
          'coder/example/phase-1',
          '<!-- coder-loop {"mode":"plan","plan":"Example","phase":1,"issue":1} -->',
        ),
        pullJson(
          8,
          'coder/other/phase-2',
          '<!-- coder-loop {"mode":"plan","plan":"Other","phase":2,"issue":5} -->',
        ),
      ])
      .patch(`${BASE}/pulls/7`, { state: 'closed' })
      .reply(200, pullJson(7, 'coder/example/phase-1', ''))
      .delete(`${BASE}/git/refs/${encodeURIComponent('heads/coder/example/phase-1')}`)
      .reply(204)
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    // Which issue a loop PR belongs to is what its record says, whatever its body says.
    recordOnHead(sha('coder/example/phase-1'), {
      mode: 'plan',
      pr: 7,
      branch: 'coder/example/phase-1',
      plan: 'Example',
      phase: 1,
      issue: 1,
    });
    recordOnHead(sha('coder/other/phase-2'), {
      mode: 'plan',
      pr: 8,
      branch: 'coder/other/phase-2',
      plan: 'Other',
      phase: 2,
      issue: 5,
    });
    await (await testProbot()).receive(comment('/coder release'));
    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `PATCH ${BASE}/pulls/7`,
      `DELETE ${BASE}/git/refs/heads%2Fcoder%2Fexample%2Fphase-1`,
      `POST ${BASE}/issues/1/comments`,
    ]);
    expect((bodyOf('POST', '/issues/1/comments') as { body: string }).body).toBe(
      'Released: pull request #7 closed and branch `coder/example/phase-1` deleted. The phase is free again; nothing on the default branch changed.',
    );
  });

  it('says so when there is nothing to release', async () => {
    permission('Codertocat', 'write');
    eyes();
    nock(API)
      .get(`${BASE}/git/matching-refs/${encodeURIComponent('heads/coder/')}`)
      .reply(200, [])
      .get(`${BASE}/pulls`)
      .query({ state: 'open', per_page: '100', page: '1' })
      .reply(200, [])
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    await (await testProbot()).receive(comment('/coder release'));
    expect((bodyOf('POST', '/issues/1/comments') as { body: string }).body).toBe(
      'There is no coder-loop lock for this issue to release.',
    );
  });

  it('on a loop PR: closes that PR and deletes its branch', async () => {
    permission('Codertocat', 'write');
    eyes();
    nock(API)
      .get(`${BASE}/pulls/1`)
      .reply(200, pullJson(1, 'coder/quick/issue-3', ''))
      .patch(`${BASE}/pulls/1`, { state: 'closed' })
      .reply(200, pullJson(1, 'coder/quick/issue-3', ''))
      .delete(`${BASE}/git/refs/${encodeURIComponent('heads/coder/quick/issue-3')}`)
      .reply(422, restError('Reference does not exist'))
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    await (await testProbot()).receive(comment('/coder release', true));
    expect(writes()).toContain(`PATCH ${BASE}/pulls/1`);
  });
});
