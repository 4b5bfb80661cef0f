import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './package.js';

// Fails when the committed dist/ is not what `npm run package` builds from src/ now.
const dir = await mkdtemp(join(tmpdir(), 'coder-loop-dist-'));
try {
  await bundle(join(dir, 'index.js'));
  const fresh = await readFile(join(dir, 'index.js'), 'utf8');
  const committed = await readFile('dist/index.js', 'utf8').catch(() => '');
  if (fresh !== committed) {
    console.error('dist/index.js is stale: run "npm run package" and commit dist/.');
    process.exit(1);
  }
  console.log('dist/index.js is up to date');
} finally {
  await rm(dir, { recursive: true, force: true });
}
