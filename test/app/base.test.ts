import nock from 'nock';
import { afterScenario, beforeScenario, requestLog } from '../helpers/github.js';
import { CHECKLIST, MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, started } from '../helpers/world.js';

/**
 * The base the loop opened its PR against is the loop's to keep (its record names it): any
 * writer can switch a PR's base, and against another base GitHub lists another diff — one that
 * leaves out a change to a locked item. A PR whose base is not the recorded one is not judged.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const CONFIG = 'locked: ["src/core/**"]\narchitects: [archie]\nautoMerge: true\n';

/** A writer's locked change, an innocent commit on top, and the base switched to hide the first. */
async function hidden() {
  const w = await started(CONFIG, { 'src/core/auth.ts': 'export const strict = true;\n' });
  const { sim, deliver, pr } = w;
  const locked = sim.push(BRANCH, { 'src/core/auth.ts': 'export const strict = false;\n' });
  await deliver.pullRequest('synchronize', pr.number);
  sim.push(BRANCH, {
    'src/health.ts': 'export const ok = 1;\n',
    'test/health.test.ts': 'test("health", () => { expect(1).toBe(1); });\n',
  });
  await deliver.pullRequest('synchronize', pr.number);
  sim.refs.set('decoy', locked);
  pr.base = 'decoy';
  return w;
}

const completed = (files: Record<string, string>) =>
  (files[MASTER_LOG] ?? '').includes('Coder completed');

describe('a PR whose base is not the one the loop opened it against is not judged', () => {
  it('the base switched to hide a locked change: a writer’s approval completes nothing, and nothing merges once it is set back', async () => {
    const { sim, deliver, pr } = await hidden();
    const head = sim.headOf(pr);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.headOf(pr)).toBe(head);
    expect(completed(sim.files(sim.headOf(pr)))).toBe(false);
    expect(sim.own(head)?.conclusion).not.toBe('success');
    // Set back: the approval is judged on the PR's whole diff, and the locked change shows.
    pr.base = 'master';
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(pr.merged).toBe(false);
    expect(completed(sim.files(sim.headOf(pr)))).toBe(false);
    expect(sim.files('master')[CHECKLIST]).toContain('- [ ] 1.1');
    expect(sim.comments.at(-1)!.body).toContain('locked: `src/core/auth.ts`');
  });

  it('no judgement while the base is another: no check run, and one reply saying why, not one per event', async () => {
    const { sim, deliver, pr } = await hidden();
    const before = requestLog.length;
    const said = sim.comments.length;
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    await deliver.ci(BRANCH, 'success');
    await deliver.comment('/coder retry');
    const writes = requestLog.slice(before).filter(
      (r) =>
        r.method !== 'GET' &&
        !r.path.includes('/access_tokens') &&
        // The 👀 on the command is no judgement.
        !r.path.endsWith('/reactions'),
    );
    expect(writes.filter((r) => !r.path.includes('/comments'))).toEqual([]);
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
    const base = sim.comments.slice(said).filter((c) => c.body.includes('now targets `decoy`'));
    expect(base.map((c) => c.issue)).toEqual([pr.number]);
    expect(base[0]!.body).toContain('until the base is set back to `master`');
  });
});

