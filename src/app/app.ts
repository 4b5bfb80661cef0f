import type { Context, Probot } from 'probot';
import { cliCommand, CONFIG_PATH, githubRepositoryOf, type LoopIdentity } from '../core/index.js';
import { cloneHomepage } from './setup.js';
import { loadConfigFromRepo } from '../github/config.js';
import { appIdentity, once } from '../github/identity.js';
import { dispatch, resumeBranch, type LoopEnv, type LoopOutcome } from '../github/loop/index.js';
import { headOfEvent, REPOSITORY } from '../github/loop/payloads.js';
import { redisSerialByKey, serialByKey } from './serial.js';
import { redisWaker, type AppWakeJob } from './wake.js';

/** What the adapter uses of a Probot context: every event the loop handles has a repository. */
type RepoEvent = Pick<Context, 'octokit' | 'log' | 'repo'> & {
  payload: { repository: { html_url: string; default_branch: string } };
};

/** The LoopEnv of one webhook delivery: its installation's Octokit, repository and config. */
function envFrom(
  context: RepoEvent,
  identity: () => Promise<LoopIdentity>,
  now: () => Date = () => new Date(),
  cli?: string,
): LoopEnv {
  const { repository } = context.payload;
  return {
    ...(cli !== undefined ? { cli } : {}),
    gh: context.octokit,
    repo: context.repo(),
    repoUrl: repository.html_url,
    defaultBranch: repository.default_branch,
    // This repository's own .github/coder.yml on its default branch, read as the Action reads it
    // (SPEC §6): never Probot's `context.config`, which falls back to `<owner>/.github` and
    // follows `_extends`, so that whoever writes another repository would decide for this one.
    loadConfig: () =>
      loadConfigFromRepo(context.octokit, context.repo(), CONFIG_PATH, repository.default_branch),
    identity,
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
  /**
   * The Redis the replicas share (`REDIS_URL`): a pause's resume is a delayed BullMQ job there.
   * Without it the App has no wake-up queue (none it could keep across a restart), and says so.
   */
  redisUrl?: string;
  /**
   * How users run the CLI (`npx github:<owner>/coder-loop`, core/cliCommand.ts): the commands the
   * replies print. Default: the CLI's own name.
   */
  cli?: string;
}

/** The deliveries the App acts on (each also needs its handler's fields: see `dispatch`). */
export const APP_EVENTS = [
  'issue_comment.created',
  'issues.labeled',
  'check_suite.completed',
  'check_run.completed',
  'status',
  'workflow_run.completed',
  'pull_request_review.submitted',
  'pull_request.closed',
  'pull_request.synchronize',
  // A base switched (`changes.base`): said once while it is another, judged once set back.
  'pull_request.edited',
] as const;

/** The Probot app: each webhook goes to the same dispatch the Action runs. */
export function createApp(options: AppOptions = {}): (app: Probot) => void {
  return (app) => {
    // The App's bot login and id: read once per process (GET /app), when an event first needs it.
    const identity = once(async () => appIdentity(await app.auth()));
    const now = options.now ?? (() => new Date());
    // One head's events one at a time (several arrive at once for one CI result): keyed by
    // repository and head commit; with the replicas' Redis, across replicas too.
    const serial = options.redisUrl ? redisSerialByKey(options.redisUrl).serial : serialByKey();
    const headKey = (owner: string, repo: string, sha: string | undefined) =>
      sha === undefined ? undefined : `${owner}/${repo}@${sha}`;
    // A pause's end: the installation's token, the repository read, the PR resumed if still due.
    const resume = async (job: AppWakeJob): Promise<void> => {
      const octokit = await app.auth(job.installation);
      const { data } = await octokit.request('GET /repos/{owner}/{repo}', {
        owner: job.owner,
        repo: job.repo,
      });
      const context = {
        octokit,
        log: app.log,
        repo: () => ({ owner: job.owner, repo: job.repo }),
        payload: { repository: data },
      } as unknown as RepoEvent;
      const env = envFrom(context, identity, now, options.cli);
      const { config } = await env.loadConfig();
      if (!config) return;
      report(
        context,
        await serial(headKey(job.owner, job.repo, job.sha), () =>
          resumeBranch(env, config, job.branch),
        ),
      );
    };
    const waker = options.redisUrl
      ? redisWaker(options.redisUrl, resume, (job, error) =>
          app.log.error(
            { err: error },
            `coder-loop: the wake-up of ${job.owner}/${job.repo}#${job.pullRequest} at ${job.at} failed: ${error.message}`,
          ),
        )
      : undefined;
    if (!waker)
      app.log.warn(
        "coder-loop: no REDIS_URL: no wake-up queue, so nothing here resumes a pause at the agent's usage limit by itself (none could be kept across a restart); the scheduled resume workflow or `/coder resume` does (see docs/agent.md).",
      );
    app.on([...APP_EVENTS], async (context) => {
      // A signed payload without its repository is logged and answered 2xx, like any other
      // malformed one (dispatch checks the rest): never a TypeError and a 500.
      if (!REPOSITORY.safeParse(context.payload).success) {
        context.log.warn(`coder-loop: ignored a ${context.name} delivery without its repository`);
        return;
      }
      const env = envFrom(context as unknown as RepoEvent, identity, now, options.cli);
      const installation = (context.payload as { installation?: { id: number } }).installation?.id;
      if (waker && installation !== undefined)
        env.wake = (job) => waker.wake({ ...job, installation });
      const key = headKey(
        env.repo.owner,
        env.repo.repo,
        headOfEvent(context.name, context.payload),
      );
      report(
        context as unknown as RepoEvent,
        await serial(key, () => dispatch(env, context.name, context.payload)),
      );
    });
  };
}

// The CLI the replies name: CODER_LOOP_REPOSITORY (owner/name on github.com), else this clone's
// `origin` on github.com (the copy of coder-loop the App runs from), else the CLI's own name.
const cliRepository =
  process.env.CODER_LOOP_REPOSITORY || githubRepositoryOf(cloneHomepage()) || undefined;

export default createApp({
  ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
  cli: cliCommand(cliRepository),
});
