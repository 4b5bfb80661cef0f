import nock from 'nock';
import { parseAgentPayload } from '../../src/core/index.js';
import {
  afterScenario,
  beforeScenario,
  NOW,
  requestLog,
  sha,
  testProbot,
} from '../helpers/github.js';
import { Deliver } from '../sim/events.js';
import { SimGitHub } from '../sim/github.js';
import { fixture, KIND_FILES, KIRO, OPENSPEC, SPECKIT, TASKMASTER } from '../helpers/kinds.js';
import { progressComments } from '../helpers/world.js';

/**
 * The loop runs plans of the other kinds unchanged (SPEC §2b): spec-kit, Kiro and Task Master,
 * from `/coder next` to the completion commit, on the in-memory GitHub.
 */
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
  sim.push(
    branch,
    {
      // Kiro's tasks cite requirement 1.2: the test says it validates it (Passes Spec?).
      'test/albums.test.ts': '// Validates: Requirements 1.2\ntest("albums", () => {});\n',
      'src/albums.ts': 'export const albums = [];\n',
    },
    'T004, tasks 2.1 and 2.2: the models\n\nValidates: Requirements 1.2',
  );
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
    // The report's traceability: the verdict on the approved head, the commit naming T004.
    const commit = `[${r.approved.slice(0, 7)}](https://github.com/Codertocat/Hello-World/commit/${r.approved})`;
    const report = r.after[`${sidecar}/Reports/02_Foundational_(Blocking_Prerequisites).md`]!;
    expect(report).toContain(
      [
        '## Traceability',
        '',
        'Passes Spec? yes on the approved head: 0 of 2 tasks traced to evidence, 0 lacking.',
        '',
        '| Task | Evidence | Tests | Commits |',
        '| --- | --- | --- | --- |',
        `| \`T004\` | names nothing checkable (no path, no requirement): the reviewer judges it. | — | ${commit} |`,
        '| `T005` | names nothing checkable (no path, no requirement): the reviewer judges it. | — | — |',
        '',
        '- Tests: changed (1 test file).',
        '',
        '## Commits',
      ].join('\n'),
    );
    expect(r.sim.own(r.head)).toMatchObject({ external_id: 'FinalVerify;next=3' });
  });
});

describe('OpenSpec', () => {
  const branch = 'coder/add-profile-export/phase-1';
  const tasks = `${OPENSPEC}/tasks.md`;
  const sidecar = `${OPENSPEC}/coder-loop`;

  it('/coder next → lock branch → PR with the proposal, design and delta specs → approval → one commit with [x] and the sidecar', async () => {
    const r = await toCompletion(KIND_FILES.openspec, branch);
    // The start commit: no mark (OpenSpec has no in-progress mark), the sidecar's log.
    expect(changed(r.before, r.started)).toEqual([`${sidecar}/Master_Log.md`]);
    expect(r.started[`${sidecar}/Master_Log.md`]).toBe(
      `# Master Log\n\n- ${NOW.toISOString()} — **Coder started** — add-profile-export, Phase 1: Setup — @Codertocat — [#1](https://github.com/Codertocat/Hello-World/issues/1)\n`,
    );
    expect(r.pr.title).toBe('[coder] add-profile-export: Phase 1 — Setup');
    for (const file of ['proposal.md', 'design.md', 'specs/user-profile/spec.md'])
      expect(r.pr.body).toContain(`/blob/${branch}/${OPENSPEC}/${file})`);
    expect(r.pr.body).toContain('- [~] 1.2 Add the `csv-stringify` dependency');
    expect(replies(r.sim).join('\n')).toContain('OpenSpec has no in-progress mark');
    // The completion commit: parent = the approved head; [ ] → [x] on the phase's open task only.
    expect(r.sim.commits.get(r.head)!.parents).toEqual([r.approved]);
    expect(r.after[tasks]).toBe(r.atApproval[tasks]!.replace('- [ ] 1.2', '- [x] 1.2'));
    expect(changed(r.atApproval, r.after)).toEqual(
      [
        tasks,
        `${sidecar}/Checkpoint.md`,
        `${sidecar}/Master_Log.md`,
        `${sidecar}/Reports/01_Setup.md`,
      ].sort(),
    );
    expect(r.after[`${sidecar}/Checkpoint.md`]).toContain('- Next: Phase 2: Core Implementation');
    expect(r.sim.own(r.head)).toMatchObject({ external_id: 'FinalVerify;next=2' });
  });
});

