import { jest } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { repoRoot } from './paths.js';
import { distFiles } from '../scripts/package.js';
import { freshBuild } from './helpers/build.js';

// Reads the built Action (dist/) and the built lib/ (the CLI's and the App's bundles): stale after
// an edit to src/ until built again.
beforeAll(async () => {
  await freshBuild('dist');
  await freshBuild('lib');
});

/**
 * The package as others get it: every locked dependency runs on the Node.js floor that
 * package.json names, and the packed tarball installs into an empty directory and runs there.
 */
jest.setTimeout(300_000);

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

function run(command: string, args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      command,
      args,
      { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('engines', () => {
  it('every locked dependency accepts the lowest Node.js of each line package.json allows', () => {
    // The lowest version of each range in the engines field (`^20.19.0 || >=22.13.0`), and the
    // Action's node24.
    const floors = new semver.Range(pkg.engines.node).set.map(
      (comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version,
    );
    expect(floors).toEqual(['20.19.0', '22.13.0']);
    floors.push('24.0.0');
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || entry.optional || !range) continue;
      for (const floor of floors)
        if (!semver.satisfies(floor, range)) refused.push(`${path} (${range}) refuses ${floor}`);
    }
    expect(refused).toEqual([]);
  });

  it('this Node.js is one package.json allows', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });
});

describe('npm pack, installed into an empty directory', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'coder-loop-pack-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('installs from the tarball and runs init, lint and status with npx', async () => {
    // lib/ is built (npm test builds first); scripts are skipped so packing does not rebuild it
    // under the other suites' feet.
    const pack = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
      repoRoot,
    );
    expect(pack.code).toBe(0);
    const [{ filename, files }] = JSON.parse(pack.stdout) as [
      { filename: string; files: { path: string }[] },
    ];
    const paths = files.map((f) => f.path);
    expect(paths).toContain(pkg.bin['coder-loop']);
    expect(paths).toContain('app.yml');
    expect(paths).toContain('LICENSE');
    expect(paths.filter((p) => p.startsWith('src/') || p.startsWith('test/'))).toEqual([]);
    // The CLI's bundle alone of lib/: the App is deployed from a clone or the image, and tsc's
    // lib/ would import packages a tarball install does not have.
    expect(paths.filter((p) => p.startsWith('lib/') && !p.startsWith('lib/bundle/'))).toEqual([]);

    const project = join(work, 'project');
    await run('mkdir', ['-p', project], work);
    // Offline: the package has no dependency to fetch (below), and a test asks no registry (one
    // that hung once held this test to its time limit).
    const install = await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', join(work, filename)],
      project,
    );
    expect(install.code).toBe(0);
    // One package: coder-loop has no runtime dependencies (every program is a bundle).
    expect(pkg.dependencies).toBeUndefined();
    const installed = (await readdir(join(project, 'node_modules'))).filter(
      (name) => name !== '.bin' && name !== '.package-lock.json',
    );
    expect(installed).toEqual(['coder-loop']);

    const npx = (...args: string[]) => run('npx', ['--no-install', 'coder-loop', ...args], project);
    const init = await npx('init', 'My Plan');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('Created docs/plans/My Plan');
    // Run by npx from the project it is installed in, it names itself so (src/cli/invocation.ts),
    // and the next step it prints runs as printed.
    const next = /^Next: edit the plan, then run: (.+)$/m.exec(init.stdout)?.[1];
    expect(next).toBe('npx coder-loop lint "My Plan"');
    expect(await run('sh', ['-c', next!], project)).toMatchObject({ code: 0 });
    expect(await readdir(join(project, 'docs', 'plans', 'My Plan'))).toContain('00_context.md');
    expect(await npx('lint', 'My Plan')).toMatchObject({ code: 0 });
    const status = await npx('status', 'My Plan', '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ plan: 'My Plan', currentPhase: 1 });
  });
});

