import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { appPrivateKey, startNode, type NodeProcess } from '../helpers/process.js';
import { repoRoot } from '../paths.js';

/**
 * The Dockerfile, run without Docker: its instructions are read from the file and carried out in
 * a temporary directory per stage — COPY copies, RUN runs the same shell command there, ENV sets
 * the environment, and the image's CMD and HEALTHCHECK run against the result. What a Docker
 * engine would add and this cannot: the base image (here the local Node.js), the USER switch
 * (checked, not exercised) and the network sandbox.
 */
jest.setTimeout(600_000);

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  image: string;
  name: string;
  steps: Instruction[];
}

function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line)!;
    if (op === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!)!;
      stages.push({ image: image!, name: name ?? String(stages.length), steps: [] });
    } else stages.at(-1)!.steps.push({ op: op!.toUpperCase(), args: args! });
  }
  return stages;
}

/** `KEY=value KEY2=value2` (values without spaces, as ours are). */
function parseEnv(args: string): Record<string, string> {
  return Object.fromEntries(
    args.split(/\s+/).map((pair) => pair.split('=', 2) as [string, string]),
  );
}

function sh(command: string, cwd: string, env: Record<string, string | undefined>) {
  return new Promise<string>((resolve, reject) =>
    execFile('sh', ['-c', command], { cwd, env, maxBuffer: 64 << 20 }, (error, out, err) =>
      error ? reject(new Error(`RUN ${command} failed:\n${out}\n${err}`)) : resolve(out + err),
    ),
  );
}

const dockerfile = parseDockerfile(await readFile(join(repoRoot, 'Dockerfile'), 'utf8'));
const [build, image] = dockerfile as [Stage, Stage];
const only = (stage: Stage, op: string) => stage.steps.filter((s) => s.op === op);

describe('the Dockerfile', () => {
  it('has a build stage and a production image that runs as a non-root user', () => {
    expect(dockerfile).toHaveLength(2);
    expect(build.name).toBe('build');
    const env = Object.assign({}, ...only(image, 'ENV').map((s) => parseEnv(s.args)));
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    const user = only(image, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    // The user is set after every RUN, so the app cannot write to its own code.
    const index = (op: string) => image.steps.findLastIndex((s) => s.op === op);
    expect(index('USER')).toBeGreaterThan(index('RUN'));
    expect(only(image, 'HEALTHCHECK')[0]?.args).toContain('/ping');
  });

  describe('its steps, carried out in a temporary copy', () => {
    let root: string;
    let app: NodeProcess | undefined;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'coder-loop-image-'));
      // The build stage's `npm ci` gets a copy of this machine's npm cache (hard links, so it
      // costs no space), never the cache itself, which other suites use at the same time.
      const cache = join(process.env.HOME ?? '/root', '.npm', '_cacache');
      await mkdir(join(root, 'npm-cache'), { recursive: true });
      await new Promise<void>((resolve) =>
        execFile('cp', ['-al', cache, join(root, 'npm-cache', '_cacache')], () => resolve()),
      );
    });
    afterAll(async () => {
      await app?.stop();
      await rm(root, { recursive: true, force: true });
    });

    /** Runs a stage's COPY, WORKDIR, ENV and RUN steps; returns its /app directory and env. */
    async function runStage(stage: Stage) {
      const dir = join(root, stage.name);
      let workdir = dir;
      const env: Record<string, string | undefined> = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // A copy of this machine's npm cache stands in for the registry of a fresh image, and
        // only it: npm reads no registry (a package the cache lacks fails the step, ENOTCACHED).
        // The project's own `npm ci` put every package of the lockfile there.
        npm_config_cache: join(root, 'npm-cache'),
        npm_config_offline: 'true',
      };
      const inside = (p: string) =>
        p.startsWith('/app') ? join(dir, p.slice(4)) : join(workdir, p);
      for (const { op, args } of stage.steps) {
        if (op === 'WORKDIR') {
          expect(args).toBe('/app');
          workdir = dir;
          await mkdir(workdir, { recursive: true });
        } else if (op === 'ENV') Object.assign(env, parseEnv(args));
        else if (op === 'COPY') {
          const from = /^--from=(\S+)\s+/.exec(args)?.[1];
          const paths = args.replace(/^--from=\S+\s+/, '').split(/\s+/);
          const dest = paths.pop()!;
          for (const source of paths) {
            const src = from
              ? join(root, from, posix.relative('/app', source))
              : join(repoRoot, source);
            const target = dest.endsWith('/')
              ? join(inside(dest), posix.basename(source))
              : inside(dest);
            await cp(src, target, { recursive: true });
          }
        } else if (op === 'RUN') await sh(args, workdir, env);
      }
      return { dir, env };
    }

    it("build: npm ci and npm run build:app make the App's bundle and its licenses", async () => {
      const { dir } = await runStage(build);
      expect((await stat(join(dir, 'lib', 'app-bundle', 'app.js'))).isFile()).toBe(true);
      expect(await readFile(join(dir, 'lib', 'app-bundle', 'licenses.txt'), 'utf8')).toMatch(
        /^Third-party software in lib\/app-bundle\/app\.js/,
      );
    });

    it('image: the bundle, its licenses and app.yml alone, then CMD serves and HEALTHCHECK passes', async () => {
      const { dir, env } = await runStage(image);
      // Nothing installed, nothing run: no node_modules, no sources, no npm step.
      expect(only(image, 'RUN')).toEqual([]);
      expect((await readdir(dir)).sort()).toEqual(['LICENSE', 'app.yml', 'lib']);
      expect((await readdir(join(dir, 'lib', 'app-bundle'))).sort()).toEqual([
        'app.js',
        'licenses.txt',
      ]);

      const cmd = JSON.parse(only(image, 'CMD')[0]!.args) as string[];
      expect(cmd[0]).toBe('node');
      // As `docker run -e APP_ID=… -e PRIVATE_KEY=… -e WEBHOOK_SECRET=…`, on a loopback port.
      app = await startNode(cmd.slice(1), {
        cwd: dir,
        env: {
          ...env,
          HOST: '127.0.0.1',
          APP_ID: '1',
          PRIVATE_KEY: appPrivateKey(),
          WEBHOOK_SECRET: 'image-secret',
        },
      });
      const port = app.port;
      const healthcheck = JSON.parse(
        /CMD\s+(\[.*\])$/.exec(only(image, 'HEALTHCHECK')[0]!.args)![1]!,
      ) as string[];
      const probe = () =>
        new Promise<number>((resolve) =>
          execFile(
            healthcheck[0]!,
            healthcheck.slice(1),
            { env: { ...env, PORT: String(port) } },
            (error) => resolve(error ? Number(error.code) : 0),
          ),
        );
      expect(await probe()).toBe(0);
      // Production logs are JSON lines.
      const first = app
        .output()
        .split('\n')
        .find((l) => l.includes('Listening on'))!;
      expect(JSON.parse(first)).toMatchObject({ level: 30 });
      await app.stop();
      app = undefined;
      expect(await probe()).toBe(1);
    });
  });
});
