import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectChanges, headOf } from '../../src/action/agent/collect.js';
import { runAgent } from '../../src/action/agent/process.js';
import { validateChanges } from '../../src/core/index.js';

let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  })
    .toString('utf8')
    .trim();

beforeEach(async () => {
  repo = await mkdtemp(join(tmpdir(), 'coder-loop-collect-'));
  git('init', '-q');
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'src', 'a.ts'), 'a\n');
  await writeFile(join(repo, 'src', 'gone.ts'), 'gone\n');
  await writeFile(join(repo, 'run.sh'), 'echo\n');
  await writeFile(join(repo, '.gitignore'), 'node_modules/\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});
afterEach(() => rm(repo, { recursive: true, force: true }));

const text = (content: string | undefined) =>
  content === undefined ? undefined : Buffer.from(content, 'base64').toString('utf8');

describe('collecting the agent changes against the head', () => {
  it('an untouched checkout has no change', async () => {
    expect(await collectChanges(repo, await headOf(repo))).toEqual([]);
  });

  it('adds, edits, deletes, modes, symbolic links and binary files; .gitignore holds', async () => {
    const base = await headOf(repo);
    await writeFile(join(repo, 'src', 'a.ts'), 'a2\n');
    await unlink(join(repo, 'src', 'gone.ts'));
    await chmod(join(repo, 'run.sh'), 0o755);
    await writeFile(join(repo, 'new file.txt'), 'new\n');
    await symlink('src/a.ts', join(repo, 'link'));
    await writeFile(join(repo, 'bin.dat'), Buffer.from([0, 1, 254, 255]));
    await mkdir(join(repo, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(repo, 'node_modules', 'x', 'index.js'), 'ignored\n');
    const changes = await collectChanges(repo, base);
    expect(
      changes.map((c) => [
        c.path,
        'deleted' in c ? 'deleted' : c.mode,
        'content' in c ? text(c.content) : undefined,
      ]),
    ).toEqual([
      ['bin.dat', '100644', Buffer.from([0, 1, 254, 255]).toString('utf8')],
      ['link', '120000', 'src/a.ts'],
      ['new file.txt', '100644', 'new\n'],
      ['run.sh', '100755', 'echo\n'],
      ['src/a.ts', '100644', 'a2\n'],
      ['src/gone.ts', 'deleted', undefined],
    ]);
    const bin = changes.find((c) => c.path === 'bin.dat') as { content: string };
    expect(Buffer.from(bin.content, 'base64')).toEqual(Buffer.from([0, 1, 254, 255]));
    expect(validateChanges(changes, 'docs/plans').ok).toBe(true);
  });

  it('compares files, not history: commits the agent made itself are covered', async () => {
    const base = await headOf(repo);
    await writeFile(join(repo, 'src', 'a.ts'), 'committed by the agent\n');
    git('commit', '-q', '-am', 'agent commit');
    await writeFile(join(repo, 'later.txt'), 'later\n');
    const changes = await collectChanges(repo, base);
    expect(changes.map((c) => c.path)).toEqual(['later.txt', 'src/a.ts']);
  });

  it('ignores a hook or an fsmonitor the agent planted in .git/config', async () => {
    const base = await headOf(repo);
    const marker = join(repo, '..', `fsmonitor-ran-${process.pid}`);
    git('config', 'core.fsmonitor', `touch ${marker}`);
    await writeFile(join(repo, 'x.txt'), 'x\n');
    expect((await collectChanges(repo, base)).map((c) => c.path)).toEqual(['x.txt']);
    expect(() => execFileSync('test', ['-e', marker])).toThrow();
  });

  it('runs no clean filter and honours no replace ref the agent planted in .git', async () => {
    const base = await headOf(repo);
    const marker = join(repo, '..', `filter-ran-${process.pid}`);
    git('config', 'filter.evil.clean', `sh -c 'touch ${marker}; cat'`);
    git('config', 'filter.evil.required', 'true');
    await writeFile(join(repo, '.gitattributes'), '* filter=evil\n');
    // A replace ref that would swap the base commit for one whose tree is empty.
    const empty = git('commit-tree', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', '-m', 'empty');
    git('replace', base, empty);
    await writeFile(join(repo, 'x.txt'), 'x\n');
    expect((await collectChanges(repo, base)).map((c) => c.path)).toEqual([
      '.gitattributes',
      'x.txt',
    ]);
    expect(() => execFileSync('test', ['-e', marker])).toThrow();
  });
});

/** The live processes running `sleep <seconds>` (a zombie has no command line). */
function sleepers(seconds: string): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
      } catch {
        return false; // gone meanwhile
      }
    });
}

describe('running the agent', () => {
  it('passes exactly the environment given and keeps the tail of the output', async () => {
    const run = await runAgent(
      'echo "node=$CODER_NODE secret=${SECRET:-none}"; exit 4',
      { cwd: repo, env: { PATH: process.env.PATH!, CODER_NODE: 'tdd' }, timeoutMs: 10_000 },
      () => undefined,
    );
    expect(run).toMatchObject({
      exitCode: 4,
      signal: null,
      timedOut: false,
      outputTail: 'node=tdd secret=none\n',
      survivors: 0,
    });
  });

  it('past the timeout: TERM to the group, then KILL when it is ignored', async () => {
    // The shell says when TERM reached it and goes on; a child ignores TERM outright. Order and
    // outcome are asserted, not how long it took.
    // A sleep this test can find among the machine's processes afterwards.
    const seconds = `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const run = await runAgent(
      `trap 'echo TERM' TERM; (trap '' TERM; sleep ${seconds}) & echo started; while :; do sleep 0.1; done`,
      { cwd: repo, env: { PATH: process.env.PATH! }, timeoutMs: 1_000, graceMs: 300 },
      () => undefined,
    );
    expect(run).toMatchObject({
      timedOut: true,
      // Killed: the shell did not exit on TERM, so no exit code.
      exitCode: null,
      signal: 'SIGKILL',
      // The child that ignored TERM was killed too.
      survivors: 0,
    });
    expect(sleepers(seconds)).toEqual([]);
    // (bash may also print "Terminated" for the sleep that TERM ended.)
    const lines = run.outputTail.split('\n');
    expect(lines.filter((line) => line === 'started' || line === 'TERM')).toEqual([
      'started',
      'TERM',
    ]);
  });
});
