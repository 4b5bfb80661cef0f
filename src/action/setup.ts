import { isHttpError, type GitHub, type Repo } from '../github/client.js';
import { readWhole, PER_PAGE } from '../github/pages.js';
import { withArticle } from '../core/index.js';

/**
 * Who can act as the loop, in the Action: the job that holds the loop's key (an App's, or a
 * personal token) must run only from the default branch's workflow definition, and the key must
 * live where only that job can read it — an environment whose deployment branches are the
 * default branch alone. A writer who pushes a branch can change that branch's workflows; if one
 * of them could read the key, the writer would be the loop. Checked at every run; the default
 * `GITHUB_TOKEN` holds no key (and is reduced instead: `identityShared`).
 */

/**
 * The events the loop's job runs on: GitHub takes each one's workflow from the default branch
 * (`pull_request_target` too, since December 2025), whatever branch the event is about.
 * Reviews arrive through the relay's `workflow_run`. The resume sweep runs on `schedule` (the
 * default branch's workflow). Never `workflow_dispatch`: whoever dispatches picks the branch whose
 * workflow file runs.
 */
export const LOOP_EVENTS = [
  'issue_comment',
  'issues',
  'pull_request_target',
  'workflow_run',
  'check_suite',
  'status',
  'schedule',
] as const;

/** `step: apply` runs on the hand-off, a `repository_dispatch`: the default branch's too. */
export const APPLY_EVENTS = ['repository_dispatch'] as const;

/** The environment the docs give the job, when the `environment` input names none. */
export const DEFAULT_ENVIRONMENT = 'coder-loop';

/** What GitHub sets for a workflow run that tells which workflow definition runs. */
export interface RunContext {
  eventName: string;
  /** `GITHUB_REF`. */
  ref: string | undefined;
  /** `GITHUB_WORKFLOW_REF`: `owner/repo/.github/workflows/file.yml@refs/heads/main`. */
  workflowRef: string | undefined;
  /** `owner/repo`, from the event's repository. */
  repository: string;
  defaultBranch: string;
}

/**
 * Why this run is not the default branch's workflow definition, or undefined when it is. Pure:
 * from the event name and the refs GitHub sets (a `pull_request` or `pull_request_review` run
 * has `refs/pull/N/merge`, a `push` its branch).
 */
export function branchWorkflowProblem(
  run: RunContext,
  events: readonly string[],
): string | undefined {
  const want = `refs/heads/${run.defaultBranch}`;
  if (!events.includes(run.eventName)) {
    const from = run.workflowRef?.split('@').at(-1) ?? run.ref;
    return `it was started by ${withArticle(run.eventName)} event${from ? `, which runs the workflow of ${from}` : ''}`;
  }
  if (!run.workflowRef) return 'GITHUB_WORKFLOW_REF is not set: which workflow runs is unknown';
  const at = run.workflowRef.lastIndexOf('@');
  const path = run.workflowRef.slice(0, at);
  const ref = run.workflowRef.slice(at + 1);
  if (at < 0 || !path.toLowerCase().startsWith(`${run.repository.toLowerCase()}/`))
    return `its workflow ${run.workflowRef} is not this repository's`;
  if (ref !== want) return `it runs the workflow of ${ref}, not of ${want}`;
  if (run.ref !== want) return `it runs at ${run.ref ?? 'no ref'}, not at ${want}`;
  return undefined;
}

/**
 * Why the environment does not keep the key to the default branch, or undefined when it does:
 * its deployment branches must be "Selected branches" naming exactly the default branch (a
 * protected-branches rule admits every branch a protection pattern matches, which a writer may
 * create). Read with the loop's token (any reader of the repository may).
 */
export async function environmentProblem(
  gh: GitHub,
  repo: Repo,
  name: string,
  defaultBranch: string,
): Promise<string | undefined> {
  let data;
  try {
    ({ data } = await gh.request('GET /repos/{owner}/{repo}/environments/{environment_name}', {
      ...repo,
      environment_name: name,
    }));
  } catch (error) {
    if (isHttpError(error, 404)) return `the environment "${name}" does not exist`;
    throw error;
  }
  const policy = data.deployment_branch_policy;
  if (!policy) return `the environment "${name}" admits every branch`;
  if (!policy.custom_branch_policies)
    return `the environment "${name}" admits every protected branch, not only ${defaultBranch}`;
  const { items } = await readWhole(async (page) => {
    const { data: list } = await gh.request(
      'GET /repos/{owner}/{repo}/environments/{environment_name}/deployment-branch-policies',
      { ...repo, environment_name: name, per_page: PER_PAGE, page },
    );
    return list.branch_policies;
  });
  const others = items.filter((p) => p.type === 'tag' || p.name !== defaultBranch);
  if (others.length || items.length === 0)
    return `the environment "${name}" admits ${others.length ? others.map((p) => `${p.type === 'tag' ? 'tag' : 'branch'} ${p.name}`).join(', ') : 'no branch'}, not only ${defaultBranch}`;
  return undefined;
}

/** The one error a run that is not the secure setup stops with: what is wrong, and the fix. */
export function setupError(problem: string, environment: string, defaultBranch: string): Error {
  return new Error(
    `this job holds the loop's token, but ${problem}. Only a job that runs the default branch's workflow may hold it, or a writer's branch could act as the loop. Fix: run the loop on ${LOOP_EVENTS.join(', ')} only (reviews through the relay workflow), keep the App's key as a secret of the environment "${environment}" whose deployment branches are "${defaultBranch}" alone, and give the job \`environment: ${environment}\` — docs/github-action.md, "The workflow".`,
  );
}
