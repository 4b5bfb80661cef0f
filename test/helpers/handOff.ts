import { parseAgentPayload, type AgentPayload } from '../../src/core/index.js';
import { handOffNotAsked } from '../../src/github/agent.js';
import type { LoopEnv } from '../../src/github/loop/index.js';
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
