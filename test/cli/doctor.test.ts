import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';

/**
 * A user's repository set up as docs/github-action.md says: the loop, the review relay, the
 * scheduled sweep, CI.
 */
const LOOP = `name: coder-loop
on:
  issue_comment:
    types: [created]
  issues:
    types: [labeled]
  pull_request_target:
    types: [closed, synchronize]
  workflow_run:
    workflows: [CI, coder-loop-review] # the CI gate and the review relay
    types: [completed]
  check_suite:
    types: [completed]
  status: {}
permissions:
  contents: read
jobs:
  loop:
    runs-on: ubuntu-latest
    environment: coder-loop
    steps:
      - uses: actions/create-github-app-token@v2
        id: app-token
        with:
          app-id: \${{ vars.CODER_LOOP_APP_ID }}
          private-key: \${{ secrets.CODER_LOOP_PRIVATE_KEY }}
      - uses: my-org/coder-loop@main
        with:
          token: \${{ steps.app-token.outputs.token }}
`;
const RELAY = `name: coder-loop-review
on:
  pull_request_review:
    types: [submitted]
permissions: {}
jobs:
  relay:
    runs-on: ubuntu-latest
    steps:
      - run: echo "review \${{ github.event.review.id }}"
`;
const SWEEP = `name: coder-loop resume
on:
  schedule:
    - cron: '*/15 * * * *'
permissions:
  contents: read
jobs:
  resume:
    runs-on: ubuntu-latest
    environment: coder-loop
    steps:
      - uses: actions/create-github-app-token@v2
        id: app-token
        with:
          app-id: \${{ vars.CODER_LOOP_APP_ID }}
          private-key: \${{ secrets.CODER_LOOP_PRIVATE_KEY }}
      - uses: my-org/coder-loop@main
        with:
          token: \${{ steps.app-token.outputs.token }}
`;
const CI = `name: CI
on: [pull_request, push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: npm test
`;
const AGENT = `name: coder-agent
on:
  repository_dispatch:
    types: [coder-loop-agent]
permissions: {}
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - uses: my-org/coder-loop@main
        with:
          step: agent
        env:
          ANTHROPIC_API_KEY: \${{ secrets.ANTHROPIC_API_KEY }}
  apply:
    needs: agent
    runs-on: ubuntu-latest
    environment: coder-loop
    steps:
      - uses: actions/create-github-app-token@v2
        id: app-token
        with:
          app-id: \${{ vars.CODER_LOOP_APP_ID }}
          private-key: \${{ secrets.CODER_LOOP_PRIVATE_KEY }}
      - uses: my-org/coder-loop@main
        with:
          step: apply
`;

let work: string;

async function write(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), text);
  }
}

