import nock from 'nock';
import {
  afterScenario,
  API,
  BASE,
  beforeScenario,
  created,
  FakeRepo,
  loopPull,
  OWNER,
  requestLog,
  SECONDARY_RATE_LIMIT,
  sha,
  testProbot,
  writes,
} from '../helpers/github.js';
import { restError, restGitCommit, restPermission, restRef } from '../helpers/rest.js';
import { commentDelivery } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';

const BRANCH = 'coder/example/phase-1';
const refPath = `${BASE}/git/ref/${encodeURIComponent(`heads/${BRANCH}`)}`;
const marker = (comment: number) =>
  `<!-- coder-loop {"mode":"plan","plan":"Example","phase":1,"issue":1,"comment":${comment}} -->`;
const pull = (n: number, comment: number, head: string) =>
  loopPull(n, BRANCH, marker(comment), head);

/**
 * A tiny stateful GitHub for the writes of a start: refs are created atomically (422 when they
 * exist), one open PR per head. Each test says how it misbehaves.
 */
class Writes {
  refs = new Map<string, string>();
  pulls: ReturnType<typeof pull>[] = [];
  commits = 0;
  constructor(options: { pullFailsAfterCreate?: boolean } = {}) {
    const scope = nock(API).persist();
    scope.post(/\/issues\/comments\/\d+\/reactions$/).reply(201, created.reaction());
    scope.post(`${BASE}/git/trees`).reply(201, created.tree(sha('tree')));
    scope
      .post(`${BASE}/git/commits`)
      .reply(201, (uri, body) =>
        created.commit(sha(`commit-${++this.commits}`))(uri, body as Record<string, unknown>),
      );
    scope.post(`${BASE}/git/refs`).reply((_uri, body) => {
      const { ref, sha: target } = body as { ref: string; sha: string };
      if (this.refs.has(ref)) return [422, restError('Reference already exists')];
      this.refs.set(ref, target);
      return [201, restRef(ref, target)];
    });
    scope.get(refPath).reply(() => {
      const target = this.refs.get(`refs/heads/${BRANCH}`);
      return target
        ? [200, restRef(`refs/heads/${BRANCH}`, target)]
        : [404, restError('Not Found')];
    });
    let failedOnce = false;
    scope.post(`${BASE}/pulls`).reply((_uri, body) => {
      const { head, body: text } = body as { head: string; body: string };
      if (this.pulls.some((p) => p.head.ref === head)) {
        return [
          422,
          {
            message: 'Validation Failed',
            errors: [
              {
                resource: 'PullRequest',
                code: 'custom',
                message: `A pull request already exists for ${OWNER}:${head}.`,
              },
            ],
            documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
          },
        ];
      }
      const comment = Number(/"comment":(\d+)/.exec(text)?.[1]);
      this.pulls.push(pull(7 + this.pulls.length, comment, this.refs.get(`refs/heads/${head}`)!));
      if (options.pullFailsAfterCreate && !failedOnce) {
        failedOnce = true;
        return [502, restError('Server Error')];
      }
      return [201, this.pulls[this.pulls.length - 1]];
    });
    scope
      .get(`${BASE}/pulls`)
      .query(true)
      .reply(() => [200, this.pulls]);
    scope.get(/\/git\/commits\/[0-9a-f]{40}$/).reply((uri) => {
      const commit = uri.split('/').pop();
      const comment = commit === this.refs.get(`refs/heads/${BRANCH}`) ? this.startedBy : 0;
      return [200, restGitCommit(commit!, `start\n\n${marker(comment)}`, sha('tree'), [])];
    });
    scope.post(`${BASE}/issues/1/comments`).reply(201, (uri, body) => {
      this.replies.push((body as { body: string }).body);
      return created.comment(1, 1)(uri, body as Record<string, unknown>);
    });
    scope.post(`${BASE}/check-runs`).reply(201, created.checkRun(1));
  }
  startedBy = 0;
  replies: string[] = [];
}

beforeEach(beforeScenario);
afterEach(afterScenario);

