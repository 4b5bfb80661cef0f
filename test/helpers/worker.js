import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * What every suite a Jest worker runs can share instead of making it again: GitHub's OpenAPI description parsed and indexed, the Ajv validators of its response
 * schemas, and an App private key. Each suite made its own before: about 1.7 s of CPU a suite
 * (the description's parse and index 0.2 s, Ajv's compiling 1.1 s, an RSA key 0.3 s), over a
 * hundred seconds of a CI run (issue 42).
 *
 * What is shared lives here, outside the suites' sandboxes, and holds nothing of any suite: a
 * suite passes in no object the worker keeps (the schemas are the description's own; a key is a
 * string), so a suite that ended is not kept alive by the next one's use of the validators. The
 * checks themselves stay in test/helpers/openapi.ts; a suite reaches this as
 * `globalThis.coderLoopWorker` (test/helpers/environment.js puts it there), and a script outside
 * Jest (a benchmark, the demo) by importing it.
 */
const require = createRequire(import.meta.url);

/** GitHub's description of its REST API and its operations by method and segment count. */
let openapi;

/** Operations by method and segment count: a request is matched against a few dozen, not all. */
const keyOf = (method, path) => `${method} ${path.split('/').length}`;

/**
 * Where GitHub answers what its description does not allow, each with the report of it: a
 * workflow run whose pull request came from a fork deleted since has `head_repository: null`
 * (github/rest-api-description#1586; backstage/backstage#5181 met it too).
 */
function correct(spec) {
  const run = spec.components.schemas['workflow-run'];
  run.properties.head_repository = { ...run.properties.head_repository, nullable: true };
}

function describeApi() {
  if (openapi) return openapi;
  const spec = JSON.parse(
    readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
  );
  correct(spec);
  const table = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`,
      );
      table.push({
        method: method.toUpperCase(),
        template,
        pattern,
        literal: template.replace(/\{[^}]+\}/g, '').length,
        op,
      });
    }
  }
  table.sort((a, b) => b.literal - a.literal);
  const index = new Map();
  for (const entry of table) {
    const key = keyOf(entry.method, entry.template);
    index.set(key, [...(index.get(key) ?? []), entry]);
  }
  return (openapi = { spec, index });
}

/** OpenAPI's name for a component, `#/components/schemas/x`, as Ajv finds it in the `gh` document. */
const GH = 'https://api.github.com/openapi.json';

/**
 * One of the description's (OpenAPI 3.0) schemas as JSON Schema draft-07, which Ajv reads:
 * `nullable: true` becomes `null` among the types (and the enum), or "this or null" where there is
 * no type; `oneOf` becomes `anyOf`, because the description's alternatives overlap (a file's
 * `content-file` and `content-submodule`, a user and a bot) and a real answer matches several;
 * `discriminator`, `example`, `deprecated` and `readOnly` are notes, dropped. References point
 * into the `gh` document, so a schema compiles on its own. A copy: the input is only read.
 */
function toJsonSchema(raw) {
  if (typeof raw !== 'object' || raw === null) return raw;
  const out = {};
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case '$ref':
        out.$ref = `${GH}${value}`;
        break;
      case 'properties':
      case 'patternProperties':
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v)]));
        break;
      case 'items':
      case 'additionalProperties':
      case 'not':
        out[key] = toJsonSchema(value);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[key === 'oneOf' ? 'anyOf' : key] = value.map(toJsonSchema);
        break;
      case 'nullable':
      case 'discriminator':
      case 'example':
      case 'examples':
      case 'deprecated':
      case 'readOnly':
      case 'writeOnly':
      case 'xml':
      case 'externalDocs':
        break;
      default:
        if (!key.startsWith('x-')) out[key] = value;
    }
  }
  if (raw.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

let ajv;
const compiled = new Map();

/**
 * The validator of one of the description's schemas, compiled once per worker. `schema` is read
 * (copied by `toJsonSchema`), never kept.
 */
function validator(key, schema) {
  let validate = compiled.get(key);
  if (validate) return validate;
  if (!ajv) {
    // `inlineRefs: false`: a component every answer names (a user, a repository, a pull
    // request) is compiled once, as a function of its own the schemas that name it call, not
    // again inside each of them. The same checks and errors, in half of Ajv's time.
    ajv = new Ajv({ strict: false, validateSchema: false, allErrors: false, inlineRefs: false });
    addFormats.default(ajv);
    // Formats the description names that JSON Schema has no check for.
    for (const name of ['repo.nwo', 'timestamp']) ajv.addFormat(name, true);
    const schemas = Object.fromEntries(
      Object.entries(describeApi().spec.components.schemas ?? {}).map(([k, v]) => [
        k,
        toJsonSchema(v),
      ]),
    );
    ajv.addSchema({ $id: GH, components: { schemas } });
  }
  validate = ajv.compile(toJsonSchema(schema));
  compiled.set(key, validate);
  return validate;
}

let privateKey;

/** An App private key (PEM, PKCS#1, as GitHub hands one out), made once per worker. */
function appPrivateKey() {
  return (privateKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey);
}

export const worker = Object.freeze({ openapi: describeApi, keyOf, validator, appPrivateKey });
