import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join } from 'node:path';

/**
 * A scripted model on 127.0.0.1 that speaks the API of each agent CLI docs/agent.md lists:
 * - Anthropic Messages, streamed as server-sent events (Claude Code, `ANTHROPIC_BASE_URL`);
 * - OpenAI Responses, streamed (Codex, a `model_providers.<id>` with `wire_api = "responses"`);
 * - OpenAI-compatible chat completions, streamed (OpenCode, an `@ai-sdk/openai-compatible`
 *   provider with `baseURL`);
 * - Gemini `generateContent` / `streamGenerateContent` (Gemini CLI, `GOOGLE_GEMINI_BASE_URL`).
 *
 * It plays one TDD conversation through the CLI's OWN tools, whatever the CLI offers (its
 * file-write tool, else `apply_patch`, else its shell): the failing test first, then the code,
 * then the summary in `$CODER_OUTPUT_DIR/summary.md`, then a final answer. Which turn it is comes
 * from the request itself (how many tool results the history holds), so a CLI that retries or
 * asks side questions (a title, a token count) gets consistent answers. Every request is
 * recorded, so a test can check that the whole prompt reached the model.
 */

export interface FileWrite {
  /** Relative to the checkout, or absolute. */
  path: string;
  content: string;
}

/** One turn of the conversation: a file written, or a shell command run, with the CLI's tools. */
export type Step = FileWrite | { run: string };

export interface Script {
  /** The agent's working directory (the checkout); tools that want absolute paths get them. */
  cwd: string;
  /** The turns, in order: the failing test, its run, the code, its run, the summary. */
  steps: () => Promise<Step[]>;
  /** The last answer, as text. */
  final: string;
  /** The provider's limit, reached part-way: every answer from then on is its 429. */
  limit?: Limit;
}

/**
 * The provider's usage or rate limit, answered as each real API answers it (429):
 * - Anthropic: `rate_limit_error` with `retry-after` and the `anthropic-ratelimit-requests-*`
 *   headers; to a subscription's OAuth token (`authorization: Bearer`, no `x-api-key`) also the
 *   `anthropic-ratelimit-unified-*` headers Claude Code reads its usage limit from;
 * - OpenAI Responses: the `usage_limit_reached` error Codex reads (`resets_at`, its plan);
 * - OpenAI chat completions: `rate_limit_exceeded` with `retry-after` and `x-ratelimit-*`;
 * - Gemini: `RESOURCE_EXHAUSTED` with its `QuotaFailure` (a per-day quota) and `RetryInfo`.
 */
export interface Limit {
  /** From the answer after this many tool results on (0: the first answer). */
  after: number;
  /** When it resets, in seconds from the answer. */
  resetSeconds: number;
  /**
   * `spend`: the Anthropic API's answer to an API key at its workspace's spend limit, HTTP 400
   * `invalid_request_error` "You have reached your specified API usage limits. You will regain
   * access on <date> at <HH:MM> UTC." (as users report it in Claude Code's issues, #2127, #38035),
   * its reset to the minute, rounded up. Otherwise the API's 429.
   */
  kind?: 'spend';
}

export interface Recorded {
  method: string;
  path: string;
  body: unknown;
}

export interface ModelServer {
  url: string;
  requests: Recorded[];
  /** Tool calls the model made, `tool path`. */
  calls: string[];
  /** The API of each answer that was the provider's limit (`Script.limit`). */
  limits: string[];
  /** When each of those answers said the limit resets (ms since the epoch). */
  resets: number[];
  close: () => Promise<void>;
}

type Call = { name: string; args: Record<string, unknown> };
type Turn = { kind: 'calls'; calls: Call[] } | { kind: 'text'; text: string };

const FILE_TOOLS: Record<string, { path: string; content: string; absolute: boolean }> = {
  Write: { path: 'file_path', content: 'content', absolute: true }, // Claude Code
  write: { path: 'filePath', content: 'content', absolute: true }, // OpenCode
  write_file: { path: 'file_path', content: 'content', absolute: true }, // Gemini CLI
};

