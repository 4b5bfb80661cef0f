import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { jest } from '@jest/globals';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { invokedAs, shellWord, usageText } from '../../src/cli/invocation.js';
import { bin, cli, installedBin, SCRATCH_ENV, type Run } from '../helpers/cli.js';
import { freshBuild } from '../helpers/build.js';
import { repoRoot } from '../paths.js';

/**
 * Every command the CLI prints runs as printed: coder-loop is not on npm, so a bare
 * `coder-loop …` runs only where it is installed. The CLI names itself as the user ran it
 * (src/cli/invocation.ts), and each printed command is run here, by a shell, as a user pastes it.
 */

beforeAll(() => freshBuild('lib'));
jest.setTimeout(120_000);

let work: string;
beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'coder-loop-invocation-')));
});
afterEach(() => rm(work, { recursive: true, force: true }));

describe('how the CLI was run, from where it was started', () => {
  it('npx from its cache: the spec npx installed it from, which npx keeps beside it', async () => {
    // libnpmexec installs into <cache>/_npx/<hash>/ and writes `_npx.packages` to its
    // package.json; the bin npx runs is node_modules/.bin/<name> there.
    const install = join(work, '_npx', '0123456789abcdef');
    await mkdir(join(install, 'node_modules', '.bin'), { recursive: true });
    await writeFile(
      join(install, 'package.json'),
      JSON.stringify({
        dependencies: { 'coder-loop': 'github:my-org/coder-loop' },
        _npx: { packages: ['github:my-org/coder-loop'] },
      }),
    );
    const script = join(install, 'node_modules', '.bin', 'coder-loop');
    expect(await invokedAs({ script, cwd: work, path: undefined })).toBe(
      'npx github:my-org/coder-loop',
    );
    // A tarball's path with a space is quoted, as the shell needs it.
    await writeFile(
      join(install, 'package.json'),
      JSON.stringify({ _npx: { packages: ['/home/me/my files/coder-loop-0.1.0.tgz'] } }),
    );
    expect(await invokedAs({ script, cwd: work, path: undefined })).toBe(
      'npx "/home/me/my files/coder-loop-0.1.0.tgz"',
    );
    // No spec to name (two packages, or none): the script's own path, which runs anywhere.
    await writeFile(join(install, 'package.json'), JSON.stringify({ _npx: { packages: [] } }));
    expect(await invokedAs({ script, cwd: install, path: undefined })).toBe(
      'node node_modules/.bin/coder-loop',
    );
  });

  it("installed in the project the current folder is in: npx finds it; outside that project it doesn't", async () => {
    const script = join(work, 'project', 'node_modules', '.bin', 'coder-loop');
    for (const cwd of [join(work, 'project'), join(work, 'project', 'src', 'deep')])
      expect(await invokedAs({ script, cwd, path: undefined })).toBe('npx coder-loop');
    expect(await invokedAs({ script, cwd: join(work, 'other'), path: undefined })).toBe(
      'node ../project/node_modules/.bin/coder-loop',
    );
  });

  it('on PATH (npm install -g): its name; a script of another name on PATH is not', async () => {
    const dir = join(work, 'bin');
    const path = ['/usr/bin', dir].join(delimiter);
    expect(await invokedAs({ script: join(dir, 'coder-loop'), cwd: work, path })).toBe(
      'coder-loop',
    );
    expect(await invokedAs({ script: join(dir, 'other.js'), cwd: work, path })).toBe(
      'node bin/other.js',
    );
  });

  it('by its path: `node` and the path from the current folder (or absolute, when shorter)', async () => {
    const script = join(work, 'coder-loop', 'lib', 'bundle', 'coder-loop.js');
    expect(await invokedAs({ script, cwd: join(work, 'coder-loop'), path: '' })).toBe(
      'node lib/bundle/coder-loop.js',
    );
    expect(await invokedAs({ script: '/opt/x.js', cwd: join(work, 'a', 'b'), path: '' })).toBe(
      'node /opt/x.js',
    );
    expect(await invokedAs({ script: join(work, 'my copy', 'cl.js'), cwd: work, path: '' })).toBe(
      'node "my copy/cl.js"',
    );
    expect(await invokedAs({ script: undefined, cwd: work, path: '' })).toBe('coder-loop');
  });

  it('words the shell takes back as they are', () => {
    expect(shellWord('github:my-org/coder-loop')).toBe('github:my-org/coder-loop');
    // `#` starts a comment only at a word's start: a Git spec's commit-ish needs no quotes.
    expect(shellWord('github:my-org/coder-loop#v1')).toBe('github:my-org/coder-loop#v1');
    expect(shellWord('#x')).toBe('"#x"');
    expect(shellWord('My Plan', true)).toBe('"My Plan"');
    expect(shellWord('Sample', true)).toBe('"Sample"');
    expect(shellWord('$HOME `x`')).toBe("'$HOME `x`'");
    expect(shellWord("it's $x")).toBe(`'it'\\''s $x'`);
    expect(usageText('mark <P> <id>\nmark <P> --phase <N>', 'npx coder-loop')).toBe(
      'Usage: npx coder-loop mark <P> <id>\n       npx coder-loop mark <P> --phase <N>',
    );
  });
});

