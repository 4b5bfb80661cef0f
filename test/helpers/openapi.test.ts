import {
  answerVerdicts,
  checkAnswer,
  checkedFetch,
  NOCK_TRANSPORT,
  requestVerdicts,
  resetRequestLog,
  transport,
  violations,
} from './openapi.js';
import {
  REPO_API,
  restCheckRun,
  restIssueComment,
  restPull,
  restReaction,
  restUser,
} from './rest.js';
import { LOOP_APP, SECONDARY_RATE_LIMIT } from './github.js';

/**
 * The answer check: every answer a test gives on GitHub's behalf is validated against the
 * operation's response schema for its status — hand-written shapes fail, the builders' pass.
 */
const JSON_ACCEPT = { accept: 'application/vnd.github.v3+json' };
const answer = (method: string, path: string, status: number, body: unknown, extra = {}) =>
  checkAnswer(method, new URL(`${REPO_API}${path}`), JSON_ACCEPT, { status, body, ...extra });

describe("GitHub's answers, checked against the OpenAPI description", () => {
  it('a hand-written `{ id: 1 }` comment fails; the built one passes', () => {
    expect(answer('POST', '/issues/1/comments', 201, { id: 1 })).toEqual([
      expect.stringMatching(
        /POST .*\/issues\/1\/comments: the 201 answer \(issues\/create-comment\): body\/ must have required property/,
      ),
    ]);
    const built = restIssueComment({ id: 1, issue: 1, body: 'hi', author: 'coder-loop[bot]' });
    expect(answer('POST', '/issues/1/comments', 201, built)).toEqual([]);
  });

  it('a user with empty fields (`author: {}`) fails deep inside the body', () => {
    const reaction = { ...restReaction(1, 'eyes', 'coder-loop[bot]'), user: {} };
    const problems = answer('POST', '/issues/comments/9/reactions', 201, reaction);
    expect(problems).toEqual([expect.stringContaining('body/user must have required property')]);
  });

  it('formats are checked: an empty `url` is not a URI', () => {
    const comment = restIssueComment({ id: 1, issue: 1, body: '', author: 'a' });
    expect(answer('GET', '/issues/comments/1', 200, { ...comment, url: '' })).toEqual([
      expect.stringContaining('body/url must match format "uri"'),
    ]);
  });

  it("OpenAPI's `nullable` is honoured: a check run's null conclusion passes, a number does not", () => {
    const run = restCheckRun({
      id: 5,
      app: LOOP_APP,
      head_sha: 'a'.repeat(40),
      name: 'coder-loop',
      status: 'in_progress',
      conclusion: null,
      external_id: '',
      html_url: '',
    });
    expect(answer('PATCH', '/check-runs/5', 200, run)).toEqual([]);
    expect(answer('PATCH', '/check-runs/5', 200, { ...run, conclusion: 3 })).toEqual([
      expect.stringContaining('body/conclusion'),
    ]);
  });

  it('an enum is checked: a pull request in state "merged" is not one GitHub answers', () => {
    const pr = restPull({
      number: 7,
      title: 't',
      body: '',
      state: 'open',
      merged: false,
      labels: [],
      author: 'coder-loop[bot]',
      head: { ref: 'coder/x', sha: 'a'.repeat(40) },
      base: { ref: 'master', sha: 'b'.repeat(40) },
    });
    expect(answer('GET', '/pulls/7', 200, pr)).toEqual([]);
    expect(answer('GET', '/pulls/7', 200, { ...pr, state: 'merged' })).toEqual([
      expect.stringContaining('body/state must be equal to one of the allowed values'),
    ]);
  });

  it('a status the operation does not document fails', () => {
    expect(answer('GET', '/pulls/7', 418, { message: 'teapot' })).toEqual([
      expect.stringContaining('a 418 response is not documented for pulls/get'),
    ]);
  });

  it("an error whose body the description leaves out is checked as GitHub's error shape", () => {
    // `DELETE /git/refs/{ref}` documents its 422 without a body; GitHub's errors are JSON.
    const path = '/git/refs/heads%2Fx';
    expect(answer('DELETE', path, 422, { message: 'Reference does not exist' })).toEqual([]);
    expect(answer('DELETE', path, 422, { message: 42 })).toEqual([
      expect.stringContaining('body/message must be string'),
    ]);
    expect(answer('DELETE', path, 204, undefined)).toEqual([]);
    expect(answer('DELETE', path, 204, { deleted: true })).toEqual([
      expect.stringContaining('has a body; the description documents none'),
    ]);
  });

  it("a rate limit's 403 is allowed on any operation, its body checked as an error", () => {
    const limited = { rateLimited: true };
    const { status, body } = SECONDARY_RATE_LIMIT;
    expect(answer('POST', '/issues/1/comments', status, body, limited)).toEqual([]);
    expect(answer('POST', '/issues/1/comments', status, { message: [] }, limited)).toEqual([
      expect.stringContaining('body/message must be string'),
    ]);
  });

  it('the answers left unchecked are the ones the description has no schema for', () => {
    // A server error: its status is the contract (GitHub's proxies answer them in HTML too).
    expect(answer('GET', '/pulls/7', 502, '<html>Bad gateway</html>')).toEqual([]);
    // A file's bytes in the raw media type.
    const raw = checkAnswer(
      'GET',
      new URL(`${REPO_API}/contents/.github%2Fcoder.yml?ref=master`),
      { accept: 'application/vnd.github.raw+json' },
      { status: 200, body: 'reviewers: []\n' },
    );
    expect(raw).toEqual([]);
  });

  it('a user and a bot both pass where the description allows either', () => {
    for (const login of ['Codertocat', 'coder-loop[bot]']) {
      const comment = restIssueComment({ id: 2, issue: 1, body: 'x', author: login });
      expect(comment.user).toEqual(restUser(login));
      expect(answer('GET', '/issues/comments/2', 200, comment)).toEqual([]);
    }
  });
});

