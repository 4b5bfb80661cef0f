/**
 * A run that ended at the provider's usage or rate limit (SPEC §9, "Paused, not failed"): each
 * documented CLI's own ending, as its real package prints it, with the reset time when it gives
 * one. Pure: `now` and the runner's time zone (the CLIs print local times) come from the caller.
 *
 * - Claude Code: with a subscription's token, `You've hit your session limit · resets 3pm (UTC)`
 *   (also weekly, Opus, Sonnet limits, `Aug 20, 3:30pm (Europe/Paris)` past a day), the older
 *   `Claude AI usage limit reached|<epoch>`; with an API key, past its retries, `API Error:
 *   Request rejected (429) · <the API's message>` (older: `API Error: 429 … rate_limit_error`);
 *   at the workspace's spend limit, `API Error: 400 You have reached your specified API usage
 *   limits. You will regain access on 2026-11-28 at 04:39 UTC.` (the API's 400, not retried);
 *   any `-p --output-format json` result with `"api_error_status":429`.
 * - Codex: `You’ve hit your usage limit. … Try again at 3:39 AM.` / `… or try again at Mar 10th,
 *   2026 3:39 AM.` (a typographic apostrophe since 0.1xx; its log line before it, when logged,
 *   carries `"resets_at":<epoch>`, preferred), `Quota exceeded. Check your plan and billing
 *   details.`, `exceeded retry limit, last status: 429`.
 *
 * The CLIs print a reset time to the minute (seconds cut off): it is read as the end of that
 * minute (a reset is never earlier than the time printed), a time in the current minute is not
 * tomorrow's.
 * - Gemini CLI: `TerminalQuotaError` / `RetryableQuotaError` (its JSON error), `You have exhausted
 *   your daily quota on this model.`, `RESOURCE_EXHAUSTED`, with `Please retry in 45.1s` or a
 *   `retryDelay` when the API gave one.
 * - OpenCode: an `error` event of `run --format json` with status 429 (or the provider's quota
 *   words), its `retry-after` / `retry-after-ms` response header when given; or, stopped while it
 *   waited out a long `retry-after`, the last `stream error` of its log (`--print-logs`).
 */
export interface UsageLimit {
  cli: 'Claude Code' | 'Codex' | 'Gemini CLI' | 'OpenCode';
  kind: 'usage limit' | 'rate limit';
  /** The CLI's own words (one line, at most 300 characters). */
  message: string;
  /** When the limit resets, ISO 8601, when the CLI said. */
  until?: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The offset of `timeZone` from UTC at `utc`, in ms (undefined for an unknown zone). */
function zoneOffset(utc: number, timeZone: string): number | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(utc));
  } catch {
    return undefined;
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour') % 24,
    get('minute'),
    get('second'),
  );
  return local - (utc - (utc % 1000));
}

/** A wall time in `timeZone` as a UTC instant. */
function fromZone(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  timeZone: string,
): number | undefined {
  const guess = Date.UTC(y, mo, d, h, mi);
  const offset = zoneOffset(guess, timeZone);
  if (offset === undefined) return undefined;
  const second = zoneOffset(guess - offset, timeZone) ?? offset;
  return guess - second;
}

/** The wall date of `now` in `timeZone`. */
function today(now: Date, timeZone: string): { y: number; mo: number; d: number } {
  const offset = zoneOffset(now.getTime(), timeZone) ?? 0;
  const local = new Date(now.getTime() + offset);
  return { y: local.getUTCFullYear(), mo: local.getUTCMonth(), d: local.getUTCDate() };
}

function hour24(h: number, meridiem: string): number {
  const pm = meridiem.toLowerCase() === 'pm';
  return (h % 12) + (pm ? 12 : 0);
}

/**
 * A printed minute's end: the CLIs print a reset to the minute, its seconds cut off (`3pm` for
 * 15:00:40), so the reset lies somewhere within that minute, and the loop resumes at its end —
 * never before the provider's reset, at most a minute after it.
 */
const endOfMinute = (at: number): number => at + MINUTE;

