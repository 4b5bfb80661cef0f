import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Octokit } from '@octokit/core';
import yaml from 'js-yaml';
import type { Logger } from 'pino';
import { homepageOfRemote } from '../core/index.js';
import { WEBHOOK_PATH } from './server.js';

/**
 * `npm start` before the App exists: coder-loop's own setup page. It registers app.yml through
 * GitHub's manifest flow with the webhook URL this server answers on (the smee.io channel that
 * forwards to it, or `<this page's origin>/api/github/webhooks`) — never a URL that answers 404 —
 * and writes the credentials GitHub hands back to `.env`.
 */

/** The repository root (lib/app-bundle/, lib/app/ or src/app/ → ../..): app.yml and docs/ when run from a clone. */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The variables the App needs and lacks, as the user sets them. */
export function missingCredentials(env: NodeJS.ProcessEnv): string[] {
  return [
    ...(env.APP_ID ? [] : ['APP_ID']),
    ...(env.PRIVATE_KEY || env.PRIVATE_KEY_PATH ? [] : ['PRIVATE_KEY (or PRIVATE_KEY_PATH)']),
    ...(env.WEBHOOK_SECRET ? [] : ['WEBHOOK_SECRET']),
  ];
}

/**
 * A private key pasted into `.env` over several lines without quotes: the file keeps one line per
 * variable, so the variable holds only `-----BEGIN … KEY-----` and the lines after it are lost
 * (Node's parser may drop the variables that follow too). Said with the line and the fix.
 */
export function envFileProblems(text: string, path = '.env'): string[] {
  const lines = text.split(/\r?\n/);
  const problems: string[] = [];
  lines.forEach((line, i) => {
    const m =
      /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-----BEGIN [A-Z ]*PRIVATE KEY-----)\s*$/.exec(
        line,
      );
    if (m)
      problems.push(
        `${path}:${i + 1}: ${m[1]} is a private key pasted over several lines without quotes, and .env keeps one line per variable. Put the whole key in double quotes ("-----BEGIN … KEY-----" to "-----END … KEY-----", the line breaks kept), or save it as a .pem file and set PRIVATE_KEY_PATH to its path.`,
      );
  });
  return problems;
}

