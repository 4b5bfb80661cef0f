import { parseLocalTime, usageLimitOf } from '../../../src/core/index.js';

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
      until: '2026-03-10T15:00:00.000Z',
    });
  });
  test('a weekly limit past a day, in the zone Claude Code names', () => {
    const out = "You've hit your weekly limit \u00b7 resets Mar 12, 9:30am (Europe/Paris)\n";
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-12T08:30:00.000Z');
  });
  test('a time already past today is tomorrow', () => {
    const out = "You've hit your session limit \u00b7 resets 9am (UTC)";
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-11T09:00:00.000Z');
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
    expect(usageLimitOf(out, NOW)?.until).toBe('2026-03-12T03:39:00.000Z');
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
      '2026-03-10T19:30:00.000Z',
    );
    expect(parseLocalTime('25pm', NOW, 'UTC')).toBeUndefined();
    expect(parseLocalTime('3pm', NOW, 'Not/AZone')).toBeUndefined();
  });
});
