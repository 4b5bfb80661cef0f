import nock from 'nock';
import { afterScenario, beforeScenario, requestLog, writes } from '../helpers/github.js';
import { MASTER_LOG } from '../helpers/plans.js';
import { BRANCH, replies, started, world } from '../helpers/world.js';

/**
 * Issue 18, item 6: the config is this repository's own `.github/coder.yml` on its default branch,
 * in both modes (SPEC §6). Before, the App read it through Probot's `context.config`, which falls
 * back to `<owner>/.github` and follows `_extends`: whoever writes that repository decided here.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll(); // the simulator's routes are persisted and optional
  afterScenario();
});

/** Every request that reached another repository of the owner (`<owner>/.github`). */
const orgRequests = () =>
  requestLog.filter((r) => r.path.startsWith('/repos/Codertocat/.github/')).map((r) => r.path);

describe("someone else's config never decides", () => {
  it("no .github/coder.yml here: the org repository's `allowSelfApproval: true` / `locked: []` is never read; the defaults hold", async () => {
    // An org-wide file written by whoever can write `<owner>/.github`, not by this repository.
    const orgConfig = 'allowSelfApproval: true\nlocked: []\nmaxRetries: 20\n';
    const { sim, deliver, pr } = await started('', {}, ['Codertocat', 'dev-pusher', 'archie']);
    sim.orgConfig = orgConfig;
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'dev-pusher', 'approved');
    // The defaults: the pusher's own approval does not count.
    expect(sim.files(BRANCH)[MASTER_LOG] ?? '').not.toContain('Coder completed');
    expect(replies(sim).at(-1)).toBe(
      'The approval on pull request #2 does not count: @dev-pusher pushed commits to this branch, and an approval must come from someone else (config `allowSelfApproval`). Nothing was done; an approval from another person with write access completes the phase.',
    );
    expect(orgRequests()).toEqual([]);
  });

  it('the org file is not read when this repository has its own either, and its own rules hold', async () => {
    const { sim, deliver, pr } = await started('locked: [src/**]\narchitects: [archie]\n', {}, [
      'Codertocat',
      'reviewer1',
      'archie',
    ]);
    sim.orgConfig = 'locked: []\n';
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    // src/health.ts is locked by this repository's file: a plain writer's approval escalates.
    expect(sim.files(BRANCH)[MASTER_LOG] ?? '').not.toContain('Coder completed');
    expect([...pr.labels]).toContain('coder:escalated');
    expect(orgRequests()).toEqual([]);
  });

  it("`_extends` in this repository's file gets the config-invalid reply with its line and the fix; nothing else is written, nothing else is read", async () => {
    const { sim, deliver } = await world('maxRetries: 2\n_extends: .github\n');
    sim.orgConfig = 'allowSelfApproval: true\n';
    await deliver.comment('/coder next');
    expect(sim.comments.map((c) => c.body)).toEqual([
      "The coder-loop config is invalid, so nothing was done:\n\n- ``.github/coder.yml:2: error: `_extends` is not followed: coder-loop reads only this repository's own .github/coder.yml, never another repository's. Copy the settings you want from the extended file into this file, and remove `_extends`.``",
    ]);
    expect(writes().map((w) => w.split(' ')[1])).toEqual([
      '/repos/Codertocat/Hello-World/issues/comments/1001/reactions',
      '/repos/Codertocat/Hello-World/issues/1/comments',
    ]);
    expect(sim.pulls).toEqual([]);
    expect(orgRequests()).toEqual([]);
  });
});

/** Issue 18, item 9c: path-valued keys are normalised (or refused), so what passes the schema works. */
describe('paths in the config are read as written by people', () => {
  it('`plansDir: ./docs/plans/` finds the plan: /coder next opens the phase', async () => {
    const { sim, deliver } = await world('plansDir: ./docs/plans/\n');
    await deliver.comment('/coder next');
    expect(sim.pulls.map((p) => p.head)).toEqual([BRANCH]);
    expect(sim.files(BRANCH)['docs/plans/Example/01_Master Plan/01_Checklist.md']).toContain(
      '- [~] 1.1',
    );
  });

  it('with `plansDir: docs//plans`, a change to a task plan is still a plan document: escalated, not completed', async () => {
    const { sim, deliver, pr } = await started('plansDir: docs//plans\narchitects: [archie]\n');
    sim.push(BRANCH, { 'docs/plans/Example/Task Plans/Phase 1 - Endpoint.md': '# rewritten\n' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): plan change needed, and @reviewer1 is not an architect.',
    );
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
  });

  it("`locked: [./src/]` locks everything under src/: a plain writer's approval escalates", async () => {
    const { sim, deliver, pr } = await started('locked: [./src/]\narchitects: [archie]\n');
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(replies(sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\* \(pull request #2\): /);
    expect(sim.files(BRANCH)[MASTER_LOG]).not.toContain('Coder completed');
  });

  it('`plansDir: /docs/plans` is refused with its line; nothing is written but the reply', async () => {
    const { sim, deliver } = await world('maxRetries: 3\nplansDir: /docs/plans\n');
    await deliver.comment('/coder next');
    expect(sim.comments.map((c) => c.body)).toEqual([
      'The coder-loop config is invalid, so nothing was done:\n\n- ``.github/coder.yml:2: error: `plansDir`: must be a folder relative to the repository root, not the absolute "/docs/plans". See docs/configuration.md for every key and its type.``',
    ]);
    expect(sim.pulls).toEqual([]);
  });
});