describe('never act twice', () => {
  it('the same delivery twice: one branch, one PR, one start commit on the branch, one reply', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    nock(API)
      .persist()
      .get(`${BASE}/collaborators/Codertocat/permission`)
      .reply(200, restPermission('Codertocat', 'write', 'write'));
    const github = new Writes();
    const probot = await testProbot();
    const event = commentDelivery('/coder next', { login: 'Codertocat', id: 1001 });
    await probot.receive(event);
    await probot.receive(event);
    expect([...github.refs.keys()]).toEqual([`refs/heads/${BRANCH}`]);
    expect(github.pulls).toHaveLength(1);
    expect(github.replies).toHaveLength(1);
    expect(writes().filter((w) => w.endsWith('/pulls') || w.endsWith('/check-runs'))).toEqual([
      `POST ${BASE}/pulls`,
      `POST ${BASE}/check-runs`,
    ]);
  });

  it('two /coder next at once: one branch, one PR; the other is told it is locked', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    for (const login of ['alice', 'bob']) {
      nock(API)
        .persist()
        .get(`${BASE}/collaborators/${login}/permission`)
        .reply(200, restPermission('Codertocat', 'write', 'write'));
    }
    const github = new Writes();
    const probot = await testProbot();
    await Promise.all([
      probot.receive(commentDelivery('/coder next', { login: 'alice', id: 2001 })),
      probot.receive(commentDelivery('/coder next', { login: 'bob', id: 2002 })),
    ]);
    expect([...github.refs.keys()]).toEqual([`refs/heads/${BRANCH}`]);
    expect(github.pulls).toHaveLength(1);
    expect(github.replies).toHaveLength(2);
    expect(github.replies.filter((r) => r.startsWith('**Coder started**'))).toHaveLength(1);
    expect(github.replies.filter((r) => r.startsWith('**Locked.**'))).toHaveLength(1);
  });

  it('a 5xx after the PR was created: the retried create finds it and does not duplicate', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    nock(API)
      .get(`${BASE}/collaborators/Codertocat/permission`)
      .reply(200, restPermission('Codertocat', 'admin', 'admin'));
    const github = new Writes({ pullFailsAfterCreate: true });
    const probot = await testProbot();
    await probot.receive(commentDelivery('/coder next', { login: 'Codertocat', id: 3001 }));
    expect(github.pulls).toHaveLength(1);
    expect(
      requestLog
        .filter((r) => r.method === 'POST' && r.path.endsWith('/pulls'))
        .map((r) => r.status),
    ).toEqual([502, 422]);
    expect(github.replies).toEqual([expect.stringContaining('pull request #7')]);
  });

  it('resumes its own earlier delivery that took the lock and stopped before the PR', async () => {
    new FakeRepo(examplePlanFiles()).mount();
    nock(API)
      .get(`${BASE}/collaborators/Codertocat/permission`)
      .reply(200, restPermission('Codertocat', 'write', 'write'));
    const github = new Writes();
    github.refs.set(`refs/heads/${BRANCH}`, sha('earlier-start'));
    github.startedBy = 4001;
    const probot = await testProbot();
    await probot.receive(commentDelivery('/coder next', { login: 'Codertocat', id: 4001 }));
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]!.head.sha).toBe(sha('earlier-start'));
    expect(github.replies).toEqual([expect.stringMatching(/^\*\*Coder started\*\*/)]);
  });

  it('waits out a secondary rate limit (403 with retry-after) and then replies once', async () => {
    nock(API)
      .get(`${BASE}/collaborators/Codertocat/permission`)
      .reply(200, restPermission('Codertocat', 'write', 'write'));
    nock(API).post(`${BASE}/issues/comments/5001/reactions`).reply(201, created.reaction());
    nock(API)
      .post(`${BASE}/issues/1/comments`)
      .reply(SECONDARY_RATE_LIMIT.status, SECONDARY_RATE_LIMIT.body, SECONDARY_RATE_LIMIT.headers)
      .post(`${BASE}/issues/1/comments`)
      .reply(201, created.comment(2, 1));
    const probot = await testProbot({ throttle: 'real' });
    await probot.receive(commentDelivery('/coder help', { login: 'Codertocat', id: 5001 }));
    expect(
      requestLog.filter((r) => r.path.endsWith('/issues/1/comments')).map((r) => r.status),
    ).toEqual([403, 201]);
  }, 20_000);
});
