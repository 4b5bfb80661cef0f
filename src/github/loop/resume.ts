import { reply, updateMarker, type Config } from '../../core/index.js';
import { replyOnIssue } from '../issues.js';
import { clearEscalated, ESCALATED_LABEL, isEscalated, type PullRequest } from '../pulls.js';
import type { LoopEnv, LoopOutcome } from './env.js';
import { trustedLoopPull, type LoopPull } from './trust.js';
import { evaluate } from './verify.js';

/** The open loop PRs of an issue (or the PR the command was written on). */
async function loopPulls(
  env: LoopEnv,
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopPull[]> {
  const { gh, repo } = env;
  let pulls: PullRequest[];
  if (issue.isPullRequest) {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: issue.number,
    });
    pulls = data.state === 'open' ? [data] : [];
  } else {
    const { data } = await gh.request('GET /repos/{owner}/{repo}/pulls', {
      ...repo,
      state: 'open',
      per_page: 100,
    });
    pulls = data;
  }
  const found: LoopPull[] = [];
  for (const pr of pulls) {
    const loop = await trustedLoopPull(env, pr);
    if ('ignored' in loop) continue;
    if (issue.isPullRequest || loop.marker.issue === issue.number) found.push(loop);
  }
  return found;
}

/**
 * `/coder retry`: evaluate the gate again on the current head (a re-run of CI, a flaky check).
 * `/coder resume`: clear an escalation, start the attempt count again, and evaluate.
 */
export async function retryOrResume(
  env: LoopEnv,
  config: Config,
  command: 'retry' | 'resume',
  issue: { number: number; isPullRequest: boolean },
): Promise<LoopOutcome> {
  const { gh, repo } = env;
  const pulls = await loopPulls(env, issue);
  if (pulls.length === 0) {
    await replyOnIssue(gh, repo, issue.number, reply.noLoopPullRequest());
    return { state: 'no-pull-request' };
  }
  let last: LoopOutcome = { state: 'ignored' };
  for (const { pr, marker } of pulls) {
    if (command === 'retry') {
      if (isEscalated(pr)) {
        await replyOnIssue(
          gh,
          repo,
          issue.number,
          reply.escalated(pr.number, config.architects, 'still escalated', [
            'Run `/coder resume` to clear the escalation first.',
          ]),
        );
        last = { state: 'escalated', pullRequest: pr.number };
        continue;
      }
      last = await evaluate(env, config, { pr, marker }, { again: true });
      continue;
    }
    if (!isEscalated(pr)) {
      await replyOnIssue(gh, repo, issue.number, reply.notEscalated(pr.number));
      last = { state: 'not-escalated', pullRequest: pr.number };
      continue;
    }
    await clearEscalated(gh, repo, [pr.number, marker.issue]);
    const fresh = { ...marker, attempts: [], reviewRounds: [] };
    const body = updateMarker(pr.body ?? '', fresh);
    await gh.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: pr.number,
      body,
    });
    await replyOnIssue(gh, repo, marker.issue, reply.resumed(pr.number));
    const cleared: PullRequest = {
      ...pr,
      body,
      labels: (pr.labels ?? []).filter((l) => l.name !== ESCALATED_LABEL),
    };
    last = await evaluate(env, config, { pr: cleared, marker: fresh }, { again: true });
  }
  return last;
}