const SHELL_TOOLS = ['exec_command', 'shell', 'Bash', 'bash', 'run_shell_command'];

/** Every string in a JSON value, to find the prompt wherever an API puts it. */
export function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) strings(v, out);
  return out;
}

function heredoc(path: string, content: string): string {
  const tag = 'CODER_LOOP_EOF';
  return `mkdir -p "$(dirname '${path}')" && cat > '${path}' <<'${tag}'\n${content}${content.endsWith('\n') ? '' : '\n'}${tag}`;
}

/** The call that writes `file`, with the tool this CLI offers. */
function writeCall(tools: string[], file: FileWrite, cwd: string): Call {
  const abs = isAbsolute(file.path) ? file.path : join(cwd, file.path);
  for (const [name, spec] of Object.entries(FILE_TOOLS))
    if (tools.includes(name))
      return {
        name,
        args: { [spec.path]: spec.absolute ? abs : file.path, [spec.content]: file.content },
      };
  const lines = file.content.replace(/\n$/, '').split('\n');
  const patch = `*** Begin Patch\n*** Add File: ${abs}\n${lines.map((l) => `+${l}`).join('\n')}\n*** End Patch\n`;
  if (tools.includes('apply_patch')) return { name: 'apply_patch', args: { input: patch } };
  // Codex's code mode: one JavaScript cell calling its nested tools.
  if (tools.includes('exec'))
    return {
      name: 'exec',
      args: { input: `await tools.apply_patch(${JSON.stringify(patch)});\n` },
    };
  const shell = SHELL_TOOLS.find((t) => tools.includes(t));
  if (!shell) throw new Error(`no tool to write a file with among ${tools.join(', ')}`);
  const script = heredoc(abs, file.content);
  if (shell === 'shell') return { name: shell, args: { command: ['bash', '-c', script] } };
  if (shell === 'exec_command') return { name: shell, args: { cmd: script } };
  return { name: shell, args: { command: script, description: 'write a file' } };
}

/** The call that runs `command` with this CLI's shell tool. */
function runCall(tools: string[], command: string): Call {
  // Codex's code mode: its shell is a nested tool of one JavaScript cell, whose text is returned.
  if (tools.includes('exec') && !tools.includes('exec_command'))
    return {
      name: 'exec',
      args: {
        input: `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)}, login: false });\ntext(JSON.stringify(r));\n`,
      },
    };
  const shell = SHELL_TOOLS.find((t) => tools.includes(t));
  if (!shell) throw new Error(`no shell tool among ${tools.join(', ')}`);
  if (shell === 'shell') return { name: shell, args: { command: ['bash', '-c', command] } };
  if (shell === 'exec_command') return { name: shell, args: { cmd: command } };
  return { name: shell, args: { command, description: 'run the test' } };
}

async function turn(script: Script, tools: string[], results: number): Promise<Turn> {
  if (script.limit && results >= script.limit.after) throw new LimitReached(script.limit);
  const steps = await script.steps();
  const step = steps[results];
  if (!step) return { kind: 'text', text: script.final };
  const call = 'run' in step ? runCall(tools, step.run) : writeCall(tools, step, script.cwd);
  return { kind: 'calls', calls: [call] };
}

/** Thrown by `turn` at the limit: the server answers the API's 429 instead. */
class LimitReached extends Error {
  constructor(readonly limit: Limit) {
    super('the provider limit');
  }
}

const REQUEST_LIMIT = 50;

