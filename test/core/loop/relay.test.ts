import { relayedReview, relayRunProblem, type RelayRun } from '../../../src/core/index.js';

const HEAD = 'a'.repeat(40);
const OLD = 'b'.repeat(40);
const REPO = 'Codertocat/Hello-World';

describe('the review relay: which review a run of the relay stands for', () => {
  const run = (over: Partial<RelayRun> = {}): RelayRun => ({
    attempt: 1,
    actor: 'rev',
    triggeringActor: 'rev',
    headRepository: REPO,
    headSha: HEAD,
    pulls: [{ number: 2 }],
    ...over,
  });

  it.each<[string, RelayRun, string | undefined]>([
    ['the first attempt, from this repository', run(), undefined],
    [
      'logins compared without case',
      run({ triggeringActor: 'REV', headRepository: 'codertocat/hello-world' }),
      undefined,
    ],
    ['a re-run by the reviewer', run({ attempt: 2 }), 'the relayed run is a re-run (attempt 2)'],
    [
      'a re-run by a writer',
      run({ attempt: 3, triggeringActor: 'writer' }),
      'attempt 3, by @writer',
    ],
    ['another triggering actor on attempt 1', run({ triggeringActor: 'writer' }), 'by @writer'],
    ['no attempt named', run({ attempt: undefined }), 'attempt unknown'],
    [
      'a fork with the same branch name',
      run({ headRepository: 'outsider/Hello-World' }),
      'from outsider/Hello-World, not from Codertocat/Hello-World',
    ],
    ['no head repository', run({ headRepository: undefined }), 'an unknown repository'],
  ])('%s', (_, facts, problem) => {
    const found = relayRunProblem(facts, REPO);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  const review = (id: number, state: string, commit: string, login = 'rev') => ({
    id,
    login,
    state,
    commit,
  });

  it("relays the reviewer's newest review, made on the run's head", () => {
    const reviews = [
      review(1, 'CHANGES_REQUESTED', OLD),
      review(3, 'APPROVED', HEAD),
      review(4, 'CHANGES_REQUESTED', HEAD, 'other'),
      review(5, 'PENDING', HEAD),
    ];
    expect(relayedReview(run(), 2, reviews)).toEqual({ review: reviews[1] });
  });

  it("a comment after the reviewer's verdict (GitHub lists it as COMMENTED) leaves the verdict relayed", () => {
    const approved = review(3, 'APPROVED', HEAD);
    expect(relayedReview(run(), 2, [approved, review(4, 'COMMENTED', HEAD)])).toEqual({
      review: approved,
    });
    const dismissed = review(3, 'DISMISSED', HEAD);
    expect(relayedReview(run(), 2, [dismissed, review(4, 'COMMENTED', HEAD)])).toEqual({
      review: dismissed,
    });
    expect(relayedReview(run(), 2, [review(4, 'COMMENTED', HEAD)])).toEqual({
      ignored: '@rev has no review on pull request #2',
    });
  });

  it('relays nothing when the newest review is of another head, or the run names another PR', () => {
    expect(relayedReview(run(), 2, [review(1, 'CHANGES_REQUESTED', OLD)])).toEqual({
      ignored: "@rev's newest review is of bbbbbbb, not of the relayed head aaaaaaa",
    });
    expect(relayedReview(run({ pulls: [] }), 2, [review(1, 'APPROVED', HEAD)])).toEqual({
      ignored: 'the relayed run does not name pull request #2',
    });
    expect(
      relayedReview(run({ pulls: [{ number: 3 }] }), 2, [review(1, 'APPROVED', HEAD)]),
    ).toEqual({
      ignored: 'the relayed run does not name pull request #2',
    });
    expect(relayedReview(run(), 2, [review(1, 'APPROVED', HEAD, 'other')])).toEqual({
      ignored: '@rev has no review on pull request #2',
    });
  });
});
