import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './package.js';

// Fails when the committed dist/ is not what `npm run package` builds from src/ now.
const dir = await mkdtemp(join(tmpdir(), 'coder-loop-dist-'));
try {
  await bundle(join(dir, 'index.js'));
  for (const file of ['index.js', 'licenses.txt']) {
    const fresh = await readFile(join(dir, file), 'utf8');
    const committed = await readFile(join('dist', file), 'utf8').catch(() => '');
    if (fresh !== committed) {
      console.error(`dist/${file} is stale: run "npm run package" and commit dist/.`);
      process.exit(1);
    }
  }
  // Up to date: dist/index.js is touched, so that the suites that run the bundle (test/helpers/
  // build.ts's `freshBuild('dist')`) find it newer than every source and do not bundle again.
  const now = new Date();
  await utimes(join('dist', 'index.js'), now, now);
  console.log('dist/index.js and dist/licenses.txt are up to date');
} finally {
  await rm(dir, { recursive: true, force: true });
}
