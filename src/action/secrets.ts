/** What of an event tells whether its workflow run was given the repository's secrets. */
export interface SecretsPayload {
  repository?: { full_name?: string };
  pull_request?: { head?: { repo?: { full_name?: string } | null } };
}

/**
 * Why this run has no secrets, when GitHub withholds them: workflows started by Dependabot get
 * only Dependabot secrets, and `pull_request` / `pull_request_review` runs from a fork get none.
 * The token input is then empty; the loop acts on the base repository's events instead.
 */
export function withoutSecrets(
  payload: SecretsPayload,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (env.GITHUB_ACTOR === 'dependabot[bot]')
    return 'a workflow run started by Dependabot gets no Actions secrets';
  const head = payload.pull_request?.head?.repo?.full_name;
  if (head && head !== payload.repository?.full_name)
    return `a workflow run for a pull request from the fork ${head} gets no secrets`;
  return undefined;
}