/** The answer each API gives at its limit (see `Limit`); returns when it said the limit resets. */
function limited(
  api: 'anthropic' | 'responses' | 'chat' | 'gemini',
  limit: Limit,
  req: IncomingMessage,
  res: ServerResponse,
  body: Body,
): number {
  const now = Date.now();
  const seconds = limit.resetSeconds;
  const resetsAt = Math.ceil(now / 1000) + seconds;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let answer: unknown;
  if (api === 'anthropic' && limit.kind === 'spend') {
    const reset = Math.ceil((now + seconds * 1000) / 60_000) * 60_000;
    const at = new Date(reset).toISOString();
    res.writeHead(400, { ...headers, 'request-id': id('req') });
    res.end(
      JSON.stringify({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: `You have reached your specified API usage limits. You will regain access on ${at.slice(0, 10)} at ${at.slice(11, 16)} UTC.`,
        },
        request_id: id('req'),
      }),
    );
    return reset;
  }
  switch (api) {
    case 'anthropic': {
      Object.assign(headers, {
        'retry-after': String(seconds),
        'anthropic-ratelimit-requests-limit': String(REQUEST_LIMIT),
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': new Date(resetsAt * 1000).toISOString(),
        'request-id': id('req'),
      });
      const oauth = !req.headers['x-api-key'] && /^Bearer /i.test(req.headers.authorization ?? '');
      if (oauth)
        Object.assign(headers, {
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-reset': String(resetsAt),
          'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        });
      answer = {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: "This request would exceed your account's rate limit. Please try again later.",
        },
        request_id: headers['request-id'],
      };
      break;
    }
    case 'responses':
      answer = {
        error: {
          type: 'usage_limit_reached',
          message: 'The usage limit has been reached',
          plan_type: 'plus',
          resets_at: resetsAt,
          resets_in_seconds: seconds,
        },
      };
      break;
    case 'chat':
      Object.assign(headers, {
        'retry-after': String(seconds),
        'x-ratelimit-limit-requests': String(REQUEST_LIMIT),
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': `${seconds}s`,
        'x-request-id': id('req'),
      });
      answer = {
        error: {
          message: `Rate limit reached for ${body.model ?? 'model'} in organization org-scripted on requests per min (RPM): Limit ${REQUEST_LIMIT}, Used ${REQUEST_LIMIT}, Requested 1. Please try again in ${seconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      };
      break;
    case 'gemini': {
      const metric = 'generativelanguage.googleapis.com/generate_content_free_tier_requests';
      const model = String(body.model ?? /models\/([^:]+)/.exec(req.url ?? '')?.[1] ?? 'gemini');
      answer = {
        error: {
          code: 429,
          message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n* Quota exceeded for metric: ${metric}, limit: ${REQUEST_LIMIT}, model: ${model}\nPlease retry in ${seconds}s.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [
                {
                  quotaMetric: metric,
                  quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
                  quotaDimensions: { location: 'global', model },
                  quotaValue: String(REQUEST_LIMIT),
                },
              ],
            },
            {
              '@type': 'type.googleapis.com/google.rpc.Help',
              links: [
                {
                  description: 'Learn more about Gemini API quotas',
                  url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
                },
              ],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
          ],
        },
      };
      break;
    }
  }
  res.writeHead(429, headers);
  res.end(JSON.stringify(answer));
  // An epoch (Anthropic's unified reset, Codex's `resets_at`), or seconds from this answer.
  return api === 'anthropic' || api === 'responses' ? resetsAt * 1000 : now + seconds * 1000;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events)
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

type Body = Record<string, unknown> & {
  tools?: unknown[];
  messages?: unknown[];
  input?: unknown;
  contents?: unknown[];
  stream?: boolean;
  model?: string;
};

let ids = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(ids++).toString(36)}`;
const usage = { input_tokens: 1000, output_tokens: 100 };

// ---- Anthropic Messages (Claude Code) ----
async function anthropic(script: Script, body: Body, res: ServerResponse, calls: string[]) {
  const tools = (body.tools ?? []).map((t) => String((t as { name?: string }).name));
  const results = (body.messages ?? []).filter(
    (m) =>
      Array.isArray((m as { content?: unknown }).content) &&
      (m as { content: { type?: string }[] }).content.some((c) => c.type === 'tool_result'),
  ).length;
  // A side question (no file tools offered: a title, a summary): a short answer.
  const t: Turn = tools.some((n) => n in FILE_TOOLS || SHELL_TOOLS.includes(n))
    ? await turn(script, tools, results)
    : { kind: 'text', text: 'TDD run' };
  type Block =
    | { type: 'text'; text: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
  const blocks: Block[] =
    t.kind === 'text'
      ? [{ type: 'text', text: t.text }]
      : t.calls.map((c) => ({ type: 'tool_use', id: id('toolu'), name: c.name, input: c.args }));
  if (t.kind === 'calls') calls.push(...t.calls.map(describe));
  const stop = t.kind === 'text' ? 'end_turn' : 'tool_use';
  const message = {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'claude',
    stop_sequence: null,
    usage,
  };
  if (!body.stream) return json(res, 200, { ...message, content: blocks, stop_reason: stop });
  const events: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
    },
  ];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push(
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } },
        },
      );
    } else {
      events.push(
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { ...b, input: {} } },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
          },
        },
      );
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 100 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  sse(res, events);
}

