import nock from 'nock';
import { afterScenario, beforeScenario, OWNER, REPO } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { asPerson, BRANCH, replies, started, world } from '../helpers/world.js';
import type { SimGitHub, SimPull } from '../sim/github.js';

/**
 * Never act twice: an old event delivered again (GitHub's redelivery, the Action's workflow run
 * re-run) is about the pull request and head it was sent for, never about whatever holds the same
 * lock branch name now.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** A writer closes a loop PR without merging it (GitHub keeps its last head). */
function closeUnmerged(sim: SimGitHub, pr: SimPull) {
  (pr as SimPull & { lastHead?: string }).lastHead = sim.headOf(pr);
  pr.state = 'closed';
}

describe('an old close of a phase PR, delivered again after the phase started over', () => {
  it('does not delete the lock branch of the phase’s new PR', async () => {
    const { sim, deliver, pr } = await started();
    // A writer closes the phase PR without merging: the loop frees the lock.
    closeUnmerged(sim, pr);
    const close = deliver.pullRequestEvent('closed', pr.number);
    await deliver.probotReceive(close);
    expect(sim.refs.has(BRANCH)).toBe(false);
    // `/coder next` again: the same phase, a new lock branch of the same name, a new PR.
    await deliver.comment('/coder next');
    const again = sim.pulls.find((p) => p !== pr && p.state === 'open')!;
    expect(again.head).toBe(BRANCH);
    const head = sim.refs.get(BRANCH)!;
    // The old close, delivered again.
    await deliver.probotReceive({ ...close, id: `${close.id}-again` });
    expect(sim.refs.get(BRANCH)).toBe(head);
  });
});

describe('/coder release on the thread of a phase PR closed before', () => {
  it('does not release the lock of the phase’s new PR on the same branch', async () => {
    const { sim, deliver, pr } = await started();
    closeUnmerged(sim, pr);
    await deliver.pullRequest('closed', pr.number);
    await deliver.comment('/coder next');
    const again = sim.pulls.find((p) => p !== pr && p.state === 'open')!;
    const head = sim.refs.get(BRANCH)!;
    // A writer's `/coder release` on the old, closed PR's conversation (or that command's run
    // re-run): a real `issue_comment.created` on a pull request.
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = '/coder release';
    payload.comment.id = 4242;
    payload.comment.user.login = 'Codertocat';
    payload.sender.login = 'Codertocat';
    payload.issue.number = pr.number;
    payload.issue.pull_request = {
      url: `https://api.github.com/repos/Codertocat/Hello-World/pulls/${pr.number}`,
      html_url: `https://github.com/Codertocat/Hello-World/pull/${pr.number}`,
      diff_url: `https://github.com/Codertocat/Hello-World/pull/${pr.number}.diff`,
      patch_url: `https://github.com/Codertocat/Hello-World/pull/${pr.number}.patch`,
    };
    await deliver.probotReceive({ id: 'c-release', name: 'issue_comment', payload });
    expect(again.state).toBe('open');
    expect(sim.refs.get(BRANCH)).toBe(head);
  });
});

describe('a command delivered again (GitHub redelivers it, or its workflow run is re-run)', () => {
  it('/coder next after its phase merged: the next phase is not taken', async () => {
    const { sim, deliver, pr } = await started('autoMerge: true\n');
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    await deliver.ci(BRANCH, 'success');
    expect(pr.merged).toBe(true);
    await deliver.pullRequest('closed', pr.number);
    const said = sim.comments.length;
    // The `/coder next` that started Phase 1 (comment 1001), delivered again.
    await deliver.comment('/coder next', { commentId: 1001 });
    expect(sim.pulls).toHaveLength(1);
    expect(sim.refs.has('coder/example/phase-2')).toBe(false);
    expect(sim.comments).toHaveLength(said);
    // Commented again, it is a new command: Phase 2 starts.
    await deliver.comment('/coder next');
    expect(sim.pulls).toHaveLength(2);
    expect(sim.refs.has('coder/example/phase-2')).toBe(true);
  });

  it('the 👀 made but its answer lost: the command says it could not finish; commented again, it runs', async () => {
    const { sim, deliver } = await world();
    sim.faultsAfter.add('POST /reactions');
    // The delivery fails (the App answers GitHub with an error), after its reply.
    await expect(deliver.comment('/coder next')).rejects.toThrow('after the write took effect');
    expect(sim.pulls).toHaveLength(0);
    expect(replies(sim).at(-1)).toMatch(/^`\/coder next` could not finish: /);
    await deliver.comment('/coder next');
    expect(sim.pulls).toHaveLength(1);
  });
});

