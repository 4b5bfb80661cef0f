import nock from 'nock';
import { appendLogEntry } from '../../src/core/index.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { CHECKLIST, MASTER_LOG } from '../helpers/plans.js';
import { KIND_FILES, KIRO, SPECKIT } from '../helpers/kinds.js';
import type { SimGitHub } from '../sim/github.js';
import { BRANCH, replies, started, world } from '../helpers/world.js';

/**
 * What needs an architect: `locked` paths in quick mode as in plan mode, every plan's documents
 * of every kind and every sidecar, and any byte of the loop's own plan files that the loop did
 * not write (a writer's marks, log lines or checkpoint).
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const QUICK = 'coder/quick/issue-1';
const ARCHITECTS = 'architects: [archie]\n';
const CONTEXT = 'docs/plans/Example/00_context.md';

const completed = (sim: SimGitHub, head: string) =>
  (sim.files(head)[MASTER_LOG] ?? '').includes('Coder completed');

/** `/coder quick`, the fix pushed (`changes`), CI green on its head. */
async function quick(config: string, changes: Record<string, string | null>) {
  const w = await world(config, { 'src/core/auth.ts': 'export const strict = true;\n' });
  await w.deliver.comment('/coder quick');
  const pr = w.sim.pulls[0]!;
  expect(pr.head).toBe(QUICK);
  w.sim.push(QUICK, changes);
  await w.deliver.pullRequest('synchronize', pr.number);
  await w.deliver.ci(QUICK, 'success');
  return { ...w, pr };
}

describe('quick mode: locked paths and plan documents need an architect, as in plan mode', () => {
  it('a quick PR that rewrites a locked file is not green on CI alone, nor on a writer’s approval', async () => {
    const { sim, deliver, pr } = await quick(`locked: ["src/core/**"]\n${ARCHITECTS}`, {
      'src/core/auth.ts': 'export const strict = false;\n',
    });
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
    expect(replies(sim).at(-1)).toMatch(/architect/);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
    expect(replies(sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\*/);
    expect(sim.comments.at(-1)!.body).toContain('locked: `src/core/auth.ts`');
    await deliver.review(pr.number, 'archie', 'approved');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ conclusion: 'success' });
  });

  it('a quick PR that marks a plan’s later phase done needs an architect', async () => {
    const w = await world(ARCHITECTS);
    const { sim } = w;
    const checklist = sim.files('master')[CHECKLIST]!;
    await w.deliver.comment('/coder quick');
    const pr = sim.pulls[0]!;
    sim.push(QUICK, { [CHECKLIST]: checklist.replace('- [ ] 2.1', '- [x] 2.1') });
    await w.deliver.ci(QUICK, 'success');
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
    await w.deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.comments.at(-1)!.body).toContain(`plan document: \`${CHECKLIST}\``);
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
  });

  it('a quick PR that touches neither is green on CI alone', async () => {
    const { sim, pr } = await quick(`locked: ["src/core/**"]\n${ARCHITECTS}`, {
      'src/health.ts': 'export const ok = true;\n',
    });
    expect(sim.own(sim.headOf(pr))).toMatchObject({ conclusion: 'success' });
  });

  it('with quick.log, the loop’s own log entry is no plan change', async () => {
    const { sim, pr } = await quick(`quick:\n  log: true\n${ARCHITECTS}`, {
      'src/health.ts': 'export const ok = true;\n',
    });
    expect(sim.files(sim.headOf(pr))[MASTER_LOG]).toContain('Quick mode started');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ conclusion: 'success' });
  });

  it('with quick.log, a log rewritten by the writer is a plan change', async () => {
    const { sim, pr } = await quick(`quick:\n  log: true\n${ARCHITECTS}`, {
      [MASTER_LOG]: '# Master Log\n\n- nothing happened here\n',
    });
    expect(sim.own(sim.headOf(pr))?.conclusion).not.toBe('success');
  });
});

