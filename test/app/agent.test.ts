import nock from 'nock';
import { decodeRecord } from '../../src/core/index.js';
import { afterScenario, beforeScenario } from '../helpers/github.js';
import { BRANCH, replies, started, world } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/**
 * The hand-off (SPEC §9): with config `agent`, the App sends one `repository_dispatch` per node
 * per head — TDD, Debug & Fix, review-fix — and escalates instead where the loop would.
 */

const AGENT = 'agent:\n  command: node examples/agents/scripted.mjs\n  env: [ANTHROPIC_API_KEY]\n';

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

const handOffs = (sim: SimGitHub) =>
  sim.dispatches.map((d) => {
    const p = d.client_payload as { node: string; attempt: number; headSha: string };
    return `${d.event_type} ${p.node} #${p.attempt} @${p.headSha.slice(0, 7)}`;
  });
const short = (sha: string) => sha.slice(0, 7);

describe('TDD: a new phase is handed to the agent', () => {
  it('one dispatch with the payload of SPEC §9; the check run says the agent is working', async () => {
    const { sim, deliver } = await world(AGENT);
    await deliver.comment('/coder next', { commentId: 77 });
    const head = sim.refs.get(BRANCH)!;
    expect(sim.dispatches).toEqual([
      {
        event_type: 'coder-loop-agent',
        client_payload: {
          node: 'tdd',
          repository: 'Codertocat/Hello-World',
          branch: BRANCH,
          headSha: head,
          pullRequest: 2,
          issue: 1,
          plan: 'Example',
          phase: 1,
          attempt: 1,
          agent: {
            command: 'node examples/agents/scripted.mjs',
            timeoutMinutes: 30,
            env: ['ANTHROPIC_API_KEY'],
            // The decision's time and the PR's first hand-off: the record asks for the same id.
            handOffId: '2026-11-22T12:00:00.000Z#1',
          },
        },
      },
    ]);
    expect(decodeRecord(sim.own(head)!.output!.text, head)?.handOff).toEqual({
      node: 'tdd',
      attempt: 1,
      sha: head,
      id: '2026-11-22T12:00:00.000Z#1',
    });
    expect(sim.own(head)!.output!.summary).toContain('Agent working (attempt 1)');
    expect(sim.own(head)!.output!.summary).toContain(
      'https://github.com/Codertocat/Hello-World/actions?query=event%3Arepository_dispatch',
    );
    // A redelivered command finds its own lock: no second hand-off.
    await deliver.comment('/coder next', { commentId: 77 });
    expect(sim.dispatches).toHaveLength(1);
  });

  it('without `agent` nothing is dispatched', async () => {
    const { sim, deliver } = await started();
    await deliver.ci(BRANCH, 'failure');
    expect(sim.dispatches).toEqual([]);
    expect(sim.writes.filter((w) => w.endsWith('/dispatches'))).toEqual([]);
  });
});

describe('Debug & Fix: a failed head is handed back while attempts are left', () => {
  it('attempt k of maxRetries once per head; at maxRetries escalation and no dispatch', async () => {
    const { sim, deliver } = await started(`${AGENT}architects: [archie]\n`);
    const heads: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      heads.push(sim.refs.get(BRANCH)!);
      await deliver.ci(BRANCH, 'failure');
      await deliver.ci(BRANCH, 'failure'); // the same head reported again
      if (attempt < 3) sim.push(BRANCH, { 'src/health.ts': `export const ok = ${attempt};\n` });
    }
    expect(handOffs(sim).slice(1)).toEqual([
      `coder-loop-agent debug-fix #1 @${short(heads[0]!)}`,
      `coder-loop-agent debug-fix #2 @${short(heads[1]!)}`,
    ]);
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): 3 failed CI attempts (the limit is 3).',
    );
    expect(sim.own(heads[1]!)!.output!.summary).toContain('Agent working (attempt 2)');
  });
});

describe('Code Review → Issues: changes requested are handed to the agent', () => {
  it('one review-fix per head, only for a reviewer who counts; past maxReviewRounds, escalation', async () => {
    const config = `agent:\n  command: ./fix.sh\n  maxReviewRounds: 1\narchitects: [archie]\n`;
    const { sim, deliver, pr } = await started(config);
    await deliver.ci(BRANCH, 'success');
    const first = sim.headOf(pr);
    await deliver.review(pr.number, 'outsider', 'changes_requested'); // read-only: nothing
    await deliver.review(pr.number, 'reviewer1', 'changes_requested');
    await deliver.review(pr.number, 'Codertocat', 'changes_requested'); // same head: no second
    expect(handOffs(sim).slice(1)).toEqual([`coder-loop-agent review-fix #1 @${short(first)}`]);
    expect(decodeRecord(sim.own(first)!.output!.text, first)?.reviewRounds).toEqual([first]);

    sim.push(BRANCH, { 'src/health.ts': 'export const ok = "reviewed";\n' });
    await deliver.ci(BRANCH, 'success');
    await deliver.review(pr.number, 'reviewer1', 'changes_requested');
    expect(sim.dispatches).toHaveLength(2);
    expect(replies(sim).at(-1)).toBe(
      '**Escalated to architect** (pull request #2): 1 review round handed to the coding agent (the limit is 1), and @reviewer1 asked for changes again.',
    );
    expect([...pr.labels]).toEqual(['coder:escalated']);
  });
});
