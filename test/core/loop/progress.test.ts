import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  NO_COUNTS,
  NO_SPEND,
  progressLink,
  progressPhases,
  pullProgress,
  readProgress,
  renderProgress,
  waitingFor,
  withProgress,
  type Effect,
  type LoopMarker,
  type ProgressInput,
  type RunState,
} from '../../../src/core/index.js';
import { repoRoot } from '../../paths.js';

/** The progress comment of a `/coder run` (SPEC §3 item 12): pure rendering, table-tested. */

const SHA = 'a'.repeat(40);
const KEY = { issue: 7, plan: 'Example', startedAt: '2026-11-22T12:00:00.000Z' };
const PHASES = [
  { number: 1, title: 'Endpoint' },
  { number: 2, title: 'Database probe' },
  { number: 3, title: 'Documentation' },
];

/** The example docs/run.md shows: phase 1 merged, phase 2 at Code Review, phase 3 to do. */
export const EXAMPLE: ProgressInput = {
  key: KEY,
  starter: 'octocat',
  phases: PHASES,
  merged: [
    {
      phase: 1,
      pr: 12,
      failedAttempts: 1,
      minutes: 12.5,
      costUsd: 0.84,
      counts: { agentRuns: 2, unpriced: 0, pauses: 1, pausedMinutes: 45, reruns: 1, flaky: 1 },
    },
  ],
  current: {
    phase: 2,
    pr: 13,
    node: 'CodeReview',
    spend: { failedAttempts: 0, minutes: 7, costUsd: 0.31 },
    counts: { agentRuns: 2, unpriced: 1, pauses: 0, pausedMinutes: 0, reruns: 0, flaky: 0 },
  },
  totals: { failedAttempts: 1, minutes: 19.5, costUsd: 1.15 },
  totalCounts: { agentRuns: 4, unpriced: 1, pauses: 1, pausedMinutes: 45, reruns: 1, flaky: 1 },
};

/** The table's rows, without the header: `| a | b | … |` → [a, b, …]. */
const rows = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Phase') && !l.startsWith('| ---'))
    .map((l) =>
      l
        .slice(2, -2)
        .split(' | ')
        .map((c) => c.trim()),
    );
const headline = (text: string) => text.split('\n')[2]!;

