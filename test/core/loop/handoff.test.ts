import {
  agentHandOff,
  handOffRefusal,
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
