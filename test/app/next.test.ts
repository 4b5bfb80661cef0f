import nock from 'nock';
import {
  afterScenario,
  API,
  BASE,
  beforeScenario,
  bodyOf,
  created,
  FakeRepo,
  permission,
  requestLog,
  sha,
  testProbot,
  writes,
} from '../helpers/github.js';
import { commentDelivery } from '../helpers/payloads.js';
import { CHECKLIST, examplePlanFiles, MASTER_LOG } from '../helpers/plans.js';

const START_COMMIT = sha('start');
const NEW_TREE = sha('new-tree');

/** The write mocks of a successful start, answering as GitHub does. */
function mockStartWrites(pr = 7) {
  return nock(API)
    .post(`${BASE}/issues/comments/492700400/reactions`)
    .reply(201, created.reaction())
    .post(`${BASE}/git/trees`)
    .reply(201, created.tree(NEW_TREE))
    .post(`${BASE}/git/commits`)
    .reply(201, created.commit(START_COMMIT))
    .post(`${BASE}/git/refs`)
    .reply(201, created.ref())
    .post(`${BASE}/pulls`)
    .reply(201, created.pull(pr, START_COMMIT))
    .post(`${BASE}/issues/1/comments`)
    .reply(201, created.comment(99, 1))
    .post(`${BASE}/check-runs`)
    .reply(201, created.checkRun(555));
}

describe('/coder next (App)', () => {
  beforeEach(beforeScenario);
  afterEach(afterScenario);

  it('locks the phase with one branch, marks [~] and logs in one commit, opens the PR and the check run', async () => {
    const files = examplePlanFiles();
    new FakeRepo(files).mount();
    permission('Codertocat', 'write');
    mockStartWrites();
    const probot = await testProbot();
    await probot.receive(commentDelivery('/coder next'));

    expect(writes()).toEqual([
      `POST ${BASE}/issues/comments/492700400/reactions`,
      `POST ${BASE}/git/trees`,
      `POST ${BASE}/git/commits`,
      `POST ${BASE}/git/refs`,
      `POST ${BASE}/pulls`,
      `POST ${BASE}/issues/1/comments`,
      `POST ${BASE}/check-runs`,
    ]);

    // One tree: the checklist with exactly the phase's [ ] boxes turned to [~], byte for byte, and the log.
    const tree = bodyOf('POST', '/git/trees') as {
      base_tree: string;
      tree: { path: string; content: string }[];
    };
    expect(tree.base_tree).toBe(new FakeRepo(files).treeSha);
    expect(tree.tree.map((t) => t.path)).toEqual([CHECKLIST, MASTER_LOG]);
    const before = files[CHECKLIST]!;
    const expected = before
      .replace('- [ ] 1.1 Test', '- [~] 1.1 Test')
      .replace('- [ ] 1.2 Route', '- [~] 1.2 Route')
      .replace('  - [ ] 1.2.1 Register', '  - [~] 1.2.1 Register');
    expect(tree.tree[0]!.content).toBe(expected);
    expect([...before].filter((c, i) => c !== tree.tree[0]!.content[i])).toEqual([' ', ' ', ' ']);
    expect(tree.tree[1]!.content).toBe(
      `${files[MASTER_LOG]}- 2026-11-22T12:00:00.000Z — **Coder started** — Example, Phase 1: Endpoint — @Codertocat — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );

    const commit = bodyOf('POST', '/git/commits') as {
      message: string;
      tree: string;
      parents: string[];
    };
    expect(commit.tree).toBe(NEW_TREE);
    expect(commit.parents).toEqual([new FakeRepo(files).head]);
    expect(commit.message).toMatch(/^coder-loop: Example Phase 1 — Endpoint — Coder started\n/);

    expect(bodyOf('POST', '/git/refs')).toEqual({
      ref: 'refs/heads/coder/example/phase-1',
      sha: START_COMMIT,
    });

    const pr = bodyOf('POST', '/pulls') as {
      title: string;
      head: string;
      base: string;
      body: string;
    };
    expect(pr).toMatchObject({
      title: '[coder] Example: Phase 1 — Endpoint',
      head: 'coder/example/phase-1',
      base: 'master',
    });
    expect(pr.body).toContain('Refs #1');
    expect(pr.body).toContain('- [~] 1.1 Test: `GET /health` answers 200');
    expect(pr.body).toContain('> 1. Write the failing test for R1');
    expect(pr.body).toContain(
      '[01_Master Plan/03_Requirements_Health.md](https://github.com/Codertocat/Hello-World/blob/coder/example/phase-1/docs/plans/Example/01_Master%20Plan/03_Requirements_Health.md)',
    );
    expect(pr.body).toContain('Codemap: [01_Master Plan/10_Master_Codemap.mmd]');

    const reply = bodyOf('POST', '/issues/1/comments') as { body: string };
    expect(reply.body).toContain('**Coder started** on Phase 1 — Endpoint of `Example`');
    expect(reply.body).toContain('pull request #7');

    const check = bodyOf('POST', '/check-runs') as {
      name: string;
      head_sha: string;
      status: string;
      output: { title: string; text: string };
    };
    expect(check).toMatchObject({
      name: 'coder-loop',
      head_sha: START_COMMIT,
      status: 'in_progress',
    });
    expect(check.output.text).toContain('```mermaid');
    expect(check.output.text).toContain('class TDD current');

    // Reads: each once.
    const reads = requestLog.filter((r) => r.method === 'GET').map((r) => r.path);
    expect(new Set(reads).size).toBe(reads.length);
    expect(requestLog.filter((r) => !r.path.includes('access_tokens')).length).toBeLessThanOrEqual(
      16,
    );
  });
});
