import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyStep } from '../../src/action/agent/apply.js';
import { changesDigest } from '../../src/action/agent/step.js';
import { ActionOctokit } from '../../src/action/octokit.js';
import { buildAgentPayload, type AgentPayload } from '../../src/core/index.js';
import { LOOP_APP, OWNER, REPO } from '../helpers/github.js';
import { fixture } from '../helpers/kinds.js';
import {
  checkedFetch,
  NOCK_TRANSPORT,
  requestLog,
  resetRequestLog,
  transport,
  violations,
} from '../helpers/openapi.js';
import { SimGitHub } from '../sim/github.js';

/**
 * `step: apply` in-process against the in-memory GitHub (every request checked against the
 * OpenAPI description), on a BMAD plan whose config puts its story files outside `_bmad-output/`:
 * where the config places them is read from the trusted trees (the PR's base and the head the
 * agent was handed), never from the agent's change set, and a change there is refused.
 */

const BRANCH = 'coder/bmad/phase-1';
const SPRINT = '_bmad-output/implementation-artifacts/sprint-status.yaml';
const CONFIG = '_bmad/bmm/config.yaml';
const STORY = 'docs/stories/1-3-plant-data-model.md';
const placeStories = (dir: string) => `implementation_artifacts: "{project-root}/${dir}"\n`;
const FILES: Record<string, string> = {
  [SPRINT]: fixture(`bmad/v6/${SPRINT}`),
  [CONFIG]: placeStories('docs/stories'),
  [STORY]: '# Story 1.3\n\n## Tasks / Subtasks\n\n- [ ] 1.1 Model\n',
  'src/server.ts': 'export const port = 3000;\n',
};

let sim: SimGitHub;
let work: string;
let payload: AgentPayload;
let head: string;

/** The loop PR #2 on `BRANCH`, whose head (the commit the agent is handed) holds `headFiles`. */
function world(headFiles: Record<string, string> = {}): void {
  sim = new SimGitHub(FILES);
  head = sim.commit({ ...FILES, ...headFiles }, [sim.refs.get('master')!], 'coder-loop: start');
  sim.refs.set(BRANCH, head);
  sim.pulls.push({
    number: 2,
    title: 'Story 1.3',
    body: '',
    head: BRANCH,
    base: 'master',
    state: 'open',
    merged: false,
    labels: new Set(),
    requested: [],
  });
  transport.fetch = sim.fetch;
  payload = buildAgentPayload({
    node: 'tdd',
    repo: { owner: OWNER, repo: REPO },
    branch: BRANCH,
    headSha: head,
    pullRequest: 2,
    issue: 1,
    plan: { name: 'bmad', phase: 1 },
    attempt: 1,
    agent: {
      command: './agent.sh',
      timeoutMinutes: 30,
      keepPartialWork: false,
      maxReviewRounds: 3,
      maxPauses: 3,
      pauseMinutes: 60,
      env: [],
    },
  });
}

/** `step: apply` on the agent's change set, as step agent would have left it in changes-dir. */
async function apply(changes: Record<string, string>) {
  const changesJson = JSON.stringify({
    version: 1,
    headSha: head,
    outcome: 'changed',
    changes: Object.entries(changes).map(([path, text]) => ({
      path,
      mode: '100644',
      content: Buffer.from(text).toString('base64'),
    })),
  });
  await writeFile(join(work, 'changes.json'), changesJson);
  await writeFile(join(work, 'summary.md'), 'done\n');
  return applyStep({
    gh: new ActionOctokit({ auth: 'ghs_app_installation_token', request: { fetch: checkedFetch } }),
    repo: { owner: OWNER, repo: REPO },
    payload,
    plansDir: 'docs/plans',
    changesDir: work,
    digest: changesDigest(changesJson, 'done\n'),
    identity: { login: 'coder-loop[bot]', app: { id: LOOP_APP.id, slug: 'coder-loop' } },
  });
}

const prComments = () => sim.comments.filter((c) => c.issue === 2).map((c) => c.body);
const writes = () => requestLog.filter((r) => r.method !== 'GET').map((r) => r.path);

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-apply-'));
});

