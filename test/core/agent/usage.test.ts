import fc from 'fast-check';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import {
  decodeRecord,
  describeRun,
  encodeRecord,
  renderPhaseReport,
  usageFromFile,
  usageFromOutput,
  type LoopMarker,
  type Usage,
} from '../../../src/core/index.js';
import { fixSeed } from '../../helpers/seed.js';

fixSeed(import.meta.url);

// Output shapes as each CLI prints them (field names from the CLIs' own sources).
const CLAUDE_JSON = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 12000,
  num_turns: 4,
  result: 'Done.',
  session_id: 's-1',
  total_cost_usd: 0.0421,
  usage: {
    input_tokens: 120,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 9000,
    output_tokens: 850,
  },
});
const CLAUDE_STREAM = [
  JSON.stringify({ type: 'system', subtype: 'init', session_id: 's-1' }),
  JSON.stringify({
    type: 'assistant',
    message: { usage: { input_tokens: 5, output_tokens: 7 }, content: [] },
  }),
  CLAUDE_JSON,
].join('\n');
const CODEX_JSONL = [
  '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}',
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}',
  '{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}',
  '{"type":"turn.started"}',
  '{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":78}}',
].join('\n');
const GEMINI_JSON = JSON.stringify(
  {
    response: 'Done.',
    stats: {
      models: {
        'gemini-2.5-pro': {
          api: { totalRequests: 2, totalErrors: 0, totalLatencyMs: 5000 },
          tokens: {
            prompt: 4000,
            candidates: 300,
            total: 4500,
            cached: 1000,
            thoughts: 200,
            tool: 0,
          },
        },
        'gemini-2.5-flash': {
          api: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 800 },
          tokens: { prompt: 500, candidates: 50, total: 550, cached: 0, thoughts: 0, tool: 0 },
        },
      },
      tools: { totalCalls: 3 },
      files: { totalLinesAdded: 10, totalLinesRemoved: 0 },
    },
  },
  null,
  2,
);
const GEMINI_STREAM = [
  '{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"x","model":"gemini-2.5-pro"}',
  '{"type":"message","role":"assistant","content":"Done.","delta":true}',
  '{"type":"result","status":"success","stats":{"total_tokens":700,"input_tokens":600,"output_tokens":100,"duration_ms":900,"tool_calls":1}}',
].join('\n');
const OPENCODE_JSONL = [
  '{"type":"step_start","timestamp":1767036059338,"sessionID":"ses_1","part":{"type":"step-start"}}',
  '{"type":"text","timestamp":1767036059400,"sessionID":"ses_1","part":{"type":"text","text":"hi"}}',
  '{"type":"step_finish","timestamp":1767036059500,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls","cost":0.01,"tokens":{"input":100,"output":20,"reasoning":5,"cache":{"read":1000,"write":0}}}}',
  '{"type":"step_finish","timestamp":1767036059900,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","cost":0.02,"tokens":{"input":50,"output":30,"reasoning":0,"cache":{"read":1100,"write":10}}}}',
].join('\n');

describe('usageFromOutput: each CLI as it reports usage', () => {
  it.each([
    [
      'Claude Code --output-format json',
      CLAUDE_JSON,
      { inputTokens: 12120, outputTokens: 850, costUsd: 0.0421 },
    ],
    [
      'Claude Code --output-format stream-json (the result line)',
      CLAUDE_STREAM,
      { inputTokens: 12120, outputTokens: 850, costUsd: 0.0421 },
    ],
    ['Codex exec --json (turns summed)', CODEX_JSONL, { inputTokens: 25763, outputTokens: 200 }],
    [
      'Gemini CLI --output-format json (models summed)',
      GEMINI_JSON,
      { inputTokens: 4500, outputTokens: 550 },
    ],
    [
      'Gemini CLI after other output',
      `Loaded cached credentials.\n${GEMINI_JSON}\n`,
      { inputTokens: 4500, outputTokens: 550 },
    ],
    [
      'Gemini CLI --output-format stream-json',
      GEMINI_STREAM,
      { inputTokens: 600, outputTokens: 100 },
    ],
    [
      'OpenCode run --format json (steps summed)',
      OPENCODE_JSONL,
      { inputTokens: 2260, outputTokens: 55, costUsd: 0.03 },
    ],
  ] as [string, string, Usage][])('%s', (_name, output, expected) => {
    const got = usageFromOutput(output);
    // Costs are summed in floating point: compared to the micro-dollar.
    const rounded = (u?: Usage) =>
      u && { ...u, ...(u.costUsd !== undefined ? { costUsd: Number(u.costUsd.toFixed(6)) } : {}) };
    expect(rounded(got)).toEqual(expected);
  });

  it.each([
    ['plain text', 'All done, 3 files changed.\n'],
    ['nothing', ''],
    ['JSON without usage', '{"type":"item.completed","item":{"type":"agent_message"}}\n'],
    [
      'negative and non-numbers',
      '{"type":"turn.completed","usage":{"input_tokens":-5,"output_tokens":"9"}}',
    ],
    ['a broken line', '{"type":"turn.completed","usage":{"input_tok'],
  ])('reports nothing for %s', (_name, output) => {
    expect(usageFromOutput(output)).toBeUndefined();
  });
});