/**
 * A local time as the CLIs print it — `3pm`, `3:30 PM`, `Aug 20, 3pm`, `Aug 20, 2027, 3pm`,
 * `Mar 10th, 2026 3:39 AM` — in `timeZone`, as the end of that minute; a time of day alone is
 * its next occurrence.
 */
export function parseLocalTime(text: string, now: Date, timeZone: string): number | undefined {
  const m =
    /^(?:([A-Za-z]{3})[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?,? (?:(\d{4}),? )?)?(\d{1,2})(?::(\d{2}))? ?([AaPp][Mm])$/.exec(
      text.trim(),
    );
  if (!m) return undefined;
  const [, mon, day, year, hh, mm, meridiem] = m;
  if (Number(hh) < 1 || Number(hh) > 12) return undefined;
  const h = hour24(Number(hh), meridiem!);
  const mi = Number(mm ?? 0);
  if (h > 23 || mi > 59) return undefined;
  const base = today(now, timeZone);
  if (mon) {
    const mo = MONTHS.indexOf(mon.toLowerCase());
    if (mo === -1) return undefined;
    let at = fromZone(year ? Number(year) : base.y, mo, Number(day), h, mi, timeZone);
    // `Jan 2` printed in late December is next year's.
    if (at !== undefined && !year && at < now.getTime() - DAY)
      at = fromZone(base.y + 1, mo, Number(day), h, mi, timeZone);
    return at === undefined ? undefined : endOfMinute(at);
  }
  const at = fromZone(base.y, base.mo, base.d, h, mi, timeZone);
  if (at === undefined) return undefined;
  // A time of day whose minute has ended is tomorrow's (its minute now: this minute's end).
  const end = endOfMinute(at);
  return end > now.getTime() ? end : end + DAY;
}

const iso = (ms: number | undefined) =>
  ms === undefined || !Number.isFinite(ms) ? undefined : new Date(ms).toISOString();

/** A `retry-after` header value: seconds, or an HTTP date. */
function retryAfter(value: string, now: Date): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value.trim())) return now.getTime() + Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

const line = (text: string, index: number): string => {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text
    .slice(start, end === -1 ? undefined : end)
    .trim()
    .slice(0, 300);
};

