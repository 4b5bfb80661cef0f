import nock from 'nock';
import { decodeRecord } from '../../src/core/index.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { requestLog } from '../helpers/github.js';
import { BRANCH, progressComments, replies, started, world } from '../helpers/world.js';

/**
 * Every create is safe to retry. GitHub may carry a create out and answer 502 all the same (or
 * its answer may be lost on the way), and the client tries again: a comment or a check run,
 * which GitHub takes no idempotency key for, is looked for before it is made a second time.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const creates = (path: string) =>
  requestLog.filter((r) => r.method === 'POST' && r.path.endsWith(path)).length;

describe('a create GitHub carried out, answered 502', () => {
  it('the "CI failed" reply: said once, and the event goes on', async () => {
    const { sim, deliver } = await started();
    sim.faultsAfter.add('POST /issues/1/comments');
    await deliver.ci(BRANCH, 'failure');
    expect(replies(sim).filter((r) => r.startsWith('**CI failed**'))).toHaveLength(1);
    // The record went on: attempt 1 spent on that head.
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.attempts).toHaveLength(1);
  });

  it('the start’s check run: one on the head, holding the record', async () => {
    const { sim, deliver } = await world();
    sim.faultsAfter.add('POST /check-runs');
    await deliver.comment('/coder next');
    const head = sim.refs.get(BRANCH)!;
    const own = sim.checkRuns.filter((r) => r.head_sha === head && r.name === 'coder-loop');
    expect(own).toHaveLength(1);
    expect(decodeRecord(own[0]!.output?.text, head)).toMatchObject({ phase: 1, issue: 1 });
    expect(creates('/check-runs')).toBe(1);
  });

  it('a run’s progress comment and its reply: one each, and the record keeps that comment', async () => {
    const { sim, deliver } = await world();
    sim.faultsAfter.add('POST /issues/1/comments');
    await deliver.comment('/coder run Example');
    expect(progressComments(sim)).toHaveLength(1);
    expect(replies(sim)).toHaveLength(1);
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.run?.progress).toBe(
      progressComments(sim)[0]!.id,
    );
  });

  it('the approval’s "approved" reply: said once', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    sim.faultsAfter.add('POST /issues/1/comments');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(replies(sim).filter((r) => r.includes('approved**'))).toHaveLength(1);
  });

  it('another’s comment with the same text is not taken for the loop’s', async () => {
    const { sim, deliver } = await world();
    const said =
      '**Coder started** on Phase 1 — Endpoint of `Example`: tasks marked `[~]` on branch `coder/example/phase-1`, pull request #2. Push the implementation there, test first; CI is the gate and a review completes the phase.';
    // A writer posts the very text the loop is about to say; the loop's own create then fails
    // without being carried out, and is made on the retry.
    sim.comments.push({ issue: 1, body: said, id: 9001, author: 'Codertocat' });
    sim.faults.set('POST /issues/1/comments', 502);
    await deliver.comment('/coder next');
    expect(
      sim.comments.filter((c) => c.body === said).map((c) => sim.commentJson(c).user?.login),
    ).toEqual(['Codertocat', 'coder-loop[bot]']);
  });
});