describe("every plan's documents, of every kind, and every sidecar are the architect's", () => {
  it.each([
    ["another spec-kit plan's spec", `${SPECKIT}/spec.md`],
    ["another spec-kit plan's tasks", `${SPECKIT}/tasks.md`],
    ["a Kiro plan's requirements", `${KIRO}/requirements.md`],
    ["Kiro's steering", '.kiro/steering/product.md'],
    ["another plan's sidecar", `${SPECKIT}/coder-loop/Master_Log.md`],
  ])('a phase PR that rewrites %s is escalated', async (_what, path) => {
    const { sim, deliver } = await world(ARCHITECTS, { ...KIND_FILES.speckit, ...KIND_FILES.kiro });
    await deliver.comment('/coder next Example');
    const pr = sim.pulls[0]!;
    sim.push(BRANCH, {
      'test/health.test.ts': 'test("health", () => {});\n',
      'src/health.ts': 'export const ok = true;\n',
      [path]: 'rewritten by a writer\n',
    });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(false);
    expect(sim.comments.at(-1)!.body).toContain(`plan document: \`${path}\``);
    await deliver.review(pr.number, 'archie', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(true);
  });

  it('a folder named like a spec folder that holds no plan is no plan document', async () => {
    const { sim, deliver, pr } = await started(ARCHITECTS, {
      'specs/api/openapi.yaml': 'openapi: 3.0.0\n',
    });
    sim.push(BRANCH, { 'specs/api/openapi.yaml': 'openapi: 3.1.0\n' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(true);
  });
});

describe('the loop owns only the bytes it writes in its own plan files', () => {
  it('its own marks and log entry, and nothing else, complete on a writer’s approval', async () => {
    const { sim, deliver, pr } = await started(ARCHITECTS);
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(true);
  });

  it.each<[string, (files: Record<string, string>) => Record<string, string>]>([
    [
      'a later phase marked [x] in the checklist',
      (f) => ({ [CHECKLIST]: f[CHECKLIST]!.replace('- [ ] 2.1', '- [x] 2.1') }),
    ],
    [
      'a task of the phase marked done by hand',
      (f) => ({ [CHECKLIST]: f[CHECKLIST]!.replace('- [~] 1.1', '- [x] 1.1') }),
    ],
    [
      'the master log rewritten',
      (f) => ({ [MASTER_LOG]: f[MASTER_LOG]!.replace('Coder started', 'Coder did nothing') }),
    ],
    [
      'a line appended to the master log',
      (f) => ({ [MASTER_LOG]: `${f[MASTER_LOG]!}- 2026-01-01T00:00:00Z — all done\n` }),
    ],
    [
      'a line in the loop’s own shape appended to the master log',
      (f) => ({
        [MASTER_LOG]: appendLogEntry(f[MASTER_LOG], {
          timestamp: '2026-01-01T00:00:00Z',
          event: 'Coder started',
          plan: 'Example',
          phase: { number: 1, name: 'Health endpoint' },
          actor: 'reviewer1',
        }),
      }),
    ],
    [
      'the checkpoint rewritten',
      (f) => ({
        [CONTEXT]: `${f[CONTEXT]!}<!-- coder-loop:checkpoint -->\n## Checkpoint\n\n- Next: nothing, the plan is complete\n<!-- /coder-loop:checkpoint -->\n`,
      }),
    ],
    [
      "another phase's report written",
      () => ({ 'docs/plans/Example/Reports/02_Database_probe.md': '# Phase 2 — report\n' }),
    ],
  ])('%s is a plan change', async (_what, edit) => {
    const { sim, deliver, pr } = await started(ARCHITECTS);
    sim.push(BRANCH, edit(sim.files(sim.headOf(pr))));
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(false);
    expect(replies(sim).at(-1)).toMatch(/^\*\*Escalated to architect\*\*/);
    expect(sim.comments.at(-1)!.body).toMatch(/plan document: `docs\/plans\/Example\//);
  });

  it('the loop’s own start commit alone is no plan change, on a writer’s approval', async () => {
    const { sim, deliver } = await world(ARCHITECTS);
    await deliver.comment('/coder next');
    const pr = sim.pulls[0]!;
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(true);
  });

  it('a spec-kit phase PR that marks every later phase [X] is escalated', async () => {
    const w = await world(`${ARCHITECTS}specCheck: report\n`, KIND_FILES.speckit);
    const { sim, deliver } = w;
    await deliver.comment('/coder next 001-photo-albums');
    const pr = sim.pulls[0]!;
    const tasks = `${SPECKIT}/tasks.md`;
    const branch = pr.head;
    sim.push(branch, {
      'test/albums.test.ts': 'test("T004", () => {});\n',
      [tasks]: sim.files(sim.headOf(pr))[tasks]!.replace(/- \[ \]/g, '- [X]'),
    });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(branch, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.comments.at(-1)!.body).toContain(`plan document: \`${tasks}\``);
  });
});

describe('the PR is judged on its own changes: against the merge base, not the base branch’s head', () => {
  it('a locked file and the plan’s log changed on the default branch after the start are not the PR’s', async () => {
    const { sim, deliver, pr } = await started(`locked: ["infra/**"]\n${ARCHITECTS}`, {
      'infra/main.tf': 'terraform {}\n',
    });
    // Merged to the default branch while the phase runs: a locked file, and a note in the log.
    sim.push('master', {
      'infra/main.tf': 'terraform { required_version = ">= 1.5" }\n',
      [MASTER_LOG]: `${sim.files('master')[MASTER_LOG]!}- a note merged to the default branch\n`,
    });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(completed(sim, sim.headOf(pr))).toBe(true);
  });
});
