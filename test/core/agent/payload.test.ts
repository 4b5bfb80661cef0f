import fc from 'fast-check';
import {
  AGENT_EVENT_TYPE,
  buildAgentPayload,
  encodeAgentPayload,
  parseAgentPayload,
  withHandOffId,
  type AgentHandOff,
} from '../../../src/core/index.js';

const HEAD = 'a'.repeat(40);
const handOff: AgentHandOff = {
  node: 'tdd',
  repo: { owner: 'Codertocat', repo: 'Hello-World' },
  branch: 'coder/example/phase-1',
  headSha: HEAD,
  pullRequest: 2,
  issue: 1,
  plan: { name: 'Example', phase: 1 },
  attempt: 1,
  agent: {
    command: 'node agent.mjs',
    timeoutMinutes: 30,
    keepPartialWork: false,
    maxReviewRounds: 3,
    maxPauses: 3,
    pauseMinutes: 60,
    env: ['KEY'],
  },
};

describe('the hand-off id in the payload', () => {
  it('travels in `agent` (the ten top-level keys are taken); a payload without one still parses', () => {
    const old = buildAgentPayload(handOff);
    const payload = buildAgentPayload({ ...handOff, id: '2026-11-22T12:00:00.000Z#3' });
    expect(payload.agent).toEqual({
      command: 'node agent.mjs',
      timeoutMinutes: 30,
      env: ['KEY'],
      handOffId: '2026-11-22T12:00:00.000Z#3',
    });
    expect(Object.keys(payload)).toHaveLength(10);
    expect(withHandOffId(old, '2026-11-22T12:00:00.000Z#3')).toEqual(payload);
    expect(parseAgentPayload(JSON.parse(JSON.stringify(payload))).payload).toEqual(payload);
    expect(parseAgentPayload(JSON.parse(JSON.stringify(old))).payload).toEqual(old);
  });

  it('refuses an id out of shape', () => {
    const payload = JSON.parse(JSON.stringify(buildAgentPayload(handOff)));
    payload.agent.handOffId = 'x y <b>';
    expect(parseAgentPayload(payload).problems).toEqual([
      '`agent.handOffId`: must be a hand-off id the loop made',
    ]);
  });
});

describe('the hand-off payload', () => {
  it('builds the client_payload of SPEC §9: ten top-level keys, no maxReviewRounds', () => {
    const payload = buildAgentPayload(handOff);
    expect(AGENT_EVENT_TYPE).toBe('coder-loop-agent');
    expect(payload).toEqual({
      node: 'tdd',
      repository: 'Codertocat/Hello-World',
      branch: 'coder/example/phase-1',
      headSha: HEAD,
      pullRequest: 2,
      issue: 1,
      plan: 'Example',
      phase: 1,
      attempt: 1,
      agent: { command: 'node agent.mjs', timeoutMinutes: 30, env: ['KEY'] },
    });
    // GitHub refuses a client_payload with more than 10 top-level properties.
    expect(Object.keys(payload)).toHaveLength(10);
    expect(parseAgentPayload(JSON.parse(JSON.stringify(payload)))).toEqual({
      payload,
      problems: [],
    });
  });

  it('quick mode has no plan and no phase', () => {
    const payload = buildAgentPayload({
      ...handOff,
      branch: 'coder/quick/issue-7',
      plan: undefined,
      issue: 7,
    });
    expect(payload).toMatchObject({ plan: null, phase: null, issue: 7 });
  });

  it('throws on a hand-off out of shape (a bug upstream)', () => {
    expect(() => buildAgentPayload({ ...handOff, headSha: 'abc' })).toThrow();
  });

  it('refuses an inbound payload out of shape, naming each field', () => {
    const { problems } = parseAgentPayload({
      ...buildAgentPayload(handOff),
      node: 'deploy',
      branch: 'main',
      headSha: 'HEAD',
      plan: '../etc',
      extra: 1,
    });
    expect(problems).toEqual([
      expect.stringMatching(/^`node`: Invalid option/),
      '`branch`: must be a coder/ branch',
      '`headSha`: must be a full commit sha (40 hex digits)',
      '`plan`: the plan name contains a path separator (`/` or `\\`)',
      'The payload has unknown key(s) `extra`',
    ]);
  });

  it.each([
    'coder/../main',
    'coder/x..y',
    'coder/a b',
    'coder/x.lock',
    'coder/x/',
    'coder//x',
    'coder/.hidden',
    'coder/x@{1}',
  ])('refuses the branch %j', (branch) => {
    expect(parseAgentPayload({ ...buildAgentPayload(handOff), branch }).problems).toHaveLength(1);
  });

  it('refuses a payload that is not an object, and an agent variable the loop withholds', () => {
    expect(parseAgentPayload(null).problems).toHaveLength(1);
    const payload = buildAgentPayload(handOff);
    expect(
      parseAgentPayload({ ...payload, agent: { ...payload.agent, env: ['GITHUB_TOKEN'] } })
        .problems,
    ).toEqual([
      '`agent.env.0`: must not be a CODER_, GITHUB_, ACTIONS_, RUNNER_ or INPUT_ variable (the loop sets or withholds those)',
    ]);
  });
});