function doctor(...args: string[]) {
  return inProcess(work, 'doctor', ...args);
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-doctor-'));
  await cp(join(repoRoot, 'test', 'fixtures', 'plans', 'Sample'), join(work, 'docs/plans/Sample'), {
    recursive: true,
  });
  await write({
    '.github/workflows/coder-loop.yml': LOOP,
    '.github/workflows/review.yml': RELAY,
    '.github/workflows/coder-resume.yml': SWEEP,
    '.github/workflows/ci.yml': CI,
  });
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('coder-loop doctor', () => {
  it('finds nothing wrong in a repository set up as documented, and says what to check by hand', async () => {
    const run = await doctor();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('config: .github/coder.yml absent (the defaults apply)');
    expect(run.stdout).toContain('plan "Sample" (coder, ');
    expect(run.stdout).toContain('loop workflow: .github/workflows/coder-loop.yml ("coder-loop")');
    expect(run.stdout).toContain(
      'the secret CODER_LOOP_PRIVATE_KEY (the App\'s private key) is in the environment "coder-loop"',
    );
    expect(run.stdout).toContain('the variable CODER_LOOP_APP_ID');
    expect(run.stdout).toContain('branch protection');
    expect(run.stdout).toMatch(/No problems found in the files\.$/);
  });

  it('names the line to change when the CI workflow is called Tests, not CI', async () => {
    await write({ '.github/workflows/ci.yml': CI.replace('name: CI', 'name: Tests') });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      '.github/workflows/coder-loop.yml:10: error: The loop waits for the workflow "CI", and no workflow here has that name: loop pull requests wait for CI forever. The workflows here that run on pull requests: "Tests" (.github/workflows/ci.yml). Change line 10 to `workflows: [coder-loop-review, Tests] # the CI gate and the review relay`.',
    );
  });

  it('a CI workflow without a name is matched by its path', async () => {
    await write({ '.github/workflows/ci.yml': CI.replace('name: CI\n', '') });
    const run = await doctor();
    expect(run.stderr).toContain(
      'Change line 10 to `workflows: [coder-loop-review, .github/workflows/ci.yml] # the CI gate and the review relay`.',
    );
  });

  it('an invalid config, with its line', async () => {
    await write({ '.github/coder.yml': 'maxRetries: many\n' });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('config: .github/coder.yml invalid');
    expect(run.stderr).toMatch(/^\.github\/coder\.yml:1: error: `maxRetries`: /);
  });

  it('an invalid plan sends to lint; no plan at all is a warning', async () => {
    await write({ 'docs/plans/Sample/01_Master Plan/01_Checklist.md': '# nothing here\n' });
    const broken = await doctor();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('plan "Sample" (coder, ');
    expect(broken.stderr).toContain('Run `coder-loop lint "Sample"`');
    await rm(join(work, 'docs'), { recursive: true });
    const none = await doctor();
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('docs/plans: warning: `/coder next` has no plan');
  });

  it("the shipped example workflows, with the fork's owner and the App's slug filled in, pass as they are", async () => {
    await rm(join(work, '.github/workflows'), { recursive: true });
    const examples = join(repoRoot, 'examples', 'workflows');
    for (const name of await readdir(examples))
      await write({
        [`.github/workflows/${name}`]: (await readFile(join(examples, name), 'utf8'))
          .replaceAll('your-org/coder-loop@', 'my-org/coder-loop@')
          .replaceAll('your-coder-loop-app', 'my-coder-loop'),
      });
    await write({
      '.github/workflows/ci.yml': CI,
      '.github/coder.yml': 'agent:\n  command: "true"\n',
    });
    const run = await doctor();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('scheduled sweep: .github/workflows/coder-resume.yml');
    expect(run.stdout).not.toMatch(/: (error|warning): /);
  });

  it('no scheduled sweep: a warning naming the file to copy, and what goes unsaid without it', async () => {
    await rm(join(work, '.github/workflows/coder-resume.yml'));
    const run = await doctor();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '.github/workflows: warning: No scheduled sweep runs coder-loop: a coding agent paused at its usage limit waits for `/coder resume`, and a loop pull request that no CI reaches is told so only on `/coder status`. Copy examples/workflows/coder-resume.yml',
    );
  });

  it('no loop workflow at all', async () => {
    await rm(join(work, '.github/workflows/coder-loop.yml'));
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('.github/workflows: error: No workflow runs coder-loop');
  });

  it('the placeholder owner left in the uses: line', async () => {
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace('my-org/coder-loop', 'your-org/coder-loop'),
    });
    const run = await doctor();
    expect(run.stderr).toBe(
      '.github/workflows/coder-loop.yml:27: error: `uses: your-org/coder-loop@…` still names the placeholder owner. Put the owner of your fork of coder-loop there (e.g. `uses: my-org/coder-loop@main`).',
    );
  });

  it.each([
    ['pull_request_review', 'pull_request_review:\n    types: [submitted]'],
    ['pull_request', 'pull_request:\n    types: [closed]'],
    ['push', 'push: {}'],
  ])('the key held by a workflow that runs on %s', async (event, trigger) => {
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace(
        '  status: {}',
        `  status: {}\n  ${trigger}`,
      ),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `.github/workflows/coder-loop.yml:15: error: This workflow holds the loop's App key and runs on \`${event}\``,
    );
  });

  it('the key in a job without an environment', async () => {
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace('    environment: coder-loop\n', ''),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      ".github/workflows/coder-loop.yml:18: error: Job `loop` mints the App's token with no `environment:`: the key is a repository secret, which a workflow on any branch a writer pushes can read. Add `environment: coder-loop` to job `loop`, move secrets.CODER_LOOP_PRIVATE_KEY into that environment (Settings → Environments → coder-loop) and limit its deployment branches to the default branch.",
    );
    expect(run.stdout).toContain(
      "the secret CODER_LOOP_PRIVATE_KEY holds the App's private key: Settings → Secrets and variables → Actions.",
    );
  });

  it('pull_request_target that checks out the pull request next to the key', async () => {
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace(
        '    steps:\n',
        '    steps:\n      - uses: actions/checkout@v5\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n',
      ),
    });
    const run = await doctor();
    expect(run.stderr).toContain("and checks out the pull request's code");
  });

  it('the agent: no workflow for the hand-off, a variable it passes not set, the key named differently', async () => {
    await write({
      '.github/coder.yml':
        'agent:\n  command: claude -p hi\n  env: [ANTHROPIC_API_KEY, OPENAI_API_KEY]\n',
    });
    const missing = await doctor();
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      '.github/coder.yml:1: error: `agent` is set, and no workflow in .github/workflows/ runs on the `repository_dispatch` type `coder-loop-agent`',
    );
    await write({
      '.github/workflows/coder-agent.yml': AGENT.replace(
        'secrets.CODER_LOOP_PRIVATE_KEY',
        'secrets.APP_KEY',
      ),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '.github/workflows/coder-agent.yml:7: warning: `agent.env` passes OPENAI_API_KEY to the agent, and job `agent` does not set it.',
    );
    expect(run.stdout).not.toContain('passes ANTHROPIC_API_KEY');
    expect(run.stderr).toContain(
      ".github/workflows/coder-agent.yml: error: The workflows name the App's private key differently: secrets.APP_KEY (.github/workflows/coder-agent.yml, job apply), secrets.CODER_LOOP_PRIVATE_KEY (.github/workflows/coder-loop.yml, job loop), secrets.CODER_LOOP_PRIVATE_KEY (.github/workflows/coder-resume.yml, job resume).",
    );
  });

  it("the agent step of an App setup: without app-slug, or with the example's, it would refuse or ignore every hand-off", async () => {
    await write({
      '.github/coder.yml': 'agent:\n  command: claude -p hi\n  env: [ANTHROPIC_API_KEY]\n',
    });
    await write({ '.github/workflows/coder-agent.yml': AGENT });
    const without = await doctor();
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(
      ".github/workflows/coder-agent.yml:7: error: Job `agent` runs the agent without `app-slug`, and the workflows mint an App's token",
    );
    const example = AGENT.replace(
      'step: agent',
      'step: agent\n          app-slug: your-coder-loop-app',
    );
    await write({ '.github/workflows/coder-agent.yml': example });
    const placeholder = await doctor();
    expect(placeholder.code).toBe(1);
    expect(placeholder.stderr).toContain(
      ".github/workflows/coder-agent.yml:13: error: Job `agent` names the example's App, `your-coder-loop-app`",
    );
    await write({
      '.github/workflows/coder-agent.yml': example.replace(
        'your-coder-loop-app',
        'acme-coder-loop',
      ),
    });
    const named = await doctor();
    expect(named.stderr).toBe('');
    expect(named.code).toBe(0);
  });

  it("a copied agent workflow with the example's App slug is read before `agent` is set", async () => {
    await write({
      '.github/workflows/coder-agent.yml': AGENT.replace(
        'step: agent',
        'step: agent\n          app-slug: your-coder-loop-app',
      ),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      ".github/workflows/coder-agent.yml:13: error: Job `agent` names the example's App, `your-coder-loop-app`: step agent ignores every hand-off your App sends. Put your App's slug there (the name in its page's address, github.com/apps/<slug>).",
    );
  });

  it('the jobs that hold the key in environments named differently', async () => {
    await write({
      '.github/workflows/coder-resume.yml': SWEEP.replace(
        'environment: coder-loop',
        'environment: loop-env',
      ),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      '.github/workflows/coder-loop.yml: error: The jobs that mint the App\'s token run in different environments: "coder-loop" (.github/workflows/coder-loop.yml, job loop), "loop-env" (.github/workflows/coder-resume.yml, job resume); the private key is a secret of one environment, so the others cannot read it. Use one environment everywhere (the examples use `environment: coder-loop`), the one that holds the private key.',
    );
  });

  it("the review relay present, and left out of the loop's workflow_run list: named, with the line to change", async () => {
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace('[CI, coder-loop-review]', '[CI]'),
    });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      '.github/workflows/coder-loop.yml:10: error: The loop\'s `workflow_run.workflows` leaves out the review relay "coder-loop-review" (.github/workflows/review.yml): approvals never reach the loop and no phase completes. Change line 10 to `workflows: [CI, coder-loop-review] # the CI gate and the review relay`.',
    );
  });

  it('the review relay missing: copy it (its name stays on the list; CI is not blamed)', async () => {
    await rm(join(work, '.github/workflows/review.yml'));
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      '.github/workflows: error: No review relay: no workflow here runs on `pull_request_review`, so approvals never reach the loop and no phase completes. Copy examples/workflows/coder-loop-review.yml from coder-loop to .github/workflows/ (line 10 of .github/workflows/coder-loop.yml already waits for coder-loop-review).',
    );
    await write({
      '.github/workflows/coder-loop.yml': LOOP.replace('[CI, coder-loop-review]', '[CI]'),
    });
    const unlisted = await doctor();
    expect(unlisted.stderr).toContain(
      'Copy examples/workflows/coder-loop-review.yml from coder-loop to .github/workflows/, and change line 10 of .github/workflows/coder-loop.yml to `workflows: [CI, coder-loop-review]',
    );
  });

  it.each([
    [
      'push to main only',
      'on:\n  push:\n    branches: [main]\n',
      '`push: branches: [main]` leaves out coder/sample/phase-1',
    ],
    [
      'pull requests into release only',
      'on:\n  pull_request:\n    branches: [release]\n',
      '`pull_request: branches: [release]` leaves out pull requests to main',
    ],
    [
      "push to '*' (no slash)",
      "on:\n  push:\n    branches: ['*']\n",
      '`push: branches: [*]` leaves out coder/sample/phase-1 (`*` stops at a `/`; `**` does not)',
    ],
    [
      'closed pull requests only',
      'on:\n  pull_request:\n    types: [closed]\n',
      '`pull_request` runs only on closed',
    ],
    [
      'pull requests ignoring main',
      'on:\n  pull_request:\n    branches-ignore: [main]\n',
      '`pull_request: branches-ignore` leaves out pull requests to main',
    ],
    ['tags only', 'on:\n  push:\n    tags: [v*]\n', '`push` runs on tags only'],
  ])("a CI that never runs on the loop's pull requests (%s)", async (_, on, why) => {
    await write({ '.github/workflows/ci.yml': CI.replace('on: [pull_request, push]\n', on) });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `.github/workflows/ci.yml:2: error: The loop waits for "CI", which never runs on the loop's pull requests (branch coder/sample/phase-1 into main): "CI" (.github/workflows/ci.yml): ${why}. Loop pull requests wait for CI forever. Let it run on pull requests into main: \`pull_request:\` under \`on:\`, with no \`branches\` filter or one that admits main.`,
    );
  });

  it.each([
    ['pull requests into main', 'on:\n  pull_request:\n    branches: [main]\n'],
    ["push to '**'", "on:\n  push:\n    branches: ['**']\n"],
    ['push to coder/** besides main', 'on:\n  push:\n    branches: [main, "coder/**"]\n'],
    ['a negated pattern after **', "on:\n  push:\n    branches: ['**', '!release/**']\n"],
    ['push ignoring release branches', 'on:\n  push:\n    branches-ignore: [release]\n'],
  ])("a CI whose filters admit the loop's pull requests (%s) passes", async (_, on) => {
    await write({ '.github/workflows/ci.yml': CI.replace('on: [pull_request, push]\n', on) });
    const run = await doctor();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('reads the default branch from the clone (origin/HEAD)', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: work,
        stdio: 'pipe',
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
      });
    git('init', '-q', '-b', 'trunk');
    git('update-ref', 'refs/remotes/origin/trunk', '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/trunk');
    await write({
      '.github/workflows/ci.yml': CI.replace(
        'on: [pull_request, push]\n',
        'on:\n  pull_request:\n    branches: [main]\n',
      ),
    });
    const run = await doctor();
    expect(run.stdout).toContain("default branch: trunk (the clone's origin/HEAD)");
    expect(run.stderr).toContain('leaves out pull requests to trunk');
  });

  it('a workflow that does not parse is named with its line', async () => {
    await write({ '.github/workflows/broken.yml': 'name: x\non: [push\n' });
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^\.github\/workflows\/broken\.yml:\d+: error: The YAML does not parse/,
    );
  });

  it('reads nothing through a symbolic link out of the repository: a workflow is an error, a plan file is not there', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'coder-loop-outside-'));
    try {
      // The CI workflow the loop waits for, and the plan's checklist, are links to files elsewhere
      // on the machine (a checkout can hold any link; GitHub reads the link's text, not its target).
      await writeFile(join(outside, 'ci.yml'), CI);
      await cp(
        join(work, 'docs/plans/Sample/01_Master Plan/01_Checklist.md'),
        join(outside, 'checklist.md'),
      );
      await rm(join(work, '.github/workflows/ci.yml'));
      await symlink(join(outside, 'ci.yml'), join(work, '.github/workflows/ci.yml'));
      await rm(join(work, 'docs/plans/Sample/01_Master Plan/01_Checklist.md'));
      await symlink(
        join(outside, 'checklist.md'),
        join(work, 'docs/plans/Sample/01_Master Plan/01_Checklist.md'),
      );
      const run = await doctor();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        '.github/workflows/ci.yml: error: A symbolic link out of the repository: doctor does not read it',
      );
      // Without the CI workflow, the loop's wait for "CI" names no workflow here.
      expect(run.stdout).toContain('The loop waits for the workflow "CI", and no workflow here');
      expect(run.stdout).toContain('plan "Sample" (coder, docs/plans/Sample/01_Master Plan/');
      expect(run.stdout).toContain('): invalid');
      // A link inside the repository is read as before.
      await rm(join(work, '.github/workflows/ci.yml'));
      await write({ 'ci/ci.yml': CI });
      await symlink(join(work, 'ci/ci.yml'), join(work, '.github/workflows/ci.yml'));
      expect((await doctor()).stderr).not.toContain('symbolic link');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('takes no plan name', async () => {
    expect((await doctor('Sample')).code).toBe(2);
  });
});
