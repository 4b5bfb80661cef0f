import nock from 'nock';
import { decodeRecord, type AgentPayload } from '../../src/core/index.js';
import {
  dispatchAgentFailure,
  dispatchAgentPause,
  type LoopEnv,
} from '../../src/github/loop/index.js';
import { AGENT, agentEnv, applyJob, lastHandOff, LIMIT, notAsked } from '../helpers/handOff.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { BRANCH, started, world } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * A hand-off is good once: when a pause ends without the node being handed on again — `/coder
 * stop`, `/coder retry` on a green head, a paused Debug & Fix whose head passes — the recorded
 * hand-off ends with it, so a writer's re-run of the paused agent workflow run (GitHub delivers
 * the loop's own dispatch again, the loop its sender) runs nothing and commits nothing: steps
 * agent and apply both ask `handOffNotAsked` first.
 */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

async function paused(sim: SimGitHub, env: LoopEnv, handOff: AgentPayload) {
  const { config } = await env.loadConfig();
  expect((await dispatchAgentPause(env, config!, handOff, LIMIT)).state).toBe('paused');
  const head = handOff.headSha;
  expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeDefined();
  // While paused, the re-run is refused (already so).
  expect(await notAsked(env, handOff)).toMatch(/paused since/);
}

describe('a hand-off ended with its pause', () => {
  it('`/coder stop` ends the pause: a re-run of the paused agent run runs nothing', async () => {
    const { sim, deliver } = await world(AGENT);
    await deliver.comment('/coder next');
    const env = agentEnv(sim);
    const tdd = lastHandOff(sim);
    expect(tdd).toMatchObject({ node: 'tdd', attempt: 1, headSha: sim.refs.get(BRANCH) });
    expect(await notAsked(env, tdd)).toBeUndefined();
    await paused(sim, env, tdd);
    await deliver.comment('/coder stop');
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeUndefined();
    expect(await notAsked(env, tdd)).toEqual(expect.any(String));
  });

  it('`/coder retry` on a green head ends the pause: the head goes to review, a re-run of the paused run runs nothing', async () => {
    const { sim, deliver } = await world(AGENT);
    await deliver.comment('/coder next');
    const env = agentEnv(sim);
    const tdd = lastHandOff(sim);
    await paused(sim, env, tdd);
    await deliver.ci(BRANCH, 'success', { name: 'test' });
    const sent = sim.dispatches.length;
    await deliver.comment('/coder retry');
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeUndefined();
    expect(sim.dispatches).toHaveLength(sent);
    expect(await notAsked(env, tdd)).toEqual(expect.any(String));
  });

  it('a paused Debug & Fix whose head passes: the pause ends, a re-run of the paused run runs nothing', async () => {
    const { sim, deliver } = await started(AGENT);
    await deliver.ci(BRANCH, 'failure', { name: 'test' });
    const env = agentEnv(sim);
    const fix = lastHandOff(sim);
    expect(fix).toMatchObject({ node: 'debug-fix', attempt: 1, headSha: sim.refs.get(BRANCH) });
    await paused(sim, env, fix);
    await deliver.ci(BRANCH, 'success', { name: 'test' });
    const head = sim.refs.get(BRANCH)!;
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.pause).toBeUndefined();
    expect(await notAsked(env, fix)).toEqual(expect.any(String));
  });

  it('a pause resumed hands the node on again: that hand-off runs, the paused run’s dispatch does not', async () => {
    const { sim, deliver } = await world(AGENT);
    await deliver.comment('/coder next');
    const env = agentEnv(sim);
    const tdd = lastHandOff(sim);
    await paused(sim, env, tdd);
    await deliver.comment('/coder resume');
    const resumed = lastHandOff(sim);
    // The same node, attempt and head, asked for again: a hand-off of its own (its id).
    expect(resumed).toMatchObject({ node: tdd.node, attempt: tdd.attempt, headSha: tdd.headSha });
    expect(resumed.agent.handOffId).not.toBe(tdd.agent.handOffId);
    expect(await notAsked(env, resumed)).toBeUndefined();
    expect(await notAsked(env, tdd)).toMatch(/not the hand-off the loop asks for/);
  });
});

/**
 * Keeping partial work, the pause is recorded on the agent's partial commit, not on the head it
 * was handed: the record there still names the hand-off, and a writer's re-run of the apply job
 * alone (GitHub keeps the agent job's outputs and artifact from the first attempt) finds its own
 * commit on the branch (`already-applied`). It must not record the pause again once the loop has
 * gone on from it.
 */
describe('a paused run whose partial commit the loop went on from', () => {
  const KEEP = 'agent:\n  command: "true"\n  keepPartialWork: true\n';
  const file = (text: string) => ({
    mode: '100644',
    content: Buffer.from(text).toString('base64'),
  });

  /** The apply job as src/action/main.ts runs it once the gate let it through. */
  async function keptWorkApplyJob(env: LoopEnv, payload: AgentPayload) {
    expect(await notAsked(env, payload)).toBeUndefined();
    return applyJob(
      env,
      payload,
      {
        outcome: 'paused',
        reason: LIMIT.reason,
        pause: LIMIT,
        changes: [{ path: 'src/partial.ts', ...file('export const p = 1;\n') }],
      },
      { output: 'so far', keepPartialWork: true },
    );
  }

  async function pausedWithWork() {
    const w = await world(KEEP);
    await w.deliver.comment('/coder next');
    const env = agentEnv(w.sim);
    const tdd = lastHandOff(w.sim);
    const first = await keptWorkApplyJob(env, tdd);
    expect(first).toMatchObject({ state: 'paused', partial: true });
    const partial = w.sim.refs.get(BRANCH)!;
    expect(first.commit).toBe(partial);
    expect(decodeRecord(w.sim.own(partial)?.output?.text, partial)?.pause).toBeDefined();
    return { ...w, env, tdd, partial };
  }

  it('`/coder stop`, then the apply job re-run: the pause stays ended, nothing is said', async () => {
    const { sim, deliver, env, tdd, partial } = await pausedWithWork();
    await deliver.comment('/coder stop');
    expect(decodeRecord(sim.own(partial)?.output?.text, partial)?.pause).toBeUndefined();
    const said = sim.comments.length;
    const again = await keptWorkApplyJob(env, tdd);
    expect(again.state).toBe('paused');
    expect(sim.refs.get(BRANCH)).toBe(partial);
    const record = decodeRecord(sim.own(partial)?.output?.text, partial);
    expect(record?.pause).toBeUndefined();
    expect(record?.pauses).toHaveLength(1);
    expect(sim.comments.slice(said).map((c) => c.body.split('\n')[0])).toEqual([]);
  });

  it('`/coder resume`, then the apply job re-run: the resumed hand-off stays asked for, not paused again', async () => {
    const { sim, deliver, env, tdd, partial } = await pausedWithWork();
    await deliver.comment('/coder resume');
    const resumed = lastHandOff(sim);
    expect(resumed).toMatchObject({ node: 'tdd', attempt: 1, headSha: partial });
    expect(await notAsked(env, resumed)).toBeUndefined();
    await keptWorkApplyJob(env, tdd);
    const record = decodeRecord(sim.own(partial)?.output?.text, partial);
    expect(record?.pause).toBeUndefined();
    expect(record?.pauses).toHaveLength(1);
    // The agent's run the loop handed on after the resume still runs.
    expect(await notAsked(env, resumed)).toBeUndefined();
  });
});

describe('a hand-off ended by an escalation', () => {
  it('`/coder resume` clears the escalation: the hand-off it ended stays ended, a re-run of its run runs nothing', async () => {
    const config =
      'agent:\n  command: "true"\nmaxRetries: 1\nspecCheck: off\narchitects: [archie]\n';
    const { sim, deliver } = await world(config);
    await deliver.comment('/coder next');
    const env = agentEnv(sim);
    const tdd = lastHandOff(sim);
    const head = tdd.headSha;
    // The agent's run made no change: a failed attempt, the last one: escalated.
    const { config: loaded } = await env.loadConfig();
    expect((await dispatchAgentFailure(env, loaded!, tdd, 'made no change')).state).toBe(
      'escalated',
    );
    expect(await notAsked(env, tdd)).toMatch(/escalated since/);
    // CI passes on the head (a re-run), and a writer resumes: the head goes on to code review.
    const sent = sim.dispatches.length;
    await deliver.ci(BRANCH, 'success', { name: 'test' });
    await deliver.comment('/coder resume', { login: 'archie' });
    expect(decodeRecord(sim.own(head)?.output?.text, head)?.escalation).toBeUndefined();
    expect(sim.dispatches).toHaveLength(sent);
    expect(await notAsked(env, tdd)).toEqual(expect.any(String));
  });
});

describe('a hand-off in flight when the run is stopped', () => {
  it('`/coder stop` ends it: the agent’s run is not applied, a re-run runs nothing, and the reply says so', async () => {
    const { sim, deliver } = await world(AGENT);
    await deliver.comment('/coder run Example');
    const env = agentEnv(sim);
    const tdd = lastHandOff(sim);
    expect(await notAsked(env, tdd)).toBeUndefined();
    await deliver.comment('/coder stop');
    const head = sim.refs.get(BRANCH)!;
    const record = decodeRecord(sim.own(head)?.output?.text, head);
    expect(record?.run).toBeUndefined();
    expect(record?.handOff).toBeUndefined();
    expect(await notAsked(env, tdd)).toEqual(expect.any(String));
    expect(sim.comments.at(-1)?.body).toContain(
      "The coding agent's hand-off on #2 ends too: what it is working on now is not applied",
    );
    // A red CI result on a push hands the fix on again.
    await deliver.ci(BRANCH, 'failure', { name: 'test' });
    expect(lastHandOff(sim)).toMatchObject({ node: 'debug-fix', attempt: 1 });
  });
});