describe('the checked fetch reuses a verdict only for the same exchange', () => {
  const API = 'https://api.github.com/repos/Codertocat/Hello-World';
  const headers = {
    accept: 'application/vnd.github.v3+json',
    'x-github-api-version': '2022-11-28',
  };
  const built = restIssueComment({ id: 1, issue: 1, body: 'hi', author: 'coder-loop[bot]' });
  let answerBody: unknown;
  beforeEach(() => {
    resetRequestLog();
    transport.fetch = async () =>
      new Response(JSON.stringify(answerBody), {
        status: 201,
        headers: { 'content-type': 'application/json' },
      });
  });
  afterEach(() => {
    transport.fetch = NOCK_TRANSPORT;
    resetRequestLog();
  });
  const comment = (body: unknown) =>
    checkedFetch(`${API}/issues/1/comments`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });

  it('a bad request fails each time it is sent, also when its verdict is reused', async () => {
    answerBody = built;
    const reused = requestVerdicts.hits;
    await expect(comment({ bodie: 'hi' })).rejects.toThrow(/field "bodie" is not in/);
    const once = [...violations];
    expect(once).toContainEqual(expect.stringContaining('required field "body" is missing'));
    await expect(comment({ bodie: 'hi' })).rejects.toThrow(/field "bodie" is not in/);
    expect(requestVerdicts.hits).toBe(reused + 1);
    expect(violations).toEqual([...once, ...once]);
    // The same operation with another body is judged again: it passes.
    await comment({ body: 'hi' });
    expect(violations).toEqual([...once, ...once]);
  });

  it('a bad answer is reported each time it is given; another answer is judged again', async () => {
    answerBody = { id: 1 };
    const reused = answerVerdicts.hits;
    await comment({ body: 'hi' });
    await comment({ body: 'hi' });
    expect(answerVerdicts.hits).toBe(reused + 1);
    expect(violations).toEqual([
      expect.stringContaining('must have required property'),
      expect.stringContaining('must have required property'),
    ]);
    answerBody = built;
    await comment({ body: 'hi' });
    expect(violations).toHaveLength(2);
  });
});
