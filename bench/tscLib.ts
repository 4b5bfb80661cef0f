import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * tsc's lib/: every source compiled module by module (`tsconfig.build.json`), for the benches
 * that load the modules themselves — a reader's cold read without the bundles' start, the CLI
 * unbundled beside the bundle. `npm run build` makes only the bundles; this is the bench's own.
 */
export function buildTscLib(): void {
  execFileSync(process.execPath, [
    resolve('node_modules/typescript/bin/tsc'),
    '-p',
    'tsconfig.build.json',
  ]);
}
