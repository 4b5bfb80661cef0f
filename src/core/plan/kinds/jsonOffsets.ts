/**
 * A JSON reader that keeps where every value sits in the source, so a writer can replace one
 * value and leave every other byte alone. Strict JSON (RFC 8259); a syntax error names its line.
 */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; entries: { key: string; value: JsonNode }[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'string'; start: number; end: number; value: string }
  | { kind: 'number'; start: number; end: number; value: number }
  | { kind: 'literal'; start: number; end: number; value: boolean | null };

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Where each line starts: the index `lineAt` reads, built once per source by its caller. */
export function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of an offset, by binary search in the source's `lineStarts`. */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

// What makes a string's text differ from its value, or the string invalid: escapes, controls.
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const PLAIN_STRING_BREAK = /[\\\u0000-\u001f]/;

// The last text parsed and what came of it (its tree, or its syntax error): a JSON tasks file is
// asked for by its kind's reading and by the validation of the plan that opens it. A tree is
// never changed by its users (a test of the kind freezes one and runs every command on it).
let lastParse: { source: string; root: JsonNode } | { source: string; error: unknown } | undefined;

export function parseJsonWithOffsets(source: string): JsonNode {
  if (lastParse?.source !== source) {
    try {
      lastParse = { source, root: parseJson(source) };
    } catch (error) {
      lastParse = { source, error };
    }
  }
  if ('error' in lastParse) throw lastParse.error;
  return lastParse.root;
}

function parseJson(source: string): JsonNode {
  let at = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(
      at >= source.length ? `unexpected end of JSON (${what})` : `${what} at column ${column()}`,
      at,
      lineAt(lineStarts(source), at),
    );
  };
  const column = (): number => at - source.lastIndexOf('\n', at - 1);
  const skip = (): void => {
    while (at < source.length) {
      const c = source.charCodeAt(at);
      if (c === 32 || c === 9 || c === 10 || c === 13) at++;
      else break;
    }
  };
  const readString = (): { kind: 'string'; start: number; end: number; value: string } => {
    const start = at;
    // The common string has no escape and no control character: the text between the quotes.
    const close = source.indexOf('"', at + 1);
    if (close !== -1) {
      const inner = source.slice(at + 1, close);
      if (!PLAIN_STRING_BREAK.test(inner)) {
        at = close + 1;
        return { kind: 'string', start, end: at, value: inner };
      }
    }
    STRING.lastIndex = at;
    const m = STRING.exec(source);
    if (!m) fail('expected a string');
    at += m![0].length;
    return { kind: 'string', start, end: at, value: JSON.parse(m![0]) as string };
  };
  const value = (): JsonNode => {
    skip();
    const start = at;
    const c = source[at];
    if (c === '{') {
      at++;
      const entries: { key: string; value: JsonNode }[] = [];
      skip();
      if (source[at] === '}') return { kind: 'object', start, end: ++at, entries };
      for (;;) {
        skip();
        if (source[at] !== '"') fail('expected a key in double quotes');
        const key = readString().value;
        skip();
        if (source[at] !== ':') fail('expected ":"');
        at++;
        entries.push({ key, value: value() });
        skip();
        if (source[at] === ',') {
          at++;
          continue;
        }
        if (source[at] === '}') return { kind: 'object', start, end: ++at, entries };
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      at++;
      const items: JsonNode[] = [];
      skip();
      if (source[at] === ']') return { kind: 'array', start, end: ++at, items };
      for (;;) {
        items.push(value());
        skip();
        if (source[at] === ',') {
          at++;
          continue;
        }
        if (source[at] === ']') return { kind: 'array', start, end: ++at, items };
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return readString();
    const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (word !== undefined && source.startsWith(word, at)) {
      at += word.length;
      return { kind: 'literal', start, end: at, value: word === 'null' ? null : word === 'true' };
    }
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(source);
    if (!m) return fail('expected a value');
    at += m[0].length;
    return { kind: 'number', start, end: at, value: Number(m[0]) };
  };
  // A byte-order mark is allowed before the document, as editors write it.
  if (source.charCodeAt(0) === 0xfeff) at = 1;
  const root = value();
  skip();
  if (at < source.length) fail('unexpected text after the JSON document');
  return root;
}

export function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.kind !== 'object') return undefined;
  // JSON.parse keeps the last of duplicate keys; so do we.
  for (let i = node.entries.length - 1; i >= 0; i--) {
    if (node.entries[i]!.key === key) return node.entries[i]!.value;
  }
  return undefined;
}
