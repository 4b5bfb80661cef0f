import nock from 'nock';
import { decodeRecord, readMarker, withRecord } from '../../src/core/index.js';
import { dispatch } from '../../src/github/loop/index.js';
import { afterScenario, beforeScenario, NOW, sha } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { CHECKLIST } from '../helpers/plans.js';
import {
  BRANCH,
  isProgress,
  progressComments,
  replies,
  simLoopEnv,
  world,
} from '../helpers/world.js';
import type { Deliver } from '../sim/events.js';
import type { SimGitHub, SimPull } from '../sim/github.js';

/** `/coder run` and `/coder stop` (SPEC §3 item 12, §5; issue 23), against the in-memory GitHub. */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** The record on a head's own `coder-loop` check run (the only place the loop reads it from). */
function recordAt(sim: SimGitHub, sha: string) {
  return decodeRecord(sim.own(sha)?.output?.text, sha);
}

describe('/coder run', () => {
  it('starts the current phase as /coder next does, and the record carries the run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run Example');
    expect(sim.pulls.map((p) => [p.number, p.head])).toEqual([[2, BRANCH]]);
    expect([...sim.refs.keys()].filter((r) => r.startsWith('coder/'))).toEqual([BRANCH]);
    const record = recordAt(sim, sim.headOf(sim.pulls[0]!));
    expect(record).toMatchObject({ mode: 'plan', plan: 'Example', phase: 1, issue: 1 });
    expect(record!.run).toEqual({
      starter: 'Codertocat',
      plan: 'Example',
      startedAt: NOW.toISOString(),
      progress: progressComments(sim)[0]!.id,
    });
    expect(replies(sim)).toHaveLength(1);
    expect(progressComments(sim)).toHaveLength(1);
  });

  it('/coder next carries no run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder next');
    expect(recordAt(sim, sim.headOf(sim.pulls[0]!))!.run).toBeUndefined();
  });

  it('a reader cannot start a run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run', { login: 'stranger' });
    expect(sim.pulls).toEqual([]);
    expect(replies(sim)).toHaveLength(1);
  });
});

describe('/coder stop', () => {
  it('takes the run out of the open phase PR’s record, keeps its state, replies once', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    const head = sim.headOf(pr);
    const before = sim.own(head)!;
    await deliver.comment('/coder stop');
    expect(sim.headOf(pr)).toBe(head);
    expect(pr.state).toBe('open');
    const after = sim.own(head)!;
    expect(after.external_id).toBe(before.external_id);
    const record = recordAt(sim, head)!;
    expect(record.run).toBeUndefined();
    expect(record).toMatchObject({ mode: 'plan', plan: 'Example', phase: 1, issue: 1 });
    expect(replies(sim).slice(1)).toEqual([
      'Stopped the run of plan `Example`: pull request #2 stays as it is, and no phase starts after it. `/coder run` goes on.',
    ]);
    // Again: nothing left to stop, said once.
    await deliver.comment('/coder stop');
    expect(replies(sim).slice(2)).toEqual([
      'Pull request #2 is not part of a run (`/coder run`); nothing to stop.',
    ]);
    expect(sim.refs.has(BRANCH)).toBe(true);
  });

  it('without a loop PR: one reply, nothing written', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder stop');
    expect(replies(sim)).toEqual(['There is no open coder-loop pull request for this issue.']);
    expect(sim.pulls).toEqual([]);
  });
});

const PHASE_2 = 'coder/example/phase-2';

/** The coder's test and code pushed, CI green, an approval, final verification green. */
async function verified(sim: SimGitHub, deliver: Deliver, pr: SimPull, n: number) {
  sim.push(pr.head, {
    [`test/phase${n}.test.ts`]: `test("phase ${n}", () => {});\n`,
    [`src/phase${n}.ts`]: `export const done = ${n};\n`,
  });
  await deliver.pullRequest('synchronize', pr.number);
  await deliver.ci(pr.head, 'success');
  await deliver.review(pr.number, 'reviewer1', 'approved');
  const completion = sim.headOf(pr); // autoMerge may delete the branch with the merge
  await deliver.ci(pr.head, 'success');
  expect(sim.own(completion)).toMatchObject({ conclusion: 'success', external_id: 'End' });
}

