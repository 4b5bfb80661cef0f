// `prepare` (run by `npm ci` and `npm install` in a clone): build lib/ (`npm run build`). An
// install without the dev dependencies (`npm ci --omit=dev`: every dependency is one, the App and
// the CLI are bundles) has no bundler; on a built tree it keeps the lib/ that `npm run build`
// made, and without one it says what to do instead of failing in the build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';

function hasBundler() {
  try {
    createRequire(import.meta.url).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

if (hasBundler()) {
  const build = spawnSync('npm', ['run', 'build'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  process.exit(build.status ?? 1);
} else if (existsSync('lib/app-bundle/app.js')) {
  process.stdout.write('prepare: no esbuild (a production install): using the built lib/.\n');
} else {
  process.stderr.write(
    'prepare: lib/ is not built and esbuild, which builds it, is not installed. Run `npm ci` with the dev dependencies (it builds lib/), then `npm start`.\n',
  );
  process.exit(1);
}
