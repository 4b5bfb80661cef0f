import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const definitions = require('@octokit/webhooks-examples') as {
  name: string;
  examples: Record<string, unknown>[];
}[];

/**
 * A real example payload from @octokit/webhooks-examples (deep-copied), with the `installation`
 * an App receives added. Tests change only the fields their scenario is about.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function examplePayload(event: string, action?: string, index = 0): any {
  const definition = definitions.find((d) => d.name === event);
  if (!definition) throw new Error(`no example payloads for ${event}`);
  const examples = definition.examples.filter((e) => action === undefined || e.action === action);
  const example = examples[index];
  if (!example) throw new Error(`no example ${index} for ${event}.${action}`);
  const payload = structuredClone(example) as Record<string, unknown>;
  payload.installation = { id: 4242, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==' };
  return payload;
}

/** A real `issue_comment.created` delivery whose comment says `body`. */
export function commentDelivery(
  body: string,
  {
    login = 'Codertocat',
    id = 492700400,
    type = 'User',
  }: { login?: string; id?: number; type?: string } = {},
) {
  const payload = examplePayload('issue_comment', 'created');
  payload.comment.body = body;
  payload.comment.id = id;
  payload.comment.user.login = login;
  payload.comment.user.type = type;
  payload.sender.login = login;
  payload.sender.type = type;
  return { id: `delivery-${id}`, name: 'issue_comment' as const, payload };
}

/**
 * The loop's `workflow_run` when the review relay's run completed (the Action): a real
 * `workflow_run.completed` payload whose run GitHub started for a `pull_request_review` on
 * `branch` at `sha` of pull request `pull` in this repository, by `reviewer` (its actor), first
 * attempt. The review itself is not in it: the loop reads it from the API.
 */
export function reviewRelayRun(branch: string, sha: string, reviewer: string, pull = 2) {
  const payload = examplePayload('workflow_run', 'completed');
  payload.workflow_run.name = 'coder-loop-review';
  payload.workflow_run.path = '.github/workflows/coder-loop-review.yml';
  payload.workflow_run.event = 'pull_request_review';
  payload.workflow_run.head_branch = branch;
  payload.workflow_run.head_sha = sha;
  // This example's repository says its default branch is `main`; the other examples' (and the
  // simulator's) is `master`.
  payload.repository = examplePayload('check_suite', 'completed').repository;
  payload.workflow_run.repository = payload.repository;
  payload.workflow_run.head_repository = payload.repository;
  // An older example without the actor: the shape is that of a newer one's.
  const newer = examplePayload('workflow_run', 'completed', 2).workflow_run;
  payload.workflow_run.actor = { ...newer.actor, login: reviewer };
  payload.workflow_run.triggering_actor = { ...newer.actor, login: reviewer };
  // GitHub names the pull requests of this repository whose head the run is for.
  const [named] = newer.pull_requests;
  const repo = { ...named.head.repo, id: payload.repository.id, name: payload.repository.name };
  payload.workflow_run.pull_requests = [
    {
      ...named,
      url: `${payload.repository.url}/pulls/${pull}`,
      number: pull,
      head: { ...named.head, ref: branch, sha, repo },
      base: { ...named.base, repo },
    },
  ];
  return payload;
}

/**
 * A real `repository_dispatch` event (the example's installation and organization kept; the
 * sender the App's bot) for the repository `owner/repo`, with the loop's hand-off type and
 * `clientPayload`: what a workflow started by the loop's dispatch reads from `GITHUB_EVENT_PATH`.
 */
export function dispatchPayload(
  clientPayload: unknown,
  {
    owner,
    repo,
    defaultBranch = 'master',
  }: { owner: string; repo: string; defaultBranch?: string },
) {
  const payload = examplePayload('repository_dispatch');
  payload.action = 'coder-loop-agent';
  payload.branch = defaultBranch;
  payload.client_payload = clientPayload;
  Object.assign(payload.repository, {
    name: repo,
    full_name: `${owner}/${repo}`,
    html_url: `https://github.com/${owner}/${repo}`,
    default_branch: defaultBranch,
  });
  payload.repository.owner.login = owner;
  // The loop's App sends the dispatch: its bot is the sender.
  payload.sender.login = 'coder-loop[bot]';
  payload.sender.type = 'Bot';
  return payload as {
    action: string;
    client_payload: unknown;
    repository: { name: string; full_name: string; owner: { login: string } };
    sender: { login: string };
    installation: { id: number };
  };
}
