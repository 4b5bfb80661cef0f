import {
  approvals,
  DEFAULT_CONFIG,
  withApprovals,
  type Approval,
  type Config,
  type Decided,
  type PullSnapshot,
} from '../../../src/core/index.js';
import { ci, config, effects, snap, state, TEST_FILE } from './pullFixtures.js';

describe('Touched Locked Items? → Escalate or Mark [x]', () => {
  const locked = config({ architects: ['arch'], locked: ['src/core/**'] });
  const files = [...TEST_FILE, { path: 'src/core/x.ts', additions: 1, deletions: 0 }];
  const a = (login: string, over: Partial<Approval> = {}): Approval => ({
    login,
    permission: 'write',
    pushed: false,
    ...over,
  });
  it.each<[string, PullSnapshot, Config, Approval[], string, string[]]>([
    [
      'no approval → nothing',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [],
      'code-review @CodeReview',
      [],
    ],
    [
      'a writer who pushed nothing → Mark [x]',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'only a writer who pushed → does not count, says why',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('dev', { pushed: true })],
      'approval-not-counted @CodeReview',
      [
        'reply: The approval on pull request #2 does not count: @dev pushed commits to this branch, and an approval must come from someone else (config `allowSelfApproval`). Nothing was done; an approval from another person with write access completes the phase.',
      ],
    ],
    [
      'allowSelfApproval → the pusher counts',
      snap({ files: TEST_FILE }),
      config({ allowSelfApproval: true }),
      [a('dev', { pushed: true })],
      'completing @FinalVerify',
      ['complete by @dev'],
    ],
    [
      'a workflow or app pushed (GitHub names no person) → no approval counts, says why',
      snap({ files: TEST_FILE, automationPushed: ['github-actions[bot]'] }),
      DEFAULT_CONFIG,
      [a('rev', { architect: true })],
      'approval-not-counted @CodeReview',
      [
        "reply: The approval on pull request #2 does not count: @github-actions[bot] (a workflow or an app, not the loop) pushed to this branch, and GitHub does not name who ran it: no approval can be told apart from the pusher's own. Nothing was done. Set `allowSelfApproval: true` to accept it, or `/coder release` and start the phase again.",
      ],
    ],
    [
      'the record of pushes too long to read whole → no approval counts',
      snap({ files: TEST_FILE, automationPushed: ['?'] }),
      DEFAULT_CONFIG,
      [a('rev')],
      'approval-not-counted @CodeReview',
      [
        "reply: The approval on pull request #2 does not count: GitHub's record of the pushes to this branch is too long to read whole, so the loop cannot tell who pushed: no approval can be told apart from the pusher's own. Nothing was done. Set `allowSelfApproval: true` to accept it, or `/coder release` and start the phase again.",
      ],
    ],
    [
      'a workflow pushed, allowSelfApproval → Mark [x]',
      snap({ files: TEST_FILE, automationPushed: ['github-actions[bot]'] }),
      config({ allowSelfApproval: true }),
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'a read-only approval → nothing, not even a reply',
      snap({ files: TEST_FILE }),
      DEFAULT_CONFIG,
      [a('reader', { permission: 'read' })],
      'code-review @CodeReview',
      [],
    ],
    [
      'locked paths, architects unknown → ask',
      snap({ files }),
      locked,
      [a('dev')],
      'need architects',
      ['need architects'],
    ],
    [
      'locked paths, no architect → Escalate',
      snap({ files }),
      locked,
      [a('dev', { architect: false })],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): locked paths touched, and @dev is not an architect.',
      ],
    ],
    [
      'locked paths, the first approval not an architect, the second is → Mark [x] by the architect',
      snap({ files }),
      locked,
      [a('dev', { architect: false }), a('arch', { architect: true })],
      'completing @FinalVerify',
      ['complete by @arch'],
    ],
    [
      'escalated head, the architect approves → unlabel, Mark [x]',
      snap({ files, escalated: true }),
      locked,
      [a('arch', { architect: true })],
      'completing @FinalVerify',
      ['unlabel', 'complete by @arch'],
    ],
    [
      'the default GITHUB_TOKEN (identity shared), locked paths, an architect approves → refused, by hand',
      snap({ files, shared: true }),
      locked,
      [a('arch', { architect: true })],
      'approval-not-counted @CodeReview',
      [
        "reply: Pull request #2 needs an architect (locked paths touched), and this loop runs on the default `GITHUB_TOKEN`, whose identity every writer's workflow shares: the loop cannot vouch for its record, so it does not complete the phase. An architect reviews and merges it by hand; an App token lifts this (docs/security.md).",
      ],
    ],
    [
      'identity shared, a plan document changed → refused, whoever approves',
      snap({
        files: [
          ...TEST_FILE,
          {
            path: 'docs/plans/Example/Task Plans/Phase 1 - Endpoint.md',
            additions: 1,
            deletions: 0,
          },
        ],
        shared: true,
      }),
      config({ architects: ['arch'] }),
      [a('arch', { architect: true })],
      'approval-not-counted @CodeReview',
      [
        "reply: Pull request #2 needs an architect (plan documents changed), and this loop runs on the default `GITHUB_TOKEN`, whose identity every writer's workflow shares: the loop cannot vouch for its record, so it does not complete the phase. An architect reviews and merges it by hand; an App token lifts this (docs/security.md).",
      ],
    ],
    [
      'identity shared, escalated, the architect approves → stays escalated, by hand',
      snap({ files: TEST_FILE, escalated: true, shared: true }),
      config({ architects: ['arch'] }),
      [a('arch', { architect: true })],
      'escalated @Escalate',
      [
        "reply: Pull request #2 needs an architect (it is escalated), and this loop runs on the default `GITHUB_TOKEN`, whose identity every writer's workflow shares: the loop cannot vouch for its record, so it does not complete the phase. An architect reviews and merges it by hand; an App token lifts this (docs/security.md).",
      ],
    ],
    [
      'identity shared, nothing needs an architect → Mark [x]',
      snap({ files: TEST_FILE, shared: true }),
      DEFAULT_CONFIG,
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'the record does not say escalated: the PR’s history is asked',
      snap({ files, escalatedBefore: undefined }),
      config({ architects: ['arch'] }),
      [a('dev', { architect: false })],
      'need escalation',
      ['need escalation'],
    ],
    [
      'escalated by the PR’s history (a force-push brought back an older record) → escalated again',
      snap({ files, escalatedBefore: true }),
      config({ architects: ['arch'] }),
      [a('dev', { architect: false })],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): escalated before, and only an architect’s approval or `/coder resume` ends it, and @dev is not an architect.',
      ],
    ],
    [
      'escalated by the PR’s history, the architect approves → unlabel, Mark [x]',
      snap({ files, escalatedBefore: true }),
      config({ architects: ['arch'] }),
      [a('arch', { architect: true })],
      'completing @FinalVerify',
      ['unlabel', 'complete by @arch'],
    ],
    [
      'a plan document changed → plan change needed',
      snap({
        files: [
          ...TEST_FILE,
          { path: 'docs/plans/Example/Task Plans/Phase 1.md', additions: 1, deletions: 0 },
        ],
      }),
      config({ architects: ['arch'] }),
      [a('dev', { architect: false })],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): plan change needed, and @dev is not an architect.',
      ],
    ],
  ])('%s', (_name, s, c, found, expectedState, expectedEffects) => {
    const decision = approvals(s, c, found);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});

