import { readFile } from 'node:fs/promises';
import * as core from '@actions/core';
import { CONFIG_PATH, flowchart, NODES, type NodeId } from '../core/index.js';
import { loadConfigFromRepo } from '../github/config.js';
import { dispatch, type LoopEnv, type LoopOutcome } from '../github/loop/index.js';
import { createOctokit } from './octokit.js';
import { withoutSecrets, type SecretsPayload } from './secrets.js';

interface RepositoryPayload {
  repository?: { name: string; owner: { login: string }; html_url: string; default_branch: string };
}

/** Where an outcome stands in the flowchart, for the job summary. */
const NODE_OF: Record<string, NodeId> = {
  started: 'TDD',
  'already-started': 'TDD',
  locked: 'LockCheck',
  'plan-required': 'ValidateContext',
  'plan-complete': 'End',
  pending: 'Verification',
  verification: 'Verification',
  failed: 'Debug',
  'code-review': 'CodeReview',
  'changes-requested': 'TDD',
  escalated: 'Escalate',
  completing: 'FinalVerify',
  complete: 'End',
  passed: 'End',
  assessed: 'AssessTask',
};

function summary(outcome: LoopOutcome, event: string): string {
  const node = NODE_OF[outcome.state];
  const lines = [`## coder-loop: ${outcome.state}`, '', `Event: \`${event}\`.`];
  if (outcome.reason) lines.push('', outcome.reason);
  const facts = [
    outcome.plan && `plan ${outcome.plan}`,
    outcome.phase && `phase ${outcome.phase}`,
    outcome.branch && `branch \`${outcome.branch}\``,
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
 * The Action: the event that started the workflow goes to the same handlers as the App. One
 * error boundary: a failure ends the step with a clear message; an ignored event ends green.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const token = core.getInput('token');
    const configPath = core.getInput('config-path') || CONFIG_PATH;
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
      if (!reason) throw new Error('Input required and not supplied: token');
      core.notice(`coder-loop did nothing: ${reason}, so the token input is empty.`);
      return;
    }
    const repository = payload.repository;
    if (!repository) throw new Error(`The ${eventName} event has no repository.`);
    const defaultToken = Boolean(env.GITHUB_TOKEN) && token === env.GITHUB_TOKEN;
    if (defaultToken) {
      core.warning(
        'coder-loop runs on the default GITHUB_TOKEN: commits and pull requests it creates start no workflow runs, so CI never runs on them. Use an App token (actions/create-github-app-token) or a PAT; see docs/github-action.md.',
      );
    }
    const gh = createOctokit(token, env.GITHUB_API_URL || 'https://api.github.com');
    const repo = { owner: repository.owner.login, repo: repository.name };
    const loopEnv: LoopEnv = {
      gh,
      repo,
      repoUrl: repository.html_url,
      defaultBranch: repository.default_branch,
      loadConfig: () => loadConfigFromRepo(gh, repo, configPath, repository.default_branch),
      log: { info: (m) => core.info(m), warn: (m) => core.warning(m) },
      now: () => new Date(),
    };
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
      const warning = defaultToken
        ? "\n\n> [!WARNING]\n> This run used the default `GITHUB_TOKEN`: what it creates starts no workflow runs, so CI will not run on the loop's commits. Use an App token or a PAT."
        : '';
      await core.summary.addRaw(summary(outcome, eventName) + warning).write();
    }
  } catch (error) {
    core.setFailed(`coder-loop: ${error instanceof Error ? error.message : String(error)}`);
  }
}