describe('Kiro', () => {
  const branch = 'coder/user-auth/phase-2';
  const tasks = `${KIRO}/tasks.md`;
  const sidecar = `${KIRO}/coder-loop`;

  it('/coder next marks [-] → PR with the cited requirements first and the design → approval → [x] and the sidecar', async () => {
    const r = await toCompletion(KIND_FILES.kiro, branch);
    const source = r.before[tasks]!;
    // Start: the top-level task and the open required sub-task get [-]; [-] and [ ]* stay.
    expect(r.started[tasks]).toBe(
      source
        .replace('- [ ] 2. Implement', '- [-] 2. Implement')
        .replace('- [ ] 2.2 Implement', '- [-] 2.2 Implement'),
    );
    expect(changed(r.before, r.started)).toEqual([`${sidecar}/Master_Log.md`, tasks].sort());
    const body = r.pr.body!;
    expect(body).toContain(
      '#### Requirements the tasks cite (Requirement 2, Requirement 3, Requirement 1)',
    );
    expect(body.indexOf('> ### Requirement 2')).toBeLessThan(body.indexOf('> ### Requirement 1'));
    expect(body).toContain('> Sessions live in Redis.');
    expect(body).toContain(`/${KIRO}/design.md)`);
    expect(body).toContain('- [ ] 2.3 Write unit tests for User model (optional)');
    // Completion: [-] → [x]; the optional task keeps its [ ]*.
    expect(r.sim.commits.get(r.head)!.parents).toEqual([r.approved]);
    expect(r.after[tasks]).toBe(
      source
        .replace('- [ ] 2. Implement', '- [x] 2. Implement')
        .replace('- [-] 2.1 Create', '- [x] 2.1 Create')
        .replace('- [ ] 2.2 Implement', '- [x] 2.2 Implement'),
    );
    expect(changed(r.atApproval, r.after)).toEqual(
      [
        tasks,
        `${sidecar}/Checkpoint.md`,
        `${sidecar}/Master_Log.md`,
        `${sidecar}/Reports/02_Implement_data_models_and_validation.md`,
      ].sort(),
    );
    expect(r.after[`${sidecar}/Checkpoint.md`]).toContain(
      '- Next: Phase 3: Create storage mechanism',
    );
    // Each task and each requirement it cites → the test and the commit that name it.
    const commit = `[${r.approved.slice(0, 7)}](https://github.com/Codertocat/Hello-World/commit/${r.approved})`;
    const report = r.after[`${sidecar}/Reports/02_Implement_data_models_and_validation.md`]!;
    expect(report).toContain(
      'Passes Spec? yes on the approved head: 3 of 3 tasks traced to evidence, 0 lacking.',
    );
    expect(report).toContain(
      `| \`2.1\` | \`test/albums.test.ts\` names \`1.2\`. | \`test/albums.test.ts\` | ${commit} |`,
    );
    expect(report).toContain(
      // 2.3 cites 1.2, which the commit names: it covers the task too.
      `| \`2.3\` | \`test/albums.test.ts\` names \`1.2\`. | \`test/albums.test.ts\` | ${commit} |`,
    );
    expect(report).toContain(
      `| \`1.2\` | \`2.1\`, \`2.2\`, \`2.3\` | \`test/albums.test.ts\` | ${commit} |`,
    );
    expect(report).toContain('| `3.3` | `2.1` | — | — |');
  });
});

