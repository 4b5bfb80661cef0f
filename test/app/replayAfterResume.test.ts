import nock from 'nock';
import { decodeRecord, type AgentPayload } from '../../src/core/index.js';
import type { LoopEnv } from '../../src/github/loop/index.js';
import { AGENT, agentEnv, applyJob, lastHandOff, LIMIT, notAsked } from '../helpers/handOff.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { BRANCH, world } from '../helpers/world.js';

/**
 * A resume asks for the very same (node, attempt, head) again. A writer who re-runs the paused
 * run's apply job alone (GitHub keeps the agent job's outputs and artifact from the first attempt)
 * after `/coder resume` would pass every check made on that triple: the old artifact's pause would
 * be recorded again, the run the resume handed on refused at its apply ("paused since"), and one
 * more pause of `agent.maxPauses` spent. Each hand-off has an id of its own, in the record and in
 * the payload: the old run's is not the one the record asks for.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** The apply job of a run that stopped at the limit with no work, as src/action/main.ts runs it. */
async function pausedApplyJob(env: LoopEnv, payload: AgentPayload) {
  if (await notAsked(env, payload)) return 'ignored';
  return (
    await applyJob(env, payload, {
      outcome: 'paused',
      reason: LIMIT.reason,
      pause: LIMIT,
      changes: [],
    })
  ).state;
}

it('`/coder resume`, then the paused run’s apply job re-run alone: the resumed run is not paused by it', async () => {
  const { sim, deliver } = await world(AGENT);
  await deliver.comment('/coder next');
  const env = agentEnv(sim);
  const tdd = lastHandOff(sim);
  expect(await pausedApplyJob(env, tdd)).toBe('paused');
  const head = sim.refs.get(BRANCH)!;
  await deliver.comment('/coder resume');
  expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeUndefined();
  const resumed = lastHandOff(sim);
  // The writer's re-run of the old apply job, while the resumed run works: nothing is recorded.
  expect(await pausedApplyJob(env, tdd)).toBe('ignored');
  expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeUndefined();
  expect(await notAsked(env, resumed)).toBeUndefined();
  // The same (node, attempt, head) as the paused run's; only the hand-off's id tells them apart.
  expect({ ...resumed, agent: { ...resumed.agent, handOffId: undefined } }).toEqual({
    ...tdd,
    agent: { ...tdd.agent, handOffId: undefined },
  });
  expect(resumed.agent.handOffId).toBeDefined();
  expect(resumed.agent.handOffId).not.toBe(tdd.agent.handOffId);
});

/** The apply job of a run whose agent failed (no change), as src/action/main.ts runs it. */
async function failedApplyJob(env: LoopEnv, payload: AgentPayload) {
  if (await notAsked(env, payload)) return 'ignored';
  return (
    await applyJob(env, payload, {
      outcome: 'failed',
      reason: 'the agent exited with 1',
      changes: [],
    })
  ).state;
}

it('`/coder resume` of an escalation asks for Debug & Fix #1 again: the old failed run’s apply job re-run alone counts no attempt', async () => {
  const config = 'agent:\n  command: "true"\nmaxRetries: 2\nspecCheck: off\narchitects: [archie]\n';
  const { sim, deliver } = await world(config);
  await deliver.comment('/coder next');
  const env = agentEnv(sim);
  await deliver.ci(BRANCH, 'failure', { name: 'test' });
  const fix = lastHandOff(sim);
  expect(fix).toMatchObject({ node: 'debug-fix', attempt: 1 });
  const head = fix.headSha;
  // The agent's run failed: the last attempt, escalated.
  expect(await failedApplyJob(env, fix)).toBe('agent-failed');
  expect(decodeRecord(sim.own(head)?.output?.text, head)?.escalation).toBeDefined();
  await deliver.comment('/coder resume', { login: 'archie' });
  const again = lastHandOff(sim);
  expect(again).toMatchObject({ node: 'debug-fix', attempt: 1, headSha: head });
  const attempts = decodeRecord(sim.own(head)?.output?.text, head)?.attempts?.length ?? 0;
  const sent = sim.dispatches.length;
  // The writer's re-run of the old failed run's apply job: no attempt, nothing handed on.
  expect(await failedApplyJob(env, fix)).toBe('ignored');
  const record = decodeRecord(sim.own(head)?.output?.text, head);
  expect(record?.attempts?.length ?? 0).toBe(attempts);
  expect(record?.escalation).toBeUndefined();
  expect(sim.dispatches).toHaveLength(sent);
  expect(await notAsked(env, again)).toBeUndefined();
});
