import nock from 'nock';
import { afterScenario, beforeScenario, NOW } from '../helpers/github.js';
import { CHECKLIST, MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started, world } from '../helpers/world.js';

const CONTEXT = 'docs/plans/Example/00_context.md';

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll(); // the simulator's routes are persisted and optional
  afterScenario();
});

describe('Verification: CI is the gate', () => {
  it('three failed attempts on three heads escalate to the architects; then nothing advances by itself', async () => {
    const { sim, deliver, pr } = await started('architects: [archie, my-org/architects]\n');
    for (let attempt = 1; attempt <= 3; attempt++) {
      await deliver.ci(BRANCH, 'failure');
      if (attempt < 3) sim.push(BRANCH, { 'src/health.ts': `export const ok = ${attempt};\n` });
    }
    expect(replies(sim).slice(1)).toEqual([
      '**CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      '**CI failed** on pull request #2 — attempt 2 of 3. Back to implementation (Debug & Fix).',
      '**Escalated to architect** (pull request #2): 3 failed CI attempts (the limit is 3).',
    ]);
    expect(sim.comments.at(-1)!.body).toContain('@archie, @my-org/architects: please review.');
    expect([...pr.labels]).toEqual(['coder:escalated']);
    expect([...sim.issueLabels.get(1)!]).toEqual(['coder:escalated']);
    expect(pr.requested).toEqual(['archie', 'team:architects']);
    expect(pr.body).toContain('3. `');
    expect(sim.own(sim.headOf(pr))).toMatchObject({
      conclusion: 'failure',
      external_id: 'Escalate',
    });
    // Escalated: CI turning green on a new head does not advance.
    sim.push(BRANCH, { 'src/health.ts': 'export const ok = 4;\n' });
    const before = sim.comments.length;
    await deliver.ci(BRANCH, 'success');
    expect(sim.comments.length).toBe(before);
  });

  it('a flaky first failure, then green: one attempt counted, then Code Review', async () => {
    const { sim, deliver, pr } = await started('reviewers: [reviewer1]\n');
    await deliver.ci(BRANCH, 'failure');
    await deliver.ci(BRANCH, 'failure'); // the same head reported again: no second attempt
    sim.push(BRANCH, { 'src/health.ts': 'export const ok = "fixed";\n' });
    await deliver.ci(BRANCH, 'success');
    expect(replies(sim).slice(1)).toEqual([
      '**CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
      '**CI passed** on pull request #2. Code review requested from @reviewer1: an approval completes the phase.',
    ]);
    expect(pr.requested).toEqual(['reviewer1']);
    expect(sim.own(sim.headOf(pr))).toMatchObject({
      status: 'in_progress',
      external_id: 'CodeReview',
    });
  });

  it('green without a test change stops at Passes Spec? with "Write failing test"', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder next');
    sim.push(BRANCH, { 'src/health.ts': 'export const ok = true;\n' });
    await deliver.ci(BRANCH, 'success');
    expect(sim.comments.at(-1)!.body).toContain(
      '- Write failing test: the pull request changes code (`src/health.ts`) but no test file (`testPaths`).',
    );
    expect(sim.own(sim.headOf(sim.pulls[0]!))).toMatchObject({
      conclusion: 'failure',
      external_id: 'Revise',
    });
  });

  it('ignores an event for an old head', async () => {
    const { sim, deliver } = await started();
    const old = sim.refs.get(BRANCH)!;
    sim.push(BRANCH, { 'src/health.ts': 'newer\n' });
    const before = sim.comments.length;
    await deliver.ci(BRANCH, 'failure', { sha: old });
    expect(sim.comments.length).toBe(before);
  });

  it('counts a workflow_run completion (the Actions gate)', async () => {
    const { sim, deliver } = await started();
    await deliver.workflowRun(BRANCH, 'success');
    expect(replies(sim).at(-1)).toBe(
      '**CI passed** on pull request #2. Code review is next: an approval completes the phase.',
    );
  });
});

