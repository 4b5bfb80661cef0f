import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * scripts/release.sh (what the release workflow runs) against a throwaway clone and its bare
 * origin: the vX.Y.Z tag and the moving major tag that `uses: <owner>/coder-loop@v1` resolves.
 */
const SCRIPT = join(repoRoot, 'scripts', 'release.sh');
let root: string;
let work: string;

function run(command: string, args: string[], cwd = work) {
  return new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      command,
      args,
      {
        cwd,
        env: {
          PATH: process.env.PATH,
          HOME: root,
          GIT_AUTHOR_NAME: 'Release',
          GIT_AUTHOR_EMAIL: 'release@example.com',
          GIT_COMMITTER_NAME: 'Release',
          GIT_COMMITTER_EMAIL: 'release@example.com',
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
}

async function commitVersion(version: string): Promise<string> {
  await writeFile(join(work, 'package.json'), JSON.stringify({ name: 'x', version }));
  await run('git', ['add', 'package.json']);
  await run('git', ['commit', '-q', '-m', `v${version}`]);
  return (await run('git', ['rev-parse', 'HEAD'])).out.trim();
}

async function originTags(): Promise<Record<string, string>> {
  const { out } = await run('git', ['ls-remote', '--tags', 'origin']);
  const tags: Record<string, string> = {};
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const [sha, ref] = line.split('\t') as [string, string];
    // Annotated tags list their commit under `^{}`.
    if (ref.endsWith('^{}')) tags[ref.slice(10, -3)] = sha;
    else tags[ref.slice(10)] ??= sha;
  }
  return tags;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'coder-loop-release-'));
  work = join(root, 'work');
  await run('git', ['init', '-q', '--bare', join(root, 'origin.git')], root);
  await run('git', ['clone', '-q', join(root, 'origin.git'), work], root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

it('tags the release and moves v1 to it; the next release moves v1 again', async () => {
  const first = await commitVersion('1.0.0');
  expect((await run('bash', [SCRIPT, 'v1.0.0'])).code).toBe(0);
  expect(await originTags()).toEqual({ 'v1.0.0': first, v1: first });

  const second = await commitVersion('1.1.0');
  const released = await run('bash', [SCRIPT, 'v1.1.0']);
  expect(released.out).toContain(`release: v1.1.0 and v1 → ${second}`);
  expect(await originTags()).toEqual({ 'v1.0.0': first, 'v1.1.0': second, v1: second });
});

it('refuses a tag that is not package.json’s version, or not vX.Y.Z', async () => {
  await commitVersion('1.0.0');
  const mismatch = await run('bash', [SCRIPT, 'v1.0.1']);
  expect(mismatch.code).toBe(1);
  expect(mismatch.out).toContain('package.json says 1.0.0, not 1.0.1');
  const malformed = await run('bash', [SCRIPT, '1.0.0']);
  expect(malformed.code).toBe(2);
  expect(await originTags()).toEqual({});
});

it('makes the major tag of the version: v0 for 0.x releases, v1 appears with 1.0.0', async () => {
  const zero = await commitVersion('0.2.0');
  expect((await run('bash', [SCRIPT, 'v0.2.0'])).code).toBe(0);
  expect(await originTags()).toEqual({ 'v0.2.0': zero, v0: zero });

  const one = await commitVersion('1.0.0');
  expect((await run('bash', [SCRIPT, 'v1.0.0'])).code).toBe(0);
  expect(await originTags()).toEqual({ 'v0.2.0': zero, v0: zero, 'v1.0.0': one, v1: one });
});

it('runs again on a pushed tag (what the release workflow does); refuses a tag on another commit', async () => {
  const first = await commitVersion('1.0.0');
  await run('git', ['tag', '-a', 'v1.0.0', '-m', 'v1.0.0']);
  await run('git', ['push', '-q', 'origin', 'refs/tags/v1.0.0']);
  expect((await run('bash', [SCRIPT, 'v1.0.0'])).code).toBe(0);
  expect((await run('bash', [SCRIPT, 'v1.0.0'])).code).toBe(0);
  expect(await originTags()).toEqual({ 'v1.0.0': first, v1: first });

  // A commit after the tag, package.json unchanged: v1.0.0 names another commit.
  await writeFile(join(work, 'other.txt'), 'x');
  await run('git', ['add', 'other.txt']);
  await run('git', ['commit', '-q', '-m', 'later']);
  const moved = await run('bash', [SCRIPT, 'v1.0.0']);
  expect(moved.code).toBe(1);
  expect(moved.out).toContain(`v1.0.0 already names ${first}`);
  expect(await originTags()).toEqual({ 'v1.0.0': first, v1: first });
});
