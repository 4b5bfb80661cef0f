import { incredibleReset, parseLocalTime, usageLimitOf } from '../../../src/core/index.js';

/**
 * Each documented CLI's usage-limit and rate-limit endings, as its real package prints them (the
 * strings are those of @anthropic-ai/claude-code 2.1.197, @openai/codex 0.169.0 (codex-rs
 * core/src/error.rs), @google/gemini-cli 0.61.0 (googleQuotaErrors.ts, JsonFormatter.formatError)
 * and opencode-ai's `run --format json` error event), with the reset time when they give one.
 */
const NOW = new Date('2026-03-10T12:20:00Z');

describe('usageLimitOf: Claude Code', () => {
  test('`-p --output-format json` result at the session limit, with its reset time', () => {
    const out = `{"type":"result","subtype":"success","is_error":true,"duration_ms":812,"num_turns":1,"result":"You've hit your session limit \u00b7 resets 3pm (UTC)","session_id":"s","total_cost_usd":0}`;
    expect(usageLimitOf(out, NOW)).toEqual({
      cli: 'Claude Code',
      kind: 'usage limit',
      message: "You've hit your session limit \u00b7 resets 3pm (UTC)",
      // Printed to the minute (15:00:40 prints `3pm`): the end of that minute.
      until: '2026-03-10T15:01:00.000Z',
    });
  });
  test('a weekly limit past a day, in the zone Claude Code names', () => {
    const out = "You've hit your weekly limit \u00b7 resets Mar 12, 9:30am (Europe/Paris)\n";
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-12T08:31:00.000Z');
  });
  test('a time already past today is tomorrow', () => {
    const out = "You've hit your session limit \u00b7 resets 9am (UTC)";
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-11T09:01:00.000Z');
  });
  test('the older `usage limit reached|<epoch>` form', () => {
    expect(usageLimitOf('Claude AI usage limit reached|1773158400', NOW)).toMatchObject({
      cli: 'Claude Code',
      until: '2026-03-10T16:00:00.000Z',
    });
  });
  test('an API key answered 429: a rate limit, no reset time', () => {
    const out =
      'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}';
    expect(usageLimitOf(out, NOW)).toMatchObject({ cli: 'Claude Code', kind: 'rate limit' });
    expect(usageLimitOf(out, NOW)?.until).toBeUndefined();
  });
});

describe('usageLimitOf: a printed minute is its end', () => {
  test("Codex `try again at 4:43 AM.`: 04:44, never before the provider's reset", () => {
    const out = 'ERROR: You\u2019ve hit your usage limit. Upgrade to Pro or try again at 4:43 AM.';
    for (const now of ['2026-11-28T03:10:00Z', '2026-11-28T04:42:59Z', '2026-11-28T04:43:30Z'])
      expect(usageLimitOf(out, new Date(now))?.until).toBe('2026-11-28T04:44:00.000Z');
    // Its minute over: tomorrow's.
    expect(usageLimitOf(out, new Date('2026-11-28T04:44:00Z'))?.until).toBe(
      '2026-11-29T04:44:00.000Z',
    );
  });
  test('a reset read from a printed minute is never earlier than any instant of that minute', () => {
    for (let s = 0; s < 60; s += 7) {
      const reset = Date.UTC(2026, 10, 28, 4, 43, s);
      const printed = new Date(reset).toLocaleTimeString('en-US', {
        hour: 'numeric',
        minute: '2-digit',
        hour12: true,
        timeZone: 'UTC',
      });
      const until = parseLocalTime(printed, new Date(reset - 3_600_000), 'UTC')!;
      expect(until).toBeGreaterThanOrEqual(reset);
      expect(until - reset).toBeLessThanOrEqual(60_000);
    }
  });
});

describe('usageLimitOf: Claude Code with an API key at its spend limit', () => {
  // What Claude Code 2.1.197 printed, exit 1, for the API's 400 (test/agents/model-server.ts `spend`).
  const TEXT =
    'API Error: 400 You have reached your specified API usage limits. You will regain access on 2026-11-28 at 04:39 UTC.';
  test('`-p`: a usage limit until the end of the printed minute', () => {
    expect(usageLimitOf(`${TEXT}\n`, new Date('2026-11-28T03:00:00Z'))).toEqual({
      cli: 'Claude Code',
      kind: 'usage limit',
      message: TEXT,
      until: '2026-11-28T04:40:00.000Z',
    });
  });
  test('`--output-format json`: its result, `api_error_status` 400', () => {
    const out = `{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"duration_ms":165,"num_turns":1,"result":${JSON.stringify(TEXT)},"session_id":"c051ebdc","total_cost_usd":0}`;
    expect(usageLimitOf(out, new Date('2026-11-28T03:00:00Z'))).toMatchObject({
      cli: 'Claude Code',
      kind: 'usage limit',
      until: '2026-11-28T04:40:00.000Z',
    });
  });
  test('as users report it (the API error body printed whole)', () => {
    const out =
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."},"request_id":"req_011"}';
    expect(usageLimitOf(out, new Date('2026-03-24T00:00:00Z'))?.until).toBe(
      '2026-04-01T00:01:00.000Z',
    );
  });
});

