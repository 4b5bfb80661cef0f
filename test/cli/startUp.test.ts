import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { jest } from '@jest/globals';
import { freshBuild } from '../helpers/build.js';
import { bin, inProcess, type Run } from '../helpers/cli.js';
import { fixture } from '../helpers/kinds.js';
import { examplePlanFiles } from '../helpers/plans.js';

// What a call of the bundled CLI loads is what its start-up costs (docs/benchmarks.md, "The CLI's
// start-up"): `status` in a repository without .github/coder.yml and without BMAD loads neither
// the config's parser (zod, its schema) nor the `yaml` package, nor node:child_process and
// node:crypto; with a config, or a sprint-status.yaml, it loads them, and reads as the unbundled
// CLI does.
beforeAll(() => freshBuild('lib'));
jest.setTimeout(60_000);

/** Every ES module the bundle loads, as Node's loader hooks see them (node: builtins included). */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}
`;

interface Traced extends Run {
  /** The ES modules and CommonJS files the call loaded: file paths and `node:` names. */
  loaded: string[];
}

let work: string;
let repo: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-startup-'));
  repo = join(work, 'repo');
  await writeFile(join(work, 'hooks.mjs'), HOOKS);
  await writeFile(
    join(work, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
  );
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function files(written: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(written)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
}

/** The built binary in the repository, with every module it loads logged. */
function traced(...args: string[]): Promise<Traced> {
  const log = join(work, 'loaded.txt');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(join(work, 'register.mjs')).href, bin, ...args],
      {
        cwd: repo,
        env: { PATH: process.env.PATH, USER: 'tester', NODE_DEBUG: 'module', LOADED_LOG: log },
      },
      (error, stdout, stderr) => {
        const esm = readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((url) => (url.startsWith('file:') ? fileURLToPath(url) : url));
        // CommonJS files loaded by require (remark.cjs, yaml.cjs), from Node's module log.
        const cjs = [...stderr.matchAll(/Module\._load REQUEST (\S+)/g)].map((m) => m[1]!);
        resolve({
          code: error ? Number(error.code) : 0,
          stdout,
          stderr: stderr
            .split('\n')
            .filter((l) => l && !/^MODULE \d+:/.test(l))
            .join('\n'),
          loaded: [...esm, ...cjs],
        });
      },
    );
  });
}

/** The loaded files of the bundle that hold `marker` (a name the package's code keeps). */
const holding = (run: Traced, marker: string) =>
  run.loaded.filter((f) => f.startsWith('/') && readFileSync(f, 'utf8').includes(marker));
const ZOD = '_zod';
const JS_YAML = 'YAMLException';
const YAML_PACKAGE = './yaml.cjs';

async function sameAsUnbundled(...args: string[]): Promise<Traced> {
  const run = await traced(...args);
  const unbundled = await inProcess(repo, ...args);
  expect([run.code, run.stdout.trimEnd(), run.stderr]).toEqual([
    unbundled.code,
    unbundled.stdout,
    unbundled.stderr,
  ]);
  return run;
}

describe('what a call of the bundled CLI loads', () => {
  it('status without a config or BMAD: no zod, no YAML parser, no child_process, no crypto', async () => {
    await files(examplePlanFiles());
    const run = await sameAsUnbundled('status', 'Example');
    expect(run.code).toBe(0);
    expect(run.loaded.filter((f) => f.endsWith('coder-loop.js'))).toHaveLength(1);
    expect(holding(run, ZOD)).toEqual([]);
    expect(holding(run, JS_YAML)).toEqual([]);
    expect(run.loaded).not.toContain(YAML_PACKAGE);
    expect(run.loaded).not.toContain('node:child_process');
    expect(run.loaded).not.toContain('node:crypto');
  });

  it('status with a .github/coder.yml: its parser is loaded, and the config applies', async () => {
    const { 'docs/plans/Example/00_context.md': context, ...rest } = examplePlanFiles();
    await files({
      ...Object.fromEntries(
        Object.entries(rest).map(([path, text]) => [path.replace('docs/plans/', 'plans/'), text]),
      ),
      'plans/Example/00_context.md': context!,
      '.github/coder.yml': 'plansDir: ./plans/\nmaxRetries: 5\n',
    });
    const run = await sameAsUnbundled('status', 'Example');
    expect(run.code).toBe(0);
    expect(holding(run, ZOD).length).toBeGreaterThan(0);
    expect(holding(run, JS_YAML).length).toBeGreaterThan(0);
  });

  it('an invalid .github/coder.yml: the same problems as the unbundled CLI', async () => {
    await files({ ...examplePlanFiles(), '.github/coder.yml': 'plansDir: /abs\nmaxRetrys: 2\n' });
    const run = await sameAsUnbundled('lint');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('maxRetrys');
  });

  it('status on a BMAD project loads the yaml package, and reads as unbundled', async () => {
    const IA = '_bmad-output/implementation-artifacts';
    const paths = [
      `${IA}/sprint-status.yaml`,
      `${IA}/1-2-account-management.md`,
      `${IA}/1-1-user-authentication.md`,
    ];
    await files(Object.fromEntries(paths.map((p) => [p, fixture(`bmad/v6/${p}`)])));
    const run = await sameAsUnbundled('status', 'bmad');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Phase 1.2: Account Management');
    expect(run.loaded).toContain(YAML_PACKAGE);
  });
});
