// Installs the agent CLIs test/agents/clis.e2e.test.ts runs (test/agents/clis/package-lock.json,
// pinned) when any is missing or at another version: `npm ci --prefix test/agents/clis`.
// Their install scripts put each platform's native binary in place (Claude Code, OpenCode).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'agents', 'clis');
const pinned = (
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies;
const stale = Object.entries(pinned).filter(([name, version]) => {
  const file = join(dir, 'node_modules', name, 'package.json');
  return (
    !existsSync(file) ||
    (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version !== version
  );
});
if (stale.length === 0) process.exit(0);
console.log(
  `Installing the agent CLIs (${stale.map(([n, v]) => `${n}@${v}`).join(', ')}) into ${dir}`,
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const flags = ['--prefix', dir, '--no-audit', '--no-fund'];
let run = spawnSync(npm, ['ci', ...flags], { stdio: 'inherit' });
if (run.status !== 0) {
  // A registry mirror without every platform's binary package (opencode-ai lists one per
  // platform) makes a lockfile `npm ci` calls out of sync: install the same pinned versions.
  console.log('npm ci failed; installing the pinned versions with npm install --no-save');
  run = spawnSync(npm, ['install', '--no-save', ...flags], { stdio: 'inherit' });
}
process.exit(run.status ?? 1);
