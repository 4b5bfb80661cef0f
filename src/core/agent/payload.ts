import * as z from 'zod';
import { AgentConfigSchema, type AgentConfig } from '../config.js';
import { checkPlanName, checkPlanPath, isPlanPath } from '../plan/layout.js';

/** The `repository_dispatch` event type of a hand-off to the coding agent. */
export const AGENT_EVENT_TYPE = 'coder-loop-agent';

/**
 * The seed's implementation nodes the agent is handed: TDD, Debug & Fix, Code Review → Issues,
 * and Revise Code (Passes Spec? said no).
 */
const AGENT_NODES = ['tdd', 'debug-fix', 'review-fix', 'revise'] as const;
export type AgentNode = (typeof AGENT_NODES)[number];

/** A branch name git and GitHub accept (git check-ref-format), under `coder/`. */
function branchProblem(name: string): string | undefined {
  if (!name.startsWith('coder/')) return 'must be a coder/ branch';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'holds a character git refuses';
  if (name.includes('..') || name.includes('//') || name.includes('@{'))
    return 'holds "..", "//" or "@{"';
  if (/(^|\/)\.|\/$|\.lock(\/|$)|\.$/.test(name)) return 'is not a valid ref name';
  return undefined;
}

const branch = z
  .string()
  .max(255)
  .superRefine((name, ctx) => {
    const problem = branchProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * A hand-off's id (`handOffId`): made by the loop when it asks for the hand-off, from the time it
 * decided and the PR's count of hand-offs (`2026-11-22T12:00:00.000Z#3`), so that two hand-offs of
 * the same node, attempt and head differ. Opaque to everyone but the comparison.
 */
export const HandOffIdSchema = z
  .string()
  .regex(/^[0-9A-Za-z.:#_-]{1,100}$/, 'must be a hand-off id the loop made');

/** The id of the hand-off asked for at `now`, the PR's `count`-th. */
export function makeHandOffId(now: Date, count: number): string {
  return `${now.toISOString()}#${count}`;
}

/**
 * A hand-off's payload, as the steps read it. GitHub allows at most 10 top-level properties in
 * a `client_payload`: it is sent as `encodeAgentPayload` folds it, 10 at most, so anything new
 * goes inside one of them (the hand-off's id is `agent.handOffId`; another kind's `planFile` and
 * `phaseId` go inside `plan`).
 */
const AgentPayloadSchema = z.strictObject({
  node: z.enum(AGENT_NODES),
  repository: z
    .string()
    .max(140)
    .regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'must be "owner/name"'),
  branch,
  headSha: z.string().regex(/^[0-9a-f]{40}$/, 'must be a full commit sha (40 hex digits)'),
  pullRequest: z.number().int().positive(),
  issue: z.number().int().positive(),
  /** Null in quick mode. */
  plan: z
    .string()
    .nullable()
    .superRefine((name, ctx) => {
      const problem =
        name === null ? undefined : isPlanPath(name) ? checkPlanPath(name) : checkPlanName(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** Null in quick mode. */
  phase: z.number().int().min(0).nullable(),
  /** A plan of another kind: its tasks file, `#<tag>` for a tagged kind's. */
  planFile: z.string().min(1).max(1_000).optional(),
  /** That plan's phase as its kind numbers it (`3.1`, a task id). */
  phaseId: z.string().min(1).max(100).optional(),
  attempt: z.number().int().min(1).max(100),
  agent: AgentConfigSchema.pick({ command: true, timeoutMinutes: true, env: true })
    .required()
    .extend({
      /**
       * The hand-off's id, as the loop's record asks for it (absent from an older loop's payload):
       * the steps run and apply only the hand-off whose id the record names.
       */
      handOffId: HandOffIdSchema.optional(),
    }),
});

export type AgentPayload = z.infer<typeof AgentPayloadSchema>;

export interface AgentHandOff {
  node: AgentNode;
  repo: { owner: string; repo: string };
  branch: string;
  headSha: string;
  pullRequest: number;
  /** The orchestrator's issue (plan mode) or the quick task's issue. */
  issue: number;
  /** Plan and phase number, in plan mode. */
  plan?: { name: string; phase: number; planFile?: string; phaseId?: string };
  /** 1 at TDD; the failed attempt's number k at Debug & Fix; the review round at review-fix. */
  attempt: number;
  /** `agent` of the default branch's config. */
  agent: AgentConfig;
  /** The hand-off's id (`makeHandOffId`), once the loop asks for it. */
  id?: string;
}

/** The `client_payload` of one hand-off; throws when a field is out of shape (a bug upstream). */
export function buildAgentPayload(handOff: AgentHandOff): AgentPayload {
  return AgentPayloadSchema.parse({
    node: handOff.node,
    repository: `${handOff.repo.owner}/${handOff.repo.repo}`,
    branch: handOff.branch,
    headSha: handOff.headSha,
    pullRequest: handOff.pullRequest,
    issue: handOff.issue,
    plan: handOff.plan?.name ?? null,
    phase: handOff.plan?.phase ?? null,
    ...(handOff.plan?.planFile !== undefined ? { planFile: handOff.plan.planFile } : {}),
    ...(handOff.plan?.phaseId !== undefined ? { phaseId: handOff.plan.phaseId } : {}),
    attempt: handOff.attempt,
    agent: {
      command: handOff.agent.command,
      timeoutMinutes: handOff.agent.timeoutMinutes,
      env: handOff.agent.env,
      ...(handOff.id !== undefined ? { handOffId: handOff.id } : {}),
    },
  });
}

/** The payload with its id: the hand-off as the loop asks for it. */
export function withHandOffId(payload: AgentPayload, id: string): AgentPayload {
  return { ...payload, agent: { ...payload.agent, handOffId: HandOffIdSchema.parse(id) } };
}

/**
 * The payload as it is sent (`client_payload`): a plan of another kind carries its tasks file and
 * its phase as that kind numbers it inside `plan` (`{ name, file, phaseId }`), so the payload stays
 * within GitHub's 10 top-level properties; the loop's own plans send `plan` as its name.
 */
export function encodeAgentPayload(payload: AgentPayload): Record<string, unknown> {
  const { planFile, phaseId, ...rest } = payload;
  if (planFile === undefined && phaseId === undefined) return { ...rest };
  return {
    ...rest,
    plan: {
      name: payload.plan,
      ...(planFile !== undefined ? { file: planFile } : {}),
      ...(phaseId !== undefined ? { phaseId } : {}),
    },
  };
}

/** `encodeAgentPayload` undone: a `plan` object unfolded, anything else as it came. */
function decodeAgentPayload(data: unknown): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const { plan, ...rest } = data as Record<string, unknown>;
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) return data;
  const { name, file, phaseId, ...unknown } = plan as Record<string, unknown>;
  return {
    ...rest,
    plan: name,
    ...(file !== undefined ? { planFile: file } : {}),
    ...(phaseId !== undefined ? { phaseId } : {}),
    // What else the object holds is refused by name, as an unknown key of the payload.
    ...Object.fromEntries(Object.entries(unknown).map(([k, v]) => [`plan.${k}`, v])),
  };
}

/** The inbound `client_payload`, validated: one message per problem, naming the field. */
export function parseAgentPayload(
  data: unknown,
): { payload: AgentPayload; problems: [] } | { payload?: undefined; problems: string[] } {
  const result = AgentPayloadSchema.safeParse(decodeAgentPayload(data));
  if (result.success) return { payload: result.data, problems: [] };
  return {
    problems: result.error.issues.map((issue) => {
      const where = issue.path.length ? `\`${issue.path.join('.')}\`` : 'The payload';
      return issue.code === 'unrecognized_keys'
        ? `${where} has unknown key(s) ${issue.keys.map((k) => `\`${k}\``).join(', ')}`
        : `${where}: ${issue.message}`;
    }),
  };
}
