import { build, type Metafile, type Plugin } from 'esbuild';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/**
 * @actions/core imports its OIDC client (`core.getIDToken`) at its top, and with it
 * @actions/http-client, undici and tunnel: a third of the bundle, parsed and run at every start of
 * the Action (~60 ms of its ~220 ms above Node's own start), for a function coder-loop never calls.
 * This plugin gives core.js an `OidcClient` whose `getIDToken` imports the real one when called:
 * esbuild puts that one and the HTTP stack in a chunk of their own, loaded only then.
 */
const lazyOidc: Plugin = {
  name: 'lazy-oidc',
  setup(build) {
    build.onResolve({ filter: /^\.\/oidc-utils\.js$/ }, (args) =>
      /[\\/]@actions[\\/]core[\\/]lib[\\/]core\.js$/.test(args.importer)
        ? { path: join(args.resolveDir, 'oidc-utils.js'), namespace: 'lazy-oidc' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-oidc' }, (args) => ({
      contents: `export class OidcClient {
  static async getIDToken(audience) {
    const { OidcClient } = await import(${JSON.stringify(args.path)});
    return OidcClient.getIDToken(audience);
  }
}`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/** The files `npm run package` writes in dist/ (the entry, its chunks, the licenses), sorted. */
export function distFiles(dir: string): string[] {
  const walk = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(at, entry.name)) : [join(at, entry.name)],
    );
  return existsSync(dir)
    ? walk(dir)
        .map((path) => relative(dir, path).split(sep).join('/'))
        .sort()
    : [];
}

/**
 * The files of dist/ that differ between two builds `a` and `b`: missing from either, or not byte
 * for byte the same. Empty when `b` is what `a` is.
 */
export function distDiff(a: string, b: string): string[] {
  const inA = distFiles(a);
  const inB = distFiles(b);
  return [...new Set([...inA, ...inB])]
    .sort()
    .filter(
      (file) =>
        !inA.includes(file) ||
        !inB.includes(file) ||
        !readFileSync(join(a, file)).equals(readFileSync(join(b, file))),
    );
}

/**
 * The Action's bundle, committed in dist/: the entry dist/index.js (action.yml's `runs.main`), the
 * chunks it imports (dist/chunks/, only when needed: see lazyOidc) and the third-party licenses.
 * `outdir` is emptied first, so that no chunk of an older build stays. No source map: a 5 MB
 * one-line file rewritten by every rebuild would dwarf the history (the bundle keeps esbuild's
 * `// path` comments, which name each module in a stack trace's neighbourhood).
 */
export async function bundle(outdir: string): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { index: 'src/action/index.ts' },
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    plugins: [lazyOidc],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __coderLoopRequire } from 'node:module'; const require = __coderLoopRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  await writeFile(join(outdir, 'licenses.txt'), licensesText(result.metafile));
}

interface Package {
  name: string;
  version: string;
  license: string;
  text: string | undefined;
}

/** The package folder of a bundled file: the folder after its last `node_modules/` (scoped too). */
function packageDir(input: string): string | undefined {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return undefined;
  const length = parts[at + 1]?.startsWith('@') ? 2 : 1;
  return parts.slice(0, at + 1 + length).join(sep);
}

function readPackage(dir: string): Package {
  const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string | { type: string };
    licenses?: { type: string }[];
  };
  const names = readdirSync(dir).sort();
  const file = names.find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
  const readme = names.find((name) => /^readme(\.|$)/i.test(name));
  const license =
    typeof json.license === 'object'
      ? json.license.type
      : (json.license ?? json.licenses?.map((l) => l.type).join(' OR ') ?? 'UNKNOWN');
  return {
    name: json.name,
    version: json.version,
    license,
    text: file
      ? readFileSync(join(dir, file), 'utf8').trim()
      : readme && readmeLicense(readFileSync(join(dir, readme), 'utf8')),
  };
}

/** The "License" section of a README (where a package ships no license file), to its end. */
function readmeLicense(readme: string): string | undefined {
  const match = /^(?:#+ *licen[cs]e\b.*|licen[cs]e\s*\n[=-]+)\s*$/im.exec(readme);
  if (!match) return undefined;
  const rest = readme.slice(match.index + match[0].length);
  const next = /^(?:#+ |\S.*\n[=-]{3,}\s*$)/m.exec(rest);
  return `(from its README)\n${rest.slice(0, next?.index).trim()}`;
}

/**
 * dist/licenses.txt (and the App's lib/app-bundle/licenses.txt, `about` naming its bundle): every
 * npm package esbuild put code of into the bundle (from its metafile), with its license field and
 * the license file it ships.
 */
export function licensesText(
  metafile: Metafile,
  about = {
    bundle: 'dist/, the coder-loop Action bundle',
    command: 'npm run package',
  },
): string {
  // The inputs of the output that put bytes into it (a file tree-shaken away entirely ships no code).
  const inputs = Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  const dirs = new Set(
    inputs
      .map(packageDir)
      .filter((dir): dir is string => dir !== undefined && existsSync(join(dir, 'package.json'))),
  );
  const packages = [...dirs]
    .map(readPackage)
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version, 'en'));
  const seen = new Set<string>();
  const entries = packages
    .filter((p) => !seen.has(`${p.name}@${p.version}`) && seen.add(`${p.name}@${p.version}`))
    .map((p) =>
      [
        `${p.name} ${p.version}`,
        `License: ${p.license}`,
        '',
        p.text ?? `(the package ships no license file; its package.json says ${p.license})`,
      ].join('\n'),
    );
  return [
    `Third-party software in ${about.bundle}`,
    `(generated by ${about.command} from esbuild's metafile: ${entries.length} packages).`,
    'coder-loop itself is MIT-licensed: see LICENSE.',
    '',
    ...entries.map((entry) => `${'-'.repeat(78)}\n\n${entry}\n`),
  ].join('\n');
}

if (process.argv[1]?.endsWith('package.ts')) {
  const outdir = process.argv[2] ?? 'dist';
  await bundle(outdir);
  console.log(
    `bundled ${distFiles(outdir)
      .map((file) => join(outdir, file))
      .join(', ')}`,
  );
}