describe('usageFromFile: $CODER_OUTPUT_DIR/usage.json', () => {
  it.each([
    [
      '{"inputTokens":10,"outputTokens":2,"costUsd":0.5}',
      { inputTokens: 10, outputTokens: 2, costUsd: 0.5 },
    ],
    ['{"costUsd":1.25}', { costUsd: 1.25 }],
    ['{}', undefined],
    ['{"inputTokens":1.5}', undefined],
    ['{"inputTokens":-1}', undefined],
    ['{"inputTokens":1,"extra":true}', undefined],
    ['[1,2]', undefined],
    ['not json', undefined],
  ])('%s', (text, expected) => {
    expect(usageFromFile(text)).toEqual(expected);
  });
});

describe('describeRun', () => {
  it.each([
    [{ minutes: 2.345 }, '2.3 min'],
    [{ minutes: 31.6, usage: { costUsd: 1.5 } }, '32 min, $1.50'],
    [
      { minutes: 1, usage: { inputTokens: 12000, outputTokens: 800, costUsd: 0.004 } },
      '1.0 min, 12,000 input and 800 output tokens, $0.0040',
    ],
    [{ minutes: 0.5, usage: { outputTokens: 3 } }, '0.5 min, 3 output tokens'],
  ])('%j', (run, text) => {
    expect(describeRun(run)).toBe(text);
  });
});

const SHA = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

describe("agentRuns in the loop's record", () => {
  const marker: LoopMarker = {
    mode: 'plan',
    plan: 'Example',
    phase: 1,
    issue: 3,
    agentRuns: [
      { node: 'tdd', sha: SHA, minutes: 30.5, partial: true },
      {
        node: 'debug-fix',
        sha: HEAD,
        minutes: 2,
        usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.1 },
      },
    ],
  };

  it('round-trips through the record on a head', () => {
    expect(decodeRecord(encodeRecord(marker, HEAD), HEAD)).toEqual(marker);
  });

  it('keeps the newest 100 runs', () => {
    const many: LoopMarker = {
      ...marker,
      agentRuns: Array.from({ length: 130 }, (_, i) => ({
        node: 'debug-fix' as const,
        sha: SHA,
        minutes: i,
      })),
    };
    const runs = decodeRecord(encodeRecord(many, HEAD), HEAD)?.agentRuns;
    expect(runs).toHaveLength(100);
    expect(runs?.[0]?.minutes).toBe(30);
  });

  it('a record with a malformed run is no record', () => {
    const bad = encodeRecord(marker, HEAD).replace('"minutes":2', '"minutes":-2');
    expect(decodeRecord(bad, HEAD)).toBeUndefined();
  });
});

