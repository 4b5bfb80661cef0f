import type { Context, Probot } from 'probot';
import { CONFIG_PATH, parseConfig } from '../core/index.js';
import {
  onCiEvent,
  onIssueComment,
  onIssuesLabeled,
  onPullRequest,
  onReview,
  type CiPayload,
  type LoopEnv,
  type LoopOutcome,
  type PullRequestPayload,
  type ReviewPayload,
} from '../github/loop/index.js';

/** What the adapter uses of a Probot context: every event the loop handles has a repository. */
type RepoEvent = Pick<Context, 'octokit' | 'log' | 'config' | 'repo'> & {
  payload: { repository: { html_url: string; default_branch: string } };
};

/** The LoopEnv of one webhook delivery: its installation's Octokit, repository and config. */
export function envFrom(context: RepoEvent, now: () => Date = () => new Date()): LoopEnv {
  const { repository } = context.payload;
  return {
    gh: context.octokit,
    repo: context.repo(),
    repoUrl: repository.html_url,
    defaultBranch: repository.default_branch,
    // Probot reads .github/coder.yml from the default branch (and follows `_extends`).
    async loadConfig() {
      try {
        return parseConfig(await context.config('coder.yml'), CONFIG_PATH);
      } catch (error) {
        return {
          problems: [
            {
              severity: 'error',
              path: CONFIG_PATH,
              message: `The config cannot be read: ${(error as Error).message}.`,
              fix: 'Fix the YAML syntax; see docs/configuration.md.',
            },
          ],
        };
      }
    },
    log: { info: (m) => context.log.info(m), warn: (m) => context.log.warn(m) },
    now,
  };
}

function report(context: RepoEvent, outcome: LoopOutcome): void {
  context.log.info(
    { outcome },
    `coder-loop: ${outcome.state}${outcome.reason ? ` (${outcome.reason})` : ''}`,
  );
}

export interface AppOptions {
  /** The clock (tests pin it). */
  now?: () => Date;
}

/** The Probot app: each webhook goes to the same handlers the Action runs. */
export function createApp(options: AppOptions = {}): (app: Probot) => void {
  return (app) => {
    app.on('issue_comment.created', async (context) => {
      report(context, await onIssueComment(envFrom(context, options.now), context.payload));
    });
    app.on('issues.labeled', async (context) => {
      report(context, await onIssuesLabeled(envFrom(context, options.now), context.payload));
    });
    // Verification: CI results on a loop PR head.
    app.on(
      ['check_suite.completed', 'check_run.completed', 'status', 'workflow_run.completed'],
      async (context) => {
        const outcome = await onCiEvent(
          envFrom(context, options.now),
          context.name,
          context.payload as CiPayload,
        );
        report(context, outcome);
      },
    );
    app.on('pull_request_review.submitted', async (context) => {
      report(
        context,
        await onReview(envFrom(context, options.now), context.payload as ReviewPayload),
      );
    });
    app.on(['pull_request.closed', 'pull_request.synchronize'], async (context) => {
      report(
        context,
        await onPullRequest(envFrom(context, options.now), context.payload as PullRequestPayload),
      );
    });
  };
}

export default createApp();
