import {
  approversOf,
  latestCheckRuns,
  latestReviews,
  latestStatuses,
  runsToTrace,
  type RunJob,
} from '../../../src/core/index.js';

/** Which of several counts: a reviewer's reviews, a check's re-runs — a table each. */

const HEAD = 'a'.repeat(40);
const OLD = 'b'.repeat(40);
const review = (login: string, state: string, commit = HEAD, type = 'User') => ({
  user: { login, type },
  state,
  commit_id: commit,
});

describe('latestReviews: each reviewer’s latest verdict', () => {
  it.each<[string, ReturnType<typeof review>[], string[]]>([
    ['none', [], []],
    ['one approval', [review('ann', 'APPROVED')], ['ann:APPROVED']],
    [
      'a later verdict replaces an earlier one',
      [review('ann', 'APPROVED'), review('ann', 'CHANGES_REQUESTED')],
      ['ann:CHANGES_REQUESTED'],
    ],
    [
      'a comment after an approval is no verdict',
      [review('ann', 'APPROVED'), review('ann', 'COMMENTED')],
      ['ann:APPROVED'],
    ],
    ['a pending review is no verdict', [review('ann', 'PENDING')], []],
    [
      'logins compare without case; the latest review names the login',
      [review('Ann', 'CHANGES_REQUESTED'), review('ann', 'APPROVED')],
      ['ann:APPROVED'],
    ],
    [
      'reviewers in the order of their first review',
      [review('bob', 'APPROVED'), review('ann', 'APPROVED'), review('bob', 'DISMISSED')],
      ['bob:DISMISSED', 'ann:APPROVED'],
    ],
  ])('%s', (_name, reviews, expected) => {
    expect(latestReviews(reviews).map((r) => `${r.user.login}:${r.state}`)).toEqual(expected);
  });

  it('a review without a user (a deleted account) is no verdict', () => {
    expect(latestReviews([{ user: null, state: 'APPROVED', commit_id: HEAD }])).toEqual([]);
  });
});

describe('approversOf: who approves the head', () => {
  it.each<[string, ReturnType<typeof review>[], string[]]>([
    ['an approval of the head', [review('ann', 'APPROVED')], ['ann']],
    ['an approval of an older head', [review('ann', 'APPROVED', OLD)], []],
    [
      'approved, then asked for changes',
      [review('ann', 'APPROVED'), review('ann', 'CHANGES_REQUESTED')],
      [],
    ],
    [
      'asked for changes, then approved',
      [review('ann', 'CHANGES_REQUESTED'), review('ann', 'APPROVED')],
      ['ann'],
    ],
    ['approved, then commented', [review('ann', 'APPROVED'), review('ann', 'COMMENTED')], ['ann']],
    ['a bot by type', [review('ci', 'APPROVED', HEAD, 'Bot')], []],
    ['a bot by name', [review('renovate[bot]', 'APPROVED')], []],
    ['two approvers', [review('ann', 'APPROVED'), review('bob', 'APPROVED')], ['ann', 'bob']],
  ])('%s', (_name, reviews, expected) => {
    expect(approversOf(reviews, HEAD)).toEqual(expected);
  });
});

describe('latestCheckRuns: a re-run replaces its run', () => {
  const run = (id: number, name: string, app?: number) => ({
    id,
    name,
    ...(app !== undefined ? { app: { id: app } } : {}),
  });
  it.each<[string, ReturnType<typeof run>[], number[], number[]]>([
    ['none', [], [], []],
    ['one run', [run(1, 'test', 7)], [], [1]],
    ['a re-run: the newest counts', [run(1, 'test', 7), run(2, 'test', 7)], [], [2]],
    ['listed out of order: by id', [run(5, 'test', 7), run(2, 'test', 7)], [], [5]],
    ['same name, other app: both', [run(1, 'test', 7), run(2, 'test', 8)], [], [1, 2]],
    ['no app: its own group', [run(1, 'test'), run(2, 'test', 7)], [], [1, 2]],
    ['the loop’s own runs skipped', [run(1, 'test', 7), run(2, 'coder-loop', 7)], [2], [1]],
    [
      'a skipped newer run leaves the older one counting',
      [run(1, 'test', 7), run(2, 'test', 7)],
      [2],
      [1],
    ],
    ['first-run order kept', [run(1, 'b', 7), run(2, 'a', 7), run(3, 'b', 7)], [], [3, 2]],
  ])('%s', (_name, runs, skip, expected) => {
    expect(latestCheckRuns(runs, new Set(skip)).map((r) => r.id)).toEqual(expected);
  });
});

