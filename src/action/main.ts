import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as core from '@actions/core';
import {
  cliCommand,
  ACTIONS_BOT,
  escapeInline,
  AGENT_EVENT_TYPE,
  codeSpan,
  CONFIG_PATH,
  escapeMarkdown,
  flowchart,
  formatProblem,
  identityShared,
  NODES,
  parseAgentPayload,
} from '../core/index.js';
import { handOffNotAsked } from '../github/agent.js';
import { loadConfigFromRepo } from '../github/config.js';
import { once, tokenIdentity } from '../github/identity.js';
import {
  dispatch,
  dispatchAgentFailure,
  dispatchAgentPause,
  type LoopEnv,
  type LoopOutcome,
} from '../github/loop/index.js';
import { applyStep } from './agent/apply.js';
import { agentStep } from './agent/step.js';
import { createOctokit } from './octokit.js';
import {
  APPLY_EVENTS,
  branchWorkflowProblem,
  DEFAULT_ENVIRONMENT,
  environmentProblem,
  LOOP_EVENTS,
  setupError,
} from './setup.js';
import { withoutSecrets, type SecretsPayload } from './secrets.js';

interface RepositoryPayload {
  repository?: { name: string; owner: { login: string }; html_url: string; default_branch: string };
}

/**
 * The job summary. Everything in it that came from outside (branch and plan names, reasons that
 * quote them, the event name) is escaped: the summary renders markdown and HTML.
 */
function summary(outcome: LoopOutcome, event: string): string {
  const node = outcome.node;
  const lines = [
    `## coder-loop: ${escapeMarkdown(outcome.state)}`,
    '',
    `Event: ${codeSpan(event)}.`,
  ];
  if (outcome.reason) lines.push('', escapeMarkdown(outcome.reason));
  const facts = [
    outcome.plan && `plan ${codeSpan(outcome.plan)}`,
    outcome.phase && `phase ${outcome.phase}`,
    outcome.branch && `branch ${codeSpan(outcome.branch)}`,
    outcome.pullRequest && `pull request #${outcome.pullRequest}`,
  ].filter(Boolean);
  if (facts.length) lines.push('', facts.join(' · '));
  if (node)
    lines.push(
      '',
      `Flowchart node: **${NODES[node]}**`,
      '',
      '```mermaid',
      flowchart(outcome.mode ?? 'plan', node),
      '```',
    );
  return lines.join('\n');
}

/**
 * An empty `token` input where GitHub gives the run its secrets: the token step before it made
 * none. In the documented workflow that is a secret or variable that is not set (or not in the
 * environment the job names): say which, and where they are set.
 */
const noToken = (cli: string) =>
  "the `token` input is empty: the step before it made no App token. In the documented workflow (examples/workflows/coder-loop.yml) the token step runs only when the secret CODER_LOOP_PRIVATE_KEY is set, and needs the variable CODER_LOOP_APP_ID: store the App's private key as that secret (in the environment the job names, if it names one) and its id as that variable, as docs/github-action.md says. `" +
  cli +
  ' doctor` in your repository checks the names the workflows use.';

/**
 * How users run the CLI of the coder-loop this run is (`npx github:<owner>/coder-loop`): the
 * repository of the Action's `uses:` reference, which GitHub gives the step.
 */
const cliOf = (env: NodeJS.ProcessEnv) => cliCommand(env.GITHUB_ACTION_REPOSITORY);

/** The Action's steps: the loop itself (default), the agent's run, applying its changes. */
const STEPS = ['loop', 'agent', 'apply'] as const;
type Step = (typeof STEPS)[number];