describe('a plan of another kind: its tasks file and phase id travel inside `plan`', () => {
  const other: AgentHandOff = {
    ...handOff,
    branch: 'coder/001-photo-albums/phase-2',
    plan: {
      name: '001-photo-albums',
      phase: 2,
      planFile: 'specs/001-photo-albums/tasks.md',
      phaseId: '2',
    },
    id: '2026-11-22T12:00:00.000Z#1',
  };

  it('sent within GitHub’s ten top-level properties, read back as built', () => {
    const payload = buildAgentPayload(other);
    const sent = encodeAgentPayload(payload);
    expect(Object.keys(sent)).toHaveLength(10);
    expect(sent.plan).toEqual({
      name: '001-photo-albums',
      file: 'specs/001-photo-albums/tasks.md',
      phaseId: '2',
    });
    expect(parseAgentPayload(JSON.parse(JSON.stringify(sent)))).toEqual({ payload, problems: [] });
  });

  it('the loop’s own plans are sent as built: `plan` is the name', () => {
    const payload = buildAgentPayload(handOff);
    expect(encodeAgentPayload(payload)).toEqual(payload);
  });

  it('a `plan` object holding anything else is refused, naming it', () => {
    const sent = encodeAgentPayload(buildAgentPayload(other)) as { plan: Record<string, unknown> };
    sent.plan.extra = 'x';
    expect(parseAgentPayload(sent).problems).toEqual([
      'The payload has unknown key(s) `plan.extra`',
    ]);
  });

  it('any hand-off: at most ten top-level properties sent, and the same payload read back', () => {
    const text = fc
      .string({ minLength: 1, maxLength: 20 })
      .filter((t) => /^[A-Za-z0-9._-]+$/.test(t) && !t.startsWith('.'));
    fc.assert(
      fc.property(
        fc.record({
          node: fc.constantFrom('tdd', 'debug-fix', 'review-fix', 'revise'),
          plan: fc.option(
            fc.record({
              name: text,
              phase: fc.integer({ min: 0, max: 50 }),
              planFile: fc.option(
                text.map((t) => `specs/${t}/tasks.md`),
                { nil: undefined },
              ),
              phaseId: fc.option(text, { nil: undefined }),
            }),
            { nil: undefined },
          ),
          attempt: fc.integer({ min: 1, max: 100 }),
          id: fc.option(fc.constant('2026-11-22T12:00:00.000Z#2'), { nil: undefined }),
        }),
        ({ node, plan, attempt, id }) => {
          const payload = buildAgentPayload({
            ...handOff,
            node,
            attempt,
            ...(plan
              ? {
                  plan: {
                    name: plan.name,
                    phase: plan.phase,
                    ...(plan.planFile !== undefined ? { planFile: plan.planFile } : {}),
                    ...(plan.phaseId !== undefined ? { phaseId: plan.phaseId } : {}),
                  },
                }
              : { plan: undefined }),
            ...(id !== undefined ? { id } : {}),
          } as AgentHandOff);
          const sent = JSON.parse(JSON.stringify(encodeAgentPayload(payload)));
          expect(Object.keys(sent).length).toBeLessThanOrEqual(10);
          expect(parseAgentPayload(sent)).toEqual({ payload, problems: [] });
        },
      ),
    );
  });
});