describe('GitHub Actions runs: only a re-run of the same job replaces it', () => {
  const actions = (id: number, name = 'test') => ({
    id,
    name,
    app: { id: 15368, slug: 'github-actions' },
  });
  const job = (run: number, attempt: number): RunJob => ({ run, attempt });
  it.each<[string, ReturnType<typeof actions>[], [number, RunJob | null][], number[]]>([
    [
      'a re-run of the job (same workflow run, later attempt): the newest counts',
      [actions(1), actions(2)],
      [
        [1, job(9, 1)],
        [2, job(9, 2)],
      ],
      [2],
    ],
    [
      'a run created through the API (no job) stands beside CI’s, never over it',
      [actions(1), actions(2)],
      [
        [1, job(9, 1)],
        [2, null],
      ],
      [1, 2],
    ],
    [
      'a job of another workflow run stands beside it',
      [actions(1), actions(2)],
      [
        [1, job(9, 1)],
        [2, job(10, 1)],
      ],
      [1, 2],
    ],
    ['jobs not known: both stand', [actions(1), actions(2)], [], [1, 2]],
    [
      'an API run first, then CI’s job: both stand',
      [actions(1), actions(2)],
      [
        [1, null],
        [2, job(9, 1)],
      ],
      [1, 2],
    ],
  ])('%s', (_name, runs, jobs, expected) => {
    expect(latestCheckRuns(runs, new Set(), new Map(jobs)).map((r) => r.id)).toEqual(expected);
  });

  it('the runs to trace: Actions runs sharing a name, not the loop’s own, not other apps’', () => {
    const other = { id: 5, name: 'test', app: { id: 7, slug: 'ci' } };
    const runs = [actions(1), actions(2), actions(3, 'lint'), other, { ...other, id: 6 }];
    expect(runsToTrace(runs)).toEqual([1, 2]);
    expect(runsToTrace(runs, new Set([2]))).toEqual([]);
  });
});

describe('latestStatuses: each creator’s newest status of a context', () => {
  const status = (context: string, state: string, login: string) => ({
    context,
    state,
    creator: { login },
  });
  it.each<[string, ReturnType<typeof status>[], string[]]>([
    [
      'CI reporting again replaces its own verdict',
      [status('ci', 'success', 'ci-bot'), status('ci', 'failure', 'ci-bot')],
      ['ci:success'],
    ],
    [
      'another creator’s status of the same context stands beside it',
      [status('ci', 'success', 'github-actions[bot]'), status('ci', 'failure', 'ci-bot')],
      ['ci:failure', 'ci:success'],
    ],
    [
      'GITHUB_TOKEN: a job posting the context green after its red does not turn it green',
      [
        status('ci', 'success', 'github-actions[bot]'),
        status('ci', 'failure', 'github-actions[bot]'),
      ],
      ['ci:failure'],
    ],
    [
      'GITHUB_TOKEN: an error stands too, the newest failure of several',
      [
        status('ci', 'success', 'GitHub-Actions[bot]'),
        status('ci', 'error', 'github-actions[bot]'),
        status('ci', 'pending', 'github-actions[bot]'),
        status('ci', 'failure', 'github-actions[bot]'),
      ],
      ['ci:error'],
    ],
    [
      'GITHUB_TOKEN: pending, then the verdict (the usual way to report)',
      [
        status('ci', 'success', 'github-actions[bot]'),
        status('ci', 'pending', 'github-actions[bot]'),
      ],
      ['ci:success'],
    ],
    [
      'GITHUB_TOKEN: a pending after a verdict waits (it may hold the gate back)',
      [
        status('ci', 'pending', 'github-actions[bot]'),
        status('ci', 'success', 'github-actions[bot]'),
      ],
      ['ci:pending'],
    ],
    [
      'creators compare without case',
      [status('ci', 'success', 'CI-Bot'), status('ci', 'failure', 'ci-bot')],
      ['ci:success'],
    ],
  ])('%s (newest first)', (_name, statuses, expected) => {
    expect(latestStatuses(statuses).map((s) => `${s.context}:${s.state}`)).toEqual(expected);
  });
});
