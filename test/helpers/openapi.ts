import type { ValidateFunction } from 'ajv';
import { API_VERSION } from '../../src/github/client.js';

/**
 * Checks every request the code makes against GitHub's official OpenAPI description
 * (@octokit/openapi): the operation exists (method and path), required path, query and body
 * fields are there, no undeclared query or body field is sent, enum values are allowed, the API
 * version header is pinned. And every answer the tests give on GitHub's behalf (nock's, the
 * in-memory GitHub's) is checked the same way: its status is one the operation documents and its
 * body validates, with Ajv, against the operation's response schema for that status — see
 * `checkAnswer` for the answers whose body is not checked, and why.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  maxProperties?: number;
  minProperties?: number;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  maximum?: number;
  minimum?: number;
};
interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }>; required?: boolean };
  responses: Record<string, unknown>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

/** The description's example `name` (`components.examples`), a deep copy. */
export function specExample(name: string): unknown {
  load();
  const example = spec!.components.examples?.[name] as { value: unknown } | undefined;
  if (!example) throw new Error(`GitHub's OpenAPI description has no example "${name}"`);
  return structuredClone(example.value);
}

type Entry = { method: string; template: string; pattern: RegExp; literal: number; op: Operation };

/**
 * What the suites of a Jest worker share (test/helpers/environment.js): the description, parsed
 * and indexed once, and its validators, compiled once.
 */
interface Worker {
  openapi(): { spec: Spec; index: Map<string, Entry[]> };
  keyOf(method: string, path: string): string;
  validator(key: string, schema: Schema): ValidateFunction;
  appPrivateKey(): string;
}
const shared: Worker =
  (globalThis as { coderLoopWorker?: Worker }).coderLoopWorker ??
  // Outside Jest (a benchmark, the demo): this process's own.
  ((await import('./worker.js' as string)) as { worker: Worker }).worker;
export const worker = (): Worker => shared;

let spec: Spec | undefined;
let index: Map<string, Entry[]> = new Map();
const keyOf = (method: string, path: string) => worker().keyOf(method, path);

function load(): void {
  if (spec) return;
  ({ spec, index } = worker().openapi());
}

function deref<T>(value: T & { $ref?: string }): T {
  let v: unknown = value;
  while (
    v &&
    typeof v === 'object' &&
    '$ref' in v &&
    typeof (v as { $ref: unknown }).$ref === 'string'
  ) {
    const parts = (v as { $ref: string }).$ref.replace(/^#\//, '').split('/');
    v = parts.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], spec);
  }
  return v as T;
}

function typeOk(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

/** Problems of `value` against `schema` (a practical subset of JSON Schema), empty when valid. */
function validate(value: unknown, raw: Schema, where: string, depth = 0): string[] {
  const schema = deref(raw);
  if (depth > 12) return [];
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    const results = alternatives.map((s) => validate(value, s, where, depth + 1));
    return results.some((r) => r.length === 0)
      ? []
      : [`${where}: matches none of the allowed shapes (${results.map((r) => r[0]).join(' | ')})`];
  }
  if (schema.allOf) return schema.allOf.flatMap((s) => validate(value, s, where, depth + 1));
  if (value === null && schema.nullable) return [];
  const types =
    schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((t) => typeOk(value, t)))
    return [`${where}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`];
  if (schema.enum && !schema.enum.includes(value))
    return [`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  const problems: string[] = [];
  // The limits GitHub enforces on what it is sent (a dispatch's client_payload holds at most 10
  // top-level properties; a comment at most 65,536 characters).
  const limit = (what: string, n: number, most?: number, least?: number) => {
    if (most !== undefined && n > most) problems.push(`${where}: ${what} ${n}, at most ${most}`);
    if (least !== undefined && n < least)
      problems.push(`${where}: ${what} ${n}, at least ${least}`);
  };
  if (typeOk(value, 'object'))
    limit(
      'properties',
      Object.keys(value as object).length,
      schema.maxProperties,
      schema.minProperties,
    );
  if (typeof value === 'string')
    limit('characters', [...value].length, schema.maxLength, schema.minLength);
  if (Array.isArray(value)) limit('items', value.length, schema.maxItems, schema.minItems);
  if (typeof value === 'number') limit('value', value, schema.maximum, schema.minimum);
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) =>
      problems.push(...validate(v, schema.items!, `${where}[${i}]`, depth + 1)),
    );
  } else if (typeOk(value, 'object') && (schema.properties || schema.required)) {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? [])
      if (!(key in object)) problems.push(`${where}: required field "${key}" is missing`);
    for (const [key, v] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) problems.push(...validate(v, property, `${where}.${key}`, depth + 1));
      else if (
        schema.additionalProperties === false ||
        (schema.properties && schema.additionalProperties === undefined)
      ) {
        problems.push(`${where}: field "${key}" is not in the operation's schema`);
      }
    }
  }
  return problems;
}