describe('Task Master', () => {
  const branch = 'coder/master/phase-2';
  const sidecar = '.taskmaster/tasks/coder-loop/master';

  it('/coder next master marks "in-progress" → PR with details and test strategy → approval → "done" and the sidecar', async () => {
    const r = await toCompletion(KIND_FILES.taskmaster, branch, '/coder next master');
    const source = r.before[TASKMASTER]!;
    const nth = (text: string, from: string, value: string, to: string) => {
      const at = text.indexOf(from);
      const s = text.indexOf(`"status": "${value}"`, at);
      return text.slice(0, s) + `"status": "${to}"` + text.slice(s + `"status": "${value}"`.length);
    };
    const start = [
      '"title": "Implement GitHub OAuth"',
      '"title": "Configure OAuth"',
      '"title": "Handle callback"',
    ];
    let expected = source;
    for (const title of start) expected = nth(expected, title, 'pending', 'in-progress');
    expect(r.started[TASKMASTER]).toBe(expected);
    expect(r.pr.body).toContain('- Details: Add the client id to the config.');
    expect(r.pr.body).toContain('### Tasks\n\n- [~] Configure OAuth\n- [~] Handle callback');
    let done = source;
    for (const title of start) done = nth(done, title, 'pending', 'done');
    expect(r.after[TASKMASTER]).toBe(done);
    expect(changed(r.atApproval, r.after)).toEqual(
      [
        TASKMASTER,
        `${sidecar}/Checkpoint.md`,
        `${sidecar}/Master_Log.md`,
        `${sidecar}/Reports/02_Implement_GitHub_OAuth.md`,
      ].sort(),
    );
    expect(r.after[`${sidecar}/Checkpoint.md`]).toContain('- Next: Phase 3: Add dashboard');
  });

  it('a legacy tasks.json with CRLF and no final newline keeps both: only the status value changes', async () => {
    const file = 'tasks/tasks.json';
    const source = fixture('taskmaster/legacy-crlf-no-final-newline.json');
    const r = await toCompletion({ [file]: source }, 'coder/master/phase-1');
    expect(r.started[file]).toBe(source.replace('"pending"', '"in-progress"'));
    expect(r.after[file]).toBe(source.replace('"pending"', '"done"'));
    expect(r.after[file]!.endsWith('}')).toBe(true);
    expect(r.after['tasks/coder-loop/master/Master_Log.md']).toContain('**Coder completed**');
  });
});

