// Jest's transform of the TypeScript sources and tests: esbuild's, TypeScript's types stripped file
// by file (tsconfig.json's `isolatedModules`, which makes that safe, and its target), ES modules
// kept, with a source map for the stack traces (test/transform.test.ts). It does the work ts-jest
// did in its transpile mode (TypeScript's `transpileModule`, file by file as well) without each
// Jest worker loading TypeScript's compiler: on test/core/loop and test/github with a cold cache,
// 41 s of CPU instead of 62 (issue 42). Types are checked where they always were: `npm run
// typecheck`, beside Jest in `npm test`. Jest's transformer interface: process + cache key.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import { transformSync, version } from 'esbuild';

/** What the output depends on besides the file: esbuild's version and this file. */
const SELF = createHash('sha256')
  .update(version)
  .update(readFileSync(new URL(import.meta.url)))
  .digest('hex');

/** tsconfig.json's settings that change what a file compiles to. */
const TSCONFIG = {
  compilerOptions: { target: 'ES2022', useDefineForClassFields: true, isolatedModules: true },
};

function process(source, path) {
  const { code, map } = transformSync(source, {
    loader: 'ts',
    format: 'esm',
    target: 'es2022',
    platform: 'node',
    sourcefile: path,
    sourcemap: 'external',
    sourcesContent: false,
    tsconfigRaw: TSCONFIG,
  });
  return { code, map };
}

export default {
  process,
  processAsync: async (source, path) => process(source, path),
  getCacheKey: (source, path) =>
    createHash('sha256').update(SELF).update(path).update(source).digest('hex'),
  getCacheKeyAsync: async (source, path) =>
    createHash('sha256').update(SELF).update(path).update(source).digest('hex'),
};
