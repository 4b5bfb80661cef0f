import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bundle, distDiff } from '../../scripts/package.js';
import { repoRoot } from '../paths.js';

/**
 * Suites that run the BUILT code (lib/ from `npm run build`, dist/ from `npm run package`) check
 * first that it was built from src/ as it is now: run alone after an edit to src/, such a suite
 * would otherwise test the old build without a word. `npm test` builds lib/ before jest, and
 * `npm run check-dist` holds the committed dist/ to src/.
 */
export async function freshBuild(built: 'lib' | 'dist'): Promise<void> {
  const stale = built === 'lib' ? staleLib() : await staleDist();
  if (stale) throw new Error(`stale build: ${stale}`);
}

const SRC = join(repoRoot, 'src');

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const named = (paths: string[]) =>
  `${paths
    .slice(0, 3)
    .map((p) => relative(repoRoot, p))
    .join(', ')}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`;

/**
 * lib/ is the CLI's bundle (lib/bundle/, package.json's `bin`) and the App's (lib/app-bundle/, what
 * `npm start` runs), each made by `npm run build` from every source: neither may be older than one.
 */
function staleLib(): string | undefined {
  for (const bundle of ['lib/bundle/coder-loop.js', 'lib/app-bundle/app.js']) {
    const path = join(repoRoot, bundle);
    const built = existsSync(path) ? statSync(path).mtimeMs : -Infinity;
    const later = sources().filter((source) => statSync(source).mtimeMs > built);
    if (later.length)
      return `${named(later)} ${later.length === 1 ? 'is' : 'are'} newer than ${bundle} (or it is not built): run "npm run build" first.`;
  }
  return undefined;
}

/**
 * dist/ is committed: a checkout sets its mtime and the sources' in any order, so a source newer
 * than dist/index.js only says "maybe". Then the bundle is made again and compared, as
 * `npm run check-dist` does; when it is the same, dist/index.js is touched so that the next suite
 * need not make it again.
 */
async function staleDist(): Promise<string | undefined> {
  const dist = join(repoRoot, 'dist', 'index.js');
  if (!existsSync(dist)) return 'dist/index.js is missing: run "npm run package" first.';
  const built = statSync(dist).mtimeMs;
  const newer = sources().filter((source) => statSync(source).mtimeMs > built);
  if (!newer.length) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'coder-loop-fresh-'));
  try {
    await bundle(dir);
    const stale = distDiff(dir, join(repoRoot, 'dist'));
    if (stale.length) {
      return `dist/ (${stale.join(', ')}) is not what "npm run package" builds from src/ now (${named(newer)} changed since): run "npm run package" first.`;
    }
    const now = new Date();
    utimesSync(dist, now, now);
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
