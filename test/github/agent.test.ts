import { ActionOctokit } from '../../src/action/octokit.js';
import { buildAgentPayload } from '../../src/core/index.js';
import { sendAgentDispatch } from '../../src/github/agent.js';
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

afterEach(() => {
  transport.fetch = NOCK_TRANSPORT;
  resetRequestLog();
});

describe('the hand-off request', () => {
  it('sends one repository_dispatch coder-loop-agent with the payload, as GitHub documents it', async () => {
    const sim = new SimGitHub({ 'README.md': 'hi\n' });
    transport.fetch = sim.fetch;
    const gh = new ActionOctokit({ auth: 'ghs_x', request: { fetch: checkedFetch } });
    const payload = buildAgentPayload({
      node: 'review-fix',
      repo: { owner: OWNER, repo: REPO },
      branch: 'coder/example/phase-1',
      headSha: 'c'.repeat(40),
      pullRequest: 2,
      issue: 1,
      plan: { name: 'Example', phase: 1 },
      attempt: 2,
      agent: { command: 'aider', timeoutMinutes: 30, maxReviewRounds: 3, env: [] },
    });
    await sendAgentDispatch(gh, { owner: OWNER, repo: REPO }, payload);
    expect(violations).toEqual([]);
    expect(requestLog.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', `/repos/${OWNER}/${REPO}/dispatches`, 204],
    ]);
    expect(sim.dispatches).toEqual([{ event_type: 'coder-loop-agent', client_payload: payload }]);
  });
});