/** A person merges the PR on GitHub (as the merge endpoint does), then GitHub sends `closed`. */
async function mergeByPerson(sim: SimGitHub, deliver: Deliver, pr: SimPull, login = 'Codertocat') {
  const head = sim.headOf(pr);
  const merge = sha(`merge-${pr.number}`);
  sim.commits.set(merge, {
    sha: merge,
    tree: sim.commits.get(head)!.tree,
    parents: [sim.refs.get(pr.base)!, head],
    message: `Merge pull request #${pr.number}`,
  });
  sim.refs.set(pr.base, merge);
  pr.merged = true;
  pr.state = 'closed';
  (pr as SimPull & { lastHead?: string }).lastHead = head;
  await deliver.pullRequest('closed', pr.number, { login });
}

const coderRefs = (sim: SimGitHub) => [...sim.refs.keys()].filter((r) => r.startsWith('coder/'));

describe('a run goes on after a merge', () => {
  it('phase 1 verified and merged by a person: phase 2 opens by itself, its record carries the run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run Example');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    const before = sim.comments.length;
    await mergeByPerson(sim, deliver, first);

    expect(sim.files('master')[CHECKLIST]).toContain('- [x] 1.1');
    expect(sim.pulls.map((p) => [p.number, p.head, p.state])).toEqual([
      [2, BRANCH, 'closed'],
      [3, PHASE_2, 'open'],
    ]);
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    const second = sim.pulls[1]!;
    const head = sim.headOf(second);
    expect(sim.commits.get(head)!.parents).toEqual([sim.refs.get('master')]);
    expect(sim.files(head)[CHECKLIST]).toContain('- [~] 2.1');
    expect(sim.files(head)[CHECKLIST]).toContain('- [x] 1.1');
    const record = recordAt(sim, head)!;
    expect(record).toMatchObject({ mode: 'plan', plan: 'Example', phase: 2, issue: 1 });
    expect(record.run).toEqual({
      starter: 'Codertocat',
      plan: 'Example',
      startedAt: NOW.toISOString(),
      totals: { failedAttempts: 0, minutes: 0, costUsd: 0 },
      progress: progressComments(sim)[0]!.id,
      phases: [
        {
          phase: 1,
          pr: 2,
          failedAttempts: 0,
          minutes: 0,
          costUsd: 0,
          counts: { agentRuns: 0, unpriced: 0, pauses: 0, pausedMinutes: 0, reruns: 0, flaky: 0 },
        },
      ],
    });
    expect(progressComments(sim)).toHaveLength(1);
    // The start's reply, the close's note in the same comment (one write, one notification):
    // nothing else.
    const said = sim.comments.slice(before).filter((c) => !isProgress(c.body));
    expect(said.map((c) => c.body)).toEqual([
      '**Coder started** on Phase 2 — Database probe of `Example`: tasks marked `[~]` on branch `coder/example/phase-2`, pull request #3. Push the implementation there, test first; CI is the gate and a review completes the phase.\n\nPull request #2 merged; branch `coder/example/phase-1` deleted.',
    ]);
    expect(second.number).toBe(3);

    // GitHub delivers the close again: no second start, nothing said.
    const after = sim.comments.length;
    await deliver.pullRequest('closed', first.number);
    expect(sim.pulls).toHaveLength(2);
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    expect(sim.comments.length).toBe(after + 1); // the close's own note only
  });

  it('/coder stop, then the merge: nothing starts, the stop is said once', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    await deliver.comment('/coder stop');
    const stopped = replies(sim).at(-1);
    await mergeByPerson(sim, deliver, first);
    expect(sim.pulls).toHaveLength(1);
    expect(coderRefs(sim)).toEqual([]);
    expect(stopped).toBe(
      'Stopped the run of plan `Example`: pull request #2 stays as it is, and no phase starts after it. `/coder run` goes on.',
    );
    expect(replies(sim).filter((r) => r.startsWith('Stopped the run'))).toHaveLength(1);
    // A later /coder run goes on with phase 2.
    await deliver.comment('/coder run');
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    expect(recordAt(sim, sim.headOf(sim.pulls[1]!))!.run?.starter).toBe('Codertocat');
  });

  it('phase 1’s close heard again (its run re-run) after /coder stop and phase 2’s merge: nothing starts', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run Example');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    await mergeByPerson(sim, deliver, first);
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    // The close of phase 1, as GitHub sent it (the Action's run of it keeps this payload).
    const close = deliver.pullRequestEvent('closed', first.number);
    const second = sim.pulls[1]!;
    await deliver.comment('/coder stop');
    await verified(sim, deliver, second, 2);
    await mergeByPerson(sim, deliver, second);
    expect(coderRefs(sim)).toEqual([]);
    // A writer re-runs the loop's old run of phase 1's close (or GitHub delivers it again).
    await deliver.probotReceive({ ...close, id: `${close.id}-rerun` });
    expect(sim.pulls).toHaveLength(2);
    expect(coderRefs(sim)).toEqual([]);
  });

  it('closed without merge: the run stops, said once', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    (first as SimPull & { lastHead?: string }).lastHead = sim.headOf(first);
    first.state = 'closed';
    await deliver.pullRequest('closed', first.number);
    expect(sim.pulls).toHaveLength(1);
    expect(coderRefs(sim)).toEqual([]);
    const stop =
      'The pull request of phase 1 was closed without merge: the run of plan `Example` stops. `/coder run` starts it again.';
    expect(replies(sim).at(-1)).toBe(stop);
    await deliver.pullRequest('closed', first.number);
    expect(replies(sim).filter((r) => r === stop)).toHaveLength(1);
  });

  it('the starter lost write access: the run stops after the merge', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run', { login: 'archie' });
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    sim.permissions.set('archie', 'read');
    await mergeByPerson(sim, deliver, first);
    expect(sim.pulls).toHaveLength(1);
    expect(coderRefs(sim)).toEqual([]);
    expect(replies(sim).at(-1)).toBe(
      '@archie, who started the run, no longer has write access: the run of plan `Example` stops.',
    );
  });

  it('autoMerge: the loop merges phase 1 and starts phase 2 itself', async () => {
    const { sim, deliver } = await world('autoMerge: true\n');
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    expect(first.merged).toBe(true);
    expect(sim.files('master')[CHECKLIST]).toContain('- [x] 1.1');
    expect(sim.pulls.map((p) => [p.head, p.state])).toEqual([
      [BRANCH, 'closed'],
      [PHASE_2, 'open'],
    ]);
    expect(recordAt(sim, sim.headOf(sim.pulls[1]!))).toMatchObject({
      phase: 2,
      run: { starter: 'Codertocat', plan: 'Example' },
    });
    // The loop's own `closed` event (from its bot identity) starts nothing more.
    await deliver.pullRequest('closed', first.number, { login: 'coder-loop[bot]' });
    expect(sim.pulls).toHaveLength(2);
    // The merged phase's lock branch went with the loop's merge (its `closed` event is ignored).
    expect(coderRefs(sim)).toEqual([PHASE_2]);
  });

  it('with an agent configured, the next phase is handed to it (TDD) like a /coder next start', async () => {
    const agent =
      'agent:\n  command: node examples/agents/scripted.mjs\n  env: [ANTHROPIC_API_KEY]\n';
    const { sim, deliver } = await world(agent);
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    await mergeByPerson(sim, deliver, first);
    const second = sim.pulls[1]!;
    expect([second.number, second.head]).toEqual([3, PHASE_2]);
    const tdd = sim.dispatches.filter((d) => (d.client_payload as { node: string }).node === 'tdd');
    expect(tdd.map((d) => d.client_payload)).toMatchObject([
      { node: 'tdd', branch: BRANCH, pullRequest: 2, phase: 1, attempt: 1 },
      {
        node: 'tdd',
        branch: PHASE_2,
        headSha: sim.headOf(second),
        pullRequest: 3,
        issue: 1,
        plan: 'Example',
        phase: 2,
        attempt: 1,
      },
    ]);
  });
});

