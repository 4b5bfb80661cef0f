import { spentAtGreen, type LoopMarker } from '../../../src/core/index.js';

const SHA = 'a'.repeat(40);
const marker = (extra: Partial<LoopMarker> = {}): LoopMarker => ({
  mode: 'plan',
  plan: 'Example',
  phase: 1,
  issue: 1,
  agentRuns: [{ node: 'tdd', sha: SHA, minutes: 20, usage: { costUsd: 2 } }],
  ...extra,
});

describe('spentAtGreen: a budget counted when CI passes', () => {
  it.each<
    [string, LoopMarker, Parameters<typeof spentAtGreen>[1]['budget'], boolean, string | undefined]
  >([
    ['no budget', marker(), {}, false, undefined],
    [
      'under every limit',
      marker(),
      { agentMinutes: { phase: 30 }, costUsd: { phase: 5 } },
      false,
      undefined,
    ],
    [
      'phase minutes reached',
      marker(),
      { agentMinutes: { phase: 20 } },
      false,
      "The phase's budget of agent minutes is spent: 20 of 20",
    ],
    [
      'phase cost passed',
      marker(),
      { costUsd: { phase: 1.5 } },
      false,
      "The phase's budget of agent cost is spent: $2.00 of $1.50",
    ],
    [
      'the run’s totals count',
      marker({
        run: {
          starter: 'a',
          plan: 'Example',
          totals: { failedAttempts: 0, minutes: 45, costUsd: 0 },
        },
      }),
      { agentMinutes: { run: 60 } },
      false,
      "The run's budget of agent minutes is spent: 65 of 60",
    ],
    [
      '/coder resume lets the head through',
      marker(),
      { agentMinutes: { phase: 20 } },
      true,
      undefined,
    ],
    [
      'quick mode has no budget',
      marker({ mode: 'quick' }),
      { agentMinutes: { phase: 1 } },
      false,
      undefined,
    ],
  ])('%s', (_name, m, budget, again, expected) => {
    expect(spentAtGreen(m, { budget }, again)).toBe(expected);
  });
});
