import {
  ConfigSchema,
  decideStart,
  readMarker,
  validateContext,
  type Config,
  type StartRequest,
  type StartSnapshot,
  type StartStep,
} from '../../../src/core/index.js';
import { CHECKLIST, examplePlanFiles, MASTER_LOG } from '../../helpers/plans.js';

/**
 * Start (seed 002), both modes, as one decision: a snapshot in, the next read, write or the
 * effects out. Each row is one snapshot and exactly what the decision asks or does next.
 */

const BRANCH = 'coder/example/phase-1';
const QUICK = 'coder/quick/issue-7';
const START = 'a'.repeat(40);
const EARLIER = 'b'.repeat(40);
const NOW = '2026-11-22T12:00:00.000Z';
const config = (extra: Record<string, unknown> = {}): Config => ConfigSchema.parse(extra);
const who = { issue: 7, issueUrl: 'https://github.com/o/r/issues/7', actor: 'alice', comment: 42 };
const common = {
  who,
  via: 'command' as const,
  repo: { owner: 'o', repo: 'r' },
  repoUrl: 'https://github.com/o/r',
  defaultBranch: 'main',
  now: NOW,
};
const plan = (cfg = config(), named?: string): StartRequest => ({
  ...common,
  config: cfg,
  mode: 'plan',
  plan: named,
});
const quick = (cfg = config(), via: 'command' | 'label' = 'command'): StartRequest => ({
  ...common,
  via,
  ...(via === 'label' ? { who: { ...who, comment: undefined } } : {}),
  config: cfg,
  mode: 'quick',
  issue: { number: 7, title: 'Fix the typo', body: 'In the README.' },
});

/** The default branch holding `files`: each blob's sha is `sha:<path>`. */
function base(files: Record<string, string>): StartSnapshot['base'] {
  return {
    sha: 'head',
    tree: 'tree',
    files: new Map(Object.keys(files).map((path) => [path, `sha:${path}`])),
  };
}

/** The example plan as read and validated (`need: 'plan'` answered). */
function examplePlan(files = examplePlanFiles()): NonNullable<StartSnapshot['plan']> {
  const dir = 'docs/plans/Example';
  const contents = new Map(
    Object.entries(files)
      .filter(([path]) => path.startsWith(`${dir}/`))
      .map(([path, text]) => [path.slice(dir.length + 1), text]),
  );
  const planFiles = { name: 'Example', dir, paths: [...contents.keys()].sort(), files: contents };
  return { files: planFiles, context: validateContext(planFiles) };
}

const read: StartSnapshot = { base: base(examplePlanFiles()), plan: examplePlan() };
const taken: StartSnapshot = { ...read, commit: START, lock: { acquired: true } };
const held = (holder: StartSnapshot['holder']): StartSnapshot => ({
  ...read,
  commit: START,
  lock: { acquired: false, sha: EARLIER },
  ...(holder ? { holder } : {}),
});
const pull = (created: boolean) => ({ number: 9, body: '', created });

/** A step, shortened to what a row compares: the kind and its main fields. */
function summary(step: StartStep): unknown {
  if ('need' in step) return { ...step };
  if ('write' in step)
    return step.write === 'commit'
      ? { write: 'commit', parent: step.parent, paths: step.changes.map((c) => c.path) }
      : step.write === 'openPull'
        ? { write: 'openPull', head: step.head, base: step.base, title: step.title }
        : { ...step };
  return {
    state: step.done.state,
    node: step.done.node,
    ...(step.done.pullRequest !== undefined ? { pullRequest: step.done.pullRequest } : {}),
    effects: step.effects.map((e) =>
      e.kind === 'reply'
        ? `reply #${e.to}: ${e.body.slice(0, 24)}`
        : e.kind === 'check'
          ? `check ${e.view.node} on ${e.sha}`
          : e.kind === 'progress'
            ? `progress phase ${e.progress.current?.phase}`
            : `dispatch ${e.payload.node}`,
    ),
  };
}

