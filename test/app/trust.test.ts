import nock from 'nock';
import { Octokit } from '@octokit/core';
import { requestTimeout, REQUEST_TIMEOUT_ENV } from '../../src/github/client.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { transport } from '../helpers/openapi.js';
import { CHECKLIST, MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * Issue 11, tried as an attacker would: who may move the loop. Each case failed on the main of
 * before this change (a read-only approval completed a phase, a fork's PR moved the lock branch, …).
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  delete process.env[REQUEST_TIMEOUT_ENV];
  afterScenario();
});

/** What a step wrote: every request but a read that reached the simulator during `step`. */
async function writesOf(sim: SimGitHub, step: () => Promise<void>): Promise<string[]> {
  const before = sim.writes.length;
  await step();
  return sim.writes.slice(before);
}

const completed = (sim: SimGitHub) =>
  (sim.files(BRANCH)[MASTER_LOG] ?? '').includes('Coder completed');

describe('1. approvals count only from write, maintain or admin users', () => {
  it.each(['read', 'triage', 'none'])(
    "a %s user's approval of a green head writes nothing at all",
    async (level) => {
      const { sim, deliver, pr } = await started();
      await deliver.ci(BRANCH, 'success');
      sim.permissions.set('outsider', level);
      const head = sim.headOf(pr);
      expect(await writesOf(sim, () => deliver.review(pr.number, 'outsider', 'approved'))).toEqual(
        [],
      );
      expect(sim.headOf(pr)).toBe(head);
      expect(sim.files(BRANCH)[CHECKLIST]).toContain('[~] 1.1');
    },
  );

  it('a read-only approval given before CI passes does not complete the phase when CI turns green', async () => {
    const { sim, deliver, pr } = await started();
    expect(await writesOf(sim, () => deliver.review(pr.number, 'outsider', 'approved'))).toEqual(
      [],
    );
    await deliver.ci(BRANCH, 'success');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
    expect(completed(sim)).toBe(false);
  });

  it('an approval from a writer who pushed to the branch does not count, and the reply says why', async () => {
    const { sim, deliver, pr } = await started('', {}, ['Codertocat', 'dev-pusher']);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'dev-pusher', 'approved');
    expect(completed(sim)).toBe(false);
    expect(replies(sim).at(-1)).toBe(
      'The approval on pull request #2 does not count: @dev-pusher pushed commits to this branch, and an approval must come from someone else (config `allowSelfApproval`). Nothing was done; an approval from another person with write access completes the phase.',
    );
  });

  it('allowSelfApproval: true lets the pusher approve', async () => {
    const { sim, deliver, pr } = await started('allowSelfApproval: true\n', {}, [
      'dev-pusher',
      'Codertocat',
    ]);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'dev-pusher', 'approved');
    expect(completed(sim)).toBe(true);
    expect(sim.files(BRANCH)['docs/plans/Example/Reports/01_Endpoint.md']).toContain(
      '- Approved by: @dev-pusher',
    );
  });
});

describe("2. a fork's pull request is never the loop's", () => {
  it('a review on a fork PR with the loop branch name, head and a copied marker writes nothing', async () => {
    const { sim, deliver, pr } = await started('maxRetries: 5\n');
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    const forged = pr.body.replace('"issue":1', '"issue":1,"attempts":[]');
    const fork = sim.forkPull(
      { ...pr, body: forged },
      '[@everyone <img src=x onerror=alert(1)>](javascript:alert(1))',
    );
    expect(sim.headOf(fork)).toBe(head); // the same head commit as the real loop PR
    const wrote = await writesOf(sim, async () => {
      // Even a writer's approval on the fork PR moves nothing: it is not the loop's PR.
      await deliver.review(fork.number, 'Codertocat', 'approved');
      await deliver.review(fork.number, 'attacker', 'approved');
      await deliver.review(fork.number, 'attacker', 'changes_requested');
      await deliver.pullRequest('synchronize', fork.number, { login: 'attacker' });
      await deliver.pullRequest('closed', fork.number, { login: 'Codertocat' });
    });
    expect(wrote).toEqual([]);
    expect(sim.refs.get(BRANCH)).toBe(head);
    expect(completed(sim)).toBe(false);
  });

  it("a same-repository coder/ PR that someone else opened is not the loop's either", async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    pr.author = 'Codertocat'; // as if a person had opened it, marker and all
    expect(await writesOf(sim, () => deliver.review(pr.number, 'reviewer1', 'approved'))).toEqual(
      [],
    );
    expect(await writesOf(sim, () => deliver.ci(BRANCH, 'failure'))).toEqual([]);
  });
});

describe('3. read-only reviewers cause no other writes', () => {
  it('changes requested by a read-only user: no check-run update, no reply', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    expect(
      await writesOf(sim, () => deliver.review(pr.number, 'outsider', 'changes_requested')),
    ).toEqual([]);
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
  });

  it('a stale or locked-path approval by a read-only user: no reply, label or review request', async () => {
    const { sim, deliver, pr } = await started('architects: [archie]\nlocked: ["src/core/**"]\n');
    const old = sim.headOf(pr);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' });
    await deliver.ci(BRANCH, 'success');
    const wrote = await writesOf(sim, async () => {
      await deliver.review(pr.number, 'outsider', 'approved', old);
      await deliver.review(pr.number, 'outsider', 'approved');
    });
    expect(wrote).toEqual([]);
    expect([...pr.labels]).toEqual([]);
    expect(pr.requested).toEqual([]);
  });
});

