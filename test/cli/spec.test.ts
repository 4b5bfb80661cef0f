import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { bin, cli } from '../helpers/cli.js';

/** `coder-loop spec`, the built binary in a real git repository, as a person runs it. */

const run = promisify(execFile);

let work: string;

const git = async (...args: string[]) =>
  (
    await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: work,
    })
  ).stdout.trim();

async function write(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), text);
  }
}

const TASKS = [
  '# Tasks: Parser',
  '',
  '## Phase 1: Setup',
  '',
  '- [x] T001 Create the project',
  '',
  '## Phase 2: Parser',
  '',
  '- [ ] T002 Parse the header in `src/parse.ts`',
  '- [ ] T003 Tidy up',
  '',
].join('\n');

beforeAll(() => {
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run "npm run build" first (npm test does).`);
});

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-spec-'));
  await git('init', '-q', '-b', 'main');
  await write({
    'specs/001-parser/tasks.md': TASKS,
    'src/parse.ts': 'export const parse = () => 0;\n',
    'README.md': '# Parser\n',
  });
  await git('add', '.');
  await git('commit', '-q', '-m', 'start');
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('coder-loop spec', () => {
  it('exits 1 naming the task whose file is untouched; 0 once it changes and a test names it', async () => {
    await write({ 'README.md': '# Parser\n\nMore words.\n' });
    const before = await cli(work, 'spec', '001-parser');
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(
      'Passes Spec? for 001-parser phase 2, the working tree against HEAD:',
    );
    expect(before.stdout).toContain(
      'Passes Spec? no — 0 of 2 tasks traced to evidence, 1 lacking.',
    );
    expect(before.stdout).toContain(
      '| `T002` Parse the header in \\`src/parse\\.ts\\` | ❌ missing | names `src/parse.ts`, not changed. |',
    );
    // A docs-only change needs no test.
    expect(before.stdout).toContain(
      'Tests: not required — the pull request changes documentation and configuration only.',
    );

    // The file changes (tracked) and a new, untracked test names the task.
    await write({
      'src/parse.ts': 'export const parse = (s: string) => s.length;\n',
      'test/parse.test.ts': "// T002: the header\ntest('parses', () => {});\n",
    });
    const after = await cli(work, 'spec', '001-parser');
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(
      'Passes Spec? yes — 1 of 2 tasks traced to evidence, 0 lacking.',
    );
    expect(after.stdout).toContain(
      '| `T002` Parse the header in \\`src/parse\\.ts\\` | ✅ evidence | changes `src/parse.ts`; `test/parse.test.ts` names `T002`. |',
    );
    expect(after.stdout).toContain('✅ Tests: changed (1 test file).');
  });

  it('code without a test fails the test rule, even when every task has evidence', async () => {
    await write({ 'src/parse.ts': 'export const parse = () => 1;\n' });
    const r = await cli(work, 'spec', '001-parser');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✅ evidence | changes `src/parse.ts`.');
    expect(r.stdout).toContain(
      '❌ Write failing test: the pull request changes code (`src/parse.ts`) but no test file (`testPaths`).',
    );
  });

  it('--base compares with another ref: the work committed on a branch', async () => {
    const start = await git('rev-parse', 'HEAD');
    await git('checkout', '-q', '-b', 'coder/phase-2');
    await write({
      'src/parse.ts': 'export const parse = (s: string) => s.length;\n',
      'test/parse.test.ts': "// T002: the header\ntest('parses', () => {});\n",
    });
    await git('add', '.');
    await git('commit', '-q', '-m', 'T002: the header');
    // Against HEAD, nothing changed: the task lacks evidence.
    const head = await cli(work, 'spec', '001-parser');
    expect(head.code).toBe(1);
    expect(head.stdout).toContain('❌ missing | names `src/parse.ts`, not changed.');
    for (const base of ['main', start]) {
      const r = await cli(work, 'spec', '001-parser', '--base', base);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`the working tree against ${base}:`);
      expect(r.stdout).toContain(
        '✅ evidence | changes `src/parse.ts`; `test/parse.test.ts` names',
      );
    }
    const bad = await cli(work, 'spec', '001-parser', '--base', 'no-such-ref');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('git diff --name-status -M -z no-such-ref -- failed');
  });

  it('with specCheck: report, shows the table and exits 0', async () => {
    await write({ '.github/coder.yml': 'specCheck: report\n' });
    const r = await cli(work, 'spec', '001-parser');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('❌ missing | names `src/parse.ts`, not changed.');
  });
});