/** Runs a command line as a user pastes it into a shell, in `cwd`, with `PATH`. */
function shell(line: string, cwd: string, path: string): Promise<Run> {
  return new Promise((resolve) =>
    execFile(
      '/bin/sh',
      ['-c', line],
      { cwd, env: { PATH: path, USER: 'tester', ...SCRATCH_ENV } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}

/**
 * Whether a command ran as the CLI: exit 0 or 1 (a plan's verdict), not 127 (the shell found no
 * such program) nor 2 (the CLI took no such command); else what it said.
 */
const verdict = (command: string, ran: Run) => ({
  command,
  ran: [0, 1].includes(ran.code) && !/not found|Usage:/.test(ran.stderr) ? true : ran.stderr,
});

/**
 * The commands a text tells the user to run that start with `prefix`: code spans, init's "then
 * run: …" and plans' "invalid: run …".
 */
function printedCommands(text: string, prefix: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const runs = [...text.matchAll(/\b(?:then run:|invalid: run) ([^)\n]+)/g)].map((m) => m[1]!);
  return [...spans, ...runs].filter((c) => c.startsWith(`${prefix} `));
}

/** `coder-loop <command>` said as a command to run, not as the `coder-loop lint:` of an error. */
const BARE = new RegExp(
  `(^|[\\s\`"(])coder-loop (${[...Object.keys(COMMANDS), '--version', '--help', '<command>'].join('|')})(?!:)\\b`,
  'm',
);

/**
 * A plan that is invalid (no 00_context.md, a checklist without phases): lint, plans and doctor
 * each send the user to a command; init, help and a usage error print theirs.
 */
async function printedBy(run: (...args: string[]) => Promise<Run>): Promise<string[]> {
  await cp(join(repoRoot, 'test/fixtures/plans/Sample'), join(work, 'docs/plans/Sample'), {
    recursive: true,
  });
  await rm(join(work, 'docs/plans/Sample/00_context.md'));
  const texts: string[] = [];
  for (const args of [['lint', 'Sample'], ['plans'], ['doctor'], ['--help'], ['plans', '--jsn']]) {
    const { stdout, stderr } = await run(...args);
    texts.push(stdout, stderr);
  }
  await writeFile(join(work, 'docs/plans/Sample/01_Master Plan/01_Checklist.md'), '# none\n');
  for (const args of [['plans'], ['doctor'], ['init', 'Sample'], ['init', 'Other']]) {
    const { stdout, stderr } = await run(...args);
    texts.push(stdout, stderr);
  }
  return texts;
}

describe('every command the CLI prints runs as printed', () => {
  it('run by its path from a clone of coder-loop (`node …/coder-loop.js`): no bare `coder-loop`', async () => {
    const run = (...args: string[]) =>
      new Promise<Run>((resolve) =>
        execFile(
          process.execPath,
          [relative(work, bin), ...args],
          { cwd: work, env: { PATH: process.env.PATH, USER: 'tester', ...SCRATCH_ENV } },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        ),
      );
    const prefix = `node ${relative(work, bin).length < bin.length ? relative(work, bin) : bin}`;
    const texts = await printedBy(run);
    const all = texts.join('\n');
    expect(all).toContain(`Usage: ${prefix} plans [--json]`);
    expect(all).toContain(`Run "${prefix} <command> --help"`);
    expect(all).not.toMatch(BARE);
    const commands = new Set(texts.flatMap((t) => printedCommands(t, prefix)));
    // lint's and doctor's fixes, plans' summary, init's next step.
    expect([...commands].sort()).toEqual(
      [`${prefix} init "Sample"`, `${prefix} lint "Sample"`, `${prefix} lint "Other"`].sort(),
    );
    // Without coder-loop on PATH, each runs: no `not found` (127), no usage error (2).
    const path = process.env.PATH!.split(delimiter).filter((d) => d !== installedBin());
    for (const command of commands) {
      const ran = await shell(command, work, path.join(delimiter));
      expect(verdict(command, ran)).toEqual({ command, ran: true });
    }
  });

  it('installed on PATH (`coder-loop`): its name, and each command runs with that PATH', async () => {
    const texts = await printedBy((...args) => cli(work, ...args));
    const commands = new Set(texts.flatMap((t) => printedCommands(t, 'coder-loop')));
    expect([...commands].sort()).toEqual(
      ['coder-loop init "Sample"', 'coder-loop lint "Sample"', 'coder-loop lint "Other"'].sort(),
    );
    const path = `${installedBin()}${delimiter}${process.env.PATH}`;
    for (const command of commands) {
      const ran = await shell(command, work, path);
      expect(verdict(command, ran)).toEqual({ command, ran: true });
    }
  });
});