function claude(text: string, now: Date, tz: string): UsageLimit | undefined {
  const old = /Claude AI usage limit reached(?:\|(\d{9,11}))?/.exec(text);
  if (old)
    return {
      cli: 'Claude Code',
      kind: 'usage limit',
      message: 'Claude AI usage limit reached',
      ...(old[1] ? { until: iso(Number(old[1]) * 1000) } : {}),
    };
  const hit =
    /(You've hit your [A-Za-z0-9 ]*limit|You're out of usage credits|Your org is out of usage)(?: \u00b7 resets ([^"\n\u00b7]+?) \(([A-Za-z0-9_+\-/]+)\))?(?=["\n\u00b7.]|\\n|$)/.exec(
      text,
    );
  if (hit) {
    const until = hit[2] ? parseLocalTime(hit[2], now, hit[3] ?? tz) : undefined;
    return {
      cli: 'Claude Code',
      kind: 'usage limit',
      message: hit[0].slice(0, 300),
      ...(until !== undefined ? { until: iso(until) } : {}),
    };
  }
  // An API key at its workspace's spend limit: HTTP 400, not retried, and Claude Code exits 1.
  const spend =
    /You have reached your specified API usage limits\.(?: You will regain access on (\d{4})-(\d{2})-(\d{2}) at (\d{2}):(\d{2}) UTC\.)?/.exec(
      text,
    );
  if (spend) {
    const [, y, mo, d, h, mi] = spend;
    const until = y ? endOfMinute(Date.UTC(+y, +mo! - 1, +d!, +h!, +mi!)) : undefined;
    return {
      cli: 'Claude Code',
      kind: 'usage limit',
      message: `${/API Error: 400 $/.test(text.slice(Math.max(0, spend.index - 15), spend.index)) ? 'API Error: 400 ' : ''}${spend[0]}`,
      ...(until !== undefined ? { until: iso(until) } : {}),
    };
  }
  const rejected =
    /API Error: (?:Request rejected \(429\)|Server is temporarily limiting requests[^\n"\u00b7]*) \u00b7 [^\n"]*/.exec(
      text,
    );
  if (rejected)
    return { cli: 'Claude Code', kind: 'rate limit', message: rejected[0].slice(0, 300) };
  const api = /API Error: 429\b[^\n]*rate_limit_error/.exec(text);
  if (api) return { cli: 'Claude Code', kind: 'rate limit', message: line(text, api.index) };
  const result = /"type"\s*:\s*"result"[^\n]*"api_error_status"\s*:\s*429\b[^\n]*/.exec(text);
  if (result) {
    const said = /"result"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(result[0]);
    let message = 'API Error 429';
    try {
      if (said) message = String(JSON.parse(said[1]!));
    } catch {
      // Cut off: the status says enough.
    }
    return {
      cli: 'Claude Code',
      kind: 'rate limit',
      message: message.split('\n')[0]!.slice(0, 300),
    };
  }
  return undefined;
}

function codex(text: string, now: Date, tz: string): UsageLimit | undefined {
  const hit = /You['\u2019]ve hit your usage limit\.[^\n"]*/.exec(text);
  if (hit) {
    const epoch = /resets_at\\?"\s*:\s*(\d{9,11})/.exec(text);
    const at = /[Tt]ry again at (.+?)\.(?=\s|"|\\|$)/.exec(hit[0]);
    const until = epoch
      ? Number(epoch[1]) * 1000
      : at
        ? parseLocalTime(at[1]!, now, tz)
        : undefined;
    return {
      cli: 'Codex',
      kind: 'usage limit',
      message: hit[0].slice(0, 300),
      ...(until !== undefined ? { until: iso(until) } : {}),
    };
  }
  const quota = /Quota exceeded\. Check your plan and billing details\./.exec(text);
  if (quota) return { cli: 'Codex', kind: 'usage limit', message: quota[0] };
  const retries = /exceeded retry limit, last status: 429 Too Many Requests/.exec(text);
  if (retries) return { cli: 'Codex', kind: 'rate limit', message: line(text, retries.index) };
  return undefined;
}

function gemini(text: string, now: Date): UsageLimit | undefined {
  const hit =
    /TerminalQuotaError|RetryableQuotaError|You have exhausted your daily quota on this model\.|Usage limit reached for [^\n"]+|RESOURCE_EXHAUSTED/.exec(
      text,
    );
  if (!hit) return undefined;
  const delay =
    /Please retry in ([0-9.]+)(ms|s)\b/.exec(text) ??
    /retryDelay\\?"\s*:\s*\\?"([0-9.]+)(s)\\?"/.exec(text);
  const until = delay
    ? now.getTime() + Number(delay[1]) * (delay[2] === 'ms' ? 1 : 1000)
    : undefined;
  return {
    cli: 'Gemini CLI',
    kind: /daily|Terminal|Usage limit/.test(hit[0]) ? 'usage limit' : 'rate limit',
    message: line(text, hit.index),
    ...(until !== undefined ? { until: iso(Math.ceil(until)) } : {}),
  };
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;

function opencode(text: string, now: Date): UsageLimit | undefined {
  for (const raw of text.split('\n').reverse()) {
    const trimmed = raw.trim();
    if (!trimmed.startsWith('{') || !trimmed.includes('"error"')) continue;
    let event: Record<string, unknown> | undefined;
    try {
      event = obj(JSON.parse(trimmed));
    } catch {
      continue;
    }
    if (event?.type !== 'error') continue;
    const error = obj(event.error);
    const data = obj(error?.data) ?? {};
    const message = typeof data.message === 'string' ? data.message : '';
    const limited = data.statusCode === 429 || LIMIT_WORDS.test(message);
    if (!limited) continue;
    const headers = obj(data.responseHeaders) ?? {};
    const ms = typeof headers['retry-after-ms'] === 'string' ? headers['retry-after-ms'] : '';
    const after = typeof headers['retry-after'] === 'string' ? headers['retry-after'] : '';
    const until = ms ? now.getTime() + Number(ms) : after ? retryAfter(after, now) : undefined;
    return {
      cli: 'OpenCode',
      kind: /usage limit|quota/i.test(message) ? 'usage limit' : 'rate limit',
      message: (message || `${String(error?.name ?? 'APIError')} 429`)
        .split('\n')[0]!
        .slice(0, 300),
      ...(until !== undefined && Number.isFinite(until) ? { until: iso(until) } : {}),
    };
  }
  return waiting(text, now);
}

const LIMIT_WORDS = /rate.?limit|too many requests|usage limit|quota|insufficient_quota/i;

/**
 * OpenCode still waiting on a limit when its time ran out: it retries a 429 five times, each time
 * after the provider's `retry-after` however long (no setting changes that), and prints nothing
 * meanwhile on stdout; with `--print-logs` its log on stderr has, per try, `timestamp=<ISO>
 * level=ERROR … message="stream error" … error.error="AI_APICallError: <the API's message>"`.
 * The last such line, in a limit's words, whose `try again in <N>s` ends after `now` (the run was
 * stopped while it waited), is that limit, until then. A wait already over is not one.
 */
function waiting(text: string, now: Date): UsageLimit | undefined {
  const logged = [
    ...text.matchAll(
      /^timestamp=(\S+) level=ERROR [^\n]*message="stream error"[^\n]*error\.error="AI_APICallError: ((?:[^"\\\n]|\\.)*)"/gm,
    ),
  ].at(-1);
  if (!logged || !LIMIT_WORDS.test(logged[2]!)) return undefined;
  const at = Date.parse(logged[1]!);
  const delay = /try again in ([0-9.]+) ?(ms|s)\b/i.exec(logged[2]!);
  if (!Number.isFinite(at) || !delay) return undefined;
  const until = Math.ceil(at + Number(delay[1]) * (delay[2]!.toLowerCase() === 'ms' ? 1 : 1000));
  if (!Number.isFinite(until) || until <= now.getTime()) return undefined;
  return {
    cli: 'OpenCode',
    kind: /usage limit|quota/i.test(logged[2]!) ? 'usage limit' : 'rate limit',
    message: logged[2]!.replace(/\\(.)/g, '$1').slice(0, 300),
    until: iso(until)!,
  };
}

/**
 * Whether an agent run's output (the tail of stdout and stderr) ends at a usage or rate limit,
 * and when it resets. `timeZone` is the runner's (the CLIs print local times; GitHub's runners
 * are UTC). Undefined for any other ending.
 */
export function usageLimitOf(output: string, now: Date, timeZone = 'UTC'): UsageLimit | undefined {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  return (
    codex(text, now, timeZone) ??
    claude(text, now, timeZone) ??
    gemini(text, now) ??
    opencode(text, now)
  );
}

/**
 * The longest a provider's limit lasts: the Anthropic API's spend limit resets monthly (the
 * subscriptions' and Codex's limits weekly, Gemini's daily), so a month and a day. A reset further
 * than that is not a limit the loop waits for: the run is a failure, with its attempt.
 */
const MAX_PAUSE_DAYS = 32;

/**
 * Why a pause's reset cannot be a provider's (undefined: it can). The run's output is the agent's
 * own and the pause is read from it, so its reset is bounded wherever the loop takes it.
 */
export function incredibleReset(until: string | undefined, now: Date): string | undefined {
  if (until === undefined) return undefined;
  const at = Date.parse(until);
  if (!Number.isFinite(at)) return `its reset ${JSON.stringify(until.slice(0, 40))} is no time`;
  if (at > now.getTime() + MAX_PAUSE_DAYS * DAY)
    return `its reset ${new Date(at).toISOString()} is further away than any provider's limit lasts (${MAX_PAUSE_DAYS} days)`;
  return undefined;
}
