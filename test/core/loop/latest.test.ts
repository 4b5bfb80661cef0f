import { approversOf, latestCheckRuns, latestReviews } from '../../../src/core/index.js';

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