// ---- OpenAI Responses (Codex) ----
async function responses(script: Script, body: Body, res: ServerResponse, calls: string[]) {
  // Tools come in `tools`, or (code mode) as `additional_tools` items of the input, in namespaces.
  const input = Array.isArray(body.input)
    ? (body.input as { type?: string; tools?: unknown[] }[])
    : [];
  const offered: { type?: string; name?: string; tools?: unknown[] }[] = [];
  const flatten = (list: unknown[] = []) => {
    for (const t of list as { type?: string; name?: string; tools?: unknown[] }[])
      if (t.type === 'namespace') flatten(t.tools);
      else offered.push(t);
  };
  flatten(body.tools);
  for (const i of input) if (i.type === 'additional_tools') flatten(i.tools);
  const tools = offered.map((t) => String(t.name));
  const results = input.filter((i) => /_call_output$/.test(i.type ?? '')).length;
  const t = await turn(script, tools, results);
  const items =
    t.kind === 'text'
      ? [
          {
            type: 'message',
            id: id('msg'),
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: t.text, annotations: [] }],
          },
        ]
      : t.calls.map((c) => {
          const custom = offered.some((x) => x.name === c.name && x.type === 'custom');
          return custom
            ? {
                type: 'custom_tool_call',
                id: id('ctc'),
                call_id: id('call'),
                name: c.name,
                input: String(c.args.input),
                status: 'completed',
              }
            : {
                type: 'function_call',
                id: id('fc'),
                call_id: id('call'),
                name: c.name,
                arguments: JSON.stringify(c.args),
                status: 'completed',
              };
        });
  if (t.kind === 'calls') calls.push(...t.calls.map(describe));
  const response = {
    id: id('resp'),
    object: 'response',
    status: 'completed',
    model: body.model ?? 'gpt',
    output: items,
    usage: {
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 100,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1100,
    },
  };
  const events: { event: string; data: unknown }[] = [
    {
      event: 'response.created',
      data: {
        type: 'response.created',
        response: { ...response, status: 'in_progress', output: [] },
      },
    },
  ];
  items.forEach((item, output_index) => {
    events.push({
      event: 'response.output_item.added',
      data: { type: 'response.output_item.added', output_index, item },
    });
    events.push({
      event: 'response.output_item.done',
      data: { type: 'response.output_item.done', output_index, item },
    });
  });
  events.push({ event: 'response.completed', data: { type: 'response.completed', response } });
  sse(res, events);
}