describe('the quick label’s event delivered again (a label event names no comment to claim)', () => {
  const QUICK = 'coder:quick';
  const branch = 'coder/quick/issue-1';

  it('after its quick PR merged and closed the issue: no second quick PR', async () => {
    const { sim, deliver } = await world();
    await deliver.label(QUICK, { title: 'Fix the typo' });
    const pr = sim.pulls[0]!;
    expect(pr.body).toContain('Fixes #1');
    sim.push(branch, { 'src/typo.ts': 'export const greeting = "Hello";\n' });
    await deliver.ci(branch, 'success');
    // A person merges it (quick mode has no completion of its own); "Fixes #1" closes the issue.
    await asPerson(sim, 'Codertocat').request(
      'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
      { owner: OWNER, repo: REPO, pull_number: pr.number },
    );
    await deliver.pullRequest('closed', pr.number);
    expect(sim.issuesClosed.has(1)).toBe(true);
    const said = sim.comments.length;
    await deliver.labelDelivered(QUICK, { title: 'Fix the typo' });
    expect(sim.pulls).toHaveLength(1);
    expect(sim.refs.has(branch)).toBe(false);
    expect(sim.comments).toHaveLength(said);
  });

  /** Quick mode by the label, its PR then closed unmerged: the lock branch is free again. */
  async function quickClosed() {
    const w = await world();
    await w.deliver.label(QUICK, { title: 'Fix the typo' });
    const pr = w.sim.pulls[0]!;
    closeUnmerged(w.sim, pr);
    await w.deliver.pullRequest('closed', pr.number);
    expect(w.sim.refs.has(branch)).toBe(false);
    return w;
  }

  it('after its PR was closed and the label taken off: nothing starts', async () => {
    const { sim, deliver } = await quickClosed();
    sim.issueLabels.get(1)!.delete(QUICK);
    await deliver.labelDelivered(QUICK, { title: 'Fix the typo' });
    expect(sim.pulls).toHaveLength(1);
    expect(sim.refs.has(branch)).toBe(false);
  });

  it('the label still on the open issue, its PR closed: it starts again, as a new label would', async () => {
    const { sim, deliver } = await quickClosed();
    await deliver.labelDelivered(QUICK, { title: 'Fix the typo' });
    expect(sim.pulls).toHaveLength(2);
    expect(sim.refs.has(branch)).toBe(true);
  });
});

describe('an approval heard late: after the same reviewer asked for changes on that head', () => {
  it('completes nothing: the reviewer’s latest verdict, as GitHub lists it, is the change request', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    // reviewer1 approves; the delivery of that approval is held up (or delivered again later).
    sim.listReview(pr.number, 'reviewer1', 'APPROVED', head, 9901);
    const payload = examplePayload('pull_request_review', 'submitted');
    payload.review.id = 9901;
    payload.review.state = 'approved';
    payload.review.commit_id = head;
    payload.review.user.login = 'reviewer1';
    payload.review.user.type = 'User';
    payload.pull_request = { ...payload.pull_request, ...sim.pullJson(pr) };
    // Then asks for changes on the same head; `/coder retry` brings the head back to Code Review.
    await deliver.review(pr.number, 'reviewer1', 'changes_requested', head);
    await deliver.comment('/coder retry');
    expect(sim.own(head)?.external_id).toBe('CodeReview');
    await deliver.probotReceive({ id: 'rv-late', name: 'pull_request_review', payload });
    expect(sim.files(sim.headOf(pr))[MASTER_LOG] ?? '').not.toContain('Coder completed');
    expect(sim.headOf(pr)).toBe(head);
  });
});