describe('Code Review → Mark [x] → Final Verification', () => {
  it('approval on the passing head: ONE completion commit, byte-exact; final CI green completes the phase', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const approvedHead = sim.headOf(pr);
    const before = sim.files(approvedHead);
    await deliver.review(pr.number, 'reviewer1', 'approved');

    const head = sim.headOf(pr);
    expect(sim.commits.get(head)!.parents).toEqual([approvedHead]);
    const after = sim.files(head);
    // The phase's [~] → [x], nothing else in the checklist.
    expect(after[CHECKLIST]).toBe(
      before[CHECKLIST]!.replace('- [~] 1.1 Test', '- [x] 1.1 Test')
        .replace('- [~] 1.2 Route', '- [x] 1.2 Route')
        .replace('  - [~] 1.2.1 Register', '  - [x] 1.2.1 Register'),
    );
    expect(before[CHECKLIST]!.match(/- \[~\]/g)).toHaveLength(3);
    expect(after[MASTER_LOG]!.startsWith(before[MASTER_LOG]!)).toBe(true);
    expect(after[MASTER_LOG]!.slice(before[MASTER_LOG]!.length)).toBe(
      `- ${NOW.toISOString()} — **Coder completed** — Example, Phase 1: Endpoint — @reviewer1 — [PR #2](https://github.com/Codertocat/Hello-World/pull/2) — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );
    const report = after['docs/plans/Example/Reports/01_Endpoint.md']!;
    expect(report).toContain('# Phase 1: Endpoint — report');
    expect(report).toContain('- Approved by: @reviewer1');
    expect(report).toContain('- [x] 1.1 Test: `GET /health` answers 200');
    expect(report).toContain('| `test/health.test.ts` |');
    expect(report).toContain(
      [
        '## Traceability',
        '',
        'Passes Spec? yes on the approved head: 0 of 3 tasks traced to evidence, 0 lacking.',
        '',
        '| Task | Evidence | Tests | Commits |',
        '| --- | --- | --- | --- |',
        '| `1.1` | names nothing checkable (no path, no requirement): the reviewer judges it. | — | — |',
      ].join('\n'),
    );
    expect(report).toContain('- Tests: changed (1 test file).\n\n## Commits');
    // The checkpoint block changed, and nothing outside it.
    const [head1, tail1] = before[CONTEXT]!.split(
      /<!-- coder-loop:checkpoint -->[\s\S]*<!-- \/coder-loop:checkpoint -->/,
    );
    expect(after[CONTEXT]!.startsWith(head1!)).toBe(true);
    expect(after[CONTEXT]!.endsWith(tail1!)).toBe(true);
    expect(after[CONTEXT]).toContain('- Completed: Phase 1: Endpoint');
    expect(after[CONTEXT]).toContain('- Next: Phase 2: Database probe (`/coder next Example`)');
    expect(Object.keys(after).sort()).toEqual(
      [...Object.keys(before), 'docs/plans/Example/Reports/01_Endpoint.md'].sort(),
    );
    expect(sim.own(head)).toMatchObject({
      status: 'in_progress',
      external_id: 'FinalVerify;next=2',
    });

    await deliver.ci(BRANCH, 'success');
    expect(sim.own(head)).toMatchObject({ conclusion: 'success', external_id: 'End' });
    expect(replies(sim).at(-1)).toBe(
      '**Phase 1 complete** (`Example`, pull request #2). Next: `/coder next Example` takes Phase 2 once this pull request is merged.',
    );
  });

  it('changes requested: back to implementation, nothing committed', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'changes_requested');
    expect(sim.headOf(pr)).toBe(head);
    expect(replies(sim).at(-1)).toBe(
      '**Changes requested** on pull request #2 by @reviewer1. Back to implementation.',
    );
    expect(sim.own(head)).toMatchObject({ external_id: 'TDD', status: 'in_progress' });
  });

  it('an approval of a stale head does nothing but say so', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const old = sim.headOf(pr);
    sim.push(BRANCH, { 'src/health.ts': 'changed after review\n' });
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved', old);
    expect(sim.headOf(pr)).toBe(head);
    expect(replies(sim).at(-1)).toMatch(
      /^The approval on pull request #2 is for `[0-9a-f]{7}`, but the head is now `[0-9a-f]{7}`\. Nothing was done/,
    );
  });

  it('an approval before CI passed completes the phase once CI passes', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(replies(sim).at(-1)).toBe(
      'Approval on pull request #2 noted, but CI has not passed on its head yet. The phase completes when it does.',
    );
    await deliver.ci(BRANCH, 'success');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'FinalVerify;next=2' });
  });

  it('locked paths with a non-architect approver escalate', async () => {
    const config = 'architects: [archie]\nlocked: ["src/core/**"]\n';
    const { sim, deliver, pr } = await started(config);
    sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' });
    await deliver.ci(BRANCH, 'success');
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.headOf(pr)).toBe(head);
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): locked paths touched, and @reviewer1 is not an architect.',
    );
    expect(sim.comments.at(-1)!.body).toContain('- locked: `src/core/engine.ts`');
  });

  it('locked paths with an architect approver complete', async () => {
    const config = 'architects: [archie]\nlocked: ["src/core/**"]\n';
    const other = await started(config);
    other.sim.push(BRANCH, { 'src/core/engine.ts': 'changed\n' });
    await other.deliver.ci(BRANCH, 'success');
    await other.deliver.review(other.pr.number, 'archie', 'approved');
    expect(other.sim.own(other.sim.headOf(other.pr))).toMatchObject({
      external_id: 'FinalVerify;next=2',
    });
  });

  it('a change to a task plan (a plan document the loop does not own) escalates as a plan change', async () => {
    const { sim, deliver, pr } = await started('architects: [archie]\n');
    sim.push(BRANCH, { 'docs/plans/Example/Task Plans/Phase 1 - Endpoint.md': '# rewritten\n' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): plan change needed, and @reviewer1 is not an architect.',
    );
  });

  it('final verification red goes back to implementation; green then completes', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    await deliver.ci(BRANCH, 'failure');
    expect(replies(sim).at(-1)).toBe(
      '**CI failed** on pull request #2 — attempt 1 of 3. Back to implementation (Debug & Fix).',
    );
    expect(sim.files(sim.headOf(pr))[CHECKLIST]).toContain('[x] 1.1');
    sim.push(BRANCH, { 'src/health.ts': 'fixed\n' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    await deliver.ci(BRANCH, 'success');
    expect(replies(sim).at(-1)).toMatch(/^\*\*Phase 1 complete\*\*/);
    // Approved twice, completed once: one "Coder completed" for this attempt.
    expect(sim.files(sim.headOf(pr))[MASTER_LOG]!.match(/Coder completed/g)).toHaveLength(1);
  });

  it('autoMerge merges the PR once final verification passes', async () => {
    const { sim, deliver, pr } = await started('autoMerge: true\n');
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    await deliver.ci(BRANCH, 'success');
    expect(pr.merged).toBe(true);
    expect(sim.files('master')[CHECKLIST]).toContain('- [x] 1.1');
    expect(replies(sim).at(-1)).toBe(
      '**Phase 1 complete** (`Example`, pull request #2, merged). Next: `/coder next Example` takes Phase 2.',
    );
  });

  it('an approval whose head moved before the completion commit writes nothing; the new head needs CI and an approval', async () => {
    const { sim, deliver, pr } = await started();
    await deliver.ci(BRANCH, 'success');
    const approved = sim.headOf(pr);
    sim.beforeRefUpdate = () => {
      sim.beforeRefUpdate = undefined;
      sim.push(BRANCH, { 'src/health.ts': 'unreviewed code pushed meanwhile\n' });
    };
    await deliver.review(pr.number, 'reviewer1', 'approved');
    const moved = sim.headOf(pr);
    expect(moved).not.toBe(approved);
    // Nothing of the completion on the branch: the push is its head, its parent the approved one.
    expect(sim.commits.get(moved)!.parents).toEqual([approved]);
    expect(sim.files(moved)[CHECKLIST]).toContain('- [~] 1.1');
    expect(sim.files(moved)[MASTER_LOG]).not.toContain('Coder completed');
    expect(replies(sim).at(-1)).toBe(
      `The approval on pull request #2 was for \`${approved.slice(0, 7)}\`, but the branch moved to \`${moved.slice(0, 7)}\` before the loop could complete the phase. Nothing was written: the new head needs CI and an approval.`,
    );
    // Green CI on the unreviewed head is not an approval of it.
    await deliver.ci(BRANCH, 'success');
    expect(sim.files(sim.headOf(pr))[CHECKLIST]).toContain('- [~] 1.1');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ external_id: 'CodeReview' });
    await deliver.review(pr.number, 'reviewer1', 'approved');
    const completion = sim.headOf(pr);
    expect(sim.commits.get(completion)!.parents).toEqual([moved]);
    expect(sim.files(completion)[CHECKLIST]).toContain('- [x] 1.1');
    expect(sim.files(completion)[MASTER_LOG]!.match(/Coder completed/g)).toHaveLength(1);
  });
});