describe("incredibleReset: a pause is bounded by the longest a provider's limit lasts", () => {
  const now = new Date('2026-11-28T03:00:00Z');
  test.each([
    ['2026-11-28T04:44:00.000Z', false],
    ['2026-12-29T00:00:00.000Z', false],
    ['2027-01-05T00:00:00.000Z', true],
    ['2286-11-20T17:46:40.000Z', true],
    ['not a time', true],
  ])('%s', (until, refused) => {
    expect(incredibleReset(until, now) !== undefined).toBe(refused);
  });
  test('no reset said: the loop chooses it', () => {
    expect(incredibleReset(undefined, now)).toBeUndefined();
  });
});

describe('usageLimitOf: Codex', () => {
  test('a Plus plan, reset today: `or try again at 3:39 PM.`, the resets_at of its log preferred', () => {
    const out = [
      '2026-03-10T12:19:58.564826Z ERROR codex_api::endpoint::responses: error=http 429 Too Many Requests: Some("{\\"error\\":{\\"type\\":\\"usage_limit_reached\\",\\"message\\":\\"The usage limit has been reached\\",\\"plan_type\\":\\"plus\\",\\"resets_at\\":1773157140,\\"resets_in_seconds\\":10740}}")',
      "ERROR: You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:39 PM.",
    ].join('\n');
    expect(usageLimitOf(out, NOW)).toMatchObject({
      cli: 'Codex',
      kind: 'usage limit',
      until: '2026-03-10T15:39:00.000Z',
    });
  });
  test('`exec --json`: the error event, another day (`Mar 12th, 2026 3:39 AM`)', () => {
    const out = `{"type":"error","message":"You've hit your usage limit. Try again at Mar 12th, 2026 3:39 AM."}\n{"type":"turn.failed","error":{"message":"You've hit your usage limit. Try again at Mar 12th, 2026 3:39 AM."}}`;
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-12T03:40:00.000Z');
  });
  test('no reset known: `Try again later.`', () => {
    const limit = usageLimitOf("ERROR: You've hit your usage limit. Try again later.", NOW);
    expect(limit).toMatchObject({ cli: 'Codex', kind: 'usage limit' });
    expect(limit?.until).toBeUndefined();
  });
  test('an API key past its retries: a rate limit', () => {
    expect(
      usageLimitOf('ERROR: exceeded retry limit, last status: 429 Too Many Requests', NOW),
    ).toMatchObject({ cli: 'Codex', kind: 'rate limit' });
  });
});

describe('usageLimitOf: Gemini CLI', () => {
  test('`--output-format json` TerminalQuotaError (daily quota)', () => {
    const out =
      '{\n  "session_id": "d5",\n  "error": {\n    "type": "TerminalQuotaError",\n    "message": "You have exhausted your daily quota on this model.",\n    "code": 429\n  }\n}';
    expect(usageLimitOf(out, NOW)).toMatchObject({ cli: 'Gemini CLI', kind: 'usage limit' });
  });
  test('RetryableQuotaError with the API retry delay', () => {
    const out =
      '{"session_id":"d5","error":{"type":"RetryableQuotaError","message":"You exceeded your current quota, please check your plan and billing details. Please retry in 45.5s.","code":429}}';
    expect(usageLimitOf(out, NOW)).toMatchObject({
      cli: 'Gemini CLI',
      kind: 'rate limit',
      until: '2026-03-10T12:20:45.500Z',
    });
  });
});

describe('usageLimitOf: OpenCode', () => {
  test('`run --format json` error event with status 429 and retry-after', () => {
    const out = `{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}\n{"type":"error","timestamp":2,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"Rate limit reached for requests","statusCode":429,"isRetryable":true,"responseHeaders":{"retry-after":"600"}}}}`;
    expect(usageLimitOf(out, NOW)).toEqual({
      cli: 'OpenCode',
      kind: 'rate limit',
      message: 'Rate limit reached for requests',
      until: '2026-03-10T12:30:00.000Z',
    });
  });
});

