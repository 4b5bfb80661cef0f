import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appRegistrationUrl,
  homepageOfRemote,
  parseAppManifest,
} from '../../src/core/appRegistration.js';
import { inProcess } from '../helpers/cli.js';
import { repoRoot } from '../paths.js';

const require = createRequire(import.meta.url);
const manifest = parseAppManifest(readFileSync(join(repoRoot, 'app.yml'), 'utf8'));

let work: string;

function app(...args: string[]) {
  return inProcess(work, 'app', ...args);
}

/** The registration link printed on its own line. */
function linkOf(stdout: string): URL {
  const line = stdout.split('\n').find((l) => l.startsWith('https://'));
  if (!line) throw new Error(`no link in:\n${stdout}`);
  return new URL(line);
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'coder-loop-app-'));
  execFileSync('git', ['init', '-q'], { cwd: work });
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("coder-loop app: the Action's App registered from app.yml, no permission typed by hand", () => {
  it("asks for exactly app.yml's permissions, private, no webhook, named and homed after the repository", async () => {
    execFileSync('git', ['remote', 'add', 'origin', 'git@github.com:acme/widgets.git'], {
      cwd: work,
    });
    const { code, stdout } = await app();
    expect(code).toBe(0);
    const link = linkOf(stdout);
    expect(link.origin + link.pathname).toBe('https://github.com/settings/apps/new');
    const params = Object.fromEntries(link.searchParams);
    expect(params).toEqual({
      name: 'coder-loop-acme',
      description: manifest.description,
      url: 'https://github.com/acme/widgets',
      public: 'false',
      webhook_active: 'false',
      ...manifest.default_permissions,
    });
    // The same list the App's setup page registers: Contents … Members.
    expect(params.contents).toBe('write');
    expect(params.members).toBe('read');
    expect(stdout).toContain('CODER_LOOP_PRIVATE_KEY');
  });

  it('registers under an organisation with --org, on GitHub Enterprise Server with --host', async () => {
    const { code, stdout } = await app('--org', 'Acme Corp', '--host', 'ghe.example.com');
    expect(code).toBe(0);
    const link = linkOf(stdout);
    expect(link.host).toBe('ghe.example.com');
    expect(link.pathname).toBe('/organizations/Acme%20Corp/settings/apps/new');
    // No origin: the link leaves the homepage to the form, and says so.
    expect(link.searchParams.has('url')).toBe(false);
    expect(stdout).toContain('pass --url');
  });

  it('refuses a homepage that is not a web address, with a usage error', async () => {
    const { code, stderr } = await app('--url', 'widgets');
    expect(code).toBe(2);
    expect(stderr).toContain('--url must be a web address');
  });
});

describe("app.yml's permissions are GitHub's", () => {
  it('names only permissions (and levels) an App can hold, per the REST API description', () => {
    const api = JSON.parse(
      readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
    ) as {
      components: {
        schemas: Record<string, { properties: Record<string, { enum?: string[] }> }>;
      };
    };
    const known = api.components.schemas['app-permissions']!.properties;
    for (const [permission, access] of Object.entries(manifest.default_permissions)) {
      expect({ permission, levels: known[permission]?.enum }).toEqual({
        permission,
        levels: expect.arrayContaining([access]),
      });
    }
  });
});

describe('homepageOfRemote', () => {
  it.each([
    ['https://github.com/acme/widgets.git', 'https://github.com/acme/widgets'],
    ['https://github.com/acme/widgets', 'https://github.com/acme/widgets'],
    ['git@github.com:acme/widgets.git', 'https://github.com/acme/widgets'],
    ['ssh://git@ghe.example.com/acme/widgets.git', 'https://ghe.example.com/acme/widgets'],
    ['https://user:token@github.com/acme/widgets.git\n', 'https://github.com/acme/widgets'],
    ['/srv/git/widgets.git', undefined],
    ['https://github.com/acme', undefined],
  ])('%s → %s', (remote, homepage) => {
    expect(homepageOfRemote(remote)).toBe(homepage);
  });

  it('never puts credentials of a remote into a link', () => {
    const link = appRegistrationUrl(manifest, {
      homepage: homepageOfRemote('https://user:token@github.com/acme/widgets.git')!,
    });
    expect(link).not.toContain('token');
  });
});
