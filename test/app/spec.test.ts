import nock from 'nock';
import { buildPrompt, decodeRecord } from '../../src/core/index.js';
import { afterScenario, beforeScenario, testProbot } from '../helpers/github.js';
import { Deliver } from '../sim/events.js';
import { SimGitHub } from '../sim/github.js';

/**
 * Passes Spec? on the in-memory GitHub: each task of the phase traced to evidence in the pull
 * request before the review is requested; missing evidence goes back to implementation.
 */
beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll(); // the simulator's routes are persisted and optional
  afterScenario();
});

const SPECKIT = 'specs/001-parser';
const KIRO = '.kiro/specs/parser';

const speckit = (tasks: string): Record<string, string> => ({
  [`${SPECKIT}/tasks.md`]: `# Tasks: Parser\n\n${tasks}`,
  [`${SPECKIT}/spec.md`]: '# Feature Specification: Parser\n',
  [`${SPECKIT}/plan.md`]: '# Implementation Plan: Parser\n',
});
const SPECKIT_CODE = speckit(
  '## Phase 1: Core\n\n- [ ] T001 [P] Implement the parser in src/a.ts\n- [ ] T002 Configure linting\n',
);
const SPECKIT_DOCS = speckit('## Phase 1: Polish\n\n- [ ] T001 Document the parser for users\n');
const KIRO_PLAN: Record<string, string> = {
  [`${KIRO}/tasks.md`]:
    '# Implementation Plan\n\n- [ ] 1. Parser\n  - [ ] 1.1 Parse the input\n    - Tokenise, then build the tree\n    - _Requirements: 1.2_\n',
  [`${KIRO}/requirements.md`]:
    '# Requirements Document\n\n### Requirement 1\n\n1. WHEN input is given THEN the system SHALL parse it\n2. WHEN input is bad THEN the system SHALL refuse it\n',
  [`${KIRO}/design.md`]: '# Design\n',
};

async function started(plan: Record<string, string>, branch: string, config = '') {
  const files: Record<string, string> = { 'src/server.ts': 'export {};\n', ...plan };
  if (config) files['.github/coder.yml'] = config;
  const sim = new SimGitHub(files);
  sim.mount();
  for (const login of ['Codertocat', 'reviewer1']) sim.permissions.set(login, 'write');
  const deliver = new Deliver(await testProbot(), sim);
  await deliver.comment('/coder next');
  const pr = sim.pulls[0];
  if (!pr) throw new Error(sim.comments.map((c) => c.body).join('\n'));
  const push = async (changes: Record<string, string>) => {
    sim.push(branch, changes);
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(branch, 'success');
  };
  return { sim, deliver, pr, push, own: () => sim.own(sim.headOf(pr))! };
}

const last = (sim: SimGitHub) => sim.comments.at(-1)!.body;

