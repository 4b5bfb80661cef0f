import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBundle } from '../helpers/bundle.js';
import { KIND_FILES, KIRO, SPECKIT, TASKMASTER } from '../helpers/kinds.js';
import { examplePayload, reviewRelayRun } from '../helpers/payloads.js';
import { SimGitHub } from '../sim/github.js';
import { freshBuild } from '../helpers/build.js';

// Runs the built Action (dist/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('dist'));

/**
 * The BUILT Action (dist/index.js) runs a plan of each other kind unchanged: `/coder next` marks
 * the phase in the kind's own dialect (Kiro `[-]`, Task Master "in-progress", spec-kit none) and
 * logs in the sidecar; green CI and an approval make the one completion commit with the kind's
 * done marks.
 */
const BRANCH = 'coder/user-auth/phase-2';
const TASKS = `${KIRO}/tasks.md`;

let sim: SimGitHub;
let server: { url: string; close: () => Promise<void> };
let work: string;

async function serve(files: Record<string, string>) {
  sim = new SimGitHub({ ...files, 'src/server.ts': 'export {};\n' });
  sim.permissions.set('Codertocat', 'write');
  sim.permissions.set('reviewer1', 'write');
  server = await sim.serve();
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-kinds-'));
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
  expect(sim.violations).toEqual([]);
});

const action = (event: string, payload: unknown) =>
  runBundle({
    work,
    event,
    payload,
    env: {
      GITHUB_API_URL: server.url,
      INPUT_TOKEN: 'ghs_app_installation_token',
      'INPUT_APP-SLUG': 'coder-loop',
    },
  });

// The bundle spaces writes a second apart, as GitHub asks of integrations (throttling plugin).
jest.setTimeout(90_000);

/** The `status` value after the task titled `title` (the first after it), changed to `to`. */
function setStatus(text: string, title: string, from: string, to: string): string {
  const at = text.indexOf(`"status": "${from}"`, text.indexOf(`"title": "${title}"`));
  return text.slice(0, at) + `"status": "${to}"` + text.slice(at + `"status": "${from}"`.length);
}

/** `/coder next`, a test pushed, green CI, an approval — each through the built Action. */
async function throughApproval(command: string, branch: string) {
  const next = examplePayload('issue_comment', 'created');
  next.comment.body = command;
  delete next.issue.pull_request;
  const started = await action('issue_comment', next);
  expect([started.code, started.outputs]).toEqual([
    0,
    expect.objectContaining({ state: 'started', branch, 'pull-request': '2' }),
  ]);
  const atStart = sim.files(branch);
  // The test names what the phase's tasks cite, so Passes Spec? finds their evidence.
  sim.push(branch, {
    'test/a.test.ts': '// Validates: Requirements 1.2, 2.1, 3.3\ntest("a", () => {});\n',
    'src/a.ts': 'a\n',
  });
  sim.ci(sim.refs.get(branch)!, 'success', 'build');
  const ci = examplePayload('check_suite', 'completed');
  ci.check_suite.head_branch = branch;
  ci.check_suite.head_sha = sim.refs.get(branch)!;
  expect((await action('check_suite', ci)).outputs.state).toBe('code-review');
  const pr = sim.pull(2);
  const approved = sim.headOf(pr);
  sim.reviews.push({ id: 1, pr: 2, user: 'reviewer1', state: 'APPROVED', commit_id: approved });
  // The review reaches the loop through the relay's workflow_run.
  const done = await action('workflow_run', reviewRelayRun(branch, approved, 'reviewer1'));
  expect([done.code, done.outputs.state]).toEqual([0, 'completing']);
  const head = sim.headOf(pr);
  expect(sim.commits.get(head)!.parents).toEqual([approved]);
  return { atStart, after: sim.files(head) };
}

describe('the built Action on a spec-kit plan', () => {
  it('/coder next → green CI → approval: no start mark, then [X] in tasks.md; the sidecar', async () => {
    await serve(KIND_FILES.speckit);
    const tasks = `${SPECKIT}/tasks.md`;
    const source = sim.files('master')[tasks]!;
    const { atStart, after } = await throughApproval(
      '/coder next 001-photo-albums',
      'coder/001-photo-albums/phase-2',
    );
    expect(atStart[tasks]).toBe(source);
    expect(after[tasks]).toBe(
      source.replace('- [ ] T004', '- [X] T004').replace('- [ ] T005', '- [X] T005'),
    );
    expect(after[`${SPECKIT}/coder-loop/Master_Log.md`]).toContain(
      '**Coder completed** — 001-photo-albums, Phase 2',
    );
  });
});

describe('the built Action on a Task Master plan', () => {
  it('/coder next master → green CI → approval: "in-progress" then "done", nothing else in tasks.json', async () => {
    await serve(KIND_FILES.taskmaster);
    const source = sim.files('master')[TASKMASTER]!;
    const { atStart, after } = await throughApproval('/coder next master', 'coder/master/phase-2');
    const titles = ['Implement GitHub OAuth', 'Configure OAuth', 'Handle callback'];
    expect(atStart[TASKMASTER]).toBe(
      titles.reduce((text, t) => setStatus(text, t, 'pending', 'in-progress'), source),
    );
    expect(after[TASKMASTER]).toBe(
      titles.reduce((text, t) => setStatus(text, t, 'pending', 'done'), source),
    );
    expect(after['.taskmaster/tasks/coder-loop/master/Checkpoint.md']).toContain(
      '- Next: Phase 3: Add dashboard',
    );
  });
});

describe('the built Action on a Kiro plan', () => {
  it('/coder next → green CI → approval: [-] then [x] in tasks.md, the log, report and checkpoint in the sidecar', async () => {
    await serve(KIND_FILES.kiro);
    const source = sim.files('master')[TASKS]!;
    const { atStart, after } = await throughApproval('/coder next user-auth', BRANCH);
    expect(atStart[TASKS]).toBe(
      source
        .replace('- [ ] 2. Implement', '- [-] 2. Implement')
        .replace('- [ ] 2.2 Implement', '- [-] 2.2 Implement'),
    );
    expect(sim.pull(2).body).toContain('#### Requirements the tasks cite');
    expect(after[TASKS]).toBe(
      source
        .replace('- [ ] 2. Implement', '- [x] 2. Implement')
        .replace('- [-] 2.1 Create', '- [x] 2.1 Create')
        .replace('- [ ] 2.2 Implement', '- [x] 2.2 Implement'),
    );
    expect(after[`${KIRO}/coder-loop/Master_Log.md`]).toContain(
      '**Coder completed** — user-auth, Phase 2',
    );
    expect(after[`${KIRO}/coder-loop/Checkpoint.md`]).toContain(
      '- Next: Phase 3: Create storage mechanism',
    );
    expect(
      after[`${KIRO}/coder-loop/Reports/02_Implement_data_models_and_validation.md`],
    ).toContain('- [x] 2.1 Create core data model interfaces and types');
  });
});
