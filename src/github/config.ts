import { parseConfigText, type Config, type Problem } from '../core/index.js';
import { isHttpError, type GitHub, type Repo } from './client.js';

/**
 * `.github/coder.yml` (or another path) of this repository, from its default branch, validated.
 * Absent: the defaults. The one loader of both modes (SPEC §6): no other repository's file (no
 * `<owner>/.github` fallback, no `_extends`) decides for this one.
 */
export async function loadConfigFromRepo(
  gh: GitHub,
  repo: Repo,
  path: string,
  ref: string,
): Promise<{ config?: Config; problems: Problem[] }> {
  try {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/contents/{path}', {
      ...repo,
      path,
      ref,
      headers: { accept: 'application/vnd.github.raw+json' },
    });
    return parseConfigText(typeof data === 'string' ? data : '', path);
  } catch (error) {
    if (isHttpError(error, 404)) return parseConfigText('', path);
    throw error;
  }
}
