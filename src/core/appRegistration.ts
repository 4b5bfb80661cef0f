import yaml from 'js-yaml';

/**
 * Registering the GitHub App the loop acts as, without typing its permissions by hand: `app.yml`
 * (the one list of permissions and events) turned into GitHub's "new App" link with URL
 * parameters (for the Action, which needs no webhook), and an App's homepage taken from the
 * repository's own remote. Pure: the shells read `app.yml` and the remote.
 */

export interface AppManifest {
  name?: string;
  description?: string;
  url?: string;
  default_permissions: Record<string, string>;
  default_events: string[];
}

/** `app.yml`'s text, as the registration needs it; throws on a file that is not a manifest. */
export function parseAppManifest(text: string): AppManifest {
  const raw = yaml.load(text) as Record<string, unknown> | null;
  if (!raw || typeof raw !== 'object' || typeof raw.default_permissions !== 'object') {
    throw new Error('app.yml has no `default_permissions` mapping');
  }
  const string = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const name = string(raw.name);
  const description = string(raw.description);
  const url = string(raw.url);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description: description.trim() } : {}),
    ...(url !== undefined ? { url } : {}),
    default_permissions: Object.fromEntries(
      Object.entries(raw.default_permissions as Record<string, unknown>).map(([k, v]) => [
        k,
        String(v),
      ]),
    ),
    default_events: Array.isArray(raw.default_events) ? raw.default_events.map(String) : [],
  };
}

/** GitHub's names for an App's permissions, as its settings page shows them. */
const PERMISSION_LABELS: Record<string, string> = {
  contents: 'Contents',
  pull_requests: 'Pull requests',
  issues: 'Issues',
  checks: 'Checks',
  statuses: 'Commit statuses',
  actions: 'Actions',
  metadata: 'Metadata',
  members: 'Members',
};

/** A permission as GitHub's settings page names it (`pull_requests` → Pull requests). */
export function permissionLabel(permission: string): string {
  return (
    PERMISSION_LABELS[permission] ??
    permission.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())
  );
}

/**
 * The App's permissions in one line, as the README, the docs, `coder-loop app` and doctor say
 * them: `Contents, Pull requests, …: write; Commit statuses, …: read` (the manifest's order).
 */
export function permissionSummary(manifest: AppManifest): string {
  const byAccess = new Map<string, string[]>();
  for (const [permission, access] of Object.entries(manifest.default_permissions))
    byAccess.set(access, [...(byAccess.get(access) ?? []), permissionLabel(permission)]);
  return [...byAccess].map(([access, names]) => `${names.join(', ')}: ${access}`).join('; ');
}

/**
 * Why the App asks for each permission: the comment after each `default_permissions` entry of
 * `app.yml` (`contents: write # lock branches, …`), which docs/github-action.md's table shows.
 */
export function permissionReasons(text: string): Record<string, string> {
  const reasons: Record<string, string> = {};
  const block = /^default_permissions:\s*\n((?:[ \t]+.*\n?)*)/m.exec(text)?.[1] ?? '';
  for (const line of block.split('\n')) {
    const m = /^\s+([a-z_]+):\s*\S+\s*(?:#\s*(.*))?$/.exec(line);
    if (m) reasons[m[1]!] = m[2]?.trim() ?? '';
  }
  return reasons;
}

/** A repository's web address from its git remote (`https://…`, `git@host:o/r.git`, `ssh://…`). */
export function homepageOfRemote(remote: string): string | undefined {
  const text = remote.trim();
  const scp = /^[\w.-]+@([\w.-]+):([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(text);
  if (scp) return `https://${scp[1]}/${scp[2]}/${scp[3]}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol)) return undefined;
  const parts = url.pathname
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter(Boolean);
  if (parts.length !== 2) return undefined;
  return `https://${url.hostname}/${parts[0]}/${parts[1]}`;
}

/** GitHub limits an App's name to 34 characters; App names are unique across GitHub. */
const APP_NAME_LIMIT = 34;

export interface RegistrationOptions {
  /** Register under this organisation instead of the personal account. */
  org?: string;
  /** GitHub Enterprise Server's host (default github.com). */
  host?: string;
  /** The App's homepage (GitHub requires one). */
  homepage?: string;
  /** Whose App: its name becomes `coder-loop-<owner>`, since `coder-loop` itself may be taken. */
  owner?: string;
}

/**
 * GitHub's "register a new App" link, preselected from the manifest's permissions: private, no
 * webhook (the Action hears events through its workflows), no events. The person registering can
 * still edit every value before pressing "Create GitHub App".
 */
export function appRegistrationUrl(manifest: AppManifest, options: RegistrationOptions): string {
  const host = options.host ?? 'github.com';
  const account = options.org ? `/organizations/${encodeURIComponent(options.org)}` : '';
  const base = manifest.name ?? 'coder-loop';
  const name = (options.owner ? `${base}-${options.owner}` : base).slice(0, APP_NAME_LIMIT);
  const params = new URLSearchParams({ name });
  if (manifest.description) params.set('description', manifest.description);
  if (options.homepage) params.set('url', options.homepage);
  params.set('public', 'false');
  params.set('webhook_active', 'false');
  for (const [permission, access] of Object.entries(manifest.default_permissions)) {
    params.set(permission, access);
  }
  return `https://${host}${account}/settings/apps/new?${params.toString()}`;
}