/**
 * The Action: the event that started the workflow goes to the same handlers as the App; with
 * `step: agent` or `step: apply` it runs one side of a hand-off to the coding agent. One error
 * boundary: a failure ends the step with a clear message; an ignored event ends green.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const token = core.getInput('token');
    const configPath = core.getInput('config-path') || CONFIG_PATH;
    const step = (core.getInput('step') || 'loop') as Step;
    if (!STEPS.includes(step))
      throw new Error(`Unknown step "${step}": use ${STEPS.map((s) => `"${s}"`).join(', ')}.`);
    const eventName = env.GITHUB_EVENT_NAME;
    const eventPath = env.GITHUB_EVENT_PATH;
    if (!eventName || !eventPath)
      throw new Error(
        'GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: run this inside a GitHub Actions workflow.',
      );
    const payload = JSON.parse(await readFile(eventPath, 'utf8')) as RepositoryPayload &
      SecretsPayload;
    if (!token) {
      const reason = withoutSecrets(payload, env);
      if (!reason) throw new Error(noToken(cliOf(env)));
      core.notice(`coder-loop did nothing: ${reason}, so the token input is empty.`);
      return;
    }
    const gh = createOctokit(token, env.GITHUB_API_URL || 'https://api.github.com');
    // A `schedule` event (the pause sweep) may carry no repository: the run's own is read.
    const repository =
      payload.repository ??
      (eventName === 'schedule' && env.GITHUB_REPOSITORY
        ? await readRepository(gh, env.GITHUB_REPOSITORY)
        : undefined);
    if (!repository) throw new Error(`The ${eventName} event has no repository.`);
    const repo = { owner: repository.owner.login, repo: repository.name };
    const loadConfig = () => loadConfigFromRepo(gh, repo, configPath, repository.default_branch);
    // The default GITHUB_TOKEN, passed as `token`, acts as github-actions[bot] whatever the slug.
    const defaultToken = Boolean(env.GITHUB_TOKEN) && token === env.GITHUB_TOKEN;
    const appSlug = defaultToken ? undefined : core.getInput('app-slug') || undefined;
    const identity = once(() => tokenIdentity(gh, appSlug));
    if (step !== 'agent') await checkSetup(env, eventName, step, gh, repo, repository, identity);
    if (step !== 'loop') {
      await runAgentSide(step, {
        gh,
        repo,
        eventName,
        event: payload,
        loadConfig,
        env,
        loopEnv: loopEnvOf(gh, repo, repository, loadConfig, identity, cliOf(env)),
      });
      return;
    }
    const shared = identityShared(await identity());
    if (shared) {
      core.warning(
        "coder-loop runs on the default GITHUB_TOKEN: commits and pull requests it creates start no workflow runs, so CI never runs on them, and every writer's workflow acts as github-actions[bot], the loop's identity: the loop merges nothing and completes no phase that needs an architect. Use an App token in an environment limited to the default branch; see docs/github-action.md and docs/security.md.",
      );
    }
    const loopEnv = loopEnvOf(gh, repo, repository, loadConfig, identity, cliOf(env));
    const loopWorkflow = ownWorkflow(env.GITHUB_WORKFLOW_REF, repo, repository.default_branch);
    if (loopWorkflow) loopEnv.loopWorkflow = loopWorkflow;
    const outcome = await dispatch(loopEnv, eventName, payload);
    core.setOutput('state', outcome.state);
    core.setOutput('mode', outcome.mode ?? '');
    core.setOutput('phase', outcome.phase === undefined ? '' : String(outcome.phase));
    core.setOutput('branch', outcome.branch ?? '');
    core.setOutput(
      'pull-request',
      outcome.pullRequest === undefined ? '' : String(outcome.pullRequest),
    );
    if (outcome.state === 'ignored')
      core.notice(
        `coder-loop ignored this ${eventName} event: ${outcome.reason ?? 'nothing to do'}.`,
      );
    else core.info(`coder-loop: ${outcome.state}${outcome.reason ? ` (${outcome.reason})` : ''}`);
    if (env.GITHUB_STEP_SUMMARY) {
      const warning = shared
        ? "\n\n> [!WARNING]\n> This run used the default `GITHUB_TOKEN`: what it creates starts no workflow runs, so CI will not run on the loop's commits, and every writer's workflow can act as the loop (docs/security.md). Use an App token in an environment limited to the default branch."
        : '';
      await core.summary.addRaw(summary(outcome, eventName) + warning).write();
    }
  } catch (error) {
    core.setFailed(`coder-loop: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The secure setup, checked at every run before anything is written (setup.ts): with a key (an
 * App token, a PAT), the job runs the default branch's workflow, on an event that runs it, in an
 * environment whose deployment branches are the default branch alone. The default
 * `GITHUB_TOKEN` holds no key: the loop is reduced instead (`identityShared`).
 */
async function checkSetup(
  env: NodeJS.ProcessEnv,
  eventName: string,
  step: 'loop' | 'apply',
  gh: ReturnType<typeof createOctokit>,
  repo: { owner: string; repo: string },
  repository: { default_branch: string },
  identity: LoopEnv['identity'],
): Promise<void> {
  if (identityShared(await identity())) return;
  const environment = core.getInput('environment') || DEFAULT_ENVIRONMENT;
  const problem =
    branchWorkflowProblem(
      {
        eventName,
        ref: env.GITHUB_REF,
        workflowRef: env.GITHUB_WORKFLOW_REF,
        repository: `${repo.owner}/${repo.repo}`,
        defaultBranch: repository.default_branch,
      },
      step === 'loop' ? LOOP_EVENTS : APPLY_EVENTS,
    ) ?? (await environmentProblem(gh, repo, environment, repository.default_branch));
  if (problem) throw setupError(problem, environment, repository.default_branch);
}

