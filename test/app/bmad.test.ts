import nock from 'nock';
import {
  afterScenario,
  beforeScenario,
  NOW,
  requestLog,
  sha,
  testProbot,
} from '../helpers/github.js';
import { fixture } from '../helpers/kinds.js';
import { Deliver } from '../sim/events.js';
import { SimGitHub } from '../sim/github.js';

/**
 * A BMAD v6 project run by the loop on the in-memory GitHub, from `/coder next` to the completion
 * commit: the story BMAD's dev-story would take, `in-progress` in sprint-status.yaml at the start;
 * at the completion its boxes ticked and its Status and sprint-status value `done` — one byte or one
 * word each, every other byte as found.
 */
beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll(); // the simulator's routes are persisted and optional
  afterScenario();
});

const IA = '_bmad-output/implementation-artifacts';
const SPRINT = `${IA}/sprint-status.yaml`;
const STORY = `${IA}/1-2-account-management.md`;
const SIDECAR = `${IA}/coder-loop`;
const EPICS = '_bmad-output/planning-artifacts/epics.md';
const BRANCH = 'coder/bmad/phase-1.2';

const FILES: Record<string, string> = {
  [SPRINT]: fixture(`bmad/v6/${SPRINT}`),
  [STORY]: fixture(`bmad/v6/${STORY}`),
  [`${IA}/1-1-user-authentication.md`]: fixture(`bmad/v6/${IA}/1-1-user-authentication.md`),
  [EPICS]: '# Epics\n\n## Epic 1: Accounts\n\n### Story 1.2: Account Management\n',
};

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

