import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * tsc's lib/: every source compiled module by module (`tsconfig.build.json`), for the benches
 * that load the modules themselves — a reader's cold read without the bundles' start, the CLI
 * unbundled beside the bundle. `npm run build` makes only the bundles; this is the benches' own.
 * `project` and `args` compile another checkout's sources (`--outDir` elsewhere).
 */
export function buildTscLib(project = 'tsconfig.build.json', args: string[] = []): void {
  execFileSync(process.execPath, [
    resolve('node_modules/typescript/bin/tsc'),
    '-p',
    resolve(project),
    ...args,
  ]);
}