/**
 * What each pinned CLI really printed, run against the scripted model's limit answer
 * (test/agents/model-server.ts, `limit`), captured from its output as `step: agent` reads it.
 */
describe('usageLimitOf: the real CLIs at the limit (captured)', () => {
  const AT = new Date('2026-11-26T03:22:56Z');
  test('Claude Code 2.1.197, a subscription token (CLAUDE_CODE_OAUTH_TOKEN): its reset, to the minute', () => {
    const out =
      '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"duration_ms":1155,"duration_api_ms":272,"num_turns":2,"result":"You\'ve hit your session limit \u00b7 resets 3:24am (UTC)","stop_reason":"stop_sequence","session_id":"7ee2f7e9-26af-41f3-a709-1838cdac80b4","total_cost_usd":0.0045000000000000005,"usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":100},"permission_denials":[],"terminal_reason":"completed","fast_mode_state":"off","uuid":"4b91a3a7-e39d-490b-8f26-921568744d1f"}\n';
    expect(usageLimitOf(out, AT)).toEqual({
      cli: 'Claude Code',
      kind: 'usage limit',
      message: "You've hit your session limit \u00b7 resets 3:24am (UTC)",
      until: '2026-11-26T03:25:00.000Z',
    });
    // Printed in the minute it resets: the end of that minute, not tomorrow.
    expect(usageLimitOf(out, new Date('2026-11-26T03:24:31Z'))?.until).toBe(
      '2026-11-26T03:25:00.000Z',
    );
  });
  test('Claude Code 2.1.197, an API key past its retries: `Request rejected (429)`', () => {
    const out =
      '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"duration_ms":799,"duration_api_ms":82,"num_turns":2,"result":"API Error: Request rejected (429) \u00b7 This request would exceed your account\'s rate limit. Please try again later.","stop_reason":"stop_sequence","session_id":"cbbb8f13-0a32-4ef0-8fbf-660758c1e608","total_cost_usd":0.0075,"permission_denials":[],"terminal_reason":"completed","fast_mode_state":"off","uuid":"1d4e9729-1b79-4128-9ee4-e40850b4fe57"}\n';
    expect(usageLimitOf(out, AT)).toEqual({
      cli: 'Claude Code',
      kind: 'rate limit',
      message:
        "API Error: Request rejected (429) \u00b7 This request would exceed your account's rate limit. Please try again later.",
    });
  });
  test('Claude Code: any result with `api_error_status` 429, whatever its words', () => {
    const out =
      '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"Rate limited \\"now\\"","session_id":"s"}';
    expect(usageLimitOf(out, AT)).toEqual({
      cli: 'Claude Code',
      kind: 'rate limit',
      message: 'Rate limited "now"',
    });
  });
  test('Codex 0.169.0 (`exec --json`, a Plus plan): a typographic apostrophe, the reset today', () => {
    const out = [
      '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/w/repo/test/a.test.mjs","kind":"add"}],"status":"completed"}}',
      '{"type":"error","message":"You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:25 AM."}',
      '{"type":"turn.failed","error":{"message":"You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:25 AM."}}',
      '2026-11-26T03:22:56.336240Z ERROR codex_api::endpoint::responses_websocket: failed to connect to Responses WebSocket stage=Unknown',
    ].join('\n');
    expect(usageLimitOf(out, AT)).toEqual({
      cli: 'Codex',
      kind: 'usage limit',
      message:
        'You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:25 AM.',
      until: '2026-11-26T03:26:00.000Z',
    });
  });
  test("Gemini CLI 0.61.0, a daily quota: TerminalQuotaError, the API's retry delay", () => {
    const out = [
      'Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-26T03-23-27-798Z.json TerminalQuotaError: You have exhausted your daily quota on this model.',
      '    at classifyGoogleError (file:///clis/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:307344:16)',
      '  cause: {',
      '    code: 429,',
      "    message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \\n' +",
      "      '* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: gemini-3.8-flash\\n' +",
      "      'Please retry in 30s.',",
      '    details: [ [Object], [Object], [Object] ]',
      '  },',
      '  retryDelayMs: undefined,',
      '  reason: undefined,',
      '  status: 429',
      '}',
      '{',
      '  "session_id": "84ef76a7-be22-4ef2-bef1-6400f0a57a79",',
      '  "error": {',
      '    "type": "Error",',
      '    "message": "You have exhausted your daily quota on this model.",',
      '    "code": 429',
      '  }',
      '}',
    ].join('\n');
    expect(usageLimitOf(out, AT)).toMatchObject({
      cli: 'Gemini CLI',
      kind: 'usage limit',
      until: '2026-11-26T03:23:26.000Z',
    });
  });
  test('OpenCode 1.18.33 (`run --format json`), past its five retries: the 429 and its retry-after', () => {
    const out = [
      '{"type":"step_finish","timestamp":1795663432622,"sessionID":"ses_dea1ea41dffe12O6oWAj4LKJx2","part":{"id":"prt_215e18b3c00126y3lFQ7rdJw80","reason":"tool-calls","type":"step-finish","tokens":{"total":1100,"input":1000,"output":100,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}',
      '{"type":"error","timestamp":1795663459181,"sessionID":"ses_dea1ea41dffe12O6oWAj4LKJx2","error":{"name":"APIError","data":{"message":"Rate limit reached for model in organization org-scripted on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in 5s. Visit https://platform.openai.com/account/rate-limits to learn more.","statusCode":429,"isRetryable":true,"responseHeaders":{"connection":"keep-alive","content-type":"application/json","date":"Thu, 26 Nov 2026 03:24:19 GMT","keep-alive":"timeout=5","retry-after":"5","transfer-encoding":"chunked","x-ratelimit-limit-requests":"50","x-ratelimit-remaining-requests":"0","x-ratelimit-reset-requests":"5s","x-request-id":"req_mwwznsiy8"},"responseBody":"{\\"error\\":{\\"message\\":\\"Rate limit reached for model in organization org-scripted on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in 5s. Visit https://platform.openai.com/account/rate-limits to learn more.\\",\\"type\\":\\"requests\\",\\"param\\":null,\\"code\\":\\"rate_limit_exceeded\\"}}","metadata":{"url":"http://127.0.0.1:33495/v1/chat/completions"}}}}',
    ].join('\n');
    expect(usageLimitOf(out, AT)).toMatchObject({
      cli: 'OpenCode',
      kind: 'rate limit',
      until: '2026-11-26T03:23:01.000Z',
    });
  });
});