export interface RecordedRequest {
  method: string;
  /** Path with query, without the base URL: `/repos/o/r/git/refs`. */
  path: string;
  operation: string;
  body?: unknown;
  status?: number;
}

/** Everything the checked Octokits sent in this test, and every violation found. */
export const requestLog: RecordedRequest[] = [];
export const violations: string[] = [];

export function resetRequestLog(): void {
  requestLog.length = 0;
  violations.length = 0;
}

export function check(
  method: string,
  url: URL,
  headers: Record<string, unknown>,
  body: unknown,
): { op?: Operation; problems: string[] } {
  load();
  const path = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
  const entry = (index.get(keyOf(method, path)) ?? []).find((e) => e.pattern.test(path));
  if (!entry)
    return { problems: [`${method} ${path}: no such operation in GitHub's OpenAPI description`] };
  const where = `${method} ${entry.template} (${entry.op.operationId})`;
  const problems: string[] = [];
  const params = (entry.op.parameters ?? []).map((p) => deref(p));
  for (const p of params) {
    if (p.in === 'query') {
      const value = url.searchParams.get(p.name);
      if (value === null && p.required)
        problems.push(`${where}: required query parameter "${p.name}" is missing`);
      const schema = p.schema ? deref(p.schema) : undefined;
      if (value !== null && schema?.enum && !schema.enum.map(String).includes(value)) {
        problems.push(
          `${where}: query ${p.name}=${value} is not one of ${JSON.stringify(schema.enum)}`,
        );
      }
    }
  }
  for (const key of url.searchParams.keys()) {
    if (!params.some((p) => p.in === 'query' && p.name === key))
      problems.push(`${where}: query parameter "${key}" is not declared`);
  }
  if (headers['x-github-api-version'] !== API_VERSION)
    problems.push(`${where}: X-GitHub-Api-Version is not pinned to ${API_VERSION}`);
  const content = entry.op.requestBody?.content?.['application/json'];
  if (body !== undefined && !content) problems.push(`${where}: the operation takes no JSON body`);
  if (content) {
    if (body === undefined && entry.op.requestBody?.required)
      problems.push(`${where}: the request body is missing`);
    else if (body !== undefined) problems.push(...validate(body, content.schema, `${where} body`));
  }
  return { op: entry.op, problems };
}

/** What a test's answer looks like on the wire, for `checkAnswer`. */
export interface Answer {
  status: number;
  /** The answer's body: parsed JSON, a string when it is not JSON, undefined when empty. */
  body: unknown;
  /** Whether a header names a primary or secondary rate limit (`retry-after`, remaining 0). */
  rateLimited?: boolean;
}

/**
 * Statuses GitHub answers that the description does not list for an operation, each checked as
 * GitHub's error (`basic-error`). A re-run (documented: 201 only) is refused with a 403 and
 * GitHub's error body — "Unable to retry this workflow run because it was created over a month
 * ago", "This workflow run cannot be retried", "This workflow is already running" — as `gh run
 * rerun` users and workflows that re-run runs report it (cli/cli#9989, metabase/metabase#70916).
 */
const UNLISTED: Record<string, readonly number[]> = {
  'actions/re-run-workflow': [403],
  'actions/re-run-workflow-failed-jobs': [403],
};

