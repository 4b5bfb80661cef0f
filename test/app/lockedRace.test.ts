import nock from 'nock';
import { afterScenario, beforeScenario, requestLog, writes } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';
import type { SimGitHub, SimPull } from '../sim/github.js';

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const LOCKED = 'architects: [archie]\nlocked: ["src/core/**"]\n';

/** `n` documentation pages, one file each. */
const pages = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`docs/page-${i}.md`, `page ${i}\n`]));

/**
 * A phase started with `config`; a writer pushes `changes` and CI passes on them: the head
 * before the push, and the green head (`approved`, once a reviewer approves it).
 */
async function green(config: string, changes: Record<string, string>) {
  const w = await started(config);
  const before = w.sim.headOf(w.pr);
  w.sim.push(BRANCH, changes);
  await w.deliver.ci(BRANCH, 'success');
  return { ...w, before, approved: w.sim.headOf(w.pr) };
}

describe('a locked change never completes without an architect', () => {
  it('the branch force-pushed back past the locked change after the approval: the locked change does not reach the default branch', async () => {
    // A writer pushes a locked change; CI passes on it.
    const { sim, deliver, pr, before, approved } = await green(`${LOCKED}autoMerge: true\n`, {
      'src/core/engine.ts': 'changed\n',
    });
    // reviewer1 (no architect) approves that head: GitHub's event names the PR as it stood then.
    const payload = approvalPayload(sim, pr, approved);
    // Before the loop handles it, the writer force-pushes the branch back to the commit before
    // the locked change: the PR's files no longer show it.
    sim.refs.set(BRANCH, before);
    sim.recordRef(BRANCH, approved, before, 'dev-pusher');
    await deliver.probotReceive({ id: 'rv-race', name: 'pull_request_review', payload });
    // Final verification on whatever the branch holds now, then autoMerge.
    await deliver.ci(BRANCH, 'success');
    // The locked change must not reach the default branch without an architect: the approved
    // head is judged by its own files, which touch a locked path, so it goes to an architect.
    expect(sim.files('master')['src/core/engine.ts']).toBeUndefined();
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(sim.refs.get(BRANCH)).toBe(before);
    expect(replies(sim)).toContain(
      '**Escalated to architect** (pull request #2): locked paths touched, and @reviewer1 is not an architect.',
    );
  });

  it('the branch force-pushed back after the approval: the approval of the head it left completes nothing', async () => {
    const { sim, deliver, pr, before, approved } = await green('autoMerge: true\n', {
      'src/more.ts': 'export const more = 1;\n',
    });
    const payload = approvalPayload(sim, pr, approved);
    sim.refs.set(BRANCH, before);
    sim.recordRef(BRANCH, approved, before, 'dev-pusher');
    await deliver.probotReceive({ id: 'rv-back', name: 'pull_request_review', payload });
    // The completion is written on the approved head only while the branch is there: the branch
    // stays where the writer put it, and the thread names the head that was approved.
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(sim.refs.get(BRANCH)).toBe(before);
    expect(sim.files('master')['src/more.ts']).toBeUndefined();
    expect(sim.comments.map((c) => c.body).join('\n')).toContain(approved.slice(0, 7));
  });

  it('the branch moved back and forth around the read of the files: the approved head is judged by its own diff', async () => {
    const { sim, deliver, pr, before, approved } = await green(LOCKED, {
      'src/core/engine.ts': 'changed\n',
    });
    // While the loop reads what the PR changes, the branch is at the commit before the locked
    // change (a force-push); right after, at the approved head again (another).
    const moved = aroundFilesRead(sim, before, approved);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(moved()).toBe(true);
    expect(sim.refs.get(BRANCH)).toBe(approved);
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(replies(sim)).toContain(
      '**Escalated to architect** (pull request #2): locked paths touched, and @reviewer1 is not an architect.',
    );
  });

  it('the branch force-pushed to another history holding a locked change: a writer’s approval completes nothing', async () => {
    const { sim, deliver, pr } = await started(LOCKED);
    // A commit of its own history: every file of the head, and the locked change among them.
    const orphan = sim.commit(
      { ...sim.files(sim.headOf(pr)), 'src/core/engine.ts': 'changed\n' },
      [],
      'another history',
    );
    sim.commits.get(orphan)!.author = 'dev-pusher';
    sim.recordRef(BRANCH, sim.headOf(pr), orphan, 'dev-pusher');
    sim.refs.set(BRANCH, orphan);
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(BRANCH, 'success');
    const from = requestLog.length;
    await deliver.review(pr.number, 'reviewer1', 'approved');
    // The head's history holds none of the loop's commits: no record of the loop's there, so
    // nothing is judged on it, and nothing is written.
    expect(writes(requestLog.slice(from))).toEqual([]);
    expect(sim.refs.get(BRANCH)).toBe(orphan);
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
  });

  it('more files than GitHub compares (300): the paths are the approved head’s own, read from its tree', async () => {
    const { sim, deliver, pr, before, approved } = await green(LOCKED, {
      ...pages(320),
      'src/core/engine.ts': 'changed\n',
    });
    // The PR's files list is read while the branch is back before all of them.
    const moved = aroundFilesRead(sim, before, approved, (path) =>
      /\/pulls\/\d+\/files/.test(path),
    );
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(moved()).toBe(true);
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
    expect(replies(sim)).toContain(
      '**Escalated to architect** (pull request #2): locked paths touched, and @reviewer1 is not an architect.',
    );
    // The comparison listed 300 of them; the PR's files list was read (at another head) too.
    const read = requestLog.map((r) => r.path);
    expect(read.some((path) => path.includes('/compare/'))).toBe(true);
    expect(read.some((path) => /\/pulls\/2\/files/.test(path))).toBe(true);
  });

  it('more files than GitHub compares (300), none locked: the approval completes the phase', async () => {
    const { sim, deliver, pr } = await green(LOCKED, pages(320));
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.files(BRANCH)[MASTER_LOG]).toContain('Coder completed');
  });
});

/**
 * While the loop reads what the PR changes (`read`: the comparison, or the PR's files list), the
 * branch is at `before`; at the next request, at `approved` again. Returns whether it moved.
 */
function aroundFilesRead(
  sim: SimGitHub,
  before: string,
  approved: string,
  read = (path: string) => /\/pulls\/\d+\/files$/.test(path) || path.includes('/compare/'),
): () => boolean {
  let moved = false;
  sim.beforeRequest = (method, path) => {
    if (method === 'GET' && read(path)) {
      sim.refs.set(BRANCH, before);
      moved = true;
    } else if (moved) {
      sim.refs.set(BRANCH, approved);
      sim.beforeRequest = undefined;
    }
  };
  return () => moved;
}

/** GitHub's `pull_request_review.submitted`: reviewer1 approves `head`, the PR as it stood then. */
function approvalPayload(sim: SimGitHub, pr: SimPull, head: string) {
  sim.listReview(pr.number, 'reviewer1', 'APPROVED', head, 9999);
  const payload = examplePayload('pull_request_review', 'submitted');
  payload.review.id = 9999;
  payload.review.state = 'approved';
  payload.review.commit_id = head;
  payload.review.user.login = 'reviewer1';
  payload.review.user.type = 'User';
  payload.sender.login = 'reviewer1';
  payload.pull_request = { ...payload.pull_request, ...sim.pullJson(pr) };
  return payload;
}
