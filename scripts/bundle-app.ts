// The GitHub App's bundle (`npm run build`, or `npm run build:app` alone, as the Dockerfile does):
// lib/app-bundle/app.js, what `npm start` runs, with every dependency inside — Probot, BullMQ,
// ioredis, pino, smee-client — so the App runs with no node_modules at all (the image holds only
// this folder and app.yml), and lib/app-bundle/licenses.txt, their licenses. Like lib/, built in a
// clone and never committed. Two folders up from app.js is the package root (src/app/setup.ts
// reads app.yml and docs/ there), as it is from lib/app/ and src/app/.
import { build, type Plugin } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { licensesText } from './package.js';

export const APP_BUNDLE_DIR = 'lib/app-bundle';

/**
 * Where a dependency finds a module or file at run time in a way esbuild cannot see, the source
 * it bundles says it statically. Each `from` must be there: a dependency's update that changes it
 * fails the build instead of leaving a bundle that looks in node_modules/.
 */
const REWRITES = [
  {
    // Probot (REDIS_URL) imports ioredis by a name and version it asks npx for at run time.
    file: /[\\/]node_modules[\\/]probot[\\/]lib[\\/]octokit[\\/]get-octokit-throttle-options\.js$/,
    from: '(await npxImport("ioredis@5.9.3", { onlyPackageRunner: true }))',
    to: '(await import("ioredis"))',
  },
  {
    // Bottleneck (Probot's throttling with REDIS_URL) hides its optional ioredis from bundlers.
    file: /[\\/]node_modules[\\/]bottleneck[\\/]lib[\\/]IORedisConnection\.js$/,
    from: 'eval("require")("ioredis")',
    to: 'require("ioredis")',
  },
  {
    // ioredis reads its own package.json beside it for the version it names to Redis (CLIENT SETINFO).
    file: /[\\/]node_modules[\\/]ioredis[\\/]built[\\/]utils[\\/]index\.js$/,
    from: 'const filePath = (0, path_1.resolve)(__dirname, "..", "..", "package.json");\n        const data = await fs_1.promises.readFile(filePath, "utf8");',
    to: 'const data = JSON.stringify({ version: require("../../package.json").version });',
  },
];

const rewrites: Plugin = {
  name: 'coder-loop-app-rewrites',
  setup(build) {
    for (const { file, from, to } of REWRITES)
      build.onLoad({ filter: file }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes(from))
          throw new Error(
            `${args.path} no longer has ${JSON.stringify(from)}: see ${import.meta.url}`,
          );
        return { contents: source.replace(from, to), loader: 'js' };
      });
  },
};

/** Bundles src/app/main.ts into `outdir`: `app.js` and `licenses.txt`. */
export async function bundleApp(outdir = APP_BUNDLE_DIR): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { app: 'src/app/main.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Not minified, as dist/index.js is not: a stack trace from a server names readable code.
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    // msgpackr's (BullMQ's) optional native decoder, a compiled addon: loaded when installed beside
    // the bundle (a clone's node_modules), msgpackr's own JavaScript otherwise.
    external: ['msgpackr-extract'],
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __coderLoopRequire } from 'node:module'; const require = __coderLoopRequire(import.meta.url);",
    },
    plugins: [rewrites],
    logLevel: 'warning',
  });
  await writeFile(
    join(outdir, 'licenses.txt'),
    licensesText(result.metafile, {
      bundle: `${APP_BUNDLE_DIR}/app.js, the coder-loop GitHub App bundle`,
      command: 'npm run build',
    }),
  );
}

if (process.argv[1]?.endsWith('bundle-app.ts')) await bundleApp(process.argv[2]);