/** The files whose text differs between two snapshots. */
function changed(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

describe('BMAD v6', () => {
  it('/coder next → story 1.2 in-progress → PR with the story → approval → its boxes [x], Status and sprint status done, the sidecar', async () => {
    const { sim, deliver } = await world(FILES);
    const before = sim.files(sim.refs.get('master')!);
    await deliver.comment('/coder next');
    const pr = sim.pulls[0];
    if (!pr)
      throw new Error(
        `${replies(sim).join('\n')}\n${requestLog.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}`,
      );
    // The start commit: one scalar of sprint-status.yaml, and the sidecar's log.
    const started = sim.files(BRANCH);
    expect(changed(before, started)).toEqual([`${SIDECAR}/Master_Log.md`, SPRINT]);
    expect(started[SPRINT]).toBe(
      before[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: in-progress\n',
      ),
    );
    expect(started[`${SIDECAR}/Master_Log.md`]).toBe(
      `# Master Log\n\n- ${NOW.toISOString()} — **Coder started** — bmad, Phase 1.2: Account Management — @Codertocat — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );
    expect(pr.title).toBe('[coder] bmad: Phase 1.2 — Account Management');
    // The reply says what the start marked: the story, in sprint-status.yaml (BMAD has no
    // in-progress box).
    expect(replies(sim).join('\n')).toContain(
      `**Coder started** on Phase 1.2 — Account Management of \`bmad\`: the story marked \`in-progress\` in \`${SPRINT}\``,
    );
    for (const path of [STORY, SPRINT, EPICS])
      expect(pr.body).toContain(`/blob/${BRANCH}/${path})`);
    expect(pr.body).toContain('- [~] Task 1 (AC: #1)');
    expect(pr.body).toContain('- [~] Subtask 2.2 Show the refusal message');
    expect(pr.body).toContain('> 1. A signed-in user can change the display name.');
    expect(pr.body).toContain(
      `an approving review marks the tasks done in \`${STORY}\` and \`${SPRINT}\` and writes the phase report`,
    );

    sim.push(
      BRANCH,
      {
        // The tasks cite acceptance criteria 1, 2 and 3: the test says it covers them (Passes Spec?).
        'test/account.test.ts': '// Acceptance criteria 1, 2 and 3\ntest("account", () => {});\n',
        'src/account.ts': 'export const account = {};\n',
      },
      'Story 1.2: account management',
    );
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(BRANCH, 'success');
    const approved = sim.headOf(pr);
    const atApproval = sim.files(approved);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    const head = sim.headOf(pr);
    const after = sim.files(head);
    // One completion commit on the approved head.
    expect(sim.commits.get(head)!.parents).toEqual([approved]);
    expect(after[STORY]).toBe(
      atApproval[STORY]!.replace('Status: ready-for-dev', 'Status: done').replaceAll(
        '- [ ] ',
        '- [x] ',
      ),
    );
    expect(after[SPRINT]).toBe(
      atApproval[SPRINT]!.replace(
        '  1-2-account-management: in-progress\n',
        '  1-2-account-management: done\n',
      ),
    );
    const reports = Object.keys(after).filter((p) => p.startsWith(`${SIDECAR}/Reports/`));
    expect(reports).toHaveLength(1);
    expect(changed(atApproval, after)).toEqual(
      [STORY, SPRINT, `${SIDECAR}/Checkpoint.md`, `${SIDECAR}/Master_Log.md`, ...reports].sort(),
    );
    expect(after[reports[0]!]).toContain('- [x] 1.2/1 Task 1 (AC: #1)');
    expect(after[`${SIDECAR}/Master_Log.md`]).toContain('**Coder completed** — bmad, Phase 1.2');
  });

  it('/coder run goes on to the next story once the first is merged: it has a file, so it starts', async () => {
    const NEXT = `${IA}/1-3-plant-data-model.md`;
    const files = {
      ...FILES,
      [NEXT]: FILES[STORY]!.replace(
        '# Story 1.2: Account Management',
        '# Story 1.3: Plant Data Model',
      ),
    };
    const { sim, deliver } = await world(files);
    await deliver.comment('/coder run bmad');
    const first = sim.pulls[0]!;
    expect(first.head).toBe(BRANCH);
    sim.push(first.head, {
      'test/account.test.ts': '// Acceptance criteria 1, 2 and 3\ntest("account", () => {});\n',
      'src/account.ts': 'export const account = {};\n',
    });
    await deliver.pullRequest('synchronize', first.number);
    await deliver.ci(first.head, 'success');
    await deliver.review(first.number, 'reviewer1', 'approved');
    await deliver.ci(first.head, 'success');
    // A person merges it; GitHub sends `closed`.
    const head = sim.headOf(first);
    const merge = sha(`merge-${first.number}`);
    sim.commits.set(merge, {
      sha: merge,
      tree: sim.commits.get(head)!.tree,
      parents: [sim.refs.get(first.base)!, head],
      message: `Merge pull request #${first.number}`,
    });
    sim.refs.set(first.base, merge);
    first.merged = true;
    first.state = 'closed';
    await deliver.pullRequest('closed', first.number);
    expect(sim.pulls.map((p) => [p.head, p.state])).toEqual([
      [BRANCH, 'closed'],
      ['coder/bmad/phase-1.3', 'open'],
    ]);
    // Story 1.2 done (by the first completion), 1.3 in-progress (by the second start).
    expect(sim.files(sim.headOf(sim.pulls[1]!))[SPRINT]).toBe(
      FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: done\n',
      ).replace('  1-3-plant-data-model: backlog\n', '  1-3-plant-data-model: in-progress\n'),
    );
  });

  it('the next story without a file waits for create-story; nothing is written', async () => {
    const files = {
      ...FILES,
      [SPRINT]: FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: done\n',
      ),
    };
    const { sim, deliver } = await world(files);
    const base = sim.refs.get('master')!;
    await deliver.comment('/coder next');
    expect(replies(sim)[0]).toContain(
      "Plan `bmad` is not complete, but no phase can start: Story 1\\-3\\-plant\\-data\\-model has no story file yet: BMAD's create\\-story \\(bmad\\-create\\-story\\) writes \\_bmad\\-output/implementation\\-artifacts/1\\-3\\-plant\\-data\\-model\\.md\\. Nothing was written",
    );
    expect(sim.pulls).toEqual([]);
    expect(sim.refs.get('master')).toBe(base);
  });

  it('/coder status shows the stories and the current one', async () => {
    const { sim, deliver } = await world(FILES);
    await deliver.comment('/coder status');
    const [said] = replies(sim);
    expect(said).toContain(`### bmad (BMAD, \`${SPRINT}\`)`);
    expect(said).toContain('- **Phase 1.2: Account Management** (0/6) ← current');
  });

  it('a PR that changes the story, approved by a non-architect, escalates', async () => {
    const { sim, deliver } = await world(FILES, 'architects: [archie]\n');
    await deliver.comment('/coder next');
    const pr = sim.pulls[0]!;
    sim.push(pr.head, {
      'test/a.test.ts': '// Acceptance criteria 1, 2 and 3\ntest("a", () => {});\n',
      [STORY]: `${FILES[STORY]}\nChanged by the coder.\n`,
    });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(pr.head, 'success');
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.headOf(pr)).toBe(head);
    expect(replies(sim).at(-1)).toContain('plan change needed');
    expect(replies(sim).at(-1)).toContain(STORY);
  });

  // The `plans` globs are what guard a plan's documents on a PR and from the agent: the loop
  // runs a plan BMAD's config places elsewhere once `plans` names it, never unguarded.
  const DOCS = 'docs/implementation-artifacts';
  const placed = {
    '_bmad/bmm/config.yaml':
      '# BMM Module Configuration\nimplementation_artifacts: "{project-root}/docs/implementation-artifacts"\noutput_folder: "{project-root}/docs"\n',
    [`${DOCS}/sprint-status.yaml`]: FILES[SPRINT]!,
    [`${DOCS}/1-2-account-management.md`]: FILES[STORY]!,
  };

  it('/coder next does not run a plan only _bmad/bmm/config.yaml places (docs/implementation-artifacts/): nothing written', async () => {
    const { sim, deliver } = await world(placed);
    const before = sim.files(sim.refs.get('master')!);
    await deliver.comment('/coder next');
    expect(sim.pulls).toEqual([]);
    expect(sim.refs.has(BRANCH)).toBe(false);
    expect(sim.files(sim.refs.get('master')!)).toEqual(before);
    expect(replies(sim).at(-1)).toContain(
      "A tool's config places a plan at `docs/implementation-artifacts/sprint-status.yaml`: the loop runs it once `plans` in `.github/coder.yml` names it",
    );
  });

  it('/coder next runs that plan once `plans` in .github/coder.yml names it', async () => {
    const { sim, deliver } = await world(placed, `plans:\n  - ${DOCS}/sprint-status.yaml\n`);
    await deliver.comment('/coder next');
    const pr = sim.pulls[0];
    if (!pr) throw new Error(replies(sim).join('\n'));
    expect(pr.title).toBe('[coder] bmad: Phase 1.2 — Account Management');
    expect(sim.files(BRANCH)[`${DOCS}/sprint-status.yaml`]).toBe(
      FILES[SPRINT]!.replace(
        '  1-2-account-management: ready-for-dev\n',
        '  1-2-account-management: in-progress\n',
      ),
    );
  });
});

