import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { parseConfigText } from '../../src/core/index.js';
import { sweepPauses } from '../../src/github/loop/index.js';
import { afterScenario, beforeScenario, LOOP_APP, NOW } from '../helpers/github.js';
import { repoRoot } from '../paths.js';
import { BRANCH, replies, started, simLoopEnv, world } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * A loop PR whose head has had no CI at all: the Action's scheduled sweep tells its issue once,
 * naming the CI the loop's workflow waits for and the line to change.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const example = (name: string) =>
  readFileSync(join(repoRoot, 'examples', 'workflows', name), 'utf8');

/** The repository's CI workflow is called `Tests`; the loop's workflow waits for `CI`. */
const WORKFLOWS = {
  '.github/workflows/coder-loop.yml': example('coder-loop.yml'),
  '.github/workflows/coder-loop-review.yml': example('coder-loop-review.yml'),
  '.github/workflows/coder-resume.yml': example('coder-resume.yml'),
  '.github/workflows/tests.yml':
    'name: Tests\non: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
};

/** The Action's scheduled sweep at `minutes` after the loop's check run on the head was created. */
function sweepAt(sim: SimGitHub, minutes: number) {
  const env = simLoopEnv(sim, {
    token: 'ghs_app_installation_token',
    identity: { login: `${LOOP_APP.slug}[bot]`, app: { id: LOOP_APP.id, slug: LOOP_APP.slug } },
    now: () => new Date(Date.parse(sim.checkRunTime) + minutes * 60_000),
    // The sweep runs from coder-resume.yml: the loop's gate is read from coder-loop.yml.
    loopWorkflow: '.github/workflows/coder-resume.yml',
  });
  return sweepPauses(env, parseConfigText('').config!);
}

describe('a loop PR with no CI at all', () => {
  it('tells its issue once, after ciStallMinutes, which CI the loop waits for and the fix', async () => {
    const { sim, pr } = await started('', WORKFLOWS);
    sim.checkRunTime = NOW.toISOString();
    const before = replies(sim).length;
    expect(await sweepAt(sim, 29)).toMatchObject({ state: 'not-due' });
    expect(replies(sim)).toHaveLength(before);

    const outcome = await sweepAt(sim, 31);
    expect(outcome).toMatchObject({ state: 'waiting-for-ci', pullRequest: pr.number });
    const said = sim.comments.slice(before).map((c) => c.body);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`No CI has reported on #${pr.number}`);
    expect(said[0]).toContain('waits for the workflow "CI"');
    expect(said[0]).toContain('"Tests" (.github/workflows/tests.yml)');
    expect(said[0]).toContain('`workflows: [coder-loop-review, Tests]`');

    // Said once for this head: the next sweep says nothing.
    expect(await sweepAt(sim, 60)).toMatchObject({ state: 'not-due' });
    expect(sim.comments.slice(before)).toHaveLength(1);
  });

  it('says nothing on a head where CI reported', async () => {
    const { sim, pr } = await started('', WORKFLOWS);
    sim.ci(sim.headOf(pr), 'success', 'test');
    const before = sim.comments.length;
    expect(await sweepAt(sim, 120)).toMatchObject({ state: 'not-due' });
    expect(sim.comments).toHaveLength(before);
  });

  it('is told on /coder status too (the App: no sweep), once per head', async () => {
    const { sim, deliver, pr } = await startedAgo(60);
    const before = sim.comments.length;
    await deliver.comment('/coder status');
    const said = sim.comments.slice(before).map((c) => c.body);
    expect(said).toHaveLength(2);
    expect(said[1]).toContain(`No CI has reported on #${pr.number}`);
    // The App has no workflow of its own: the reply says what to check.
    expect(said[1]).toContain('GitHub Actions is enabled');
    await deliver.comment('/coder status');
    expect(sim.comments.slice(before)).toHaveLength(3);
  });
});

/** `started`, with the loop's check runs created `minutes` before the App's clock (NOW). */
async function startedAgo(minutes: number) {
  const w = await world('', WORKFLOWS);
  w.sim.checkRunTime = new Date(NOW.getTime() - minutes * 60_000).toISOString();
  await w.deliver.comment('/coder next');
  const pr = w.sim.pulls[0]!;
  w.sim.push(BRANCH, {
    'test/health.test.ts': 'test("health", () => {});\n',
    'src/health.ts': 'export const ok = true;\n',
  });
  await w.deliver.pullRequest('synchronize', pr.number);
  return { ...w, pr };
}