/**
 * This workflow's file, when it runs from the default branch's definition: GITHUB_WORKFLOW_REF
 * reads `owner/repo/.github/workflows/coder-loop.yml@refs/heads/main`.
 */
function ownWorkflow(
  ref: string | undefined,
  repo: { owner: string; repo: string },
  defaultBranch: string,
): string | undefined {
  const prefix = `${repo.owner}/${repo.repo}/`.toLowerCase();
  const suffix = `@refs/heads/${defaultBranch}`;
  if (!ref?.toLowerCase().startsWith(prefix) || !ref.endsWith(suffix)) return undefined;
  return ref.slice(prefix.length, -suffix.length);
}

/** The loop's environment in the Action: the token's client, the repository, its config. */
function loopEnvOf(
  gh: ReturnType<typeof createOctokit>,
  repo: { owner: string; repo: string },
  repository: { html_url: string; default_branch: string },
  loadConfig: LoopEnv['loadConfig'],
  identity: LoopEnv['identity'],
  cli: string,
): LoopEnv {
  return {
    cli,
    gh,
    repo,
    repoUrl: repository.html_url,
    defaultBranch: repository.default_branch,
    loadConfig,
    identity,
    log: { info: (m) => core.info(m), warn: (m) => core.warning(m) },
    now: () => new Date(),
  };
}

/** The repository `owner/name` as its payload would show it (a `schedule` event has none). */
async function readRepository(
  gh: ReturnType<typeof createOctokit>,
  fullName: string,
): Promise<NonNullable<RepositoryPayload['repository']>> {
  const [owner = '', name = ''] = fullName.split('/');
  const { data } = await gh.request('GET /repos/{owner}/{repo}', { owner, repo: name });
  return data;
}

/**
 * `step: agent` / `step: apply`: the hand-off comes as a `repository_dispatch` whose
 * `client_payload` is validated first; the config (plans folder, the agent's command) is the
 * default branch's, never the lock branch's.
 */
