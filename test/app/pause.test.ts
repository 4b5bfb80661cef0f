import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { decodeRecord, type AgentPayload } from '../../src/core/index.js';
import {
  dispatch,
  dispatchAgentFailure,
  dispatchAgentPause,
  sweepPauses,
  type LoopEnv,
} from '../../src/github/loop/index.js';
import { AGENT, agentEnv, LIMIT } from '../helpers/handOff.js';
import { afterScenario, beforeScenario, OWNER, REPO } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { repoRoot } from '../paths.js';
import { BRANCH, replies, started } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * A pause says how it will end, as the host can really end it: by itself only where something
 * wakes the loop (the App's wake-up queue, the scheduled resume workflow on the default branch);
 * otherwise it names `/coder resume`.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

function handOffOf(sim: SimGitHub) {
  return {
    node: 'tdd' as const,
    repository: `${OWNER}/${REPO}`,
    branch: BRANCH,
    headSha: sim.refs.get(BRANCH)!,
    pullRequest: 2,
    issue: 1,
    plan: 'Example',
    phase: 1,
    attempt: 1,
    agent: { command: 'true', timeoutMinutes: 30, env: [] },
  };
}

/** GitHub's `check_suite.completed` for a red CI on the lock branch's `head`. */
function redCiOn(head: string) {
  const payload = examplePayload('check_suite', 'completed');
  payload.check_suite.head_branch = BRANCH;
  payload.check_suite.head_sha = head;
  payload.check_suite.conclusion = 'failure';
  payload.check_suite.pull_requests = [];
  return payload;
}

/** The loop asked for the hand-off on the head (its record names it), and the agent paused. */
async function pauseOn(sim: SimGitHub, env: LoopEnv) {
  const { config } = await env.loadConfig();
  sim.askHandOff(handOffOf(sim));
  return dispatchAgentPause(env, config!, handOffOf(sim), LIMIT);
}

describe('the pause reply names what will resume it', () => {
  it('no wake-up queue and no scheduled resume workflow: it names `/coder resume`, never "by itself"', async () => {
    const { sim } = await started(AGENT);
    const outcome = await pauseOn(sim, agentEnv(sim));
    expect(outcome.state).toBe('paused');
    const said = sim.comments.at(-1)!.body;
    expect(replies(sim).at(-1)).toMatch(/^⏸️ Paused until \*\*2026-11-22 15:00 UTC\*\*/);
    expect(said).toContain('Nothing here resumes it by itself');
    expect(said).toContain('run `/coder resume` after 2026-11-22 15:00 UTC');
    expect(said).not.toMatch(/resumes by itself at|again at 2026-11-22 15:00 UTC by itself/);
    expect(sim.own(sim.refs.get(BRANCH)!)!.output!.summary).toContain('Nothing here resumes it');
  });

  it('the scheduled resume workflow on the default branch: it resumes at that workflow’s next run', async () => {
    const sweep = readFileSync(join(repoRoot, 'examples/workflows/coder-resume.yml'), 'utf8');
    const { sim } = await started(AGENT, { '.github/workflows/coder-resume.yml': sweep });
    await pauseOn(sim, agentEnv(sim));
    expect(sim.comments.at(-1)!.body).toContain(
      'The scheduled resume workflow hands tdd to the agent again at its first run after 2026-11-22 15:00 UTC',
    );
  });

  it('a wake-up queue (the App with Redis): the loop resumes by itself at that time', async () => {
    const { sim } = await started(AGENT);
    const jobs: string[] = [];
    await pauseOn(
      sim,
      agentEnv(sim, async (job) => {
        jobs.push(job.at);
        return true;
      }),
    );
    expect(jobs).toEqual([LIMIT.until]);
    expect(sim.comments.at(-1)!.body).toContain(
      'The loop hands tdd to the agent again at 2026-11-22 15:00 UTC by itself',
    );
  });
});

describe('a pause the Action recorded, heard by a host with a wake-up queue', () => {
  it('CI on the paused head: the App schedules its wake-up once and says so; a host without a queue does nothing', async () => {
    const { sim } = await started(AGENT);
    await pauseOn(sim, agentEnv(sim));
    const head = sim.refs.get(BRANCH)!;
    sim.ci(head, 'failure', 'test');
    const ci = () => redCiOn(head);
    const said = sim.comments.length;
    // The Action (no queue): CI on a paused head waits; nothing is scheduled or said.
    expect((await dispatch(agentEnv(sim), 'check_suite', ci())).state).toBe('paused');
    expect(sim.comments).toHaveLength(said);

    const jobs: { sha: string; at: string; pullRequest: number }[] = [];
    const app = agentEnv(sim, async (job) => {
      jobs.push(job);
      return true;
    });
    expect((await dispatch(app, 'check_suite', ci())).state).toBe('paused');
    expect(jobs).toEqual([expect.objectContaining({ sha: head, at: LIMIT.until, pullRequest: 2 })]);
    expect(replies(sim).at(-1)).toMatch(/^⏰ #2 is paused until \*\*2026-11-22 15:00 UTC\*\*/);
    expect(sim.own(head)!.output!.summary).toContain('again at 2026-11-22 15:00 UTC by itself');
    // A redelivery: scheduled already, nothing more; and no attempt was spent.
    await dispatch(app, 'check_suite', ci());
    expect(jobs).toHaveLength(1);
    expect(sim.comments).toHaveLength(said + 1);
    expect(sim.dispatches.filter((d) => d.client_payload?.node === 'debug-fix')).toEqual([]);
  });
});

describe('two replicas hear of the same pause before either records its wake-up', () => {
  it('both ask the queue (one job), and only the one that asked first tells the issue', async () => {
    const { sim } = await started(AGENT);
    await pauseOn(sim, agentEnv(sim));
    const head = sim.refs.get(BRANCH)!;
    sim.ci(head, 'failure', 'test');
    const ci = () => redCiOn(head);
    // One queue, as the replicas share one Redis: the first ask of a job id wins.
    const asked = new Set<string>();
    const replica = () =>
      agentEnv(sim, async (job) => {
        const id = `${job.pullRequest}@${job.sha}|${job.at}`;
        const first = !asked.has(id);
        asked.add(id);
        return first;
      });
    const said = sim.comments.length;
    const [a, b] = await Promise.all([
      dispatch(replica(), 'check_suite', ci()),
      dispatch(replica(), 'check_suite', ci()),
    ]);
    expect([a.state, b.state]).toEqual(['paused', 'paused']);
    expect(asked.size).toBe(1);
    expect(
      replies(sim)
        .slice(said)
        .filter((r) => r.startsWith('⏰')),
    ).toHaveLength(1);
  });
});

describe('a paused agent run that a person re-ran, and that failed', () => {
  it('spends its attempt and ends the pause: the node is handed on once, and no later resume hands it again', async () => {
    const { sim } = await started(AGENT);
    const env = agentEnv(sim);
    const handOff = handOffOf(sim);
    await pauseOn(sim, env);
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeDefined();
    const { config } = await env.loadConfig();
    const sent = sim.dispatches.length;
    const failed = await dispatchAgentFailure(env, config!, handOff, 'the agent exited with 1');
    expect(failed.state).toBe('failed');
    const record = decodeRecord(sim.own(head)?.output?.text, head);
    expect(record?.attempts).toHaveLength(1);
    expect(record?.pause).toBeUndefined();
    expect(sim.own(head)!.output!.title).not.toMatch(/^Paused/);
    expect(sim.dispatches.slice(sent).map((d) => d.client_payload?.node)).toEqual(['debug-fix']);
    // The pause's end comes: nothing is paused any more, so nothing is handed again.
    const later = { ...env, now: () => new Date('2026-11-22T16:00:00.000Z') };
    await sweepPauses(later, config!);
    expect(sim.dispatches.slice(sent).map((d) => d.client_payload?.node)).toEqual(['debug-fix']);
  });
});

describe('a paused Debug & Fix whose failure passes on a re-run of the same head', () => {
  it('is flaky: the pause ends, its attempt is given back, and the head goes on to code review; the pause’s end hands nothing', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'failure', { name: 'test' });
    const head = sim.refs.get(BRANCH)!;
    const env = agentEnv(sim);
    const { config } = await env.loadConfig();
    // The Debug & Fix hand-off the loop sent (its id is the one the record asks for).
    const handOff = sim.dispatches.at(-1)!.client_payload as unknown as AgentPayload;
    expect(handOff).toMatchObject({ node: 'debug-fix', attempt: 1, headSha: head });
    expect((await dispatchAgentPause(env, config!, handOff, LIMIT)).state).toBe('paused');
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.attempts).toHaveLength(1);
    const sent = sim.dispatches.length;
    // The same check passes on a re-run of the same head.
    await deliver.ci(BRANCH, 'success', { name: 'test' });
    const record = decodeRecord(sim.own(head)?.output?.text, head);
    expect(record?.pause).toBeUndefined();
    expect(record?.attempts ?? []).toEqual([]);
    expect(record?.flaky).toEqual([{ sha: head, name: 'test' }]);
    expect(sim.own(head)?.external_id).not.toBe('Debug');
    const later = { ...env, now: () => new Date('2026-11-22T16:00:00.000Z') };
    await sweepPauses(later, config!);
    expect(sim.dispatches.slice(sent).map((d) => d.client_payload?.node)).not.toContain(
      'debug-fix',
    );
  });
});