describe('phase report: agent runs', () => {
  it('lists each run and the total, only when there were runs', () => {
    const base = {
      plan: 'Example',
      phase: { number: 1, name: 'Setup' },
      tasks: [],
      completedAt: '2026-11-22T12:00:00Z',
    };
    expect(renderPhaseReport(base).join('\n')).not.toContain('Agent runs');
    const lines = renderPhaseReport({
      ...base,
      agentRuns: [
        {
          node: 'tdd',
          sha: SHA,
          minutes: 30,
          partial: true,
          usage: { inputTokens: 1000, costUsd: 0.5 },
        },
        {
          node: 'debug-fix',
          sha: HEAD,
          minutes: 4.25,
          usage: { inputTokens: 500, outputTokens: 40, costUsd: 0.25 },
        },
        { node: 'review-fix', sha: HEAD, minutes: 1 },
      ],
    });
    expect(lines.slice(lines.indexOf('## Agent runs'))).toEqual([
      '## Agent runs',
      '',
      '1. TDD on `aaaaaaa` (partial: timed out): 30 min, 1,000 input tokens, $0.50',
      '2. Debug & Fix on `bbbbbbb`: 4.3 min, 500 input and 40 output tokens, $0.25',
      '3. Review fix on `bbbbbbb`: 1.0 min',
      '',
      'Total: 35 min, 1,500 input tokens, 40 output tokens, $0.75 (tokens and cost as the agent reported them, where it did).',
    ]);
  });

  test('what the phase cost: a run without a reported cost makes it unknown, never $0; pauses, re-runs, flaky checks', () => {
    const base = { plan: 'P', phase: { number: 1, name: 'One' }, tasks: [], completedAt: 'now' };
    const cost = {
      failedAttempts: 1,
      pauses: [
        {
          since: '2026-03-10T12:20:00.000Z',
          until: '2026-03-10T15:00:00.000Z',
          reason: 'Claude Code reached its usage limit',
        },
      ],
      reruns: [{ sha: HEAD, checks: ['build'], infrastructure: true as const }],
      flaky: [{ sha: SHA, name: 'test' }],
    };
    const lines = renderPhaseReport({
      ...base,
      agentRuns: [
        { node: 'tdd', sha: SHA, minutes: 3, usage: { costUsd: 0.5 } },
        { node: 'debug-fix', sha: HEAD, minutes: 2 },
      ],
      cost,
    });
    expect(lines.slice(lines.indexOf('## What the phase cost'))).toEqual([
      '## What the phase cost',
      '',
      '- Agent runs: 2 ($0.50 reported, plus 1 run of unknown cost)',
      '- Failed attempts: 1',
      "- Pauses at the agent's limit: 1",
      '  - 2026-03-10 12:20 UTC until 2026-03-10 15:00 UTC (160 min): Claude Code reached its usage limit',
      '- Re-runs asked by the loop: 1 (1 for infrastructure)',
      '  - `bbbbbbb`: build (infrastructure)',
      '- Flaky checks: 1',
      '  - test on `aaaaaaa`: failed, then passed on a re-run',
    ]);
    const unpriced = renderPhaseReport({
      ...base,
      agentRuns: [{ node: 'tdd', sha: SHA, minutes: 3 }],
      cost: { failedAttempts: 0, pauses: [], reruns: [], flaky: [] },
    });
    expect(unpriced).toContain('- Agent runs: 1 (cost unknown: no run reported one)');
    expect(unpriced.join('\n')).not.toContain('$0');
  });
});

describe("a pause's reason in the phase report", () => {
  test("is the agent's words, quoted as untrusted text: no link, image or mention as GFM renders the report", () => {
    // The CLI's line the pause was read from: the agent's own output, so anything it printed.
    const reason =
      'Claude Code reached its rate limit: API Error: Request rejected (429) · ![x](https://evil.example/x.png) [docs](https://evil.example) @octocat <img src=x> https://evil.example/y';
    const lines = renderPhaseReport({
      plan: 'P',
      phase: { number: 1, name: 'One' },
      tasks: [],
      completedAt: 'now',
      agentRuns: [],
      cost: {
        failedAttempts: 0,
        pauses: [{ since: '2026-03-10T12:20:00.000Z', until: '2026-03-10T15:00:00.000Z', reason }],
        reruns: [],
        flaky: [],
      },
    });
    const found: string[] = [];
    const walk = (node: { type: string; value?: string; children?: unknown[] }) => {
      if (/^(link|image|linkReference|imageReference|html)$/.test(node.type)) found.push(node.type);
      if (node.type === 'text' && /(^|\s)@octocat/.test(node.value ?? '')) found.push('mention');
      for (const child of node.children ?? []) walk(child as typeof node);
    };
    walk(unified().use(remarkParse).use(remarkGfm).parse(lines.join('\n')));
    expect(found).toEqual([]);
    expect(lines.join('\n')).toContain('Request rejected (429)');
  });
});

