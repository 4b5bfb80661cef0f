// `npm test` first: the two programs the full suite runs besides Node, checked before the
// full run starts rather than failing at its end. redis-server: test/app/replicas.test.ts
// (two App replicas sharing throttling); bwrap: Codex's sandbox in test/agents/clis.e2e.test.ts.
// One line names what is missing and how to get it; `bash .ci/run` installs both itself.
import { spawnSync } from 'node:child_process';
import process from 'node:process';

const NEEDS = [
  { program: 'redis-server', pkg: 'redis-server' },
  { program: 'bwrap', pkg: 'bubblewrap' },
];

const missing = NEEDS.filter(({ program }) => spawnSync(program, ['--version']).error);
if (missing.length > 0) {
  const names = missing.map((m) => m.program).join(' and ');
  const pkgs = missing.map((m) => m.pkg).join(' ');
  process.stderr.write(
    `npm test needs ${names}, missing on this machine: sudo apt-get install -y ${pkgs} (Debian/Ubuntu), or run \`bash .ci/run\`, which installs ${missing.length > 1 ? 'them' : 'it'} and then runs npm test. \`npm run test:fast\` needs neither.\n`,
  );
  process.exit(1);
}
