// Installs the agent CLIs test/agents/clis.e2e.test.ts runs (test/agents/clis/package.json pins
// each one's version; its package-lock.json pins everything else) when any is missing or at
// another version.
//
// `npm install --no-save`, not `npm ci`: opencode-ai lists a binary package per platform, and a
// lock written where the registry lacks some of them (a mirror) has no entry for those, which
// `npm ci` calls out of sync (about 110 lines of `Missing: opencode-*@ from lock file`) before
// anything is installed. `npm install` takes every package the lock holds at its locked version
// and integrity, and skips an optional platform package the registry or this machine does not
// have; `--no-save` leaves the lock as committed.
//
// Install scripts: package.json's `allowScripts` runs the two that put the native binary in place
// (Claude Code, OpenCode) and refuses Gemini's optional node-pty and keytar builds (a node-gyp
// compile and a download; Gemini runs without them), so npm prints no review list either.
//
// Plain JavaScript, run by node alone: .ci/run starts it before `npm ci`, beside it (issue 42),
// when the project's own dependencies (tsx among them) are not installed yet.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'agents', 'clis');
/** @type {Record<string, string>} */
const pinned = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies;
const stale = Object.entries(pinned).filter(([name, version]) => {
  const file = join(dir, 'node_modules', name, 'package.json');
  return !existsSync(file) || JSON.parse(readFileSync(file, 'utf8')).version !== version;
});
if (stale.length === 0) process.exit(0);
process.stdout.write(
  `Installing the agent CLIs (${stale.map(([n, v]) => `${n}@${v}`).join(', ')}) into ${dir}\n`,
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = spawnSync(
  npm,
  ['install', '--no-save', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'],
  { stdio: 'inherit' },
);
process.exit(run.status ?? 1);
