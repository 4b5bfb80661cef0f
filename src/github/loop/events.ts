import {
  DEFAULT_CONFIG,
  isBot,
  parseComment,
  reply,
  type Actor,
  type Config,
  type Orchestrator,
  type QuickIssue,
} from '../../core/index.js';
import { applyRepo, claimCommand } from './apply.js';
import { canCommand, readIssueNow } from '../issues.js';
import { readerFor, type LoopEnv, type LoopOutcome } from './env.js';
import { assess, release, status } from './manage.js';
import { start } from './start.js';
import { goOnFromHeld } from './rerun.js';
import { retryOrResume, stop } from './resume.js';

/** The parts of webhook payloads the loop reads (the real payloads carry much more). */
interface IssueLike {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  pull_request?: unknown;
}
export interface IssueCommentPayload {
  action: string;
  comment: { id: number; body?: string | null; user: Actor | null };
  issue: IssueLike;
  sender: Actor;
}
export interface IssuesLabeledPayload {
  action: string;
  issue: IssueLike;
  label?: { name: string };
  sender: Actor;
}

/** The commands whose handler reads the default branch's files first. */
const READS_DEFAULT_BRANCH = new Set(['next', 'quick', 'run', 'status']);

/** `issue_comment.created`: the `/coder` commands (SPEC §5), from permitted humans only. */
export async function onIssueComment(
  env: LoopEnv,
  payload: IssueCommentPayload,
): Promise<LoopOutcome> {
  if (payload.action !== 'created')
    return { state: 'ignored', reason: `issue_comment.${payload.action}` };
  const author = payload.comment.user;
  if (isBot(author) || isBot(payload.sender))
    return { state: 'ignored', reason: 'comment by a bot' };
  const parsed = parseComment(payload.comment.body ?? '');
  if (parsed.kind === 'none') return { state: 'ignored', reason: 'not a /coder command' };

  const { gh, repo } = env;
  const issue = payload.issue;
  const login = author!.login;
  if (!(await canCommand(gh, repo, login))) {
    await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.notPermitted(login) }]);
    return { state: 'not-permitted', reason: `${login} lacks write access` };
  }
  // The 👀 and the configuration do not depend on each other: one round trip to GitHub, not two.
  const wantsConfig =
    parsed.kind === 'command' &&
    parsed.command.name !== 'help' &&
    parsed.command.name !== 'release';
  // A command that reads the default branch (a start, `/coder status`) reads it in the same round
  // trip: the event's reader keeps the answer for the handler, which waits on it (and meets its
  // error, if any) there; a config that stops the command leaves it unread.
  if (parsed.kind === 'command' && READS_DEFAULT_BRANCH.has(parsed.command.name))
    readerFor(env)
      .base(env.defaultBranch)
      .catch(() => undefined);
  // Both settle before anything else: no reply still on its way after the handler has thrown.
  const [eyes, loaded] = await Promise.allSettled([
    claimCommand(env, payload.comment.id),
    wantsConfig ? env.loadConfig() : undefined,
  ]);
  if (eyes.status === 'rejected') throw eyes.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  // The 👀 was there: the command was taken already, by a delivery of this comment before (GitHub
  // delivering it again, its workflow run re-run, both at once). A command is carried out once: a
  // `/coder next` delivered again after its phase merged would take the next phase. Commented
  // again, it is a new command.
  if (!eyes.value)
    return {
      state: 'ignored',
      reason: `comment ${payload.comment.id} was taken already (its 👀 is there): comment the command again to run it again`,
    };

  if (parsed.kind === 'invalid') {
    await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.invalid(parsed.reason) }]);
    return { state: 'invalid', reason: parsed.reason };
  }
  if (parsed.kind === 'unknown') {
    await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.unknown(parsed.verb) }]);
    return { state: 'help' };
  }
  const { command } = parsed;
  switch (command.name) {
    case 'help':
      await applyRepo(env, [{ kind: 'reply', to: issue.number, body: reply.help() }]);
      return { state: 'help' };
    case 'release':
      return release(env, {
        number: issue.number,
        isPullRequest: issue.pull_request !== undefined,
      });
  }
  const config = loaded.value?.config;
  if (!config) {
    const problems = loaded.value?.problems ?? [];
    await applyRepo(env, [
      { kind: 'reply', to: issue.number, body: reply.configInvalid(problems) },
    ]);
    return { state: 'config-invalid' };
  }
  const who = {
    issue: issue.number,
    issueUrl: issue.html_url,
    actor: login,
    comment: payload.comment.id,
  };
  switch (command.name) {
    case 'next':
    case 'quick':
      return start(env, {
        ...startOf(env, config, who, 'command'),
        ...(command.name === 'next'
          ? { mode: 'plan', plan: command.plan }
          : { mode: 'quick', issue: quickIssue(issue) }),
      });
    case 'run': {
      // `/coder next` whose record carries the run: its merge starts the next phase (run.ts).
      const now = env.now().toISOString();
      const run = { starter: login, startedAt: now };
      // The phase's PR is open already (a stopped run, a `/coder next`): the run goes on from it.
      return start(
        env,
        { ...startOf(env, config, { ...who, run }, 'command'), mode: 'plan', plan: command.plan },
        (pr, locked) => goOnFromHeld(env, config, pr, run, issue.number, locked),
      );
    }
    case 'stop':
      return stop(env, config, {
        number: issue.number,
        isPullRequest: issue.pull_request !== undefined,
      });
    case 'assess':
      return assess(env, config, {
        number: issue.number,
        title: issue.title,
        body: issue.body ?? null,
      });
    case 'status':
      return status(env, config, issue.number, command.plan);
    case 'retry':
    case 'resume':
      return retryOrResume(env, config, command.name, {
        number: issue.number,
        isPullRequest: issue.pull_request !== undefined,
      });
  }
}

