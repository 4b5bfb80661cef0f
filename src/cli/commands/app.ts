import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { appRegistrationUrl, homepageOfRemote, permissionSummary } from '../../core/index.js';
import { appManifest, EXIT, UsageError, type CommandSpec } from './shared.js';

/**
 * `coder-loop app`: the link that registers the GitHub App the Action acts as, with exactly the
 * permissions of coder-loop's `app.yml` and no webhook, so nobody types permissions by hand. The
 * homepage and the name's suffix come from the current repository's `origin` remote.
 */

async function origin(cwd: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['remote', 'get-url', 'origin'], { cwd });
    return homepageOfRemote(stdout);
  } catch {
    return undefined;
  }
}

export const app: CommandSpec = {
  usage: 'app [--org <org>] [--host <host>] [--url <homepage>]',
  summary: "the link that registers the Action's GitHub App with exactly the permissions it needs",
  options: {
    help: { type: 'boolean', short: 'h' },
    dir: { type: 'string' },
    org: { type: 'string' },
    host: { type: 'string' },
    url: { type: 'string' },
  },
  async run(args, io) {
    if (args.positionals.length > 0) throw new UsageError('app takes options only');
    const manifest = await appManifest();
    const given = args.values.url as string | undefined;
    if (given !== undefined && !/^https?:\/\/\S+$/.test(given)) {
      throw new UsageError(`--url must be a web address (https://…), not "${given}"`);
    }
    const repository = await origin(io.cwd);
    const homepage = given ?? repository;
    const org = args.values.org as string | undefined;
    const owner = org ?? (repository ? new URL(repository).pathname.split('/')[1] : undefined);
    const host = args.values.host as string | undefined;
    const link = appRegistrationUrl(manifest, {
      ...(org !== undefined ? { org } : {}),
      ...(host !== undefined ? { host } : {}),
      ...(homepage !== undefined ? { homepage } : {}),
      ...(owner !== undefined ? { owner } : {}),
    });
    const permissions = permissionSummary(manifest);
    io.stdout(
      [
        `Open this link to register the App (${org ? `organisation ${org}` : 'your personal account'}; ${permissions}; no webhook):`,
        '',
        link,
        '',
        'Then, on the App\'s page: "Generate a private key", and "Install App" on your repository.',
        'In the repository: the App id as the variable CODER_LOOP_APP_ID (Settings → Secrets and',
        'variables → Actions → Variables), the key as the secret CODER_LOOP_PRIVATE_KEY of the',
        'environment coder-loop, whose deployment branches are the default branch alone (Settings →',
        `Environments). \`${io.cli} doctor\` checks the workflows that use them.`,
        ...(homepage === undefined
          ? [
              '',
              'The link has no homepage (no GitHub `origin` here): GitHub asks for one; or pass --url.',
            ]
          : []),
        '',
      ].join('\n'),
    );
    return EXIT.ok;
  },
};
