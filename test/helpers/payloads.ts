import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const definitions = require('@octokit/webhooks-examples') as {
  name: string;
  examples: Record<string, unknown>[];
}[];

/**
 * A real example payload from @octokit/webhooks-examples (deep-copied), with the `installation`
 * an App receives added. Tests change only the fields their scenario is about.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function examplePayload(event: string, action?: string, index = 0): any {
  const definition = definitions.find((d) => d.name === event);
  if (!definition) throw new Error(`no example payloads for ${event}`);
  const examples = definition.examples.filter((e) => action === undefined || e.action === action);
  const example = examples[index];
  if (!example) throw new Error(`no example ${index} for ${event}.${action}`);
  const payload = structuredClone(example) as Record<string, unknown>;
  payload.installation = { id: 4242, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==' };
  return payload;
}