describe('Code Review reached, then the approvals of the head (withApprovals)', () => {
  const locked = config({ architects: ['arch'], locked: ['src/core/**'] });
  const ann: Approval = { login: 'ann', permission: 'write', pushed: false };
  const green = { checks: [ci('success')], files: TEST_FILE };
  const reached = {
    outcome: { state: 'code-review', node: 'CodeReview', mode: 'plan' },
    effects: [{ kind: 'reply', to: 9, body: 'reached' }],
  } as Decided;
  it.each<[string, PullSnapshot, Config, string, string[]]>([
    [
      'approvals not read yet → read them',
      snap({ ...green, approvals: undefined }),
      DEFAULT_CONFIG,
      'need approvals',
      ['need approvals'],
    ],
    [
      'none approves → Code Review stands',
      snap(green),
      DEFAULT_CONFIG,
      'code-review @CodeReview',
      ['reply to #9: reached'],
    ],
    [
      'an approval → Code Review’s effects, then the completion',
      snap({ ...green, approvals: [ann] }),
      DEFAULT_CONFIG,
      'completing @FinalVerify',
      ['reply to #9: reached', 'complete by @ann'],
    ],
    [
      'locked paths, architects unknown → ask',
      snap({
        ...green,
        files: [...TEST_FILE, { path: 'src/core/x.ts', additions: 1, deletions: 0 }],
        approvals: [ann],
      }),
      locked,
      'need architects',
      ['need architects'],
    ],
  ])('%s', (_name, s, c, expectedState, expectedEffects) => {
    const decision = withApprovals(s, c, reached);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });
});