describe('which plan, and whether it may start', () => {
  const nothingWritten = (sim: SimGitHub, base: string) => {
    expect(sim.pulls).toEqual([]);
    expect([...sim.refs.keys()].filter((r) => r.startsWith('coder/'))).toEqual([]);
    expect(sim.refs.get('master')).toBe(base);
  };

  it('spec-kit without plan.md: "Plan required" with the file, nothing written', async () => {
    const files = { ...KIND_FILES.speckit };
    delete files[`${SPECKIT}/plan.md`];
    const { sim, deliver } = await world(files);
    const base = sim.refs.get('master')!;
    await deliver.comment('/coder next');
    expect(replies(sim)).toEqual([
      '**Plan required.** Plan `001-photo-albums` is not ready for the loop; nothing was written. Fix these and run `/coder next 001-photo-albums` again:\n\n- `specs/001-photo-albums/tasks.md: error: spec-kit\'s plan is missing: specs/001-photo-albums/plan.md. Write plan.md beside tasks.md.`\n\nWarnings (these lines are not read as tasks):\n\n- `specs/001-photo-albums/tasks.md:58: warning: The box under "## Phase N: Polish & Cross-Cutting Concerns" (line 60) is not read as a task: "N" is no phase number (spec-kit\'s template leaves it for you to fill in). Number the phase to run it: "## Phase 4: Polish & Cross-Cutting Concerns".`',
    ]);
    nothingWritten(sim, base);
  });

  it('a tasks.json that is not JSON: "Plan required" with file:line, nothing written', async () => {
    const { sim, deliver } = await world({
      [TASKMASTER]: '{\n  "master": {\n    "tasks": [,]\n  }\n}\n',
    });
    const base = sim.refs.get('master')!;
    await deliver.comment('/coder next');
    expect(replies(sim)).toHaveLength(1);
    expect(replies(sim)[0]).toMatch(
      /^\*\*Plan required\.\*\* Plan `\.taskmaster\/tasks\/tasks\.json` is not ready[^\n]*\n\n- `\.taskmaster\/tasks\/tasks\.json:3: error: not valid JSON: expected a value at column 15\./,
    );
    nothingWritten(sim, base);
  });

  it('two plans with one name: both paths listed, nothing written; the path reaches each', async () => {
    const files = {
      ...KIND_FILES.kiro,
      'specs/user-auth/tasks.md': '## Phase 1: Setup\n\n- [ ] T001 Create the project\n',
      'specs/user-auth/spec.md': '# Spec\n',
      'specs/user-auth/plan.md': '# Plan\n',
    };
    const { sim, deliver } = await world(files);
    const base = sim.refs.get('master')!;
    await deliver.comment('/coder next user-auth');
    expect(replies(sim)).toEqual([
      'Two plans are named `user-auth`; nothing was written. Name one by the path of its tasks file:\n\n- `/coder next .kiro/specs/user-auth/tasks.md`\n- `/coder next specs/user-auth/tasks.md`',
    ]);
    nothingWritten(sim, base);
    await deliver.comment('/coder next');
    expect(replies(sim)[1]).toBe(
      'Which plan? Run `/coder next <PlanName>` with one of:\n\n- `.kiro/specs/user-auth/tasks.md`\n- `specs/user-auth/tasks.md`',
    );
    nothingWritten(sim, base);
    await deliver.comment('/coder next specs/user-auth/tasks.md');
    expect(sim.pulls.map((p) => p.head)).toEqual(['coder/specs-user-auth-tasks-md/phase-1']);
  });

  it('lookalike tasks are named in the reply to /coder next', async () => {
    const tasks = `${KIRO}/tasks.md`;
    const files = {
      ...KIND_FILES.kiro,
      [tasks]: `${KIND_FILES.kiro[tasks]}\n-[ ] 9. Not a task\n`,
    };
    const { sim, deliver } = await world(files);
    await deliver.comment('/coder next');
    expect(sim.pulls).toHaveLength(1);
    expect(replies(sim)[0]).toContain('Warnings (these lines are not read as tasks):');
    expect(replies(sim)[0]).toContain(
      `- \`${tasks}:28: warning: "-[ ] 9. Not a task" looks like a task`,
    );
  });

  it('/coder status lists the plans of every kind', async () => {
    const { sim, deliver } = await world({
      ...KIND_FILES.speckit,
      ...KIND_FILES.kiro,
      ...KIND_FILES.taskmaster,
    });
    await deliver.comment('/coder status');
    const [said] = replies(sim);
    expect(said).toContain(
      '### 001\\-photo\\-albums (spec-kit, `specs/001-photo-albums/tasks.md`)',
    );
    expect(said).toContain('### user\\-auth (Kiro, `.kiro/specs/user-auth/tasks.md`)');
    expect(said).toContain('### master (Task Master, `.taskmaster/tasks/tasks.json`)');
    expect(said).toContain('### feature\\-x (Task Master, `.taskmaster/tasks/tasks.json`)');
    expect(said).toContain(
      '- **Phase 2: Foundational \\(Blocking Prerequisites\\)** (0/2) ← current',
    );
    expect(said).toContain('Phase 2 is free: `/coder next user-auth` takes it.');
    expect(said).toContain('  - [ ] Spike (set aside)');
  });
});

describe('/coder run over a Task Master plan', () => {
  it('goes on in dependency order: the next ready task may have a lower id than the merged one', async () => {
    const json = `${JSON.stringify(
      {
        master: {
          tasks: [
            { id: 1, title: 'Use the store', status: 'pending', dependencies: [3], subtasks: [] },
            { id: 2, title: 'Later', status: 'pending', dependencies: [1], subtasks: [] },
            { id: 3, title: 'Build the store', status: 'pending', dependencies: [], subtasks: [] },
          ],
        },
      },
      null,
      2,
    )}\n`;
    const { sim, deliver } = await world({ [TASKMASTER]: json });
    await deliver.comment('/coder run master');
    const first = sim.pulls[0]!;
    expect(first.head).toBe('coder/master/phase-3');
    sim.push(first.head, {
      'test/store.test.ts': 'test("store", () => {});\n',
      'src/store.ts': 'export const store = 1;\n',
    });
    await deliver.pullRequest('synchronize', first.number);
    await deliver.ci(first.head, 'success');
    await deliver.review(first.number, 'reviewer1', 'approved');
    await deliver.ci(first.head, 'success');
    expect(sim.own(sim.headOf(first))).toMatchObject({ conclusion: 'success', external_id: 'End' });
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
      ['coder/master/phase-3', 'closed'],
      ['coder/master/phase-1', 'open'],
    ]);
    const second = sim.headOf(sim.pulls[1]!);
    expect(sim.files(second)[TASKMASTER]).toBe(
      json
        .replace('"status": "pending"', '"status": "in-progress"')
        .replace(/("title": "Build the store",\n\s+)"status": "pending"/, '$1"status": "done"'),
    );
  });
});

