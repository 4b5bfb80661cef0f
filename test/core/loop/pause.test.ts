import {
  decodeRecord,
  encodeRecord,
  pauseAt,
  resumePause,
  retry,
  scheduleWake,
  stopRun,
  verification,
  type Decided,
  type LoopMarker,
  type OwnState,
} from '../../../src/core/index.js';
import { ci, config, effects, HEAD, snap, TEST_FILE } from './pullFixtures.js';

const agent = config({ agent: { command: './agent.sh', maxPauses: 2 } });
const NOW = new Date('2026-03-10T12:20:00Z');
const LIMIT = {
  node: 'debug-fix' as const,
  attempt: 1,
  reason: "Claude Code reached its usage limit: You've hit your session limit · resets 3pm (UTC)",
  until: '2026-03-10T15:00:00.000Z',
};
const markerOf = (d: Decided): LoopMarker =>
  d.effects.flatMap((e) => (e.kind === 'marker' ? [e.marker] : [])).at(-1)!;

describe('Paused, not failed', () => {
  test('a run at the limit: the record says paused until T and why, the issue is told once, no attempt', () => {
    const d = pauseAt(snap(), agent, LIMIT, NOW, 'job');
    expect(d.outcome.state).toBe('paused');
    expect(effects(d)).toEqual([
      'wake',
      'marker attempts=0 rounds=0',
      'check Debug failure',
      expect.stringMatching(/^reply: ⏸️ Paused until \*\*2026-03-10 15:00 UTC\*\* on #2/),
    ]);
    const marker = markerOf(d);
    expect(marker.pause).toMatchObject({ until: LIMIT.until, node: 'debug-fix', attempt: 1 });
    expect(marker.attempts ?? []).toEqual([]);
    // The record keeps it on the head, and reads it back.
    expect(decodeRecord(encodeRecord(marker, HEAD), HEAD)?.pause).toEqual(marker.pause);
    // Said once: the same run's pause again (a redelivered apply) writes nothing.
    expect(pauseAt(snap({ marker }), agent, LIMIT, NOW, 'job').effects).toEqual([]);
  });

  test('a pause recorded where no queue is (the Action) gets the wake-up of a host that has one, once', () => {
    const marker = markerOf(pauseAt(snap(), agent, LIMIT, NOW, undefined));
    expect(marker.pause?.wake).toBeUndefined();
    // The host without a queue: nothing to schedule, CI on the head waits.
    expect((verification(snap({ marker }), agent) as Decided).effects).toEqual([]);
    const d = verification(snap({ marker, checks: [ci('failure')] }), agent, {
      waker: 'job',
    }) as Decided;
    expect(d.outcome.state).toBe('paused');
    expect(effects(d)).toEqual([
      'wake',
      'marker attempts=0 rounds=0',
      'check Debug failure',
      expect.stringMatching(
        /^reply: ⏰ #2 is paused until \*\*2026-03-10 15:00 UTC\*\*.*again at 2026-03-10 15:00 UTC by itself/,
      ),
    ]);
    expect(d.effects[0]).toEqual({ kind: 'wake', at: LIMIT.until });
    const scheduled = markerOf(d);
    expect(scheduled.pause).toEqual({ ...marker.pause, wake: 'job' });
    expect(decodeRecord(encodeRecord(scheduled, HEAD), HEAD)?.pause?.wake).toBe('job');
    // Scheduled: the next event (a redelivery, another replica) schedules nothing more.
    expect(verification(snap({ marker: scheduled }), agent, { waker: 'job' })).toMatchObject({
      effects: [],
    });
    expect(scheduleWake(snap({ marker: scheduled }), 'job')).toBeUndefined();
    // A pause the App recorded itself is scheduled already.
    expect(markerOf(pauseAt(snap(), agent, LIMIT, NOW, 'job')).pause?.wake).toBe('job');
    // Escalated, or no pause: nothing.
    expect(
      scheduleWake(snap({ marker: { ...marker, escalation: { reason: 'x', sha: HEAD } } }), 'job'),
    ).toBeUndefined();
    expect(scheduleWake(snap(), 'job')).toBeUndefined();
  });

  test('no reset time given: agent.pauseMinutes from now', () => {
    const d = pauseAt(snap(), agent, { ...LIMIT, until: undefined } as never, NOW, 'job');
    expect(markerOf(d).pause?.until).toBe('2026-03-10T13:20:00.000Z');
  });

  test('while paused, CI on the partial commit neither spends an attempt nor hands off', () => {
    const marker = markerOf(pauseAt(snap(), agent, LIMIT, NOW, 'job'));
    const d = verification(snap({ marker, checks: [ci('failure')] }), agent) as Decided;
    expect(d.outcome.state).toBe('paused');
    expect(d.effects).toEqual([]);
  });

  test('while paused, CI on the head is still judged: a paused Debug & Fix whose new head passes goes on, the pause ended', () => {
    const marker = markerOf(pauseAt(snap(), agent, LIMIT, NOW, 'job'));
    const d = verification(
      snap({ marker, checks: [ci('success')], files: TEST_FILE }),
      agent,
    ) as Decided;
    expect(d.outcome.state).toBe('code-review');
    expect(markerOf(d).pause).toBeUndefined();
    expect(d.effects.some((e) => e.kind === 'dispatch' && e.payload.node === 'debug-fix')).toBe(
      false,
    );
    // Its end resumes nothing.
    expect(
      resumePause(snap({ marker: markerOf(d) }), agent, new Date('2026-03-10T15:01:00Z')).outcome
        .state,
    ).toBe('ignored');
    // A paused TDD waits for its resume whatever CI says.
    const tdd = markerOf(pauseAt(snap(), agent, { ...LIMIT, node: 'tdd' }, NOW, 'job'));
    expect(
      (verification(snap({ marker: tdd, checks: [ci('success')] }), agent) as Decided).outcome
        .state,
    ).toBe('paused');
  });

  test('`/coder retry` while paused evaluates the head now and ends the pause: never complete and paused at once', () => {
    // A paused TDD; a person pushed the work meanwhile, CI passed and a writer approved the head.
    const tdd = markerOf(pauseAt(snap(), agent, { ...LIMIT, node: 'tdd' }, NOW, 'job'));
    const approved = {
      marker: tdd,
      checks: [ci('success')],
      files: TEST_FILE,
      approvals: [{ login: 'ann', permission: 'write' as const, pushed: false }],
    };
    // Without a retry it waits for its resume, whatever CI and review say.
    expect((verification(snap(approved), agent) as Decided).outcome.state).toBe('paused');
    const d = retry(snap(approved), agent, 9) as Decided;
    expect(d.outcome.state).toBe('completing');
    expect(effects(d)).toContain('complete by @ann');
    expect(markerOf(d).pause).toBeUndefined();
    // On a red head the retry hands the node on (Debug & Fix), the pause ended there too.
    const red = retry(snap({ marker: tdd, checks: [ci('failure')] }), agent, 9) as Decided;
    expect(red.outcome.state).not.toBe('paused');
    expect(markerOf(red).pause).toBeUndefined();
  });

  test("the reason is the agent's words: quoted as untrusted text in the reply, the check run and the escalation", () => {
    const raw = {
      ...LIMIT,
      reason:
        'Codex reached its usage limit: @acme/admins ![x](https://evil.example/x.png) [go](https://evil.example)',
    };
    const d = pauseAt(snap(), agent, raw, NOW, 'job');
    const shown = JSON.stringify(d.effects.filter((e) => e.kind !== 'marker'));
    expect(shown).toContain('@\u200bacme/admins');
    for (const bad of ['@acme', '](https://evil', 'https://evil']) expect(shown).not.toContain(bad);
  });

  test('resumes the same node at T, by itself; not before', () => {
    const marker = markerOf(pauseAt(snap(), agent, LIMIT, NOW, 'job'));
    expect(resumePause(snap({ marker }), agent, NOW).outcome.state).toBe('not-due');
    const d = resumePause(snap({ marker }), agent, new Date(LIMIT.until));
    expect(effects(d)).toEqual([
      'marker attempts=0 rounds=0',
      'check Debug failure',
      'dispatch debug-fix #1',
    ]);
    expect(markerOf(d).pause).toBeUndefined();
    // A second wake-up (another replica, the sweep) finds no pause: nothing.
    expect(
      resumePause(snap({ marker: markerOf(d) }), agent, new Date(LIMIT.until)).effects,
    ).toEqual([]);
  });

  test('`/coder resume` resumes early; `/coder stop` ends it', () => {
    const marker = markerOf(pauseAt(snap(), agent, LIMIT, NOW, 'job'));
    const early = resumePause(snap({ marker }), agent, NOW, { early: true, thread: 1 });
    expect(effects(early)).toContain('dispatch debug-fix #1');
    const stopped = stopRun(snap({ marker }), 1);
    expect(markerOf(stopped).pause).toBeUndefined();
    expect(stopped.outcome.state).toBe('run-stopped');
  });

  test('Debug & Fix is reported on the head through the pause: a red check after the resume or a stop hands nothing on again', () => {
    // The loop's check run as each decision leaves it (the applier writes the last check effect).
    const ownAfter = (d: Decided, before: OwnState | undefined): OwnState | undefined => {
      const check = d.effects.filter((e) => e.kind === 'check').at(-1);
      return check?.kind === 'check'
        ? { node: check.view.node, conclusion: check.conclusion ?? null }
        : before;
    };
    const red = verification(snap({ checks: [ci('failure')] }), agent) as Decided;
    expect(effects(red)).toContain('dispatch debug-fix #1');
    let marker = markerOf(red);
    let own = ownAfter(red, undefined);
    const paused = pauseAt(snap({ marker, own }), agent, LIMIT, NOW, 'job');
    marker = markerOf(paused);
    own = ownAfter(paused, own);
    // A writer's red check under another name on the same head: one red verdict of the head, so
    // Debug & Fix, reported on it, runs once — however the pause ended.
    const redAgain = [ci('failure'), ci('failure', 'coder-loop')];
    const resumed = resumePause(snap({ marker, own }), agent, new Date(LIMIT.until));
    expect(effects(resumed)).toContain('dispatch debug-fix #1');
    const afterResume = verification(
      snap({ marker: markerOf(resumed), own: ownAfter(resumed, own), checks: redAgain }),
      agent,
    ) as Decided;
    expect(afterResume.effects).toEqual([]);
    expect(afterResume.outcome).toMatchObject({ state: 'failed', reason: 'already reported' });
    const stopped = stopRun(snap({ marker, own }), 1);
    const afterStop = verification(
      snap({ marker: markerOf(stopped), own: ownAfter(stopped, own), checks: redAgain }),
      agent,
    ) as Decided;
    expect(afterStop.effects).toEqual([]);
    // `/coder retry` still asks for Debug & Fix itself.
    expect(
      effects(retry(snap({ marker: markerOf(stopped), checks: redAgain }), agent, 1) as Decided),
    ).toContain('dispatch debug-fix #1');
  });

  test('pauses that recur are bounded (agent.maxPauses), then escalate with the reason', () => {
    let marker: LoopMarker = snap().marker;
    for (const attempt of [1, 2]) {
      marker = markerOf(pauseAt(snap({ marker }), agent, { ...LIMIT, attempt }, NOW, 'job'));
      marker = markerOf(resumePause(snap({ marker }), agent, NOW, { early: true }));
    }
    const d = pauseAt(snap({ marker }), agent, { ...LIMIT, attempt: 3 }, NOW, 'job');
    expect(d.outcome.state).toBe('escalated');
    expect(d.outcome.reason).toMatch(/3 times \(the limit is 2 pauses\).*session limit/);
    expect(effects(d)).toContain('label');
  });
});