describe('pull_request.edited with a new base', () => {
  it('switched away: said once (a redelivery says nothing more); set back: the approval given meanwhile is judged', async () => {
    const { sim, deliver, pr } = await started(CONFIG);
    const head = sim.headOf(pr);
    sim.refs.set('decoy', head);
    const from = { ref: 'master', sha: sim.refs.get('master')! };
    pr.base = 'decoy';
    const edited = deliver.baseEdited(pr.number, from);
    await deliver.probotReceive(edited);
    await deliver.probotReceive(edited);
    const told = () => sim.comments.filter((c) => c.body.includes('now targets `decoy`'));
    expect(told().length).toBe(1);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(told().length).toBe(1);
    expect(completed(sim.files(sim.headOf(pr)))).toBe(false);
    // Set back (GitHub's `edited` again, from `decoy`): judged as it stands, and it completes.
    pr.base = 'master';
    await deliver.probotReceive(
      deliver.baseEdited(pr.number, { ref: 'decoy', sha: sim.refs.get('decoy')! }),
    );
    expect(completed(sim.files(sim.headOf(pr)))).toBe(true);
    expect(sim.commits.get(sim.headOf(pr))!.parents).toEqual([head]);
  });

  it('the set-back heard again (its run re-run) after the branch moved on: the old head is not judged', async () => {
    const { sim, deliver, pr } = await started(CONFIG);
    const old = sim.headOf(pr);
    sim.refs.set('decoy', old);
    pr.base = 'decoy';
    await deliver.probotReceive(
      deliver.baseEdited(pr.number, { ref: 'master', sha: sim.refs.get('master')! }),
    );
    pr.base = 'master';
    const setBack = deliver.baseEdited(pr.number, { ref: 'decoy', sha: old });
    await deliver.probotReceive(setBack);
    // The coder pushes on; the old head's CI (for the lock branch) goes red afterwards, which the
    // loop, hearing it, leaves alone: it is not the head.
    sim.push(BRANCH, { 'src/health.ts': 'export const ok = 2;\n' });
    await deliver.pullRequest('synchronize', pr.number);
    sim.ci(old, 'failure', 'build', undefined, { runFor: { branch: BRANCH } });
    const comments = sim.comments.length;
    const writes = sim.writes.length;
    // A writer re-runs the loop's old run of the set-back (GitHub keeps its payload).
    await deliver.probotReceive({ ...setBack, id: `${setBack.id}-rerun` });
    expect(sim.writes.slice(writes)).toEqual([]);
    expect(sim.comments.length).toBe(comments);
  });

  it('the set-back heard again after the base was switched away again: nothing is judged', async () => {
    const { sim, deliver, pr } = await started(CONFIG);
    const head = sim.headOf(pr);
    sim.refs.set('decoy', head);
    pr.base = 'decoy';
    const away = deliver.baseEdited(pr.number, { ref: 'master', sha: sim.refs.get('master')! });
    await deliver.probotReceive(away);
    pr.base = 'master';
    const setBack = deliver.baseEdited(pr.number, { ref: 'decoy', sha: head });
    await deliver.probotReceive(setBack);
    pr.base = 'decoy';
    await deliver.probotReceive({ ...away, id: `${away.id}-again` });
    // CI and an approval meanwhile: against the decoy base nothing of it is judged.
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    const writes = sim.writes.length;
    await deliver.probotReceive({ ...setBack, id: `${setBack.id}-rerun` });
    expect(sim.writes.slice(writes)).toEqual([]);
    expect(completed(sim.files(sim.headOf(pr)))).toBe(false);
  });

  it('an outsider’s or a bot’s edit writes nothing', async () => {
    const { sim, deliver, pr } = await started(CONFIG);
    sim.refs.set('decoy', sim.headOf(pr));
    pr.base = 'decoy';
    const before = requestLog.length;
    const from = { ref: 'master', sha: sim.refs.get('master')! };
    await deliver.probotReceive(deliver.baseEdited(pr.number, from, { login: 'mallory' }));
    await deliver.probotReceive(
      deliver.baseEdited(pr.number, from, { login: 'github-actions[bot]' }),
    );
    expect(
      requestLog
        .slice(before)
        .filter((r) => r.method !== 'GET' && !r.path.includes('/access_tokens')),
    ).toEqual([]);
  });
});

describe('autoMerge asks GitHub to merge only a PR whose base is the recorded one', () => {
  it('the base switched between the loop’s read and its merge: nothing merges', async () => {
    const { sim, deliver, pr } = await started(CONFIG);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim.files(sim.headOf(pr)))).toBe(true);
    // Final Verification: green CI on the completion commit. Just before the merge call (after
    // every read the event made), a writer switches the base to a branch of their own.
    sim.refs.set('decoy', sim.headOf(pr));
    sim.beforeRequest = (method, path) => {
      if (method === 'GET' && path.endsWith(`/pulls/${pr.number}`) && pr.base === 'master') {
        pr.base = 'decoy';
        sim.beforeRequest = undefined;
      }
    };
    await deliver.ci(BRANCH, 'success');
    expect(pr.merged).toBe(false);
    expect(requestLog.some((r) => r.method === 'PUT' && r.path.endsWith('/merge'))).toBe(false);
  });
});

describe('the completion reads the base again before it marks the phase done', () => {
  it('the base switched after the approval event was read: no completion commit', async () => {
    const { sim, deliver, pr } = await started(CONFIG, {
      'src/core/auth.ts': 'export const strict = true;\n',
    });
    const locked = sim.push(BRANCH, { 'src/core/auth.ts': 'export const strict = false;\n' });
    await deliver.pullRequest('synchronize', pr.number);
    sim.push(BRANCH, {
      'src/health.ts': 'export const ok = 1;\n',
      'test/health.test.ts': 'test("health", () => { expect(1).toBe(1); });\n',
    });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    sim.refs.set('decoy', locked);
    // The review's payload names the recorded base; the base is switched before the files are read.
    sim.beforeRequest = (method, path) => {
      if (method === 'GET' && path.includes(`/pulls/${pr.number}/files`)) {
        pr.base = 'decoy';
        sim.beforeRequest = undefined;
      }
    };
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.headOf(pr)).toBe(head);
    expect(completed(sim.files(sim.headOf(pr)))).toBe(false);
  });
});