describe('the completion’s own writes: a locked path it would write is an architect’s', () => {
  const locked = config({ architects: ['arch'], locked: ['locked/**'] });
  const STORY = 'locked/stories/1-2-login.md';
  const bmad = {
    marker: {
      mode: 'plan',
      plan: 'bmad',
      planFile: 'sprint-status.yaml',
      phaseId: '1.2',
      issue: 1,
    },
    files: TEST_FILE,
  } as const;
  const writes = ['sprint-status.yaml', STORY, 'coder-loop/Checkpoint.md'];
  const a = (login: string, architect?: boolean): Approval => ({
    login,
    permission: 'write',
    pushed: false,
    ...(architect === undefined ? {} : { architect }),
  });
  it.each<[string, PullSnapshot, Config, Approval[], string, string[]]>([
    [
      'with `locked`, what the completion writes is read first',
      snap(bmad),
      locked,
      [a('rev')],
      'need writes',
      ['need writes'],
    ],
    [
      'without `locked`, nothing more is read',
      snap(bmad),
      DEFAULT_CONFIG,
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'it writes no locked path → a writer’s approval completes',
      snap({ ...bmad, completionWrites: ['sprint-status.yaml'] }),
      locked,
      [a('rev')],
      'completing @FinalVerify',
      ['complete by @rev'],
    ],
    [
      'it writes a locked path, a writer approves → Escalate, the reason and the path named',
      snap({ ...bmad, completionWrites: writes }),
      locked,
      [a('rev', false)],
      'escalated @Escalate',
      [
        'label',
        'request reviews [arch]',
        'check Escalate failure',
        'reply: **Escalated to architect** (pull request #2): the completion writes locked paths, and @rev is not an architect.',
      ],
    ],
    [
      'it writes a locked path, an architect approves → Mark [x]',
      snap({ ...bmad, completionWrites: writes }),
      locked,
      [a('arch', true)],
      'completing @FinalVerify',
      ['complete by @arch'],
    ],
    [
      'a shared identity → not counted, said why',
      snap({ ...bmad, completionWrites: writes, shared: true }),
      locked,
      [a('rev')],
      'approval-not-counted @CodeReview',
      [
        "reply: Pull request #2 needs an architect (the completion writes locked paths), and this loop runs on the default `GITHUB_TOKEN`, whose identity every writer's workflow shares: the loop cannot vouch for its record, so it does not complete the phase. An architect reviews and merges it by hand; an App token lifts this (docs/security.md).",
      ],
    ],
  ])('%s', (_name, s, c, found, expectedState, expectedEffects) => {
    const decision = approvals(s, c, found);
    expect(state(decision)).toBe(expectedState);
    expect(effects(decision)).toEqual(expectedEffects);
  });

  it('the escalation names each locked path the completion writes', () => {
    const decision = approvals(snap({ ...bmad, completionWrites: writes }), locked, [
      a('rev', false),
    ]);
    if ('need' in decision) throw new Error(decision.need);
    const said = decision.effects.find((e) => e.kind === 'reply');
    expect(said && 'body' in said ? said.body : '').toContain(
      `completion writes locked: \`${STORY}\``,
    );
  });
});