describe.each([
  {
    // The Action's entry and the chunks it loads when needed (scripts/package.ts).
    bundle: 'dist/',
    licenses: 'dist/licenses.txt',
    made: 'npm run package',
    has: '@actions/core',
  },
  {
    bundle: 'lib/app-bundle/app.js',
    licenses: 'lib/app-bundle/licenses.txt',
    made: 'npm run build',
    has: 'probot',
  },
])('$licenses ($made)', ({ bundle, licenses, has }) => {
  it('names every package the bundle holds, with its license text', () => {
    // esbuild heads each bundled module with its path (`// node_modules/<pkg>/…`); licenses.txt
    // comes from the metafile, so the two are read independently.
    const code = (
      bundle.endsWith('/')
        ? distFiles(join(repoRoot, bundle)).filter((file) => file.endsWith('.js'))
        : ['']
    )
      .map((file) => readFileSync(join(repoRoot, bundle, file), 'utf8'))
      .join('\n');
    const bundled = new Set(
      [...code.matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].flatMap(([, source]) => {
        const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(source!);
        return match ? [match[1]!] : [];
      }),
    );
    const text = readFileSync(join(repoRoot, licenses), 'utf8');
    expect(text.split('\n')[0]).toBe(
      `Third-party software in ${bundle}, the coder-loop ${bundle.startsWith('dist/') ? 'Action' : 'GitHub App'} bundle`,
    );
    const entries = text.split(`${'-'.repeat(78)}\n\n`).slice(1);
    const listed = new Map(entries.map((entry) => [entry.split(' ')[0]!, entry]));
    expect([...listed.keys()].sort()).toEqual([...bundled].sort());
    expect(bundled.has(has)).toBe(true);
    for (const [name, entry] of listed) {
      // A license line, then a copyright or license text of its own.
      expect([name, /^License: \S+\n\n\S/m.test(entry)]).toEqual([name, true]);
      // Or, where the package ships none (no LICENSE or COPYING file, no License section in its
      // README: one of the App's, npx-import-light), its package.json's license named as such.
      if (entry.includes('ships no license file')) {
        const dir = join(repoRoot, 'node_modules', name);
        const files = readdirSync(dir);
        expect([name, files.filter((f) => /^(licen[cs]e|copying)/i.test(f))]).toEqual([name, []]);
        const readme = files.find((f) => /^readme/i.test(f));
        expect([
          name,
          readme && /^#+ *licen[cs]e/im.test(readFileSync(join(dir, readme), 'utf8')),
        ]).not.toEqual([name, true]);
      }
    }
  });
});

describe('dist/index.js, the Action as a step starts it', () => {
  it("loads no HTTP stack of its own: @actions/core's OIDC client is a chunk loaded on demand", () => {
    // The entry and every chunk it imports statically (`from "./chunks/…"`), followed through.
    const dist = join(repoRoot, 'dist');
    const loaded = new Set<string>();
    const load = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const code = readFileSync(join(dist, file), 'utf8');
      for (const [, chunk] of code.matchAll(
        /^(?:import .*|\}) from "\.\/(?:chunks\/)?([^"]+)";$/gm,
      ))
        load(`chunks/${chunk!}`);
    };
    load('index.js');
    const modules = [...loaded].flatMap((file) =>
      [...readFileSync(join(dist, file), 'utf8').matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].map(
        ([, source]) => source!,
      ),
    );
    expect(modules.some((m) => m.includes('node_modules/@actions/core/'))).toBe(true);
    expect(
      modules.filter((m) => /node_modules\/(undici|tunnel|@actions\/http-client)\//.test(m)),
    ).toEqual([]);
    // The OIDC client is still there, in a chunk of dist/, for a `core.getIDToken` call.
    const chunks = distFiles(dist).filter((file) => !loaded.has(file) && file.endsWith('.js'));
    expect(
      chunks.some((file) =>
        readFileSync(join(dist, file), 'utf8').includes(
          '// node_modules/@actions/core/lib/oidc-utils.js',
        ),
      ),
    ).toBe(true);
  });
});

describe('npm test names what the machine lacks before it starts', () => {
  /** A PATH holding only `node` and the given programs, linked from where this machine has them. */
  async function pathWith(...programs: string[]): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'coder-loop-path-'));
    for (const program of ['node', ...programs]) {
      const found = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
      if (found.status === 0) await symlink(found.stdout.trim(), join(dir, program));
    }
    return dir;
  }

  function needs(path: string) {
    return spawnSync(process.execPath, [join(repoRoot, 'scripts', 'test-needs.js')], {
      env: { PATH: path },
      encoding: 'utf8',
    });
  }

  it('one line naming each missing program, its package and bash .ci/run; exit 1', async () => {
    const bare = await pathWith();
    const run = needs(bare);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^npm test needs redis-server and bwrap, missing .*apt-get install -y redis-server bubblewrap .*bash \.ci\/run/,
      ),
    ]);
    await rm(bare, { recursive: true });
  });

  it('says nothing and goes on when both are there', async () => {
    const full = await pathWith('redis-server', 'bwrap');
    const run = needs(full);
    // This machine runs the whole suite, so it has both: the check must pass here.
    expect([run.status, run.stderr]).toEqual([0, '']);
    await rm(full, { recursive: true });
  });
});
