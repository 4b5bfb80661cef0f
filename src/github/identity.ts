import { ACTIONS_BOT, type LoopIdentity, type Permission } from '../core/index.js';
import { isHttpError, type GitHub, type Repo } from './client.js';

/**
 * The App's identity: its bot login and app id, from `GET /app` (app-authenticated). One request
 * per process: adapters memoize it with `once`.
 */
export async function appIdentity(app: GitHub): Promise<LoopIdentity> {
  const { data } = await app.request('GET /app');
  if (!data?.slug) throw new Error('GET /app answered without the App’s slug.');
  return { login: `${data.slug}[bot]`, app: { id: data.id, slug: data.slug } };
}

/**
 * The Action token's identity. An App token (actions/create-github-app-token) acts as
 * `<app-slug>[bot]`: the workflow passes the slug (input `app-slug`), since an installation token
 * cannot read its own app. Without it, `GET /user` names a personal access token's user; an
 * installation token is refused there (403), which is the default `GITHUB_TOKEN`:
 * `github-actions[bot]`.
 */
export async function tokenIdentity(gh: GitHub, appSlug?: string): Promise<LoopIdentity> {
  if (appSlug) return { login: `${appSlug}[bot]`, app: { slug: appSlug } };
  try {
    const { data } = await gh.request('GET /user');
    return { login: data.login };
  } catch (error) {
    if (!isHttpError(error, 403) && !isHttpError(error, 401)) throw error;
    return { login: ACTIONS_BOT, app: { slug: 'github-actions' } };
  }
}

/** A memoized async value; a failure is not kept, so the next call tries again. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= load().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}

/**
 * A user's permission on the repository, from the collaborator-permission endpoint
 * (author_association is not a permission). 404: not a collaborator at all, `none`.
 */
export async function readPermission(gh: GitHub, repo: Repo, login: string): Promise<Permission> {
  try {
    const { data } = await gh.request(
      'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
      { ...repo, username: login },
    );
    // `role_name` carries maintain and triage (and custom roles); `permission` folds them.
    const role = data.role_name as string;
    if (role === 'admin' || role === 'maintain' || role === 'write') return role;
    return (data.permission as Permission) ?? 'none';
  } catch (error) {
    if (isHttpError(error, 404)) return 'none';
    throw error;
  }
}

/** Whether a login is an active member of an organisation's team. */
export async function isTeamMember(
  gh: GitHub,
  team: { org: string; slug: string },
  login: string,
): Promise<boolean> {
  try {
    const { data } = await gh.request('GET /orgs/{org}/teams/{team_slug}/memberships/{username}', {
      org: team.org,
      team_slug: team.slug,
      username: login,
    });
    return data.state === 'active';
  } catch (error) {
    if (isHttpError(error, 404)) return false;
    throw error;
  }
}
