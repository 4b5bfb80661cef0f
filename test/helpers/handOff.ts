import { parseAgentPayload, type AgentPayload, type ChangeSet } from '../../src/core/index.js';
import { applyAgentRun, handOffNotAsked } from '../../src/github/agent.js';
import {
  dispatchAgentFailure,
  dispatchAgentPause,
  type LoopEnv,
} from '../../src/github/loop/index.js';
import { LOOP_APP, NOW } from './github.js';
import { simLoopEnv } from './world.js';
import type { SimGitHub } from '../sim/github.js';

/** A config whose agent does nothing: hand-offs are sent, no agent runs. */
export const AGENT = 'agent:\n  command: "true"\n';

/** A provider's usage limit, as the agent step reads it, ending at 15:00 of the tests' day. */
export const LIMIT = {
  reason: 'Claude Code reached its usage limit',
  until: '2026-11-22T15:00:00.000Z',
};

/** The App's identity: its bot, and the app whose check runs are the loop's. */
export const LOOP = { login: 'coder-loop[bot]', app: { id: LOOP_APP.id, slug: LOOP_APP.slug } };

/** The loop's env on the in-memory GitHub as the App has it, at the tests' time. */
export function agentEnv(sim: SimGitHub, wake?: LoopEnv['wake']): LoopEnv {
  return {
    ...simLoopEnv(sim, { token: 'ghs_app_token', identity: LOOP, now: () => NOW }),
    ...(wake ? { wake } : {}),
  };
}

/** The loop's last hand-off, as the agent steps read it from the dispatch GitHub delivers. */
export function lastHandOff(sim: SimGitHub): AgentPayload {
  const { payload, problems } = parseAgentPayload(sim.dispatches.at(-1)!.client_payload);
  if (!payload) throw new Error(problems.join('\n'));
  return payload;
}

/** What steps agent and apply decide of a dispatch `payload` (undefined: it is the one asked). */
export function notAsked(env: LoopEnv, payload: AgentPayload): Promise<string | undefined> {
  return handOffNotAsked(env.gh, env.repo, payload, { login: LOOP.login }, LOOP);
}

/**
 * The apply job as src/action/main.ts runs it once its gate let `payload` through: the agent's
 * `run` (on the hand-off's head) applied, then a pause or a failed attempt told to the loop.
 */
export async function applyJob(
  env: LoopEnv,
  payload: AgentPayload,
  run: Omit<ChangeSet, 'version' | 'headSha'>,
  options: { output?: string; keepPartialWork?: boolean } = {},
) {
  const { config } = await env.loadConfig();
  const outcome = await applyAgentRun(
    env.gh,
    env.repo,
    payload,
    { version: 1, headSha: payload.headSha, ...run },
    options.output ?? '',
    'docs/plans',
    {
      ...(options.keepPartialWork ? { keepPartialWork: true } : {}),
      measured: { version: 1, minutes: 3, timedOut: false },
      record: { identity: LOOP, repoUrl: env.repoUrl },
      now: new Date('2026-11-22T12:00:00.000Z'),
    },
  );
  if (outcome.state === 'paused' && outcome.pause)
    await dispatchAgentPause(env, config!, payload, outcome.pause, outcome.commit);
  if (outcome.failedAttempt)
    await dispatchAgentFailure(
      env,
      config!,
      payload,
      outcome.reason ?? outcome.state,
      outcome.partial ? outcome.commit : undefined,
    );
  return outcome;
}
