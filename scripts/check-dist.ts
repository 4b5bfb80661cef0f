import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
  console.log('dist/index.js and dist/licenses.txt are up to date');
} finally {
  await rm(dir, { recursive: true, force: true });
}