describe('decideStart: plan mode (/coder next)', () => {
  it.each<[string, StartRequest, StartSnapshot, unknown]>([
    ['nothing read → the default branch', plan(), {}, { need: 'base' }],
    [
      'no plan in the tree → the reply saying how to make one, nothing written',
      plan(),
      { base: base({ 'README.md': '' }) },
      { state: 'no-plan', node: undefined, effects: ['reply #7: There is no plan under `'] },
    ],
    [
      'a named plan that does not exist → the reply listing the plans',
      plan(config(), 'Nope'),
      { base: base(examplePlanFiles()) },
      { state: 'no-plan', node: undefined, effects: ['reply #7: There is no plan `Nope`.'] },
    ],
    [
      'the only plan → its files',
      plan(),
      { base: base(examplePlanFiles()) },
      { need: 'plan', plan: 'Example', plansDir: 'docs/plans' },
    ],
    [
      'Context valid? no → Plan Required, nothing written',
      plan(),
      {
        base: base(examplePlanFiles()),
        plan: examplePlan({ ...examplePlanFiles(), [CHECKLIST]: '# Checklist\n\nno phases\n' }),
      },
      {
        state: 'plan-required',
        node: 'ValidateContext',
        effects: ['reply #7: **Plan required.** Plan '],
      },
    ],
    [
      'Mark [~]: one commit on the default head, the checklist and the log',
      plan(),
      read,
      { write: 'commit', parent: { sha: 'head', tree: 'tree' }, paths: [CHECKLIST, MASTER_LOG] },
    ],
    [
      'Locked? the lock ref, on the start commit',
      plan(),
      { ...read, commit: START },
      { write: 'createLockRef', branch: BRANCH, sha: START },
    ],
    [
      'the lock taken → the automatic PR',
      plan(),
      taken,
      {
        write: 'openPull',
        head: BRANCH,
        base: 'main',
        title: '[coder] Example: Phase 1 — Endpoint',
      },
    ],
    [
      'the PR opened → the reply, then the TDD check run on the start commit',
      plan(),
      { ...taken, pull: pull(true) },
      {
        state: 'started',
        node: 'TDD',
        pullRequest: 9,
        effects: ['reply #7: **Coder started** on Pha', `check TDD on ${START}`],
      },
    ],
    [
      'with an agent → and the hand-off (TDD)',
      plan(config({ agent: { command: './agent.sh' } })),
      { ...taken, pull: pull(true) },
      {
        state: 'started',
        node: 'TDD',
        pullRequest: 9,
        effects: ['reply #7: **Coder started** on Pha', `check TDD on ${START}`, 'dispatch tdd'],
      },
    ],
    [
      'the lock taken, the PR found open (a twin delivery finishing this start opened it) → silent',
      plan(),
      { ...taken, pull: pull(false) },
      { state: 'already-started', node: 'TDD', pullRequest: 9, effects: [] },
    ],
    [
      'the lock held → who holds it',
      plan(),
      held(undefined),
      { need: 'holder', branch: BRANCH, sha: EARLIER },
    ],
    [
      'held by another command → Locked: the reply naming the branch and its PR',
      plan(),
      held({ pr: { number: 3, body: '' }, comment: 41 }),
      {
        state: 'locked',
        node: 'LockCheck',
        pullRequest: 3,
        effects: ['reply #7: **Locked.** Phase 1 — En'],
      },
    ],
    [
      'held by this command, PR open (a redelivery) → nothing to do or say',
      plan(),
      held({ pr: { number: 3, body: '' }, comment: 42 }),
      { state: 'already-started', node: 'TDD', pullRequest: 3, effects: [] },
    ],
    [
      'held by this command, no PR (its delivery stopped) → finish: the PR',
      plan(),
      held({ comment: 42 }),
      {
        write: 'openPull',
        head: BRANCH,
        base: 'main',
        title: '[coder] Example: Phase 1 — Endpoint',
      },
    ],
    [
      'finishing, the PR found open → the racing delivery replies, this one is silent',
      plan(),
      { ...held({ comment: 42 }), pull: pull(false) },
      { state: 'already-started', node: 'TDD', pullRequest: 9, effects: [] },
    ],
    [
      'finishing, the PR opened → the reply and the check run on the lock commit',
      plan(),
      { ...held({ comment: 42 }), pull: pull(true) },
      {
        state: 'started',
        node: 'TDD',
        pullRequest: 9,
        effects: ['reply #7: **Coder started** on Pha', `check TDD on ${EARLIER}`],
      },
    ],
  ])('%s', (_name, req, snap, expected) => {
    expect(summary(decideStart(req, snap))).toEqual(expected);
  });

  it('the start commit and the PR carry the marker of this command', () => {
    const commit = decideStart(plan(), read);
    const opened = decideStart(plan(), taken);
    if (!('write' in commit) || commit.write !== 'commit') throw new Error('no commit');
    if (!('write' in opened) || opened.write !== 'openPull') throw new Error('no PR');
    const marker = { mode: 'plan', plan: 'Example', phase: 1, issue: 7, comment: 42 };
    expect(readMarker(commit.message)).toEqual(marker);
    expect(readMarker(opened.body)).toEqual(marker);
    expect(commit.changes.find((c) => c.path === CHECKLIST)!.content).toContain('- [~] 1.1');
    expect(commit.changes.find((c) => c.path === MASTER_LOG)!.content).toContain(
      '**Coder started**',
    );
  });

  it('the task plan, which only the PR quotes, is read beside the start commit, not before it', () => {
    const files = examplePlanFiles();
    const taskPlan = 'docs/plans/Example/Task Plans/Phase 1 - Endpoint.md';
    const example = examplePlan();
    // The plan folder as the start reads it: context, checklist and master log, no task plan.
    const folder = new Map(example.files.files);
    folder.delete('Task Plans/Phase 1 - Endpoint.md');
    const unread: StartSnapshot = {
      base: base(files),
      plan: { ...example, files: { ...example.files, files: folder } },
    };
    const commit = decideStart(plan(), unread);
    expect(commit).toMatchObject({ write: 'commit', alongside: [taskPlan] });
    // Read with the commit: the PR quotes it.
    const texts = new Map([[taskPlan, files[taskPlan]!]]);
    const opened = decideStart(plan(), {
      ...unread,
      texts,
      commit: START,
      lock: { acquired: true },
    });
    if (!('write' in opened) || opened.write !== 'openPull') throw new Error('no PR');
    expect(opened.body).toContain(`> ${files[taskPlan]!.split('\n')[0]}`);
    expect(opened.body).toBe((decideStart(plan(), taken) as { body: string }).body);
    // A shell that did not read it beside the commit is asked for it before the PR.
    expect(decideStart(plan(), { ...unread, commit: START, lock: { acquired: true } })).toEqual({
      need: 'texts',
      paths: [taskPlan],
    });
    // Read already (the whole folder): nothing asked beside the commit.
    expect(decideStart(plan(), read)).not.toHaveProperty('alongside');
  });

  it("a run's next phase: the close's note said last in the start's reply, or alone", () => {
    const note = 'Pull request #8 merged; branch `coder/example/phase-0` deleted.';
    const started = decideStart({ ...plan(), note }, { ...taken, pull: pull(true) });
    if (!('done' in started)) throw new Error('not done');
    const replies = started.effects.filter((e) => e.kind === 'reply');
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toMatch(/^\*\*Coder started\*\*[^]*\n\nPull request #8 merged; /);
    // A redelivery finds its start done: nothing to say but the note.
    const again = decideStart({ ...plan(), note }, { ...taken, pull: pull(false) });
    expect(again).toMatchObject({ effects: [{ kind: 'reply', to: 7, body: note }] });
  });

  it('never changes the snapshot it is given', () => {
    const snap = Object.freeze({ ...held({ comment: 42 }), pull: Object.freeze(pull(true)) });
    const before = JSON.stringify(snap);
    decideStart(plan(), snap);
    expect(JSON.stringify(snap)).toBe(before);
  });
});

describe('decideStart: quick mode (/coder quick, the quick label)', () => {
  const logging = config({ quick: { log: true } });
  it.each<[string, StartRequest, StartSnapshot, unknown]>([
    ['nothing read → the default branch', quick(), {}, { need: 'base' }],
    [
      'no logging → an empty commit on the default head',
      quick(),
      { base: base(examplePlanFiles()) },
      { write: 'commit', parent: { sha: 'head', tree: 'tree' }, paths: [] },
    ],
    [
      'quick.log and one plan → its master log',
      quick(logging),
      { base: base(examplePlanFiles()) },
      { need: 'masterLog', sha: `sha:${MASTER_LOG}` },
    ],
    [
      'quick.log, the log read → one log entry in the commit',
      quick(logging),
      { base: base(examplePlanFiles()), masterLog: { text: '# Master Log\n' } },
      { write: 'commit', parent: { sha: 'head', tree: 'tree' }, paths: [MASTER_LOG] },
    ],
    [
      'quick.log and no plan → no entry, nothing read',
      quick(logging),
      { base: base({ 'README.md': '' }) },
      { write: 'commit', parent: { sha: 'head', tree: 'tree' }, paths: [] },
    ],
    [
      'the commit → the quick lock',
      quick(),
      { base: base({}), commit: START },
      { write: 'createLockRef', branch: QUICK, sha: START },
    ],
    [
      'the lock taken → the PR that fixes the issue',
      quick(),
      { base: base({}), commit: START, lock: { acquired: true } },
      { write: 'openPull', head: QUICK, base: 'main', title: '[coder] Quick: Fix the typo' },
    ],
    [
      'the PR opened → the reply with the assessment, the QuickMode check run',
      quick(),
      { base: base({}), commit: START, lock: { acquired: true }, pull: pull(true) },
      {
        state: 'started',
        node: 'QuickMode',
        pullRequest: 9,
        effects: ['reply #7: **Quick mode**: branch `', `check QuickMode on ${START}`],
      },
    ],
    [
      'the label again on a running quick fix → nothing to do or say',
      quick(config(), 'label'),
      {
        base: base({}),
        commit: START,
        lock: { acquired: false, sha: EARLIER },
        holder: { pr: { number: 3, body: '' } },
      },
      { state: 'already-started', node: 'QuickMode', pullRequest: 3, effects: [] },
    ],
    [
      'held by another command → the quick Locked reply',
      quick(),
      {
        base: base({}),
        commit: START,
        lock: { acquired: false, sha: EARLIER },
        holder: { pr: { number: 3, body: '' }, comment: 41 },
      },
      {
        state: 'locked',
        node: 'LockCheck',
        pullRequest: 3,
        effects: ['reply #7: Quick mode is already ru'],
      },
    ],
  ])('%s', (_name, req, snap, expected) => {
    expect(summary(decideStart(req, snap))).toEqual(expected);
  });

  it('the quick PR says Fixes #N and carries the marker; its title is the escaped issue title', () => {
    const opened = decideStart(quick(), { base: base({}), commit: 's', lock: { acquired: true } });
    if (!('write' in opened) || opened.write !== 'openPull') throw new Error('no PR');
    expect(opened.body).toContain('Fixes #7');
    expect(readMarker(opened.body)).toEqual({ mode: 'quick', issue: 7, comment: 42 });
  });
});
