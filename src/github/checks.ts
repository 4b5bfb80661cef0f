import { CHECK_NAME, checkRunOutput, type CheckRunView } from '../core/index.js';
import type { GitHub, Repo } from './client.js';

/** Creates the `coder-loop` check run on a head commit, showing where the PR stands. */
export async function createCheckRun(
  gh: GitHub,
  repo: Repo,
  headSha: string,
  view: CheckRunView,
  repoUrl: string,
  ref: string,
): Promise<number> {
  const { data } = await gh.request('POST /repos/{owner}/{repo}/check-runs', {
    ...repo,
    name: CHECK_NAME,
    head_sha: headSha,
    status: 'in_progress',
    output: checkRunOutput(view, repoUrl, ref),
  });
  return Number(data.id);
}
