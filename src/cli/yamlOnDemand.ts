import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

/**
 * What the CLI's bundle puts in place of the `yaml` package (scripts/bundle-cli.js), which only
 * one kind's status file is read with (a reader in src/core/plan/kinds/): the functions it calls,
 * whose package lives in lib/bundle/yaml.cjs, beside the bundle's chunks, and is loaded
 * (synchronously: the readers are) the first time one of them is called. A command in a
 * repository without such a plan never loads or compiles it.
 */
let yaml: typeof Yaml | undefined;
const load = () => (yaml ??= createRequire(import.meta.url)('./yaml.cjs') as typeof Yaml);

export const isMap = ((node: unknown) => load().isMap(node)) as typeof Yaml.isMap;
export const isScalar = ((node: unknown) => load().isScalar(node)) as typeof Yaml.isScalar;
export const parseDocument = ((...args: Parameters<typeof Yaml.parseDocument>) =>
  load().parseDocument(...args)) as typeof Yaml.parseDocument;
/** `new LineCounter()` makes the package's own (a constructor that returns an object). */
export const LineCounter = function LineCounter() {
  return new (load().LineCounter)();
} as unknown as typeof Yaml.LineCounter;
