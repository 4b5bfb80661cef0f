import { build } from 'esbuild';

/** The Action's bundle: one ESM file (and its source map) in dist/, committed. */
export async function bundle(outfile: string): Promise<void> {
  await build({
    entryPoints: ['src/action/index.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    legalComments: 'none',
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __coderLoopRequire } from 'node:module'; const require = __coderLoopRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (process.argv[1]?.endsWith('package.ts')) {
  await bundle(process.argv[2] ?? 'dist/index.js');
  console.log(`bundled ${process.argv[2] ?? 'dist/index.js'}`);
}
