import {
  agentHandOff,
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