// Usage-shaped outputs of each CLI, with the usage each reports, for the properties below. A field
// is a valid count (read), a near-miss (negative, a string, null: not read) or absent.
type Field = { raw?: unknown; value?: number };
const field: fc.Arbitrary<Field> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 1_000_000 }).map((n) => ({ raw: n, value: n })) },
  { weight: 1, arbitrary: fc.constantFrom<Field>({ raw: -5 }, { raw: '12' }, { raw: null }, {}) },
);
const costField: fc.Arbitrary<Field> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.nat({ max: 100_000 }).map((n) => ({ raw: n / 1000, value: n / 1000 })),
  },
  { weight: 1, arbitrary: fc.constantFrom<Field>({ raw: -0.5 }, { raw: '0.1' }, {}) },
);
/** The JSON object of some named fields, absent ones left out. */
const fields = (named: Record<string, Field>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(named)
      .filter(([, f]) => 'raw' in f)
      .map(([k, f]) => [k, f.raw]),
  );
/** A sum over known values, undefined when none is known (as a CLI's usage is summed). */
const total = (values: (number | undefined)[]): number | undefined => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
};
const usage = (
  inputTokens?: number,
  outputTokens?: number,
  costUsd?: number,
): Usage | undefined => {
  const u: Usage = {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
  return Object.keys(u).length ? u : undefined;
};
interface CliOutput {
  cli: string;
  lines: string[];
  expected: Usage | undefined;
}
/** Lines a CLI or a shell prints around its JSON, none of them a JSON object. */
const noise = fc.oneof(
  fc.constantFrom('Loaded cached credentials.', 'plain text', '[1, 2]', '', '{not json'),
  fc.string().filter((s) => !s.includes('{')),
);
/** Near-miss types: a CLI's line with a type the parser must not take for usage. */
const typed = (right: string, ...wrong: string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant({ type: right, right: true }) },
    { weight: 1, arbitrary: fc.constantFrom(...wrong).map((type) => ({ type, right: false })) },
  );

const claudeOutput: fc.Arbitrary<CliOutput> = fc
  .record({
    type: typed('result', 'results', 'assistant'),
    input: field,
    cacheCreation: field,
    cacheRead: field,
    output: field,
    cost: costField,
    withUsage: fc.boolean(),
    stream: fc.boolean(),
  })
  .map((x) => {
    const result = {
      type: x.type.type,
      subtype: 'success',
      result: 'Done.',
      ...(x.withUsage
        ? {
            usage: fields({
              input_tokens: x.input,
              cache_creation_input_tokens: x.cacheCreation,
              cache_read_input_tokens: x.cacheRead,
              output_tokens: x.output,
            }),
          }
        : {}),
      ...fields({ total_cost_usd: x.cost }),
    };
    const reported = x.type.right && ('usage' in result || 'total_cost_usd' in result);
    return {
      cli: 'claude',
      lines: [
        ...(x.stream ? ['{"type":"system","subtype":"init","session_id":"s-1"}'] : []),
        JSON.stringify(result),
      ],
      expected: reported
        ? usage(
            x.withUsage
              ? total([x.input.value, x.cacheCreation.value, x.cacheRead.value])
              : undefined,
            x.withUsage ? x.output.value : undefined,
            x.cost.value,
          )
        : undefined,
    };
  });