/**
 * Problems of an answer to `method url` given on GitHub's behalf: its status is one the operation
 * documents, and its body is what the operation's response for that status describes (an error
 * the description documents without a body is checked as GitHub's error, `basic-error`).
 *
 * Besides each operation's own, the statuses GitHub's REST documentation gives for the whole API
 * are allowed on every operation, their bodies checked as `basic-error`: 401 (bad or expired
 * credentials), 404 (a resource that does not exist, or one the token may not see), a 403 that
 * says "Resource not accessible by …" (a token without the permission), and a rate limit's 403 or
 * 429 (with `retry-after` or `x-ratelimit-remaining: 0`).
 *
 * Not checked, each for its reason (docs/reliability.md lists them too):
 * - a 5xx answer's body: GitHub documents server errors for a handful of operations only, and
 *   its proxies answer them with HTML as often as with JSON — any 5xx is allowed, unread;
 * - the body of an answer in the raw media type (`Accept: application/vnd.github.raw…`, a file's
 *   bytes): the description has no schema for bytes.
 */
export function checkAnswer(
  method: string,
  url: URL,
  requestHeaders: Record<string, unknown>,
  answer: Answer,
): string[] {
  load();
  const path = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
  const entry = (index.get(keyOf(method, path)) ?? []).find((e) => e.pattern.test(path));
  if (!entry) return []; // the request check says so
  const { op } = entry;
  const where = `${method} ${url.pathname}: the ${answer.status} answer (${op.operationId})`;
  const { status } = answer;
  if (status >= 500) return [];
  let described = op.responses[String(status)] ?? op.responses.default;
  const message = (answer.body as { message?: unknown } | undefined)?.message;
  const apiWide =
    status === 401 ||
    status === 404 ||
    (status === 403 &&
      typeof message === 'string' &&
      message.startsWith('Resource not accessible by')) ||
    (answer.rateLimited === true && (status === 403 || status === 429));
  if (!described && (apiWide || UNLISTED[op.operationId ?? '']?.includes(status))) described = {};
  if (!described) {
    return [
      `${method} ${url.pathname}: a ${status} response is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`,
    ];
  }
  const accept = String(requestHeaders.accept ?? '');
  if (/application\/vnd\.github\.raw/.test(accept)) return [];
  const content = deref(described as { content?: Record<string, { schema?: Schema }> }).content;
  // GitHub's errors are JSON (`message`, `documentation_url`) where the description documents
  // no body for them.
  const schema =
    content?.['application/json']?.schema ??
    (status >= 400 ? { $ref: '#/components/schemas/basic-error' } : undefined);
  if (!schema) {
    return answer.body === undefined || answer.body === ''
      ? []
      : [`${where}: has a body; the description documents none`];
  }
  if (answer.body === undefined || typeof answer.body === 'string')
    return [`${where}: is not JSON; the description documents a JSON body`];
  const validate = worker().validator(`${method} ${entry.template} ${status}`, schema);
  if (validate(answer.body)) return [];
  return (validate.errors ?? []).slice(0, 3).map((e) => {
    const at = e.instancePath || '/';
    let value: unknown = answer.body;
    for (const part of e.instancePath.split('/').slice(1))
      value = (value as Record<string, unknown> | undefined)?.[
        part.replace(/~1/g, '/').replace(/~0/g, '~')
      ];
    const shown = JSON.stringify(value) ?? 'undefined';
    return `${where}: body${at} ${e.message ?? 'is invalid'} (${e.keyword} ${JSON.stringify(e.params)}; got ${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown})`;
  });
}

/** Whether an answer's headers say it is a rate limit's (primary or secondary). */
export function rateLimited(headers: Headers | Record<string, unknown>): boolean {
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined);
  return get('retry-after') != null || get('x-ratelimit-remaining') === '0';
}

/** An answer's body as `checkAnswer` takes it: parsed when it is JSON. */
function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A `fetch` for Octokit's `request.fetch` option: the innermost layer, so it sees exactly what goes
 * on the wire (every retry included) and the status of every mocked response. nock answers it.
 */
/**
 * Faults on the wire, for the model-based suite: the next request whose path ends with `match`
 * times out — `before` it reaches GitHub, or `after` GitHub carried it out (the answer is lost).
 */
export const wire = { faults: [] as { match: string; when: 'before' | 'after' }[] };

function takeWireFault(url: URL): 'before' | 'after' | undefined {
  const i = wire.faults.findIndex((f) => url.pathname.endsWith(f.match));
  if (i === -1) return undefined;
  return wire.faults.splice(i, 1)[0]!.when;
}

