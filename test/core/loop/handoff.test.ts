import {
  agentHandOff,
  askHandOff,
  buildAgentPayload,
  decodeRecord,
  encodeRecord,
  handOffGone,
  handOffOfPayload,
  handOffRefusal,
  isAskedHandOff,
  reviewRound,
  withAgent,
  type Config,
  type LoopMarker,
} from '../../../src/core/index.js';

/** The Implementation Track handed to an agent: which review round, and nothing without an agent. */

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const marker = (reviewRounds?: string[]): LoopMarker => ({
  mode: 'quick',
  issue: 1,
  ...(reviewRounds ? { reviewRounds } : {}),
});
const withMax = (maxReviewRounds: number) =>
  ({ agent: { maxReviewRounds } }) as unknown as Pick<Config, 'agent'>;

describe('reviewRound', () => {
  it.each<[string, string[] | undefined, string, Pick<Config, 'agent'>, unknown]>([
    ['the first round', undefined, A, withMax(2), { round: 1, repeat: false, exhausted: false }],
    [
      'a new head: the next round',
      [A],
      B,
      withMax(2),
      { round: 2, repeat: false, exhausted: false },
    ],
    [
      'a head seen before: a repeat',
      [A, B],
      A,
      withMax(2),
      { round: 1, repeat: true, exhausted: false },
    ],
    [
      'past the limit: exhausted',
      [A, B],
      C,
      withMax(2),
      { round: 3, repeat: false, exhausted: true },
    ],
    [
      'no agent: never exhausted',
      [A, B, C],
      'd'.repeat(40),
      {},
      { round: 4, repeat: false, exhausted: false },
    ],
  ])('%s', (_name, rounds, head, config, expected) => {
    expect(reviewRound(marker(rounds), head, config)).toEqual(expected);
  });
});

describe('without an agent', () => {
  it('no hand-off, and the check run keeps its human instructions', () => {
    const at = {
      node: 'tdd' as const,
      repo: { owner: 'o', repo: 'r' },
      branch: 'coder/quick/1',
      headSha: A,
      pullRequest: 2,
      marker: marker(),
      attempt: 1,
    };
    expect(agentHandOff({}, at)).toBeUndefined();
    const view = { mode: 'quick' as const, node: 'TDD' as const, title: 't', next: 'Push.' };
    expect(withAgent(view, undefined, 'https://github.com/o/r')).toBe(view);
  });
});