describe('the progress comment of a run over a Kiro plan', () => {
  const rows = (text: string) => text.split('\n').filter((l) => /^\| \d/.test(l));

  it("lists the plan's phases, and lists them again when the comment was deleted", async () => {
    const { sim, deliver } = await world(KIND_FILES.kiro);
    await deliver.comment('/coder run user-auth');
    const pr = sim.pulls[0]!;
    const first = progressComments(sim)[0]!;
    const listed = rows(first.body);
    // Phase 1 is done on the default branch, phase 2 is the run's, phase 3 and on are to do.
    expect(listed.length).toBeGreaterThan(2);
    expect(listed.filter((r) => r.includes('⏳ to do')).length).toBe(listed.length - 2);
    sim.comments.splice(sim.comments.indexOf(first), 1);
    sim.push(pr.head, { 'test/user.test.ts': 'test("user", () => {});\n' });
    await deliver.pullRequest('synchronize', pr.number);
    const again = progressComments(sim);
    expect(again).toHaveLength(1);
    expect(again[0]!.id).not.toBe(first.id);
    // Read again from the Kiro tasks file on the default branch: the same phases to do.
    expect(rows(again[0]!.body).filter((r) => r.includes('⏳ to do'))).toEqual(
      listed.filter((r) => r.includes('⏳ to do')),
    );
  });
});

describe("the user's plan documents are locked", () => {
  it("a PR that changes Kiro's design, approved by a non-architect, escalates", async () => {
    const { sim, deliver } = await world(KIND_FILES.kiro, 'architects: [archie]\n');
    await deliver.comment('/coder next');
    const pr = sim.pulls[0]!;
    sim.push(pr.head, {
      'test/a.test.ts': '// Validates: Requirements 1.2\ntest("a", () => {});\n',
      [`${KIRO}/design.md`]: '# Design\n\nChanged by the coder.\n',
    });
    await deliver.pullRequest('synchronize', pr.number);
    await deliver.ci(pr.head, 'success');
    const head = sim.headOf(pr);
    await deliver.review(pr.number, 'reviewer1', 'approved');
    expect(sim.headOf(pr)).toBe(head);
    expect(replies(sim).at(-1)).toContain(
      '**Escalated to architect** (pull request #2): plan change needed, and @reviewer1 is not an architect.',
    );
    expect(replies(sim).at(-1)).toContain(`${KIRO}/design.md`);
  });
});

describe('a plan of another kind handed to the coding agent', () => {
  it('spec-kit: the hand-off GitHub is sent holds ten top-level properties, and names the tasks file and phase', async () => {
    const { sim, deliver } = await world(KIND_FILES.speckit, 'agent:\n  command: "true"\n');
    await deliver.comment('/coder next');
    expect(sim.dispatches).toHaveLength(1);
    const sent = sim.dispatches[0]!.client_payload as Record<string, unknown>;
    // GitHub refuses a client_payload of more than 10 (the request check holds it to that too).
    expect(Object.keys(sent)).toHaveLength(10);
    const { payload } = parseAgentPayload(sent);
    expect(payload).toMatchObject({
      node: 'tdd',
      plan: '001-photo-albums',
      planFile: `${SPECKIT}/tasks.md`,
      phaseId: '2',
    });
  });
});