const codexOutput: fc.Arbitrary<CliOutput> = fc
  .array(
    fc.record({
      type: typed('turn.completed', 'turn.complete', 'turn.started'),
      input: field,
      cached: field,
      output: field,
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((turns) => {
    const counted = turns.filter((t) => t.type.right);
    return {
      cli: 'codex',
      lines: turns.flatMap((t) => [
        '{"type":"turn.started"}',
        JSON.stringify({
          type: t.type.type,
          usage: fields({
            input_tokens: t.input,
            cached_input_tokens: t.cached,
            output_tokens: t.output,
          }),
        }),
      ]),
      expected: usage(
        total(counted.map((t) => t.input.value)),
        total(counted.map((t) => t.output.value)),
      ),
    };
  });

const geminiJsonOutput: fc.Arbitrary<CliOutput> = fc
  .array(fc.record({ prompt: field, candidates: field, thoughts: field, cached: field }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((models) => ({
    cli: 'gemini-json',
    lines: [
      JSON.stringify(
        {
          response: 'Done.',
          stats: {
            models: Object.fromEntries(
              models.map((m, i) => [
                `gemini-model-${i}`,
                {
                  api: { totalRequests: 1, totalErrors: 0 },
                  tokens: fields({
                    prompt: m.prompt,
                    candidates: m.candidates,
                    thoughts: m.thoughts,
                    cached: m.cached,
                  }),
                },
              ]),
            ),
          },
        },
        null,
        2,
      ),
    ],
    expected: usage(
      total(models.map((m) => m.prompt.value)),
      total(models.map((m) => total([m.candidates.value, m.thoughts.value]))),
    ),
  }));

const geminiStreamOutput: fc.Arbitrary<CliOutput> = fc
  .record({ type: typed('result', 'message', 'init'), input: field, output: field })
  .map((x) => ({
    cli: 'gemini-stream',
    lines: [
      '{"type":"init","session_id":"x","model":"gemini-2.5-pro"}',
      '{"type":"message","role":"assistant","content":"Done.","delta":true}',
      JSON.stringify({
        type: x.type.type,
        status: 'success',
        stats: { ...fields({ input_tokens: x.input, output_tokens: x.output }), duration_ms: 9 },
      }),
    ],
    expected: x.type.right ? usage(x.input.value, x.output.value) : undefined,
  }));

const opencodeOutput: fc.Arbitrary<CliOutput> = fc
  .array(
    fc.record({
      type: typed('step_finish', 'step-finish', 'step_start'),
      input: field,
      output: field,
      reasoning: field,
      cacheRead: field,
      cacheWrite: field,
      cost: costField,
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((steps) => {
    const counted = steps.filter((s) => s.type.right);
    return {
      cli: 'opencode',
      lines: steps.map((s) =>
        JSON.stringify({
          type: s.type.type,
          sessionID: 'ses_1',
          part: {
            type: 'step-finish',
            ...fields({ cost: s.cost }),
            tokens: {
              ...fields({ input: s.input, output: s.output, reasoning: s.reasoning }),
              cache: fields({ read: s.cacheRead, write: s.cacheWrite }),
            },
          },
        }),
      ),
      expected: usage(
        total(counted.map((s) => total([s.input.value, s.cacheRead.value, s.cacheWrite.value]))),
        total(counted.map((s) => total([s.output.value, s.reasoning.value]))),
        total(counted.map((s) => s.cost.value)),
      ),
    };
  });

describe('usageFromOutput: properties', () => {
  it('never throws on any text, and what it reports is whole non-negative tokens and a non-negative cost', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json()), { maxLength: 20 }), (lines) => {
        const u = usageFromOutput(lines.join('\n'));
        if (!u) return;
        for (const n of [u.inputTokens, u.outputTokens])
          if (n !== undefined) expect(Number.isInteger(n) && n >= 0).toBe(true);
        if (u.costUsd !== undefined) expect(u.costUsd).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it("reads each CLI's usage-shaped output, near-misses included, to exactly what it reported", () => {
    const outputs = fc.oneof(
      claudeOutput,
      codexOutput,
      geminiJsonOutput,
      geminiStreamOutput,
      opencodeOutput,
    );
    const seen = { parsed: 0, nothing: 0, clis: new Set<string>() };
    fc.assert(
      fc.property(fc.array(noise, { maxLength: 4 }), outputs, (before, out) => {
        const got = usageFromOutput([...before, ...out.lines].join('\n'));
        expect(got).toEqual(out.expected);
        if (got) {
          seen.parsed++;
          seen.clis.add(out.cli);
        } else seen.nothing++;
      }),
      { numRuns: 300 },
    );
    // Both sides were checked, for every CLI: outputs that report usage, and near-misses that
    // report none.
    expect(seen.parsed).toBeGreaterThanOrEqual(150);
    expect(seen.nothing).toBeGreaterThanOrEqual(10);
    expect([...seen.clis].sort()).toEqual([
      'claude',
      'codex',
      'gemini-json',
      'gemini-stream',
      'opencode',
    ]);
  });

  it("Codex's turns, among other lines, add up to the run's tokens", () => {
    const turn = fc.record({
      input_tokens: fc.nat({ max: 1e6 }),
      cached_input_tokens: fc.nat({ max: 1e6 }),
      output_tokens: fc.nat({ max: 1e6 }),
    });
    const noise = fc.constantFrom(
      '{"type":"turn.started"}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"x"}}',
      'plain text',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(turn, noise), { minLength: 1, maxLength: 10 }), (turns) => {
        const text = turns
          .flatMap(([usage, other]) => [other, JSON.stringify({ type: 'turn.completed', usage })])
          .join('\n');
        expect(usageFromOutput(text)).toEqual({
          inputTokens: turns.reduce((a, [u]) => a + u.input_tokens, 0),
          outputTokens: turns.reduce((a, [u]) => a + u.output_tokens, 0),
        });
      }),
    );
  });
});