describe('run gaps (issue 23)', () => {
  it('a budget spent on a green attempt escalates with the figures, not to code review', async () => {
    const { sim, deliver } = await world('budget:\n  agentMinutes:\n    phase: 30\n');
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    sim.push(pr.head, {
      'test/phase1.test.ts': 'test("phase 1", () => {});\n',
      'src/phase1.ts': 'export const done = 1;\n',
    });
    await deliver.pullRequest('synchronize', pr.number);
    // What `step: apply` records of the agent's run that made this head (docs/agent.md, "Usage").
    const head = sim.headOf(pr);
    const own = sim.own(head)!;
    const record = recordAt(sim, head)!;
    const run = { node: 'tdd' as const, sha: head, minutes: 31.5, usage: { costUsd: 1.25 } };
    own.output = {
      ...own.output,
      text: withRecord(own.output?.text, { ...record, agentRuns: [run] }, head),
    };
    await deliver.ci(pr.head, 'success');
    expect(sim.own(head)).toMatchObject({ conclusion: 'failure', external_id: 'Escalate' });
    expect(recordAt(sim, head)!.escalation?.reason).toBe(
      "The phase's budget of agent minutes is spent: 31.5 of 30",
    );
    expect(replies(sim).at(-1)).toBe(
      "**Escalated to architect** (pull request #2): The phase's budget of agent minutes is spent: 31.5 of 30.",
    );
    expect(pr.labels.has('coder:escalated')).toBe(true);
    expect(replies(sim).some((r) => r.startsWith('**CI passed**'))).toBe(false);
  });

  it('/coder run after /coder stop, the phase PR still open: the run goes on from it', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    await deliver.comment('/coder stop');
    await deliver.comment('/coder run', { login: 'archie' });
    expect(sim.pulls).toHaveLength(1);
    expect(replies(sim).at(-1)).toBe(
      '**Run resumed** on plan `Example`: phase 1 is open as pull request #2, which stays as it is; once it is merged, the next phase starts by itself.',
    );
    expect(recordAt(sim, sim.headOf(first))!.run).toEqual({
      starter: 'archie',
      plan: 'Example',
      startedAt: NOW.toISOString(),
      progress: progressComments(sim).at(-1)!.id,
    });
    // Said again: the run is going, nothing written.
    await deliver.comment('/coder run');
    expect(replies(sim).at(-1)).toBe(
      'The run of plan `Example` is going already: pull request #2.',
    );
    expect(recordAt(sim, sim.headOf(first))!.run!.starter).toBe('archie');
    await verified(sim, deliver, first, 1);
    await mergeByPerson(sim, deliver, first);
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    expect(recordAt(sim, sim.headOf(sim.pulls[1]!))!.run!.starter).toBe('archie');
  });

  it('/coder run when the open PR on the phase’s branch is not the loop’s: locked, nothing written', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder next');
    const first = sim.pulls[0]!;
    first.author = 'someone';
    await deliver.comment('/coder run');
    expect(replies(sim).at(-1)).toMatch(/^\*\*Locked\.\*\* Phase 1 /);
    expect(sim.pulls).toHaveLength(1);
  });

  it('a fork’s PR named like the next phase’s branch does not hold the run up', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    await verified(sim, deliver, first, 1);
    const fork = sim.forkPull(first, 'phase 2, from a fork');
    fork.head = PHASE_2;
    await mergeByPerson(sim, deliver, first);
    const opened = sim.pulls.filter((p) => !p.fork && p.state === 'open');
    expect(opened.map((p) => p.head)).toEqual([PHASE_2]);
    expect(coderRefs(sim)).toEqual([PHASE_2]);
    expect(recordAt(sim, sim.headOf(opened[0]!))).toMatchObject({
      phase: 2,
      run: { plan: 'Example' },
    });
  });
});

