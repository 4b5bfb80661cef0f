import {
  chooseApproval,
  isOwnCheckRun,
  loopPullProblem,
  mayCommand,
  pushers,
  reviewStanding,
  type CheckRunFacts,
  type LoopIdentity,
  type PullFacts,
  type ReviewStanding,
} from '../../../src/core/index.js';

/** Who may move the loop: each rule as a table, decided before anything is written. */

const bot: LoopIdentity = { login: 'coder-loop[bot]', app: { id: 5, slug: 'coder-loop' } };

describe('mayCommand', () => {
  it.each([
    ['admin', true],
    ['maintain', true],
    ['write', true],
    ['triage', false],
    ['read', false],
    ['none', false],
    ['WRITE', false],
  ])('%s → %s', (permission, expected) => {
    expect(mayCommand(permission)).toBe(expected);
  });
});

describe('loopPullProblem', () => {
  const repo = { full_name: 'o/r', id: 1 };
  const pr = (over: Partial<PullFacts> = {}): PullFacts => ({
    user: { login: 'coder-loop[bot]', type: 'Bot' },
    head: { ref: 'coder/a/phase-1', repo },
    base: { repo },
    ...over,
  });
  it.each<[string, PullFacts, string | undefined]>([
    ['the loop’s own PR', pr(), undefined],
    ['login compared case-insensitively', pr({ user: { login: 'Coder-Loop[bot]' } }), undefined],
    [
      'same repository by name when ids are missing',
      pr({
        head: { ref: 'coder/x', repo: { full_name: 'O/R' } },
        base: { repo: { full_name: 'o/r' } },
      }),
      undefined,
    ],
    ['another branch', pr({ head: { ref: 'feature', repo } }), 'not a coder/ branch'],
    [
      'a fork',
      pr({ head: { ref: 'coder/x', repo: { full_name: 'm/r', id: 2 } } }),
      'its head is in another repository (a fork)',
    ],
    [
      'a deleted fork',
      pr({ head: { ref: 'coder/x', repo: null } }),
      'its head is in another repository (a fork)',
    ],
    [
      'somebody else’s PR',
      pr({ user: { login: 'mallory' } }),
      'opened by @mallory, not by the loop (coder-loop[bot])',
    ],
    [
      'no author',
      pr({ user: null }),
      'opened by an unknown user, not by the loop (coder-loop[bot])',
    ],
  ])('%s', (_name, facts, expected) => {
    expect(loopPullProblem(facts, bot)).toBe(expected);
  });
});

describe('isOwnCheckRun', () => {
  it.each<[string, CheckRunFacts, LoopIdentity, boolean]>([
    ['ours by app id', { name: 'coder-loop', app: { id: 5 } }, bot, true],
    [
      'ours by slug',
      { name: 'coder-loop', app: { slug: 'Coder-Loop' } },
      { login: 'x', app: { slug: 'coder-loop' } },
      true,
    ],
    [
      'a CI job with our name',
      { name: 'coder-loop', app: { id: 6, slug: 'coder-loop' } },
      bot,
      false,
    ],
    ['another name', { name: 'ci', app: { id: 5 } }, bot, false],
    ['no app on the run', { name: 'coder-loop', app: null }, bot, false],
    ['no app known for the loop', { name: 'coder-loop', app: { id: 5 } }, { login: 'x' }, false],
  ])('%s → %s', (_name, run, identity, expected) => {
    expect(isOwnCheckRun(run, identity)).toBe(expected);
  });
});

describe('reviewStanding', () => {
  const human = { login: 'alice', type: 'User', permission: 'write', pushed: false };
  it.each<[string, typeof human, 'approval' | 'changes', boolean, ReviewStanding]>([
    ['a writer approves', human, 'approval', false, { counts: true }],
    ['a writer asks changes', human, 'changes', false, { counts: true }],
    [
      'a bot',
      { ...human, login: 'ci[bot]', type: 'Bot' },
      'approval',
      false,
      { counts: false, quiet: true, why: '@ci[bot] is a bot' },
    ],
    [
      'an outsider',
      { ...human, permission: 'read' },
      'changes',
      false,
      { counts: false, quiet: true, why: '@alice has read permission, not write' },
    ],
    [
      'a pusher approves',
      { ...human, pushed: true },
      'approval',
      false,
      {
        counts: false,
        quiet: false,
        why: '@alice pushed commits to this branch, and an approval must come from someone else (config `allowSelfApproval`)',
      },
    ],
    [
      'a pusher approves, self-approval allowed',
      { ...human, pushed: true },
      'approval',
      true,
      { counts: true },
    ],
    ['a pusher asks changes', { ...human, pushed: true }, 'changes', false, { counts: true }],
  ])('%s', (_name, reviewer, kind, allowSelf, expected) => {
    expect(reviewStanding(reviewer, kind, allowSelf)).toEqual(expected);
  });
});

describe('chooseApproval', () => {
  const dev = { login: 'dev', architect: false };
  const arch = { login: 'arch', architect: true };
  it.each<[string, { login: string; architect: boolean }[], boolean, unknown]>([
    ['no approval', [], false, undefined],
    ['no locked items: the first', [dev, arch], false, { approval: dev, escalate: false }],
    ['locked items: the architect', [dev, arch], true, { approval: arch, escalate: false }],
    ['locked items, no architect: escalate', [dev], true, { approval: dev, escalate: true }],
  ])('%s', (_name, approvals, needsArchitect, expected) => {
    expect(chooseApproval(approvals, needsArchitect)).toEqual(expected);
  });
});

describe('pushers', () => {
  it('authors and committers, lower-cased, the loop and unmatched users left out', () => {
    const commits = [
      { author: { login: 'Alice' }, committer: { login: 'web-flow' } },
      { author: { login: 'coder-loop[bot]' }, committer: { login: 'CODER-LOOP[bot]' } },
      { author: null, committer: {} },
    ];
    expect([...pushers(commits, bot)].sort()).toEqual(['alice', 'web-flow']);
  });
});