/**
 * What answers once a request has passed the check: the global `fetch`, which nock intercepts,
 * unless a test puts the in-memory GitHub here (`transport.fetch = sim.fetch`). `beforeScenario`
 * puts nock back.
 */
export const transport: { fetch: typeof fetch } = {
  fetch: (input, init) => globalThis.fetch(input, init),
};
export const NOCK_TRANSPORT = transport.fetch;

/**
 * The body text of an answer the in-memory GitHub made (`sim.fetch`), kept as it went into the
 * `Response`: the check reads these same bytes instead of a clone of the response's stream (a tee
 * of web streams per request, a tenth of a model shard's CPU with the parse it fed; issue 42).
 * Answers from anywhere else (nock, a loopback server) are read from a clone, as before.
 */
export const answeredText = new WeakMap<Response, string>();

/**
 * The checks' verdicts, by exactly what each check reads: a request's method, URL, API version
 * and body; an answer's method, path, `Accept`, status, rate-limit headers and body text. Both
 * checks are pure functions of those, so an exchange seen before (the model suite's runs start
 * from the same repository and repeat most of their reads) gets the verdict it got then without
 * parsing and validating it again (issue 42). A full table starts over.
 */
class Verdicts<T> {
  private readonly seen = new Map<string, T>();
  hits = 0;
  misses = 0;
  of(key: string, judge: () => T): T {
    const known = this.seen.get(key);
    if (known !== undefined) {
      this.hits++;
      return known;
    }
    this.misses++;
    const verdict = judge();
    if (this.seen.size >= 5_000) this.seen.clear();
    this.seen.set(key, verdict);
    return verdict;
  }
}
export const requestVerdicts = new Verdicts<ReturnType<typeof check>>();
export const answerVerdicts = new Verdicts<string[]>();

/** Time spent waiting on the (mocked) GitHub, for benchmarks that separate the App's own time. */
export const fetchClock = { ms: 0 };

export const checkedFetch: typeof fetch = async (input, init) => {
  const began = performance.now();
  try {
    return await checkedFetchInner(input, init);
  } finally {
    fetchClock.ms += performance.now() - began;
  }
};

const checkedFetchInner: typeof fetch = async (input, init) => {
  const url = new URL(
    typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
  );
  const method = (init?.method ?? 'GET').toUpperCase();
  const headers: Record<string, unknown> = {};
  new Headers(init?.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const sent = typeof init?.body === 'string' ? init.body : '';
  const body = sent !== '' ? JSON.parse(sent) : undefined;
  // What check reads of the request: its method, URL, API version and body.
  const { op, problems } = requestVerdicts.of(
    `${method} ${url.href} ${String(headers['x-github-api-version'])}\n${sent}`,
    () => check(method, url, headers, body),
  );
  const record: RecordedRequest = {
    method,
    path: url.pathname.replace(/^\/api\/v3(?=\/)/, '') + url.search,
    operation: op?.operationId ?? '?',
    ...(body !== undefined ? { body } : {}),
  };
  requestLog.push(record);
  if (problems.length > 0) {
    violations.push(...problems);
    throw new Error(`OpenAPI check failed:\n${problems.join('\n')}`);
  }
  const fault = takeWireFault(url);
  if (fault === 'before') throw new TypeError('fetch failed', { cause: new Error('ETIMEDOUT') });
  const response = await transport.fetch(input, init);
  if (fault === 'after')
    throw new TypeError('fetch failed', { cause: new Error('ETIMEDOUT after the write') });
  record.status = response.status;
  if (op) {
    const text = answeredText.get(response) ?? (await response.clone().text());
    const limited = rateLimited(response.headers);
    // What checkAnswer reads of the exchange, and nothing else: the same key, the same verdict.
    const key = `${method} ${url.pathname} ${String(headers.accept ?? '')} ${response.status} ${limited}\n${text}`;
    violations.push(
      ...answerVerdicts.of(key, () =>
        checkAnswer(method, url, headers, {
          status: response.status,
          body: parseBody(text),
          rateLimited: limited,
        }),
      ),
    );
  }
  return response;
};
