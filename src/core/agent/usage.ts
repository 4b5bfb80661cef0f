import * as z from 'zod';
import type { AgentNode } from './payload.js';

/**
 * What one agent run used, as its CLI reported it (all optional: a CLI reports what it knows).
 * Input tokens count everything the model read, cached or not; output tokens everything it wrote,
 * reasoning included.
 */
const UsageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** One agent run as the loop's record keeps it (record.ts, `agentRuns`). */
export interface AgentRunEntry {
  node: AgentNode;
  /** The head the agent started from. */
  sha: string;
  /** Wall time of the run, measured by `step: agent` (not reported by the agent). */
  minutes: number;
  partial?: true;
  usage?: Usage;
}

/** `changes-dir/run.json`: what `step: agent` measured and read of the run (untrusted on read). */
export const RunFileSchema = z.strictObject({
  version: z.literal(1),
  /** Wall time of the agent's command, in minutes. */
  minutes: z
    .number()
    .nonnegative()
    .max(24 * 60),
  timedOut: z.boolean(),
  usage: UsageSchema.optional(),
});
export type RunFile = z.infer<typeof RunFileSchema>;

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
const money = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;

/** The sum of some numbers, undefined when none is known. */
function sum(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
}

function usageOf(input?: number, output?: number, cost?: number): Usage | undefined {
  const u: Usage = {
    ...(input !== undefined ? { inputTokens: input } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
  };
  return Object.keys(u).length ? u : undefined;
}

/**
 * Claude Code's result object (`-p --output-format json`, and the last line of `stream-json`):
 * `{"type":"result", "total_cost_usd", "usage": {"input_tokens", "cache_creation_input_tokens",
 * "cache_read_input_tokens", "output_tokens"}}`.
 */
function claude(v: Record<string, unknown>): Usage | undefined {
  if (v.type !== 'result' || !('total_cost_usd' in v || 'usage' in v)) return undefined;
  const u = obj(v.usage) ?? {};
  return usageOf(
    sum([
      count(u.input_tokens),
      count(u.cache_creation_input_tokens),
      count(u.cache_read_input_tokens),
    ]),
    count(u.output_tokens),
    money(v.total_cost_usd),
  );
}

/**
 * Gemini CLI's `--output-format json` document: `{"response", "stats": {"models": {<model>:
 * {"tokens": {"prompt", "candidates", "thoughts", …}}}}}`; its `stream-json` ends with
 * `{"type":"result", "stats": {"input_tokens", "output_tokens"}}`.
 */
function gemini(v: Record<string, unknown>): Usage | undefined {
  const stats = obj(v.stats);
  if (!stats) return undefined;
  const models = obj(stats.models);
  if (models) {
    const tokens = Object.values(models).map((m) => obj(obj(m)?.tokens) ?? {});
    return usageOf(
      sum(tokens.map((t) => count(t.prompt))),
      sum(tokens.map((t) => sum([count(t.candidates), count(t.thoughts)]))),
    );
  }
  if (v.type === 'result') return usageOf(count(stats.input_tokens), count(stats.output_tokens));
  return undefined;
}

/** Codex's `exec --json` line `{"type":"turn.completed","usage":{"input_tokens","output_tokens"}}`. */
function codex(v: Record<string, unknown>): Usage | undefined {
  if (v.type !== 'turn.completed') return undefined;
  const u = obj(v.usage) ?? {};
  return usageOf(count(u.input_tokens), count(u.output_tokens));
}

/**
 * OpenCode's `run --format json` line `{"type":"step_finish","part":{"type":"step-finish",
 * "cost", "tokens": {"input", "output", "reasoning", "cache": {"read", "write"}}}}`, one per step.
 */
function opencode(v: Record<string, unknown>): Usage | undefined {
  if (v.type !== 'step_finish') return undefined;
  const part = obj(v.part) ?? {};
  const t = obj(part.tokens) ?? {};
  const cache = obj(t.cache) ?? {};
  return usageOf(
    sum([count(t.input), count(cache.read), count(cache.write)]),
    sum([count(t.output), count(t.reasoning)]),
    money(part.cost),
  );
}

function add(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return usageOf(
    sum([a.inputTokens, b.inputTokens]),
    sum([a.outputTokens, b.outputTokens]),
    sum([a.costUsd, b.costUsd]),
  );
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * What an agent CLI reported about its usage in its machine-readable output (its stdout): a
 * final JSON document (Claude Code `json`, Gemini CLI `json`), or JSON lines — Claude Code's
 * `stream-json` result line, Codex's `turn.completed` lines (summed), OpenCode's `step_finish`
 * lines (summed), Gemini CLI's `stream-json` result line. Undefined when the output reports none.
 * A final result (Claude Code, Gemini CLI) stands for the whole run; per-turn lines are summed.
 */
export function usageFromOutput(stdout: string): Usage | undefined {
  const text = stdout.trim();
  if (!text) return undefined;
  // One JSON document, possibly pretty-printed (Gemini CLI), possibly after other output.
  const starts = [0, ...[...text.matchAll(/\n\{/g)].map((m) => m.index + 1)];
  for (const start of starts.slice(-3)) {
    const whole = parse(text.slice(start));
    if (whole) {
      const found = claude(whole) ?? gemini(whole);
      if (found) return found;
    }
  }
  let final: Usage | undefined;
  let turns: Usage | undefined;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    const v = parse(trimmed);
    if (!v) continue;
    const result = claude(v) ?? gemini(v);
    if (result) final = result;
    turns = add(turns, codex(v) ?? opencode(v));
  }
  return final ?? turns;
}

/**
 * `$CODER_OUTPUT_DIR/usage.json`, written by the agent or its wrapper script:
 * `{"inputTokens"?, "outputTokens"?, "costUsd"?}`. Undefined (with no error) when it is not that.
 */
export function usageFromFile(text: string): Usage | undefined {
  const parsed = UsageSchema.safeParse(parse(text));
  return parsed.success && Object.keys(parsed.data).length ? parsed.data : undefined;
}

/** `12.5 min, 12,000 input and 800 output tokens, $0.31`: a run's usage for people. */
export function describeRun(run: Pick<AgentRunEntry, 'minutes' | 'usage'>): string {
  const parts = [`${formatMinutes(run.minutes)}`];
  const u = run.usage;
  if (u?.inputTokens !== undefined || u?.outputTokens !== undefined) {
    const tokens = [
      u.inputTokens !== undefined ? `${u.inputTokens.toLocaleString('en-US')} input` : '',
      u.outputTokens !== undefined ? `${u.outputTokens.toLocaleString('en-US')} output` : '',
    ].filter(Boolean);
    parts.push(`${tokens.join(' and ')} tokens`);
  }
  if (u?.costUsd !== undefined) parts.push(formatCost(u.costUsd));
  return parts.join(', ');
}

export function formatCost(usd: number): string {
  return `$${usd > 0 && usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

export function formatMinutes(minutes: number): string {
  return `${minutes < 10 ? minutes.toFixed(1) : Math.round(minutes)} min`;
}

/** All runs together: minutes, tokens and cost summed over what was reported. */
export function totalUsage(runs: readonly Pick<AgentRunEntry, 'minutes' | 'usage'>[]): {
  minutes: number;
  usage?: Usage;
} {
  let usage: Usage | undefined;
  for (const r of runs) usage = add(usage, r.usage);
  const minutes = runs.reduce((a, r) => a + r.minutes, 0);
  return { minutes, ...(usage ? { usage } : {}) };
}
