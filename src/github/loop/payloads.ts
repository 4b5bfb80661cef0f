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
