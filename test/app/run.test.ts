import nock from 'nock';
import { decodeRecord } from '../../src/core/index.js';
import { afterScenario, beforeScenario, NOW } from '../helpers/github.js';
import { BRANCH, replies, world } from '../helpers/world.js';
import type { SimGitHub } from '../sim/github.js';

/** `/coder run` and `/coder stop` (SPEC §3 item 12, §5; issue 23), against the in-memory GitHub. */

beforeEach(beforeScenario);
afterEach(() => {
  nock.cleanAll();
  afterScenario();
});

/** The record on a head's own `coder-loop` check run (the only place the loop reads it from). */
function recordAt(sim: SimGitHub, sha: string) {
  return decodeRecord(sim.own(sha)?.output?.text, sha);
}

describe('/coder run', () => {
  it('starts the current phase as /coder next does, and the record carries the run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run Example');
    expect(sim.pulls.map((p) => [p.number, p.head])).toEqual([[2, BRANCH]]);
    expect([...sim.refs.keys()].filter((r) => r.startsWith('coder/'))).toEqual([BRANCH]);
    const record = recordAt(sim, sim.headOf(sim.pulls[0]!));
    expect(record).toMatchObject({ mode: 'plan', plan: 'Example', phase: 1, issue: 1 });
    expect(record!.run).toEqual({
      starter: 'Codertocat',
      plan: 'Example',
      startedAt: NOW.toISOString(),
    });
    expect(replies(sim)).toHaveLength(1);
  });

  it('/coder next carries no run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder next');
    expect(recordAt(sim, sim.headOf(sim.pulls[0]!))!.run).toBeUndefined();
  });

  it('a reader cannot start a run', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run', { login: 'stranger' });
    expect(sim.pulls).toEqual([]);
    expect(replies(sim)).toHaveLength(1);
  });
});

describe('/coder stop', () => {
  it('takes the run out of the open phase PR’s record, keeps its state, replies once', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder run');
    const pr = sim.pulls[0]!;
    const head = sim.headOf(pr);
    const before = sim.own(head)!;
    await deliver.comment('/coder stop');
    expect(sim.headOf(pr)).toBe(head);
    expect(pr.state).toBe('open');
    const after = sim.own(head)!;
    expect(after.external_id).toBe(before.external_id);
    const record = recordAt(sim, head)!;
    expect(record.run).toBeUndefined();
    expect(record).toMatchObject({ mode: 'plan', plan: 'Example', phase: 1, issue: 1 });
    expect(replies(sim).slice(1)).toEqual([
      'Stopped the run of plan `Example`: pull request #2 stays as it is, and no phase starts after it. `/coder run` goes on.',
    ]);
    // Again: nothing left to stop, said once.
    await deliver.comment('/coder stop');
    expect(replies(sim).slice(2)).toEqual([
      'Pull request #2 is not part of a run (`/coder run`); nothing to stop.',
    ]);
    expect(sim.refs.has(BRANCH)).toBe(true);
  });

  it('without a loop PR: one reply, nothing written', async () => {
    const { sim, deliver } = await world();
    await deliver.comment('/coder stop');
    expect(replies(sim)).toEqual(['There is no open coder-loop pull request for this issue.']);
    expect(sim.pulls).toEqual([]);
  });
});
