// The CLI's bundle (`npm run build`, after tsc): lib/bundle/coder-loop.js, the file package.json's
// `bin` runs, and one chunk per command that it loads when the command runs (esbuild's code
// splitting), the dependencies' code included and tree-shaken. One module graph of a few files
// starts far faster than Node resolving and compiling some hundred modules of lib/ and
// node_modules/ (docs/benchmarks.md, "The CLI's start-up"). Built, like lib/, by `prepare` in a
// clone and in the install `npx github:<owner>/coder-loop` makes; never committed.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import process from 'node:process';

export const CLI_BUNDLE_DIR = 'lib/bundle';

/**
 * coder-loop's own modules run nothing when imported (the CLI's entry aside), so a module none of
 * a command's code uses is left out of its chunks, even where a barrel (core/index.ts) names it.
 */
const ownModulesArePure = {
  name: 'coder-loop-own-modules-are-pure',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'resolving' || !/[\\/]src[\\/]/.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0) return undefined;
      return { path: resolved.path, sideEffects: false };
    });
  },
};

/**
 * remark is loaded on demand: in the bundle, src/core/plan/remark.ts (the one module that imports
 * remark) is src/cli/remarkOnDemand.ts, which loads `remark.cjs` (remark.ts bundled alone) the
 * first time a file needs remark; most plans are read by the line scanners alone.
 */
const remarkOnDemand = {
  name: 'coder-loop-remark-on-demand',
  setup(build) {
    build.onResolve({ filter: /^\.\/remark\.js$/ }, (args) =>
      /[\\/]src[\\/]core[\\/]plan[\\/]markdown\.ts$/.test(args.importer)
        ? { path: resolve('src/cli/remarkOnDemand.ts'), sideEffects: false }
        : undefined,
    );
  },
};

/**
 * The `yaml` package (BMAD's sprint-status.yaml, src/core/plan/kinds/bmad/sprintStatus.ts) is
 * loaded on demand the same way: in the bundle, `yaml` is src/cli/yamlOnDemand.ts, which loads
 * `yaml.cjs` (the package bundled alone) the first time a sprint-status.yaml is read.
 */
const yamlOnDemand = {
  name: 'coder-loop-yaml-on-demand',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, (args) =>
      /[\\/]src[\\/]core[\\/]/.test(args.importer)
        ? { path: resolve('src/cli/yamlOnDemand.ts'), sideEffects: false }
        : undefined,
    );
  },
};

/** What the bundle loads on demand, each bundled alone as CommonJS beside its chunks. */
const ON_DEMAND = { 'remark.cjs': 'src/core/plan/remark.ts', 'yaml.cjs': 'yaml' };

/**
 * Bundles src/cli/index.ts into `outdir`: `coder-loop.js` and its chunks, and what they load on
 * demand (`remark.cjs`, `yaml.cjs`).
 */
export async function bundleCli(outdir = CLI_BUNDLE_DIR) {
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { 'coder-loop': 'src/cli/index.ts' },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: process.env.CODER_LOOP_BUNDLE_DEBUG === undefined,
    sourcemap: false,
    legalComments: 'none',
    // Some bundled CommonJS dependencies call require(); give the ESM chunks one.
    banner: {
      js: "import { createRequire as __coderLoopRequire } from 'node:module'; const require = __coderLoopRequire(import.meta.url);",
    },
    plugins: [remarkOnDemand, yamlOnDemand, ownModulesArePure],
    logLevel: 'warning',
  });
  for (const [file, entry] of Object.entries(ON_DEMAND)) {
    await build({
      entryPoints: [entry],
      outfile: join(outdir, file),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      minify: process.env.CODER_LOOP_BUNDLE_DEBUG === undefined,
      sourcemap: false,
      legalComments: 'none',
      logLevel: 'warning',
    });
  }
}

if (process.argv[1]?.endsWith('bundle-cli.js')) await bundleCli(process.argv[2]);
