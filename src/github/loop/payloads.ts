import * as z from 'zod';

/**
 * The fields of each webhook payload the loop reads, checked before any handler runs. A signed
 * payload that lacks one (GitHub changed a payload, or a test sent half of one) is ignored with
 * one log line — never a `TypeError` and a 500. The payloads carry much more; that is kept.
 */
const actor = z.looseObject({ login: z.string(), type: z.string().optional() });
const repo = z.looseObject({
  id: z.union([z.number(), z.bigint()]).optional(),
  full_name: z.string().optional(),
});
const issue = z.looseObject({
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string(),
  pull_request: z.unknown().optional(),
});
const pull = z.looseObject({
  number: z.number(),
  html_url: z.string(),
  body: z.string().nullable(),
  state: z.string(),
  user: actor.nullish(),
  head: z.looseObject({ ref: z.string(), sha: z.string(), repo: repo.nullish() }),
  base: z.looseObject({ ref: z.string().optional(), repo: repo.nullish() }),
  labels: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  merged: z.boolean().nullish(),
});

const PAYLOADS = {
  issue_comment: z.looseObject({
    action: z.string(),
    comment: z.looseObject({ id: z.number(), body: z.string().nullish(), user: actor.nullable() }),
    issue,
    sender: actor,
  }),
  issues: z.looseObject({
    action: z.string(),
    issue,
    label: z.looseObject({ name: z.string() }).optional(),
    sender: actor,
  }),
  pull_request: z.looseObject({ action: z.string(), pull_request: pull, sender: actor }),
  pull_request_review: z.looseObject({
    action: z.string(),
    review: z.looseObject({
      id: z.number(),
      state: z.string(),
      commit_id: z.string(),
      user: actor.nullable(),
    }),
    pull_request: pull,
  }),
  check_suite: z.looseObject({
    action: z.string(),
    check_suite: z.looseObject({ head_branch: z.string().nullable(), head_sha: z.string() }),
  }),
  check_run: z.looseObject({
    action: z.string(),
    check_run: z.looseObject({
      name: z.string(),
      head_sha: z.string(),
      app: z.looseObject({ id: z.number().optional(), slug: z.string().optional() }).nullish(),
      check_suite: z.looseObject({ head_branch: z.string().nullable() }).nullish(),
    }),
  }),
  status: z.looseObject({
    state: z.string(),
    sha: z.string(),
    branches: z.array(
      z.looseObject({ name: z.string(), commit: z.looseObject({ sha: z.string() }) }),
    ),
  }),
  workflow_run: z.looseObject({
    action: z.string(),
    workflow_run: z.looseObject({
      head_branch: z.string().nullable(),
      head_sha: z.string(),
      event: z.string().optional(),
      actor: actor.nullish(),
      triggering_actor: actor.nullish(),
      run_attempt: z.number().optional(),
      head_repository: z.looseObject({ full_name: z.string().optional() }).nullish(),
      pull_requests: z.array(z.looseObject({ number: z.number() })).nullish(),
    }),
  }),
} as const;

/**
 * The commit a loop PR's event is about, as its payload names it (the head a CI result, a review
 * or a push is for): a host that handles deliveries at once takes one head's events one at a
 * time. GitHub sends several for one CI result (`check_run`, `check_suite`, `workflow_run`,
 * `status`), each judged from what it reads: two judged together would both reply and both hand
 * on. Undefined for an event about no head (a command, a label), or a payload out of shape.
 */
export function headOfEvent(name: string, payload: unknown): string | undefined {
  if (payloadProblem(name, payload)) return undefined;
  const p = payload as Record<string, Record<string, unknown> | undefined> & { sha?: string };
  switch (name) {
    case 'check_suite':
      return p.check_suite?.head_sha as string;
    case 'check_run':
      return p.check_run?.head_sha as string;
    case 'workflow_run':
      return p.workflow_run?.head_sha as string;
    case 'status':
      return p.sha;
    case 'pull_request':
    case 'pull_request_target':
    case 'pull_request_review':
      return (p.pull_request?.head as { sha: string }).sha;
    default:
      return undefined;
  }
}

/** The repository every handled event carries: the adapters read it before anything else. */
export const REPOSITORY = z.looseObject({
  repository: z.looseObject({
    name: z.string(),
    html_url: z.string(),
    default_branch: z.string(),
    owner: z.looseObject({ login: z.string() }),
  }),
});

/**
 * The problem with a payload, in one line (`comment.body: expected string`), or undefined when
 * it has what the event's handler reads. Events the loop does not handle pass.
 */
export function payloadProblem(event: string, payload: unknown): string | undefined {
  const schema = (PAYLOADS as Record<string, z.ZodType>)[
    event === 'pull_request_target' ? 'pull_request' : event
  ];
  if (!schema) return undefined;
  const result = schema.safeParse(payload);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
    .join('; ');
}
