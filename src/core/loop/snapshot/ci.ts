/**
 * Verification's trigger: which loop head a CI completion is about. Pure: the payload in, the
 * branch and commit (or why the event is not one the gate waits for) out.
 */

/** Which head a CI event is about: its branch (when the payload names one) and commit. */
export interface CiHead {
  branch: string | null | undefined;
  sha: string;
}

/** The fields of CI payloads the gate reads. */
export interface CiPayload {
  action?: string;
  check_suite?: { head_branch: string | null; head_sha: string; conclusion?: string | null };
  check_run?: {
    name: string;
    head_sha: string;
    app?: { id?: number; slug?: string } | null;
    check_suite?: { head_branch: string | null } | null;
  };
  workflow_run?: { head_branch: string | null; head_sha: string; conclusion?: string | null };
  state?: string;
  context?: string;
  sha?: string;
  branches?: { name: string; commit: { sha: string } }[];
}

/** The head of a `check_suite`, `check_run`, `status` or `workflow_run` completion, or why none. */
export function ciHead(event: string, payload: CiPayload): CiHead | { ignored: string } {
  switch (event) {
    case 'check_suite':
      if (payload.action !== 'completed') return { ignored: `check_suite.${payload.action}` };
      return { branch: payload.check_suite!.head_branch, sha: payload.check_suite!.head_sha };
    case 'check_run':
      if (payload.action !== 'completed') return { ignored: `check_run.${payload.action}` };
      return {
        branch: payload.check_run!.check_suite?.head_branch,
        sha: payload.check_run!.head_sha,
      };
    case 'workflow_run':
      if (payload.action !== 'completed') return { ignored: `workflow_run.${payload.action}` };
      return { branch: payload.workflow_run!.head_branch, sha: payload.workflow_run!.head_sha };
    case 'status': {
      if (payload.state === 'pending') return { ignored: 'status pending' };
      // The payload lists the branches whose head is this commit.
      const branch = (payload.branches ?? []).find(
        (b) => b.name.startsWith('coder/') && b.commit.sha === payload.sha,
      );
      return { branch: branch?.name, sha: payload.sha! };
    }
    default:
      return { ignored: event };
  }
}

/**
 * A workflow run that started no job (`startup_failure`), as a `workflow_run` or `check_suite`
 * completion says: no check run shows it, so the gate reads the head's workflow runs for it.
 */
export function startedNoJob(event: string, payload: CiPayload): boolean {
  const conclusion =
    event === 'workflow_run'
      ? payload.workflow_run?.conclusion
      : event === 'check_suite'
        ? payload.check_suite?.conclusion
        : undefined;
  return conclusion === 'startup_failure';
}