/** The one line `npm start` prints, and exits 1, in production without credentials. */
export function productionRefusal(missing: string[]): string {
  return `coder-loop: NODE_ENV=production and ${missing.join(', ')} not set: the App cannot start without its credentials (docs/deployment.md; .env.example lists every variable).`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** The web page of the clone this server runs from (its `origin` remote), if it has one. */
export function cloneHomepage(): string | undefined {
  try {
    const remote = execFileSync('git', ['remote', 'get-url', 'origin'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return homepageOfRemote(remote);
  } catch {
    return undefined;
  }
}

/**
 * The App manifest GitHub registers: app.yml, with this server's webhook and redirect URLs, and a
 * homepage (GitHub requires one): app.yml's `url` if it has one, else your copy of coder-loop on
 * GitHub (the clone's `origin`), else this server.
 */
function manifestFor(
  appYml: string,
  baseUrl: string,
  hookUrl: string,
  homepage: string | undefined,
): Record<string, unknown> {
  const app = (yaml.load(appYml) ?? {}) as Record<string, unknown>;
  return {
    url: homepage ?? `${baseUrl}/`,
    ...app,
    hook_attributes: { url: hookUrl, active: true },
    redirect_url: `${baseUrl}/probot/setup`,
  };
}

/** Where GitHub's "new App" form lives: the account's, the organisation's (GH_ORG), on GHES. */
function createAppUrl(env: NodeJS.ProcessEnv): string {
  const host = env.GHE_HOST || 'github.com';
  const org = env.GH_ORG ? `/organizations/${encodeURIComponent(env.GH_ORG)}` : '';
  return `${env.GHE_PROTOCOL || 'https'}://${host}${org}/settings/apps/new`;
}

interface PageOptions {
  manifest: Record<string, unknown>;
  createAppUrl: string;
  hookUrl: string;
  proxied: boolean;
  docs: string[];
}

/** coder-loop's setup page: what it is, the register button, the next steps, our docs. */
function setupPage(options: PageOptions): string {
  const hook = escapeHtml(options.hookUrl);
  const doc = (file: string, title: string) =>
    options.docs.includes(file)
      ? `<a href="/docs/${file}">${title}</a>`
      : `${title} (docs/${file})`;
  const reach = options.proxied
    ? `<p>GitHub will send its webhooks to the smee.io channel <code>${hook}</code>, which this server forwards to <code>${WEBHOOK_PATH}</code>.</p>`
    : `<p class="warn"><strong>GitHub will send its webhooks to <code>${hook}</code>.</strong> GitHub cannot reach this machine there: open <a href="https://smee.io/new">smee.io/new</a>, put the channel's URL in <code>.env</code> as <code>WEBHOOK_PROXY_URL=…</code> and restart <code>npm start</code> before registering — or register now and later set the App's webhook URL to <code>https://&lt;your public host&gt;${WEBHOOK_PATH}</code>.</p>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Set up coder-loop</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
code { background: #f6f8fa; padding: 0 .25em; border-radius: 4px; }
.warn { border-left: 4px solid #bf8700; padding-left: .75rem; }
button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid #1f883d; background: #1f883d; color: #fff; cursor: pointer; }
</style>
</head>
<body>
<h1>coder-loop</h1>
<p>The Coder Loop on GitHub. A plan lives in your repository under <code>docs/plans/</code>; <code>/coder next</code> on an issue takes its next phase: a lock branch, a pull request, CI as the gate, review as the code-review step, and an approval that marks the tasks done and writes the report.</p>
<h2>1. Register the GitHub App</h2>
${reach}
<form action="${escapeHtml(options.createAppUrl)}" method="post">
<input type="hidden" name="manifest" id="manifest" value="${escapeHtml(JSON.stringify(options.manifest))}">
<button type="submit">Register the coder-loop GitHub App</button>
</form>
<p>GitHub creates a private App with the permissions and events of <code>app.yml</code>, then sends you back here; this server writes <code>APP_ID</code>, <code>PRIVATE_KEY</code> and <code>WEBHOOK_SECRET</code> to <code>.env</code>. Already have an App? Put its values in <code>.env</code> (<code>.env.example</code> lists every variable).</p>
<h2>2. Restart and install</h2>
<p>Stop this server and run <code>npm start</code> again: with the credentials it serves webhooks on <code>${WEBHOOK_PATH}</code>. Install the App on a repository with a plan, then comment <code>/coder help</code> on an issue.</p>
<h2>Read more</h2>
<ul>
<li>${doc('github-app.md', 'Running as a GitHub App')}: organisations (<code>GH_ORG</code>), GitHub Enterprise Server, smee.io, permissions</li>
<li>${doc('loop.md', 'The loop')}: what each command and event does, node by node</li>
<li>${doc('plan-format.md', 'The plan format')}, ${doc('configuration.md', 'Configuration')}</li>
<li>${doc('github-action.md', 'Running as a GitHub Action')} instead, ${doc('deployment.md', 'Deployment')}</li>
</ul>
<p>No account at hand? <code>npm run demo</code> runs a whole phase against an in-memory GitHub.</p>
</body>
</html>
`;
}

/** `.env` with `values` merged in (Probot's format: one KEY=value a line, newlines as \n). */
function mergeEnvFile(current: string, values: Record<string, string>): string {
  const lines = current.split('\n').filter((line) => line.trim() !== '');
  const keys = new Set(Object.keys(values));
  const kept = lines.filter((line) => !keys.has(line.split('=')[0]!.trim()));
  const added = Object.entries(values).map(
    ([key, value]) => `${key}=${value.includes('\n') ? `"${value.replace(/\n/g, '\\n')}"` : value}`,
  );
  return `${[...kept, ...added].join('\n')}\n`;
}

interface SetupOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  log: Pick<Logger, 'info' | 'warn'>;
  /** The smee.io channel made at start, or WEBHOOK_PROXY_URL. */
  proxyUrl: string | undefined;
}

type SetupHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** The setup server's routes: `/` and `/probot` (the page), `/probot/setup` (GitHub's redirect), `/docs/*.md`. */
export function setupHandler(options: SetupOptions): SetupHandler {
  const { env, cwd, log } = options;
  const appYmlPath = [join(cwd, 'app.yml'), join(PACKAGE_ROOT, 'app.yml')].find((p) =>
    existsSync(p),
  );
  const appYml = appYmlPath ? readFileSync(appYmlPath, 'utf8') : '';
  const homepage = cloneHomepage();
  const docsDir = join(PACKAGE_ROOT, 'docs');
  const docs = existsSync(docsDir) ? readdirSync(docsDir).filter((f) => f.endsWith('.md')) : [];
  return async (req, res) => {
    if (req.method !== 'GET') return false;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const forwarded = req.headers['x-forwarded-proto'];
    const protocol = typeof forwarded === 'string' ? forwarded.split(',')[0]! : 'http';
    const baseUrl = `${protocol}://${req.headers['x-forwarded-host'] ?? req.headers.host}`;
    if (url.pathname === '/' || url.pathname === '/probot') {
      const hookUrl = options.proxyUrl ?? `${baseUrl}${env.WEBHOOK_PATH || WEBHOOK_PATH}`;
      const page = setupPage({
        manifest: manifestFor(appYml, baseUrl, hookUrl, homepage),
        createAppUrl: createAppUrl(env),
        hookUrl,
        proxied: Boolean(options.proxyUrl),
        docs,
      });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return true;
    }
    const docFile = /^\/docs\/([\w.-]+\.md)$/.exec(url.pathname)?.[1];
    if (docFile && docs.includes(docFile)) {
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end(readFileSync(join(docsDir, docFile)));
      return true;
    }
    if (url.pathname === '/probot/setup') {
      const code = url.searchParams.get('code');
      if (!code) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('code missing');
        return true;
      }
      const octokit = new Octokit(
        env.GHE_HOST ? { baseUrl: `${env.GHE_PROTOCOL || 'https'}://${env.GHE_HOST}/api/v3` } : {},
      );
      const { data } = await octokit.request('POST /app-manifests/{code}/conversions', {
        code,
        headers: { 'x-github-api-version': '2022-11-28' },
      });
      const envPath = join(cwd, '.env');
      const current = existsSync(envPath) ? readFileSync(envPath, 'utf8') : '';
      writeFileSync(
        envPath,
        mergeEnvFile(current, {
          APP_ID: String(data.id),
          PRIVATE_KEY: data.pem,
          WEBHOOK_SECRET: data.webhook_secret ?? '',
          GITHUB_CLIENT_ID: data.client_id,
          GITHUB_CLIENT_SECRET: data.client_secret,
          ...(options.proxyUrl ? { WEBHOOK_PROXY_URL: options.proxyUrl } : {}),
        }),
        { mode: 0o600 },
      );
      log.info(
        `coder-loop: App ${data.slug ?? data.id} registered; credentials written to .env. Restart npm start to serve its webhooks.`,
      );
      res.writeHead(302, { location: `${data.html_url}/installations/new` }).end();
      return true;
    }
    return false;
  };
}