describe('Passes Spec?', () => {
  const branch = 'coder/001-parser/phase-1';

  it('a spec-kit task naming src/a.ts, and a PR that never touches it, stops at Passes Spec? with that task named', async () => {
    const w = await started(SPECKIT_CODE, branch, 'reviewers: [reviewer1]\n');
    await w.push({
      'src/b.ts': 'export const b = 1;\n',
      'test/b.test.ts': 'test("b", () => {});\n',
    });
    expect(w.own()).toMatchObject({ conclusion: 'failure', external_id: 'Revise' });
    expect(w.own().output!.summary).toContain('❌ missing');
    expect(w.own().output!.summary).toContain('`T001`');
    expect(w.own().output!.text).toContain('ValidateVsSpec{"Passes Spec?"}');
    expect(last(w.sim)).toContain('**Passes Spec? no** on pull request #2');
    expect(last(w.sim)).toContain('- T001: names `src/a.ts`, not changed.');
    expect(w.pr.requested).toEqual([]);
    // Told once: the same head reported again says nothing more.
    const said = w.sim.comments.length;
    await w.deliver.ci(branch, 'success');
    expect(w.sim.comments.length).toBe(said);

    // The same PR with the file changed reaches Code Review; the review request says where the table is.
    await w.push({ 'src/a.ts': 'export const a = 1;\n' });
    expect(w.own()).toMatchObject({ status: 'in_progress', external_id: 'CodeReview' });
    expect(w.own().output!.summary).toContain('✅ evidence');
    expect(w.own().output!.summary).toContain(`/blob/${w.sim.headOf(w.pr)}/src/a.ts)`);
    expect(last(w.sim)).toContain('**CI passed** on pull request #2');
    expect(last(w.sim)).toContain('(Passes Spec?) are in the `coder-loop` check run');
    expect(w.pr.requested).toEqual(['reviewer1']);
    const record = decodeRecord(w.own().output!.text, w.sim.headOf(w.pr));
    expect(record?.spec).toEqual({ sha: w.sim.headOf(w.pr), passed: true, missing: [] });
  });

  it('a documentation-only phase reaches Code Review with no test changed', async () => {
    const w = await started(SPECKIT_DOCS, branch);
    await w.push({ 'docs/parser.md': '# Parser\n' });
    expect(w.own()).toMatchObject({ external_id: 'CodeReview' });
    expect(w.own().output!.summary).toContain('documentation and configuration only');
  });

  it('a Kiro phase whose task cites requirement 1.2 passes when a changed test says so', async () => {
    const kiro = 'coder/parser/phase-1';
    const w = await started(KIRO_PLAN, kiro);
    await w.push({
      'src/parse.ts': 'export {};\n',
      'test/parse.test.ts': 'test("parse", () => {});\n',
    });
    expect(w.own()).toMatchObject({ external_id: 'Revise' });
    expect(last(w.sim)).toContain('- 1.1: cites `1.2`, named by no changed test.');
    await w.push({
      'test/parse.test.ts': '// Validates: Requirements 1.2\ntest("parse", () => {});\n',
    });
    expect(w.own()).toMatchObject({ external_id: 'CodeReview' });
  });

  it('with an agent, the Revise hand-off carries the missing list', async () => {
    const w = await started(SPECKIT_CODE, branch, "agent:\n  command: 'true'\n");
    await w.push({
      'src/b.ts': 'export const b = 1;\n',
      'test/b.test.ts': 'test("b", () => {});\n',
    });
    const revise = w.sim.dispatches.filter((d) => d.client_payload?.node === 'revise');
    expect(revise).toHaveLength(1);
    const head = w.sim.headOf(w.pr);
    expect(revise[0]!.client_payload).toMatchObject({ headSha: head, attempt: 1 });
    // The agent step reads the list from the loop's record of that head (`readSpecMissing`).
    const missing = decodeRecord(w.own().output!.text, head)!.spec!.missing;
    expect(missing).toEqual(['T001: names `src/a.ts`, not changed.']);
    const prompt = buildPrompt({
      node: 'revise',
      attempt: 1,
      repository: 'Codertocat/Hello-World',
      branch,
      headSha: head,
      pullRequest: w.pr.number,
      plansDir: 'docs/plans',
      specMissing: missing,
    });
    expect(prompt).toContain('### Missing evidence');
    expect(prompt).toContain('- T001: names `src/a.ts`, not changed.');
  });

  it('`report` shows the table and blocks nothing', async () => {
    const w = await started(SPECKIT_CODE, branch, 'specCheck: report\n');
    await w.push({ 'src/b.ts': 'export const b = 1;\n' });
    expect(w.own()).toMatchObject({ external_id: 'CodeReview' });
    expect(w.own().output!.summary).toContain('❌ missing');
    expect(w.own().output!.summary).toContain('Write failing test');
  });

  it('`off` is the loop without Passes Spec?: no table, and no test rule', async () => {
    const w = await started(SPECKIT_CODE, branch, 'specCheck: off\n');
    await w.push({ 'src/b.ts': 'export const b = 1;\n' });
    expect(w.own()).toMatchObject({ external_id: 'CodeReview' });
    expect(w.own().output!.summary).not.toContain('Passes Spec?');
  });
});
