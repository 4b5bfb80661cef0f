import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, distDiff, distFiles } from './package.js';

// Fails when the committed dist/ is not what `npm run package` builds from src/ now: the same
// files (the entry, its chunks, the licenses), none more, each byte for byte.
const dir = await mkdtemp(join(tmpdir(), 'coder-loop-dist-'));
try {
  await bundle(dir);
  const stale = distDiff(dir, 'dist');
  if (stale.length) {
    console.error(
      `${stale.map((file) => `dist/${file}`).join(', ')} ${stale.length === 1 ? 'is' : 'are'} stale (missing, extra or changed): run "npm run package" and commit dist/.`,
    );
    process.exit(1);
  }
  // Up to date: dist/index.js is touched, so that the suites that run the bundle (test/helpers/
  // build.ts's `freshBuild('dist')`) find it newer than every source and do not bundle again.
  const now = new Date();
  await utimes(join('dist', 'index.js'), now, now);
  console.log(`dist/ is up to date (${distFiles('dist').join(', ')})`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