/**
 * The loop acting with a personal access token (the Action with a PAT): GitHub refuses it check
 * runs, so its record is the marker in its own PR's body (docs/security.md).
 */
function asPerson(sim: SimGitHub) {
  sim.checkRunsRefused = 'Resource not accessible by personal access token';
  sim.actingAs = 'pat-user';
  const env = simLoopEnv(sim, {
    token: 'ghp_token',
    identity: { login: 'pat-user' },
    now: () => NOW,
  });
  let n = 0;
  return {
    env,
    closed: (pr: SimPull) => dispatch(env, 'pull_request', deliverPr(sim, pr)),
    comment: (body: string) => {
      const payload = examplePayload('issue_comment', 'created');
      payload.comment.body = body;
      payload.comment.id = 5000 + ++n;
      payload.issue.number = 1;
      delete payload.issue.pull_request;
      return dispatch(env, 'issue_comment', payload);
    },
  };
}

describe('/coder stop with a personal access token (no check runs)', () => {
  it('takes the run out of the PR body’s record, once', async () => {
    const { sim } = await world();
    const pat = asPerson(sim);
    expect((await pat.comment('/coder run')).state).toBe('started');
    const pr = sim.pulls[0]!;
    expect(readMarker(pr.body)!.run).toMatchObject({ starter: 'Codertocat', plan: 'Example' });
    expect((await pat.comment('/coder stop')).state).toBe('run-stopped');
    expect(readMarker(pr.body)!.run).toBeUndefined();
    expect(readMarker(pr.body)).toMatchObject({ mode: 'plan', plan: 'Example', phase: 1 });
    expect((await pat.comment('/coder stop')).state).toBe('no-run');
    expect(sim.checkRuns.filter((r) => r.name === 'coder-loop')).toEqual([]);
  });

  it('a run that stops is taken out of the PR body’s record: a redelivery says nothing', async () => {
    const { sim } = await world();
    const pat = asPerson(sim);
    await pat.comment('/coder run');
    const pr = sim.pulls[0]!;
    (pr as SimPull & { lastHead?: string }).lastHead = sim.headOf(pr);
    pr.state = 'closed';
    expect((await pat.closed(pr)).state).toBe('run-closed-unmerged');
    expect(readMarker(pr.body)!.run).toBeUndefined();
    await pat.closed(pr);
    const stop = /^The pull request of phase 1 was closed without merge/;
    expect(replies(sim).filter((r) => stop.test(r))).toHaveLength(1);
  });
});