// ---- OpenAI-compatible chat completions (OpenCode) ----
async function chat(script: Script, body: Body, res: ServerResponse, calls: string[]) {
  const tools = (body.tools ?? []).map((t) =>
    String((t as { function?: { name?: string } }).function?.name),
  );
  const results = (body.messages ?? []).filter(
    (m) => (m as { role?: string }).role === 'tool',
  ).length;
  const t: Turn = tools.length
    ? await turn(script, tools, results)
    : { kind: 'text', text: 'TDD run' };
  if (t.kind === 'calls') calls.push(...t.calls.map(describe));
  const base = {
    id: id('chatcmpl'),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'model',
  };
  const delta =
    t.kind === 'text'
      ? { role: 'assistant', content: t.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: t.calls.map((c, index) => ({
            index,
            id: id('call'),
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        };
  const finish = t.kind === 'text' ? 'stop' : 'tool_calls';
  if (!body.stream)
    return json(res, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: delta, finish_reason: finish }],
      usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
    });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
  );
  res.write(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

// ---- Gemini generateContent (Gemini CLI) ----
async function gemini(
  script: Script,
  body: Body,
  res: ServerResponse,
  path: string,
  calls: string[],
) {
  const decls = (body.tools ?? []).flatMap(
    (t) => (t as { functionDeclarations?: { name?: string }[] }).functionDeclarations ?? [],
  );
  const tools = decls.map((d) => String(d.name));
  const results = (body.contents ?? []).filter((c) =>
    ((c as { parts?: { functionResponse?: unknown }[] }).parts ?? []).some(
      (p) => p.functionResponse,
    ),
  ).length;
  let t: Turn;
  if (tools.length) t = await turn(script, tools, results);
  else {
    // A side question (the model router, the next speaker, a loop check) asks for JSON of a
    // schema: the smallest value of that schema.
    const config = body.generationConfig as
      | { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema }
      | undefined;
    t = {
      kind: 'text',
      text:
        config?.responseMimeType === 'application/json'
          ? JSON.stringify(sample(config.responseJsonSchema ?? config.responseSchema ?? {}))
          : 'TDD run',
    };
  }
  if (t.kind === 'calls') calls.push(...t.calls.map(describe));
  const parts =
    t.kind === 'text'
      ? [{ text: t.text }]
      : t.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }));
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 100, totalTokenCount: 1100 },
    modelVersion: body.model ?? 'gemini',
  };
  if (path.includes(':streamGenerateContent')) return sse(res, [{ data: chunk }]);
  json(res, 200, chunk);
}

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

/** The smallest value a JSON schema (or Gemini's upper-case variant) accepts. */
function sample(schema: Schema): unknown {
  if (schema.enum?.length) return schema.enum[0];
  const type = String(Array.isArray(schema.type) ? schema.type[0] : schema.type).toLowerCase();
  if (type === 'object' || schema.properties)
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v)]),
    );
  if (type === 'string') return 'scripted';
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  return null;
}

function describe(c: Call): string {
  const a = c.args;
  const target = a.file_path ?? a.filePath ?? a.input ?? a.cmd ?? a.command;
  return `${c.name} ${typeof target === 'string' ? target.split('\n')[0] : JSON.stringify(target)}`;
}

export async function startModelServer(script: Script): Promise<ModelServer> {
  const requests: Recorded[] = [];
  const calls: string[] = [];
  const limits: string[] = [];
  const resets: number[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const body = (await readBody(req)) as Body;
      let api: Parameters<typeof limited>[0] | undefined;
      requests.push({ method: req.method ?? 'GET', path, body });
      try {
        if (req.method === 'GET' && /\/models(\?|$)/.test(path))
          return json(res, 200, { object: 'list', data: [], models: [] });
        if (/\/messages\/count_tokens/.test(path)) return json(res, 200, { input_tokens: 1000 });
        api = /\/messages(\?|$)/.test(path)
          ? 'anthropic'
          : /\/responses(\?|$)/.test(path)
            ? 'responses'
            : /\/chat\/completions(\?|$)/.test(path)
              ? 'chat'
              : /:(stream)?[gG]enerateContent/.test(path)
                ? 'gemini'
                : undefined;
        // Once reached, the limit answers every model request (side questions too).
        if (api && script.limit && limits.length) throw new LimitReached(script.limit);
        if (api === 'anthropic') return await anthropic(script, body, res, calls);
        if (api === 'responses') return await responses(script, body, res, calls);
        if (api === 'chat') return await chat(script, body, res, calls);
        if (/:countTokens/.test(path)) return json(res, 200, { totalTokens: 1000 });
        if (api === 'gemini') return await gemini(script, body, res, path, calls);
        json(res, 404, { error: { message: `the scripted model has no ${req.method} ${path}` } });
      } catch (error) {
        if (error instanceof LimitReached && api) {
          limits.push(api);
          resets.push(limited(api, error.limit, req, res, body));
          return;
        }
        json(res, 500, { error: { message: String(error) } });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    calls,
    limits,
    resets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