/** `issues.labeled` with the quick label: quick mode, when a permitted human added it. */
export async function onIssuesLabeled(
  env: LoopEnv,
  payload: IssuesLabeledPayload,
): Promise<LoopOutcome> {
  if (payload.action !== 'labeled' || !payload.label)
    return { state: 'ignored', reason: 'not a label event' };
  if (isBot(payload.sender)) return { state: 'ignored', reason: 'label added by a bot' };
  if (payload.issue.pull_request !== undefined)
    return { state: 'ignored', reason: 'label on a pull request' };
  const { config, problems } = await env.loadConfig();
  if (!config) {
    // Only the default quick label can be recognised without a config.
    if (payload.label.name === DEFAULT_CONFIG.quick.label) {
      await applyRepo(env, [
        { kind: 'reply', to: payload.issue.number, body: reply.configInvalid(problems) },
      ]);
    }
    return { state: 'config-invalid' };
  }
  if (payload.label.name !== config.quick.label)
    return { state: 'ignored', reason: `label ${payload.label.name}` };
  const { gh, repo } = env;
  const issue = payload.issue;
  if (!(await canCommand(gh, repo, payload.sender.login))) {
    await applyRepo(env, [
      { kind: 'reply', to: issue.number, body: reply.notPermitted(payload.sender.login) },
    ]);
    return { state: 'not-permitted', reason: `${payload.sender.login} lacks write access` };
  }
  // A label event names no comment to claim, and GitHub may deliver it again (or a writer re-run
  // its workflow run) long after: after the quick PR merged and its "Fixes #N" closed the issue,
  // or after the label was taken off. Only an issue open and labelled now starts quick mode. The
  // issue's text stays the payload's: the one the writer vetted when they added the label.
  const now = await readIssueNow(gh, repo, issue.number);
  if (!now) return { state: 'ignored', reason: `issue #${issue.number} is gone` };
  if (!now.open) return { state: 'ignored', reason: `issue #${issue.number} is closed` };
  if (!now.labels.includes(config.quick.label))
    return {
      state: 'ignored',
      reason: `issue #${issue.number} no longer has the label ${config.quick.label}`,
    };
  const who = { issue: issue.number, issueUrl: issue.html_url, actor: payload.sender.login };
  return start(env, {
    ...startOf(env, config, who, 'label'),
    mode: 'quick',
    issue: quickIssue(issue),
  });
}

/** What every start is asked with, from the event's env. */
function startOf(env: LoopEnv, config: Config, who: Orchestrator, via: 'command' | 'label') {
  return {
    config,
    who,
    via,
    repo: env.repo,
    repoUrl: env.repoUrl,
    defaultBranch: env.defaultBranch,
    now: env.now().toISOString(),
    ...(env.loopWorkflow !== undefined ? { loopWorkflow: env.loopWorkflow } : {}),
    ...(env.cli !== undefined ? { cli: env.cli } : {}),
  };
}

function quickIssue(issue: IssueLike): QuickIssue {
  return { number: issue.number, title: issue.title, body: issue.body ?? null };
}