/** GitHub's `pull_request` `closed` payload for a PR, closed by Codertocat. */
function deliverPr(sim: SimGitHub, pr: SimPull) {
  const payload = examplePayload('pull_request', 'closed');
  payload.pull_request = { ...payload.pull_request, ...sim.pullJson(pr) };
  payload.sender.login = 'Codertocat';
  payload.sender.type = 'User';
  return payload;
}

describe('the progress comment (one, edited in place)', () => {
  const body = (sim: SimGitHub) => progressComments(sim)[0]!.body;
  const edits = (sim: SimGitHub) =>
    sim.writes.filter((w) => /PATCH .*\/issues\/comments\//.test(w));

  it('follows the run: one comment edited at each step, the check run links to it', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const first = sim.pulls[0]!;
    expect(progressComments(sim)).toHaveLength(1);
    const id = progressComments(sim)[0]!.id;
    expect(body(sim)).toContain(
      '| 1 — Endpoint | 🔄 Implementation (TDD) | #2 | 0 | 0 | 0 | 0 | 0 min | $0.00 |',
    );
    expect(sim.own(sim.headOf(first))!.output!.summary).toContain(
      `[the run's progress](https://github.com/Codertocat/Hello-World/issues/1#issuecomment-${id})`,
    );
    sim.push(first.head, {
      'test/a.test.ts': 'test("a", () => {});\n',
      'src/a.ts': 'export {};\n',
    });
    await deliver.pullRequest('synchronize', first.number);
    await deliver.ci(first.head, 'failure');
    expect(body(sim)).toContain(
      '| 1 — Endpoint | 🔄 Debug & Fix | #2 | 0 | 1 | 0 | 0 | 0 min | $0.00 |',
    );
    expect(body(sim)).toContain('waiting for a fix (a push: CI runs again)');
    // The same verdict delivered again: the text is unchanged, nothing is written.
    const before = edits(sim).length;
    await deliver.ci(first.head, 'failure');
    expect(edits(sim)).toHaveLength(before);
    // The failed job passes on its re-run on the same head: flaky, its attempt taken back.
    await deliver.ci(first.head, 'success');
    expect(body(sim)).toContain('is at **Code Review**, waiting for a review.');
    await deliver.review(first.number, 'reviewer1', 'approved');
    expect(body(sim)).toContain(
      'is at **Final Verification**, waiting for CI on the completion commit.',
    );
    await deliver.ci(first.head, 'success');
    expect(body(sim)).toContain('waiting for a merge.');
    await mergeByPerson(sim, deliver, first);
    expect(body(sim)).toContain(
      '| 1 — Endpoint | ✅ merged | #2 | 0 | 0 | 0 | 0 | 0 min | $0.00 |',
    );
    expect(body(sim)).toContain('1 flaky check');
    expect(body(sim)).toContain('| 2 — Database probe | 🔄 Implementation (TDD) | #3 |');
    expect(progressComments(sim)).toHaveLength(1);
    expect(recordAt(sim, sim.headOf(sim.pulls[1]!))!.run!.progress).toBe(id);
    // The close delivered again: nothing more.
    await deliver.pullRequest('closed', first.number);
    expect(progressComments(sim)).toHaveLength(1);
    await deliver.comment('/coder stop');
    expect(body(sim)).toContain('Stopped with `/coder stop`: pull request #3 stays as it is');
    expect(body(sim)).toContain('| 2 — Database probe | ⏹ Implementation (TDD) | #3 |');
    expect(progressComments(sim)).toHaveLength(1);
  });

  it('says what the phase really waits for: escalated after its third failed head, even after a green fix and an approval', async () => {
    const { sim, deliver } = await world('architects: [archie]\n');
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    for (let attempt = 1; attempt <= 3; attempt++) {
      sim.push(pr.head, { 'test/a.test.ts': `test("a${attempt}", () => {});\n` });
      await deliver.pullRequest('synchronize', pr.number);
      await deliver.ci(pr.head, 'failure');
    }
    const escalated =
      'is **escalated**: waiting for an architect (`/coder resume`). 3 failed CI attempts (the limit is 3).';
    expect(body(sim)).toContain(escalated);
    sim.push(pr.head, { 'src/a.ts': 'export const fixed = true;\n' });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(pr.head, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(body(sim)).toContain(escalated);
    expect(body(sim)).not.toContain('waiting for CI');
    expect(body(sim)).toMatch(
      /\| 1 — Endpoint \| 🛑 Escalated \(at Verification\) \| #2 \| 0 \| 3 \| 0 \| 0 \| 0 min \| \$0\.00 \|/,
    );
  });

  it('a deleted comment is made again, and the record keeps the new one', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    const gone = progressComments(sim)[0]!;
    sim.comments.splice(sim.comments.indexOf(gone), 1);
    sim.push(pr.head, { 'test/a.test.ts': 'test("a", () => {});\n' });
    await deliver.pullRequest('synchronize', pr.number);
    expect(progressComments(sim)).toHaveLength(1);
    const again = progressComments(sim)[0]!;
    expect(again.id).not.toBe(gone.id);
    // Its phases read from the plan again.
    expect(again.body).toContain('| 3 — Documentation | ⏳ to do |');
    expect(recordAt(sim, sim.headOf(pr))!.run!.progress).toBe(again.id);
    await deliver.ci(pr.head, 'failure');
    expect(progressComments(sim)).toHaveLength(1);
  });

  it('a comment that is not the loop’s, or about another run, is never edited', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    const first = progressComments(sim)[0]!;
    // Someone wrote the comment with that id (as if the loop's had been replaced): not the loop's.
    first.author = 'Codertocat';
    const text = first.body;
    sim.push(pr.head, { 'test/a.test.ts': 'test("a", () => {});\n' });
    await deliver.pullRequest('synchronize', pr.number);
    expect(first.body).toBe(text);
    const made = progressComments(sim).filter((c) => c !== first);
    expect(made).toHaveLength(1);
    // The loop's own comment whose key names another run: left alone too.
    made[0]!.body = made[0]!.body.replace('"issue":1', '"issue":9');
    const other = made[0]!.body;
    await deliver.ci(pr.head, 'failure');
    expect(made[0]!.body).toBe(other);
    expect(progressComments(sim)).toHaveLength(3);
  });

  it('ends showing the plan complete', async () => {
    const { sim, deliver } = await world('autoMerge: true\n');
    await deliver.comment('/coder run');
    for (let n = 1; n <= 3; n++) await verified(sim, deliver, sim.pulls[n - 1]!, n);
    expect(progressComments(sim)).toHaveLength(1);
    expect(body(sim)).toContain('The run of plan `Example` is complete');
    expect(rowsOf(body(sim))).toEqual([
      '| 1 — Endpoint | ✅ merged | #2 | 0 | 0 | 0 | 0 | 0 min | $0.00 |',
      '| 2 — Database probe | ✅ merged | #3 | 0 | 0 | 0 | 0 | 0 min | $0.00 |',
      '| 3 — Documentation | ✅ merged | #4 | 0 | 0 | 0 | 0 | 0 min | $0.00 |',
    ]);
  });
});

const rowsOf = (text: string) => text.split('\n').filter((l) => /^\| \d/.test(l));