describe('handOffRefusal: the record asks for this very hand-off, on a PR neither escalated nor paused', () => {
  const H = 'c'.repeat(40);
  const wanted = { node: 'debug-fix' as const, attempt: 2, sha: H };
  const record: LoopMarker = { mode: 'plan', plan: 'Example', phase: 1, issue: 1, handOff: wanted };
  it.each<[string, LoopMarker | undefined, string | undefined]>([
    ['asked', record, undefined],
    ['no record', undefined, 'asks for no hand-off'],
    [
      'another attempt',
      { ...record, handOff: { ...wanted, attempt: 1 } },
      'asks for debug-fix (attempt 1)',
    ],
    [
      'escalated since',
      { ...record, escalation: { reason: 'limit', sha: H } },
      'escalated since (limit)',
    ],
    [
      'paused since',
      {
        ...record,
        pause: {
          node: 'debug-fix',
          attempt: 2,
          until: '2099-01-01T00:00:00Z',
          since: '2026-01-01T00:00:00Z',
          reason: 'usage limit',
        },
      },
      'paused since, until 2099-01-01T00:00:00Z',
    ],
  ])('%s', (_, marker, why) => {
    const found = handOffRefusal(marker, wanted);
    if (why === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(why);
  });
});

describe('the hand-off id: strictness follows the record, which only the loop writes', () => {
  const H = 'd'.repeat(40);
  const triple = { node: 'tdd' as const, attempt: 1, sha: H };
  const ID = '2026-11-22T12:00:00.000Z#1';
  const LATER = '2026-11-22T12:00:00.000Z#2';
  const recordAsking = (id?: string): LoopMarker => ({
    mode: 'plan',
    plan: 'Example',
    phase: 1,
    issue: 1,
    handOff: { ...triple, ...(id !== undefined ? { id } : {}) },
  });
  const run = (id?: string) => ({ ...triple, ...(id !== undefined ? { id } : {}) });

  it.each<[string, string | undefined, string | undefined, boolean]>([
    [
      'the record names an id, the payload none (a run of an older loop, or forged)',
      ID,
      undefined,
      false,
    ],
    [
      'both name ids, another one (an old run of the same node, attempt and head)',
      LATER,
      ID,
      false,
    ],
    ['both name the same id', ID, ID, true],
    [
      'the record names no id (an older coder-loop wrote it), the payload none',
      undefined,
      undefined,
      true,
    ],
    ['the record names no id, the payload one: compared as before', undefined, ID, true],
  ])('%s', (_, recorded, carried, asked) => {
    const record = recordAsking(recorded);
    expect(isAskedHandOff(record.handOff, run(carried))).toBe(asked);
    const refusal = handOffRefusal(record, run(carried));
    const gone = handOffGone(record, run(carried));
    if (asked) {
      expect(refusal).toBeUndefined();
      expect(gone).toBeUndefined();
    } else {
      expect(refusal).toContain('not the hand-off the loop asks for');
      expect(gone).toContain('not the hand-off the loop asks for');
    }
  });

  it('another node, attempt or head is refused whatever the ids', () => {
    const record = recordAsking(ID);
    expect(handOffRefusal(record, { ...run(ID), attempt: 2 })).toContain(
      'asks for tdd (attempt 1)',
    );
    expect(handOffGone(record, { ...run(ID), sha: 'e'.repeat(40) })).toContain(
      'asks for tdd (attempt 1)',
    );
    expect(isAskedHandOff(undefined, run(ID))).toBe(false);
  });

  it('asking twice for the same node, attempt and head at the same moment gives two ids, each in the record and the payload', () => {
    const payload = buildAgentPayload({
      node: 'tdd',
      repo: { owner: 'Codertocat', repo: 'Hello-World' },
      branch: 'coder/example/phase-1',
      headSha: H,
      pullRequest: 2,
      issue: 1,
      plan: { name: 'Example', phase: 1 },
      attempt: 1,
      agent: {
        command: 'true',
        timeoutMinutes: 30,
        keepPartialWork: false,
        maxReviewRounds: 3,
        maxPauses: 3,
        pauseMinutes: 60,
        env: [],
      },
    });
    const now = new Date('2026-11-22T12:00:00.000Z');
    const first = askHandOff({ mode: 'plan', plan: 'Example', phase: 1, issue: 1 }, payload, now);
    expect(first.payload.agent.handOffId).toBe(ID);
    expect(first.marker.handOff).toEqual({ ...triple, id: ID });
    expect(first.marker.handOffs).toBe(1);
    // A resume drops the hand-off and asks for the same one again, in the same millisecond.
    const resumed = { ...first.marker };
    delete resumed.handOff;
    const second = askHandOff(resumed, payload, now);
    expect(second.payload.agent.handOffId).toBe(LATER);
    expect(handOffOfPayload(second.payload)).toEqual(second.marker.handOff);
    expect(handOffRefusal(second.marker, handOffOfPayload(first.payload))).toContain(
      'not the hand-off the loop asks for',
    );
    expect(handOffRefusal(second.marker, handOffOfPayload(second.payload))).toBeUndefined();
    // The record keeps the id and the count; one an older coder-loop wrote (no id) still reads.
    const text = encodeRecord(second.marker, H);
    expect(decodeRecord(text, H)).toMatchObject({ handOff: { ...triple, id: LATER }, handOffs: 2 });
    const old = encodeRecord({ ...second.marker, handOff: triple, handOffs: undefined }, H);
    expect(decodeRecord(old, H)?.handOff).toEqual(triple);
  });
});