async function runAgentSide(
  step: 'agent' | 'apply',
  side: {
    gh: ReturnType<typeof createOctokit>;
    repo: { owner: string; repo: string };
    eventName: string;
    event: RepositoryPayload & {
      action?: string;
      client_payload?: unknown;
      /** Who sent the dispatch, as GitHub says: the loop's own identity for a real hand-off. */
      sender?: { login?: string } | null;
    };
    loadConfig: LoopEnv['loadConfig'];
    env: NodeJS.ProcessEnv;
    loopEnv: LoopEnv;
  },
): Promise<void> {
  const { gh, repo, event, env } = side;
  if (side.eventName !== 'repository_dispatch' || event.action !== AGENT_EVENT_TYPE)
    throw new Error(
      `step: ${step} runs on the repository_dispatch event "${AGENT_EVENT_TYPE}", not on ${side.eventName}${event.action ? ` "${event.action}"` : ''}.`,
    );
  const parsed = parseAgentPayload(event.client_payload);
  if (!parsed.payload)
    throw new Error(`The hand-off payload is invalid: ${parsed.problems.join('; ')}.`);
  const payload = parsed.payload;
  if (payload.repository.toLowerCase() !== `${repo.owner}/${repo.repo}`.toLowerCase())
    throw new Error(`The hand-off names ${payload.repository}, not this repository.`);
  if (step === 'agent' && !core.getInput('app-slug')) appSlugMissing(event.sender?.login);
  // Anyone with `contents: write` can send this event: only a hand-off the loop's record asked
  // for runs (the agent, or the apply of its changes). Anything else runs nothing, and says why.
  const identity =
    step === 'apply' || core.getInput('app-slug') ? await side.loopEnv.identity() : undefined;
  const notAsked = await handOffNotAsked(gh, repo, payload, event.sender, identity);
  if (notAsked) {
    core.warning(
      `coder-loop ${step}: this dispatch is no hand-off the loop asked for: ${notAsked}. Nothing was run.`,
    );
    core.setOutput('state', 'ignored');
    return;
  }
  const { config, problems } = await side.loadConfig();
  if (!config)
    throw new Error(
      `The config is invalid: ${problems.map((p) => formatProblem(p, cliOf(env))).join('; ')}`,
    );
  const temp = env.RUNNER_TEMP || tmpdir();
  const changesDir = resolve(core.getInput('changes-dir') || join(temp, 'coder-loop-changes'));
  core.setOutput('branch', payload.branch);
  core.setOutput('pull-request', String(payload.pullRequest));
  core.setOutput('changes-dir', changesDir);
  if (step === 'agent') {
    const agent = config.agent;
    if (!agent)
      throw new Error(
        "The default branch's config sets no `agent`: there is no command to run (see docs/agent.md).",
      );
    // The hand-off's id travels in `agent` too (the payload's 10 top-level properties are taken).
    const settings = { ...payload.agent };
    delete settings.handOffId;
    if (
      JSON.stringify(settings) !==
      JSON.stringify({
        command: agent.command,
        timeoutMinutes: agent.timeoutMinutes,
        env: agent.env,
      })
    )
      core.warning(
        "The hand-off's agent settings differ from the default branch's config: the config's are used.",
      );
    const result = await agentStep({
      gh,
      repo,
      payload,
      config: { ...config, agent },
      workspace: resolve(env.GITHUB_WORKSPACE || process.cwd()),
      changesDir,
      tempDir: temp,
      env,
      ...(identity ? { identity } : {}),
      log: { info: (m) => core.info(m), warn: (m) => core.warning(m) },
    });
    core.setOutput('state', result.outcome);
    core.setOutput('digest', result.digest);
    core.info(
      `coder-loop agent: ${result.outcome}${result.files ? ` (${result.files} files)` : ''}${result.reason ? `: ${result.reason}` : ''}`,
    );
    return;
  }
  const outcome = await applyStep({
    gh,
    repo,
    payload,
    plansDir: config.plansDir,
    ...(config.plans ? { plans: config.plans } : {}),
    changesDir,
    digest: core.getInput('changes-digest'),
    identity: identity!,
    keepPartialWork: config.agent?.keepPartialWork ?? false,
    repoUrl: side.loopEnv.repoUrl,
  });
  // A run that produced no commit is a failed attempt: Debug & Fix again, or escalation. Partial
  // work is a failed attempt on the commit that holds it: the next attempt starts from there.
  // Stopped at the provider's limit: paused, no attempt; the loop resumes it at the reset.
  // Each on the head the run left, for the hand-off the loop sent: told once, a re-run of this job
  // after the loop went on from the run (a stop, a resume, a new hand-off) tells it nothing.
  if (outcome.state === 'paused' && 'pause' in outcome && outcome.pause)
    await dispatchAgentPause(side.loopEnv, config, payload, outcome.pause, outcome.commit);
  if (outcome.failedAttempt)
    await dispatchAgentFailure(
      side.loopEnv,
      config,
      payload,
      escapeInline(outcome.reason ?? outcome.state),
      'partial' in outcome && outcome.partial ? outcome.commit : undefined,
    );
  core.setOutput('state', outcome.state);
  core.setOutput('commit', 'commit' in outcome ? (outcome.commit ?? '') : '');
  core.setOutput('failed-attempt', String(outcome.failedAttempt));
  const line = `coder-loop apply: ${outcome.state}${outcome.reason ? ` (${outcome.reason})` : ''}`;
  if (outcome.state === 'ignored') core.notice(line);
  else if (outcome.failedAttempt || outcome.state === 'moved') core.warning(line);
  else core.info(line);
}

/**
 * Step agent knows the loop only by the `app-slug` it is given: without it, it can take only the
 * pull request's author for the loop, and a writer's workflow opens PRs and sends dispatches as
 * `github-actions[bot]` too. So a hand-off an App sent — the loop runs as a GitHub App, or the
 * Action with an App token — is refused without the App's slug: the setup that lacks it stops at
 * its first hand-off, with the fix. (A hand-off from `github-actions[bot]` is the default
 * `GITHUB_TOKEN`'s, where every writer can act as the loop anyway; one from a person is a
 * personal token's: docs/security.md says what each promises.)
 */
function appSlugMissing(sender: string | undefined): void {
  if (!sender || !/\[bot\]$/i.test(sender) || sender.toLowerCase() === ACTIONS_BOT) return;
  const slug = sender.replace(/\[bot\]$/i, '');
  throw new Error(
    `this hand-off comes from ${sender}, a GitHub App, and step agent has no \`app-slug\`: without it, a writer's workflow can pass for the loop (it acts as github-actions[bot]). Give the step \`app-slug: ${slug}\`, written in the default branch's workflow (a repository variable is not out of a writer's reach); see docs/github-action.md.`,
  );
}