describe("4. the loop's own check run is recognised by its app, not its name", () => {
  it('a failing CI job called coder-loop fails the gate, and the loop never updates it', async () => {
    const { sim, deliver, pr } = await started();
    const head = sim.headOf(pr);
    const impostor = sim.ci(head, 'failure', 'coder-loop');
    await deliver.ci(BRANCH, 'success', { name: 'test' });
    expect(replies(sim).at(-1)).toBe(
      '**CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
    );
    expect(sim.comments.at(-1)!.body).toContain('- [coder\\-loop](');
    expect(impostor).toMatchObject({ conclusion: 'failure', external_id: '', status: 'completed' });
    expect(sim.writes.filter((w) => w.endsWith(`/check-runs/${impostor.id}`))).toEqual([]);
    expect(sim.own(head)).toMatchObject({ external_id: 'Debug' });
  });
});

describe("4b. a check or status called coder-loop that is not the loop's own is no CI passing", () => {
  it.each(['status', 'check run'])(
    "a writer's green coder-loop %s on a head with no CI: an approval waits for CI",
    async (kind) => {
      const { sim, deliver, pr } = await started();
      const head = sim.headOf(pr);
      if (kind === 'status') sim.postStatus(head, 'coder-loop', 'success', 'github-actions[bot]');
      else sim.ci(head, 'success', 'coder-loop');
      await deliver.checkSuite(BRANCH);
      await deliver.review(pr.number, 'reviewer1', 'approved');
      expect(completed(sim)).toBe(false);
      // Real CI then passes: the approval of that head completes the phase.
      await deliver.ci(BRANCH, 'success', { name: 'test' });
      expect(completed(sim)).toBe(true);
    },
  );
});

describe('5. every GitHub request has a time limit', () => {
  it('a request GitHub never answers fails after the limit, naming it', async () => {
    process.env[REQUEST_TIMEOUT_ENV] = '50';
    const TimedOctokit = Octokit.plugin(requestTimeout());
    const never: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
      );
    const octokit = new TimedOctokit({ request: { fetch: never } });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }),
    ).rejects.toThrow(
      'GitHub did not answer GET /repos/o/r within 0.05 s (CODER_LOOP_REQUEST_TIMEOUT_MS)',
    );
  });

  it('a delivery whose GitHub hangs ends, and says so once on the thread', async () => {
    const { sim, deliver, pr } = await started();
    nock.cleanAll(); // answer in-process: the transport honours the request's abort signal
    transport.fetch = sim.fetch;
    process.env[REQUEST_TIMEOUT_ENV] = '50';
    sim.hangs.add(`GET /commits/${sim.headOf(pr)}/check-runs`);
    await expect(deliver.ci(BRANCH, 'success')).rejects.toThrow('did not answer');
    const failed = sim.comments.filter((c) => c.body.startsWith('The loop could not finish'));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.body).toContain('a check_suite event on pull request #2');
  });
});

describe('7. the architect the escalation asks for can complete it', () => {
  const config = 'architects: [arch-alice]\nlocked: ["src/core/**"]\n';
  const writers = ['Codertocat', 'dev-dana', 'arch-alice'];

  it("an architect's approval of the escalated head completes the phase, no /coder resume needed", async () => {
    const { sim, deliver, pr } = await started(config, {}, writers);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' }, 'core', 'Codertocat');
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'dev-dana', 'approved');
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): locked paths touched, and @dev-dana is not an architect.',
    );
    await deliver.review(pr.number, 'arch-alice', 'approved');
    expect(completed(sim)).toBe(true);
    expect(sim.files(BRANCH)['docs/plans/Example/Reports/01_Endpoint.md']).toContain(
      '- Approved by: @arch-alice',
    );
    expect([...pr.labels]).toEqual([]);
    expect([...(sim.issueLabels.get(1) ?? [])]).toEqual([]);
    await deliver.ci(BRANCH, 'success');
    expect(replies(sim).at(-1)).toMatch(/^\*\*Phase 1 complete\*\*/);
  });

  it("when CI passes after several approvals, the architect's counts, not the first one found", async () => {
    const { sim, deliver, pr } = await started(config, {}, writers);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' }, 'core', 'Codertocat');
    await deliver.review(pr.number, 'dev-dana', 'approved');
    await deliver.review(pr.number, 'arch-alice', 'approved');
    await deliver.ci(BRANCH, 'success');
    expect(completed(sim)).toBe(true);
    expect(sim.files(BRANCH)[MASTER_LOG]).toContain(
      'Coder completed** — Example, Phase 1: Endpoint — @arch-alice',
    );
  });

  it('an approval that waited for CI and escalates updates the one check run on the head', async () => {
    const { sim, deliver, pr } = await started(config, {}, writers);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' }, 'core', 'Codertocat');
    await deliver.review(pr.number, 'dev-dana', 'approved');
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    const own = sim.checkRuns.filter((r) => r.head_sha === head && r.name === 'coder-loop');
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ external_id: 'Escalate', conclusion: 'failure' });
  });

  it('a non-architect approval of an escalated head moves nothing', async () => {
    const { sim, deliver, pr } = await started(config, {}, [...writers, 'reviewer1']);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' }, 'core', 'Codertocat');
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'dev-dana', 'approved');
    expect(await writesOf(sim, () => deliver.review(pr.number, 'reviewer1', 'approved'))).toEqual(
      [],
    );
  });
});