describe('usageLimitOf: OpenCode stopped while it waited out a long retry-after', () => {
  // What OpenCode 1.18.33 `run --format json --print-logs --log-level WARN` left on stderr, its
  // provider answering 429 with `retry-after: 3600`, when its time ran out.
  const LOG =
    'timestamp=2026-11-28T06:23:07.911Z level=ERROR run=59f0108e message="stream error" providerID=scripted modelID=model session.id=ses_ddf2da8c7ffelmAKbNiQa67F5t small=false agent=build mode=primary error.error="AI_APICallError: Rate limit reached for model in organization org-scripted on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in 3600s. Visit https://platform.openai.com/account/rate-limits to learn more."\n';
  test("the last stream error in a limit's words, until its wait ends", () => {
    expect(usageLimitOf(LOG, new Date('2026-11-28T06:53:08Z'))).toEqual({
      cli: 'OpenCode',
      kind: 'rate limit',
      message:
        'Rate limit reached for model in organization org-scripted on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in 3600s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      until: '2026-11-28T07:23:07.911Z',
    });
  });
  test('a wait already over (the run timed out for something else) is no limit', () => {
    expect(usageLimitOf(LOG, new Date('2026-11-28T07:30:00Z'))).toBeUndefined();
  });
  test('a stream error in other words is no limit', () => {
    expect(
      usageLimitOf(
        LOG.replace(/AI_APICallError: [^"]*/, 'AI_APICallError: Bad gateway. try again in 30s'),
        new Date('2026-11-28T06:23:10Z'),
      ),
    ).toBeUndefined();
  });
});

describe('usageLimitOf: anything else', () => {
  test.each([
    'Error: the test failed\nexit 1',
    '{"type":"result","subtype":"success","is_error":false,"result":"Done: 3 tests pass"}',
    '{"type":"error","error":{"name":"APIError","data":{"message":"Invalid API key","statusCode":401}}}',
    'context limit reached: conversation too long',
  ])('%s is not a limit', (out) => {
    expect(usageLimitOf(out, NOW)).toBeUndefined();
  });
});

describe('parseLocalTime', () => {
  test('times the CLIs print, in a zone', () => {
    expect(new Date(parseLocalTime('3:30pm', NOW, 'America/New_York')!).toISOString()).toBe(
      '2026-03-10T19:31:00.000Z',
    );
    expect(parseLocalTime('25pm', NOW, 'UTC')).toBeUndefined();
    expect(parseLocalTime('3pm', NOW, 'Not/AZone')).toBeUndefined();
  });
});