describe('renderProgress', () => {
  it.each<[string, Partial<ProgressInput>, string[][], string]>([
    [
      'a run just started',
      {
        merged: [],
        current: { phase: 1, pr: 2, node: 'TDD', spend: NO_SPEND },
        totals: NO_SPEND,
      },
      [
        ['1 — Endpoint', '🔄 Implementation (TDD)', '#2', '', '0', '', '', '0 min', '$0.00'],
        ['2 — Database probe', '⏳ to do', '', '', '', '', '', '', ''],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 1 (pull request #2) is at **Implementation (TDD)**, waiting for the implementation (a push, test first).',
    ],
    [
      'phase 1 merged, phase 2 at Code Review',
      {},
      [
        ['1 — Endpoint', '✅ merged', '#12', '2', '1', '1 (45 min)', '1', '12.5 min', '$0.84'],
        [
          '2 — Database probe',
          '🔄 Code Review',
          '#13',
          '2',
          '0',
          '0',
          '0',
          '7 min',
          '$0.31 + unknown',
        ],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is at **Code Review**, waiting for a review.',
    ],
    [
      'escalated: waiting for an architect',
      { current: { phase: 2, pr: 13, node: 'Escalate', spend: NO_SPEND } },
      [
        ['1 — Endpoint', '✅ merged', '#12', '2', '1', '1 (45 min)', '1', '12.5 min', '$0.84'],
        ['2 — Database probe', '🛑 Escalated', '#13', '', '0', '', '', '0 min', '$0.00'],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is at **Escalated to architect**, waiting for an architect (`/coder resume`).',
    ],
    [
      'a phase done before the run started',
      {
        phases: [{ number: 1, title: 'Endpoint', done: true }, ...PHASES.slice(1)],
        merged: [],
        current: { phase: 2, pr: 4, node: 'Verification', spend: NO_SPEND },
      },
      [
        ['1 — Endpoint', '✅ done before the run', '', '', '', '', '', '', ''],
        ['2 — Database probe', '🔄 Verification', '#4', '', '0', '', '', '0 min', '$0.00'],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #4) is at **Verification**, waiting for CI.',
    ],
    [
      'complete: every phase merged, the stop sentence as headline',
      {
        merged: [
          { phase: 1, pr: 2, failedAttempts: 0, minutes: 1, costUsd: 0 },
          { phase: 2, pr: 3, failedAttempts: 0, minutes: 1, costUsd: 0 },
          { phase: 3, pr: 4, failedAttempts: 0, minutes: 1, costUsd: 0 },
        ],
        ended: 'The run of plan `Example` is complete.',
      },
      [
        ['1 — Endpoint', '✅ merged', '#2', '', '0', '', '', '1 min', '$0.00'],
        ['2 — Database probe', '✅ merged', '#3', '', '0', '', '', '1 min', '$0.00'],
        ['3 — Documentation', '✅ merged', '#4', '', '0', '', '', '1 min', '$0.00'],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. The run of plan `Example` is complete.',
    ],
    [
      'stopped on an open phase',
      { ended: 'Stopped.', current: { phase: 2, pr: 13, node: 'CodeReview', spend: NO_SPEND } },
      [
        ['1 — Endpoint', '✅ merged', '#12', '2', '1', '1 (45 min)', '1', '12.5 min', '$0.84'],
        ['2 — Database probe', '⏹ Code Review', '#13', '', '0', '', '', '0 min', '$0.00'],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Stopped.',
    ],
    [
      'phases unknown (a comment made again without the plan): the rows the record has',
      { phases: [] },
      [
        ['1', '✅ merged', '#12', '2', '1', '1 (45 min)', '1', '12.5 min', '$0.84'],
        ['2', '🔄 Code Review', '#13', '2', '0', '0', '0', '7 min', '$0.31 + unknown'],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is at **Code Review**, waiting for a review.',
    ],
    [
      'a title is escaped: no mention, no link',
      { phases: [{ number: 1, title: '@team [x](http://e)' }, ...PHASES.slice(1)] },
      [
        [
          '1 — @\u200bteam \\[x\\]\\(http://e\\)',
          '✅ merged',
          '#12',
          '2',
          '1',
          '1 (45 min)',
          '1',
          '12.5 min',
          '$0.84',
        ],
        [
          '2 — Database probe',
          '🔄 Code Review',
          '#13',
          '2',
          '0',
          '0',
          '0',
          '7 min',
          '$0.31 + unknown',
        ],
        ['3 — Documentation', '⏳ to do', '', '', '', '', '', '', ''],
      ],
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is at **Code Review**, waiting for a review.',
    ],
  ])('%s', (_name, change, expectedRows, expectedHeadline) => {
    const input = { ...EXAMPLE, ...change };
    if ('ended' in change && !('current' in change) && change.merged?.length === 3)
      delete (input as Partial<ProgressInput>).current;
    const text = renderProgress(input);
    expect(rows(text)).toEqual(expectedRows);
    expect(headline(text)).toBe(expectedHeadline);
  });

  it('ends with the run’s totals and its hidden key, which reads back only for that run', () => {
    const text = renderProgress(EXAMPLE);
    expect(text).toContain(
      '**The run so far:** 1 failed attempt, 4 agent runs, 1 pause (45 min), 1 re-run, 1 flaky check, 19.5 agent minutes, $1.15 + unknown.',
    );
    expect(readProgress(text, KEY)).toEqual({ phases: PHASES });
    expect(readProgress(text, { ...KEY, startedAt: '2026-11-23T00:00:00.000Z' })).toBeUndefined();
    expect(readProgress(text, { ...KEY, issue: 8 })).toBeUndefined();
    expect(readProgress(text, { ...KEY, plan: 'Other' })).toBeUndefined();
    expect(readProgress('a person’s comment', KEY)).toBeUndefined();
    expect(readProgress(text.replace('{"issue"', '{"issue'), KEY)).toBeUndefined();
    // Nothing in a title can end the hidden key early.
    const sly = renderProgress({ ...EXAMPLE, phases: [{ number: 1, title: 'a --> <b>' }] });
    expect(sly.split('\n').at(-1)).not.toMatch(/-->.*-->/);
    expect(readProgress(sly, KEY)!.phases[0]!.title).toBe('a --> <b>');
  });

  it('is the same text for the same input (the applier writes nothing when unchanged)', () => {
    expect(renderProgress(EXAMPLE)).toBe(renderProgress(structuredClone(EXAMPLE)));
  });
});

describe('docs/run.md', () => {
  it('shows the comment renderProgress writes for its example', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'run.md'), 'utf8');
    const block = /<!-- progress-example -->\n+```text\n([\s\S]*?)\n```/.exec(doc);
    expect(block).not.toBeNull();
    expect(block![1]).toBe(renderProgress(EXAMPLE));
  });
});

describe('waitingFor', () => {
  it.each([
    ['Verification', 'CI'],
    ['Debug', 'a fix (a push: CI runs again)'],
    ['TDD', 'the implementation (a push, test first)'],
    ['CodeReview', 'a review'],
    ['FinalVerify', 'CI on the completion commit'],
    ['End', 'a merge'],
    ['Escalate', 'an architect (`/coder resume`)'],
  ] as const)('%s → %s', (node, text) => {
    expect(waitingFor(node)).toBe(text);
  });
});

const RUN: RunState = {
  starter: 'octocat',
  plan: 'Example',
  startedAt: KEY.startedAt,
  progress: 55,
  totals: { failedAttempts: 1, minutes: 12.5, costUsd: 0.84 },
  phases: [{ phase: 1, pr: 12, failedAttempts: 1, minutes: 12.5, costUsd: 0.84 }],
};
const MARKER: LoopMarker = {
  mode: 'plan',
  plan: 'Example',
  phase: 2,
  issue: 7,
  attempts: [{ sha: SHA, checks: [] }],
  agentRuns: [{ node: 'tdd', sha: SHA, minutes: 3, usage: { costUsd: 0.5 } }],
  run: RUN,
};

describe('pullProgress: the comment as a run PR stands', () => {
  it('an open phase: its row from the record, the totals with it', () => {
    expect(pullProgress(MARKER, RUN, 13, 'Debug')).toEqual({
      key: KEY,
      starter: 'octocat',
      phases: [],
      merged: RUN.phases,
      current: {
        phase: 2,
        pr: 13,
        node: 'Debug',
        spend: { failedAttempts: 1, minutes: 3, costUsd: 0.5 },
        counts: { ...NO_COUNTS, agentRuns: 1 },
      },
      totals: { failedAttempts: 2, minutes: 15.5, costUsd: 1.34 },
      // Phase 1 was merged before counts were kept: it adds nothing to them.
      totalCounts: { ...NO_COUNTS, agentRuns: 1 },
    });
  });

  it('escalated or paused: the record says so, whatever node the head shows', () => {
    const escalated = pullProgress(
      { ...MARKER, escalation: { reason: '3 failed CI attempts', sha: SHA } },
      RUN,
      13,
      'Verification',
    );
    expect(escalated.current).toMatchObject({ escalated: '3 failed CI attempts' });
    expect(headline(renderProgress({ ...escalated, phases: PHASES }))).toBe(
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is **escalated**: waiting for an architect (`/coder resume`). 3 failed CI attempts.',
    );
    const pause = {
      node: 'debug-fix' as const,
      attempt: 1,
      since: '2026-11-22T12:00:00.000Z',
      until: '2026-11-22T15:00:00.000Z',
      reason: 'usage limit reached',
    };
    const paused = pullProgress(
      {
        ...MARKER,
        pause,
        pauses: [{ since: pause.since, until: pause.until, reason: pause.reason }],
      },
      RUN,
      13,
      'Debug',
    );
    const text = renderProgress({ ...paused, phases: PHASES });
    expect(headline(text)).toBe(
      'Started by @octocat at 2026-11-22T12:00:00.000Z. Phase 2 (pull request #13) is **paused** until 2026-11-22 15:00 UTC: usage limit reached. No attempt was spent; `/coder resume` resumes now.',
    );
    expect(rows(text)[1]).toEqual([
      '2 — Database probe',
      '⏸️ Paused (Debug & Fix)',
      '#13',
      '1',
      '1',
      '1 (180 min)',
      '0',
      '3 min',
      '$0.50',
    ]);
  });

  it('a cost no agent run reported is unknown, never $0', () => {
    const unpriced = pullProgress(
      { ...MARKER, agentRuns: [{ node: 'tdd', sha: SHA, minutes: 3 }] },
      { ...RUN, phases: [], totals: NO_SPEND },
      13,
      'Debug',
    );
    const text = renderProgress({ ...unpriced, phases: PHASES });
    expect(rows(text)[1]!.at(-1)).toBe('unknown');
    expect(text).toContain(
      '**The run so far:** 1 failed attempt, 1 agent run, 0 pauses, 0 re-runs, 3 agent minutes, unknown.',
    );
  });

  it('merged as the run ends: the phase is a merged row, the sentence the headline', () => {
    const input = pullProgress(MARKER, RUN, 13, 'End', { reason: 'Done.', merged: true });
    expect(input.current).toBeUndefined();
    expect(input.merged).toEqual([
      ...RUN.phases!,
      {
        phase: 2,
        pr: 13,
        failedAttempts: 1,
        minutes: 3,
        costUsd: 0.5,
        counts: { ...NO_COUNTS, agentRuns: 1 },
      },
    ]);
    expect(input.ended).toBe('Done.');
  });
});

describe('withProgress: the progress effect after a decision of a run PR', () => {
  const check: Effect = {
    kind: 'check',
    view: { mode: 'plan', node: 'CodeReview', title: 'Code review', next: '' },
  };
  const reply: Effect = { kind: 'reply', body: 'hi' };
  it.each<[string, LoopMarker, Effect[], string[]]>([
    ['a node shown', MARKER, [check, reply], ['check', 'reply', 'progress']],
    ['nothing moved (a reply only)', MARKER, [reply], ['reply']],
    ['not a run', { ...MARKER, run: undefined }, [check], ['check']],
    [
      'the run written into the record (resumed)',
      { ...MARKER, run: undefined },
      [{ kind: 'marker', marker: MARKER }, reply],
      ['marker', 'reply', 'progress'],
    ],
    [
      'a merge: only if it was refused',
      MARKER,
      [{ kind: 'merge' }, { ...check, when: 'merged' }],
      ['merge', 'check', 'progress (not-merged)'],
    ],
    ['quick mode', { ...MARKER, mode: 'quick' }, [check], ['check']],
  ])('%s', (_name, marker, effects, expected) => {
    expect(
      withProgress(marker, effects).map(
        (e) => `${e.kind}${e.kind === 'progress' && e.when ? ` (${e.when})` : ''}`,
      ),
    ).toEqual(expected);
  });
});

describe('progressPhases and progressLink', () => {
  it('a phase is done when every task of it is', () => {
    expect(
      progressPhases([
        { number: 1, name: 'A', tasks: [{ state: 'done' }, { state: 'done' }] },
        { number: 2, name: 'B', tasks: [{ state: 'done' }, { state: 'doing' }] },
        { number: 3, name: 'C', tasks: [] },
      ]),
    ).toEqual([
      { number: 1, title: 'A', done: true },
      { number: 2, title: 'B' },
      { number: 3, title: 'C' },
    ]);
  });

  it('the check run links to the comment only when the record names one', () => {
    expect(progressLink('https://github.com/o/r', MARKER)).toBe(
      "\n\nPart of a `/coder run` of `Example`: [the run's progress](https://github.com/o/r/issues/7#issuecomment-55).",
    );
    expect(progressLink('https://github.com/o/r', { ...MARKER, run: undefined })).toBe('');
  });
});