afterEach(async () => {
  expect(violations).toEqual([]);
  transport.fetch = NOCK_TRANSPORT;
  resetRequestLog();
  await rm(work, { recursive: true, force: true });
});

describe('step apply on a BMAD plan whose config places its stories outside _bmad-output/', () => {
  it("refuses the agent's change to a story file there, though its change set moves the stories in the config too", async () => {
    world();
    const outcome = await apply({
      [CONFIG]: placeStories('elsewhere'),
      [STORY]: FILES[STORY]!.replace('[ ]', '[x]'),
      'src/plant.ts': 'export {};\n',
    });
    expect(outcome).toMatchObject({ state: 'refused', failedAttempt: true });
    expect(sim.refs.get(BRANCH)).toBe(head);
    expect(writes()).toEqual([`/repos/${OWNER}/${REPO}/issues/2/comments`]);
    expect(prComments()).toHaveLength(1);
    expect(prComments()[0]).toContain(
      `\`"${CONFIG}" — the documents of the plan ${SPRINT} are the architect's, its bookkeeping the loop's\``,
    );
    expect(prComments()[0]).toContain(
      `\`"${STORY}" — the plan ${SPRINT} reads it beyond its folder, where its tool's config on the base or the handed head places it; the plan's documents are the architect's: leave it out of the change set (an architect changes it in a pull request of its own)\``,
    );
    expect(prComments()[0]).not.toContain('src/plant.ts');
  });

  it("reads the config on the PR's base too: a head whose config moved the stories still guards where the base puts them", async () => {
    // The PR moved the stories (a plan change, for an architect on the PR side).
    world({ [CONFIG]: placeStories('docs/sprint') });
    const outcome = await apply({ [STORY]: FILES[STORY]!.replace('[ ]', '[x]') });
    expect(outcome).toMatchObject({ state: 'refused', failedAttempt: true });
    expect(sim.refs.get(BRANCH)).toBe(head);
    expect(prComments()[0]).toContain(
      `\`"${STORY}" — the plan ${SPRINT} reads it beyond its folder`,
    );
    // ...and where the head puts them.
    const moved = await apply({ 'docs/sprint/1-3-plant-data-model.md': FILES[STORY]! });
    expect(moved).toMatchObject({ state: 'refused', failedAttempt: true });
  });

  it('commits a change beside the plan that touches none of its documents', async () => {
    world();
    const outcome = await apply({
      'src/plant.ts': 'export {};\n',
      'notes/7-1-not-a-story-here.md': 'notes\n',
    });
    expect(outcome).toMatchObject({ state: 'committed', failedAttempt: false });
    expect(sim.files(BRANCH)['src/plant.ts']).toBe('export {};\n');
    expect(sim.files(BRANCH)[STORY]).toBe(FILES[STORY]);
  });
});

describe('step apply on a repository too large for one tree listing', () => {
  it('lists the head folder by folder: the guard still holds, and a change beside it commits', async () => {
    // 4 entries at the root, 11 in all (4 files, 7 folders): the root's recursive listing is cut.
    world();
    sim.treeListLimit = 4;
    const refused = await apply({ [STORY]: FILES[STORY]!.replace('[ ]', '[x]') });
    expect(refused).toMatchObject({ state: 'refused', failedAttempt: true });
    expect(prComments()[0]).toContain(
      `\`"${STORY}" — the plan ${SPRINT} reads it beyond its folder`,
    );
    const committed = await apply({ 'src/plant.ts': 'export {};\n' });
    expect(committed).toMatchObject({ state: 'committed', failedAttempt: false });
    expect(sim.files(BRANCH)['src/plant.ts']).toBe('export {};\n');
  });

  it('a folder too large for one listing: refused with the reason on the PR, nothing written', async () => {
    world();
    sim.treeListLimit = 3;
    const outcome = await apply({ 'src/plant.ts': 'export {};\n' });
    expect(outcome).toMatchObject({ state: 'refused', failedAttempt: true });
    expect(sim.refs.get(BRANCH)).toBe(head);
    expect(writes()).toEqual([`/repos/${OWNER}/${REPO}/issues/2/comments`]);
    expect(prComments()[0]).toContain(
      'the changes cannot be checked: the head tree is too large for GitHub to list whole',
    );
  });
});