// What decides where a plan's files are is the plan's too: BMAD's config, and the story files it
// (or `story_location`) puts outside `_bmad-output/`. A writer's approval completes nothing that
// changes them, and the completion never writes a locked path on a writer's approval.
describe('BMAD: the config and the story files it places are an architect’s', () => {
  const CONFIG = '_bmad/bmm/config.yaml';
  const configAt = (folder: string) =>
    `# BMM Module Configuration\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/${folder}"\n`;
  const GUARDED = 'architects: [archie]\nlocked: ["locked/**"]\n';
  const evidence = {
    'test/account.test.ts': '// Acceptance criteria 1, 2 and 3\ntest("account", () => {});\n',
    'src/account.ts': 'export const account = {};\n',
  };

  /** `/coder next`, `changes` pushed, CI green on the head, then `login`'s approval. */
  async function approved(
    files: Record<string, string>,
    changes: Record<string, string>,
    login = 'reviewer1',
  ) {
    const w = await world(files, GUARDED);
    await w.deliver.comment('/coder next');
    const pr = w.sim.pulls[0];
    if (!pr) throw new Error(replies(w.sim).join('\n'));
    w.sim.push(pr.head, { ...evidence, ...changes });
    await w.deliver.pullRequest('synchronize', pr.number);
    await w.deliver.ci(pr.head, 'success');
    const head = w.sim.headOf(pr);
    await w.deliver.review(pr.number, login, 'approved');
    return { ...w, pr, head };
  }

  it('a PR that points the config’s story folder at a locked one, approved by a writer, escalates: nothing is written there', async () => {
    const LOCKED_STORY = 'locked/stories/1-2-account-management.md';
    const files = {
      ...FILES,
      [CONFIG]: configAt(IA),
      [LOCKED_STORY]: FILES[STORY]!,
    };
    const { sim, pr, head } = await approved(files, { [CONFIG]: configAt('locked/stories') });
    expect(sim.headOf(pr)).toBe(head);
    expect(sim.files(head)[LOCKED_STORY]).toBe(FILES[STORY]);
    const said = replies(sim).at(-1)!;
    expect(said).toContain('plan change needed, and @reviewer1 is not an architect');
    expect(said).toContain(`plan document: \`${CONFIG}\``);
  });

  it('a PR that ticks a later story’s boxes where the config puts story files (docs/stories/), approved by a writer, escalates', async () => {
    const DOCS_STORIES = 'docs/stories';
    const NEXT = `${DOCS_STORIES}/1-3-plant-data-model.md`;
    const next = FILES[STORY]!.replace(
      '# Story 1.2: Account Management',
      '# Story 1.3: Plant Data Model',
    );
    const files = {
      [SPRINT]: FILES[SPRINT]!,
      [EPICS]: FILES[EPICS]!,
      [CONFIG]: configAt(DOCS_STORIES),
      [`${DOCS_STORIES}/1-2-account-management.md`]: FILES[STORY]!,
      [NEXT]: next,
    };
    const { sim, pr, head } = await approved(files, {
      [NEXT]: next.replaceAll('- [ ] ', '- [x] '),
    });
    expect(sim.headOf(pr)).toBe(head);
    const said = replies(sim).at(-1)!;
    expect(said).toContain('plan change needed, and @reviewer1 is not an architect');
    expect(said).toContain(`plan document: \`${NEXT}\``);
  });

  it('a story file the config places under a locked path: the completion is an architect’s, the reason named', async () => {
    const LOCKED_STORY = 'locked/stories/1-2-account-management.md';
    const files = {
      [SPRINT]: FILES[SPRINT]!,
      [EPICS]: FILES[EPICS]!,
      [CONFIG]: configAt('locked/stories'),
      [LOCKED_STORY]: FILES[STORY]!,
    };
    const { sim, deliver, pr, head } = await approved(files, {});
    expect(sim.headOf(pr)).toBe(head);
    expect(sim.files(head)[LOCKED_STORY]).toBe(FILES[STORY]);
    const said = replies(sim).at(-1)!;
    expect(said).toContain(
      'the completion writes locked paths, and @reviewer1 is not an architect',
    );
    expect(said).toContain(`completion writes locked: \`${LOCKED_STORY}\``);
    // The architect's approval of that head completes it.
    await deliver.review(pr.number, 'archie', 'approved');
    const done = sim.headOf(pr);
    expect(sim.commits.get(done)!.parents).toEqual([head]);
    expect(sim.files(done)[LOCKED_STORY]).toContain('Status: done');
    await deliver.ci(pr.head, 'success');
    expect(sim.own(sim.headOf(pr))).toMatchObject({ conclusion: 'success' });
  });
});
