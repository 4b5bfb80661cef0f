import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterScenario, beforeScenario, NOW, requestLog, testProbot } from '../helpers/github.js';
import { Deliver } from '../sim/events.js';
import { SimGitHub } from '../sim/github.js';

/**
 * The loop runs plans of the other kinds unchanged (SPEC §2b): spec-kit, Kiro and Task Master,
 * from `/coder next` to the completion commit, on the in-memory GitHub.
 */
const fixture = (path: string) =>
  readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');

const SPECKIT = 'specs/001-photo-albums';
const KIRO = '.kiro/specs/user-auth';
const TASKMASTER = '.taskmaster/tasks/tasks.json';

const REQUIREMENTS = [
  '# Requirements Document',
  '',
  '## Requirements',
  '',
  '### Requirement 1',
  '',
  '**User Story:** As a user, I want to sign in.',
  '',
  '1. WHEN a user signs in THEN the system SHALL start a session',
  '2. WHEN the password is wrong THEN the system SHALL refuse',
  '',
  '### Requirement 2',
  '',
  '**User Story:** As a user, I want my data kept.',
  '',
  '1. WHEN data is saved THEN the system SHALL validate it',
  '',
  '### Requirement 3',
  '',
  '**User Story:** As an admin, I want an audit trail.',
  '',
].join('\n');

export const KIND_FILES: Record<'speckit' | 'kiro' | 'taskmaster', Record<string, string>> = {
  speckit: {
    [`${SPECKIT}/tasks.md`]: fixture('speckit/001-photo-albums/tasks.md'),
    [`${SPECKIT}/spec.md`]: '# Feature Specification: Photo Albums\n',
    [`${SPECKIT}/plan.md`]: '# Implementation Plan: Photo Albums\n',
    [`${SPECKIT}/data-model.md`]: '# Data Model\n',
    [`${SPECKIT}/contracts/albums.yaml`]: 'openapi: 3.0.0\n',
  },
  kiro: {
    [`${KIRO}/tasks.md`]: fixture('kiro/user-auth/tasks.md'),
    [`${KIRO}/requirements.md`]: REQUIREMENTS,
    [`${KIRO}/design.md`]: '# Design\n\nSessions live in Redis.\n',
  },
  taskmaster: { [TASKMASTER]: fixture('taskmaster/tagged.json') },
};

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll(); // the simulator's routes are persisted and optional
  afterScenario();
});

async function world(files: Record<string, string>, config = '') {
  const all: Record<string, string> = { 'src/server.ts': 'export {};\n', ...files };
  if (config) all['.github/coder.yml'] = config;
  const sim = new SimGitHub(all);
  sim.mount();
  for (const login of ['Codertocat', 'reviewer1', 'archie']) sim.permissions.set(login, 'write');
  const deliver = new Deliver(await testProbot(), sim);
  return { sim, deliver };
}

const replies = (sim: SimGitHub) => sim.comments.map((c) => c.body);

/** `/coder next`, a test and the code pushed, CI green, an approval: the completion commit. */
async function toCompletion(
  files: Record<string, string>,
  branch: string,
  command = '/coder next',
) {
  const w = await world(files);
  const { sim, deliver } = w;
  const base = sim.refs.get('master') ?? sim.refs.get('main')!;
  const before = sim.files(base);
  await deliver.comment(command);
  const pr = sim.pulls[0];
  if (!pr)
    throw new Error(
      `${replies(sim).join('\n')}\n${requestLog.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}`,
    );
  const started = sim.files(branch);
  sim.push(branch, {
    'test/albums.test.ts': 'test("albums", () => {});\n',
    'src/albums.ts': 'export const albums = [];\n',
  });
  await deliver.pullRequest('synchronize', pr.number);
  await deliver.ci(branch, 'success');
  const approved = sim.headOf(pr);
  const atApproval = sim.files(approved);
  await deliver.review(pr.number, 'reviewer1', 'approved');
  const head = sim.headOf(pr);
  return { ...w, pr, before, started, approved, atApproval, head, after: sim.files(head) };
}

/** The files whose text differs between two snapshots. */
function changed(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

describe('spec-kit', () => {
  const branch = 'coder/001-photo-albums/phase-2';
  const tasks = `${SPECKIT}/tasks.md`;
  const sidecar = `${SPECKIT}/coder-loop`;

  it('/coder next → lock branch → PR with the spec, plan, data model and contracts → approval → one commit with [X] and the sidecar', async () => {
    const r = await toCompletion(KIND_FILES.speckit, branch);
    // The start commit: no mark (spec-kit has no in-progress mark), the sidecar's log.
    expect(changed(r.before, r.started)).toEqual([`${sidecar}/Master_Log.md`]);
    expect(r.started[`${sidecar}/Master_Log.md`]).toBe(
      `# Master Log\n\n- ${NOW.toISOString()} — **Coder started** — 001-photo-albums, Phase 2: Foundational (Blocking Prerequisites) — @Codertocat — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );
    expect(r.pr.title).toBe(
      '[coder] 001-photo-albums: Phase 2 — Foundational (Blocking Prerequisites)',
    );
    for (const file of ['spec.md', 'plan.md', 'data-model.md', 'contracts/albums.yaml'])
      expect(r.pr.body).toContain(
        `/blob/coder/001-photo-albums/phase-2/specs/001-photo-albums/${file})`,
      );
    expect(r.pr.body).toContain('- [~] T004 Setup database schema and migrations framework');
    expect(r.pr.body).toContain('Refs #1');
    // The completion commit: parent = the approved head; [ ] → [X] on the phase's two tasks only.
    expect(r.sim.commits.get(r.head)!.parents).toEqual([r.approved]);
    expect(r.after[tasks]).toBe(
      r.atApproval[tasks]!.replace('- [ ] T004', '- [X] T004').replace('- [ ] T005', '- [X] T005'),
    );
    expect(changed(r.atApproval, r.after)).toEqual(
      [
        tasks,
        `${sidecar}/Checkpoint.md`,
        `${sidecar}/Master_Log.md`,
        `${sidecar}/Reports/02_Foundational_(Blocking_Prerequisites).md`,
      ].sort(),
    );
    expect(r.after[`${sidecar}/Checkpoint.md`]).toContain('- Completed: Phase 2: Foundational');
    expect(r.after[`${sidecar}/Checkpoint.md`]).toContain('- Next: Phase 3: User Story 1');
    expect(r.after[`${sidecar}/Master_Log.md`]).toContain(
      '**Coder completed** — 001-photo-albums, Phase 2',
    );
    expect(r.after[`${sidecar}/Reports/02_Foundational_(Blocking_Prerequisites).md`]).toContain(
      '- [x] T004 Setup database schema and migrations framework',
    );
    expect(r.sim.own(r.head)).toMatchObject({ external_id: 'FinalVerify;next=3' });
  });
});
