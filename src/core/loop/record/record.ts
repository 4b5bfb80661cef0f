import * as z from 'zod';
import { HandOffIdSchema } from '../../agent/payload.js';
import type { LoopMarker } from './marker.js';

/**
 * The loop's record (SPEC §3, "The loop's record"): what the loop believes about a loop PR —
 * mode, plan, phase, issue, failed attempts per head, review rounds, the escalation and its
 * reason, who pushed — kept only where the loop's own identity writes: the text of its
 * `coder-loop` check run on each head, stamped with the sha of that head. A CI job, a person or
 * another app cannot write into that check run (GitHub lets only the app that created a check run
 * update it), and a record copied onto another head does not read (its sha is not that head's).
 *
 * This is the one codec: the only place the record is encoded and decoded, versioned (`v`) and
 * checked with zod. PR bodies and labels may show parts of it to people; they are never read back.
 */

const SHA = z.string().regex(/^[0-9a-f]{40}$/);
const TEXT = (max: number) => z.string().max(max);

const AttemptSchema = z.object({
  sha: SHA,
  checks: z
    .array(
      z.object({
        name: TEXT(300),
        conclusion: TEXT(60),
        url: TEXT(2_000).optional(),
      }),
    )
    .max(100),
  reason: TEXT(4_000).optional(),
  agent: TEXT(100).optional(),
});

const RECORD_VERSION = 1;

/** Most lines of missing evidence the record keeps (the check run's table shows them all). */
const SPEC_MISSING = 50;

const LoopRecordSchema = z.object({
  v: z.literal(RECORD_VERSION),
  /** The head commit this record is about: it reads only on a check run of that commit. */
  head: SHA,
  mode: z.enum(['plan', 'quick']),
  /** The pull request and lock branch it belongs to (a record on another PR's commit is not its). */
  pr: z.number().int().positive().optional(),
  branch: TEXT(300).optional(),
  /** The base branch the loop opened the PR against (another base is not judged). */
  base: TEXT(300).optional(),
  plan: TEXT(300).optional(),
  phase: z.number().int().nonnegative().optional(),
  /** A plan of another kind: its tasks file (`#<tag>` for a tagged kind's). */
  planFile: TEXT(1_000).optional(),
  /** That plan's phase as the kind numbers it (`3.1`, a task id). */
  phaseId: TEXT(100).optional(),
  issue: z.number().int().positive(),
  comment: z.number().int().positive().optional(),
  attempts: z.array(AttemptSchema).max(100).optional(),
  reviewRounds: z.array(SHA).max(100).optional(),
  grew: z.literal(true).optional(),
  escalation: z.object({ reason: TEXT(4_000), sha: SHA }).optional(),
  pushers: z.array(TEXT(100)).max(500).optional(),
  vetted: z.object({ title: TEXT(1_000), body: TEXT(30_000) }).optional(),
  /** Every coding-agent run on the PR: its node, the head it started from, its wall time, usage. */
  agentRuns: z
    .array(
      z.object({
        node: z.enum(['tdd', 'debug-fix', 'review-fix', 'revise']),
        sha: SHA, // the head the agent started from
        minutes: z.number().nonnegative(),
        partial: z.literal(true).optional(),
        usage: z
          .object({
            inputTokens: z.number().int().nonnegative().optional(),
            outputTokens: z.number().int().nonnegative().optional(),
            costUsd: z.number().nonnegative().optional(),
          })
          .optional(),
      }),
    )
    .max(100)
    .optional(),
  pause: z
    .object({
      node: z.enum(['tdd', 'debug-fix', 'review-fix', 'revise']),
      attempt: z.number().int().nonnegative(),
      until: TEXT(40),
      since: TEXT(40),
      reason: TEXT(1_000),
      wake: z.literal('job').optional(),
    })
    .optional(),
  pauses: z
    .array(z.object({ since: TEXT(40), until: TEXT(40), reason: TEXT(1_000) }))
    .max(100)
    .optional(),
  run: z
    .object({
      starter: TEXT(100),
      plan: TEXT(300),
      startedAt: TEXT(40).optional(),
      totals: z
        .object({
          failedAttempts: z.number().int().nonnegative(),
          minutes: z.number().nonnegative(),
          costUsd: z.number().nonnegative(),
        })
        .optional(),
      progress: z.number().int().positive().optional(),
      phases: z
        .array(
          z.object({
            phase: z.number().int().nonnegative(),
            pr: z.number().int().positive(),
            failedAttempts: z.number().int().nonnegative(),
            minutes: z.number().nonnegative(),
            costUsd: z.number().nonnegative(),
            counts: z
              .object({
                agentRuns: z.number().int().nonnegative(),
                unpriced: z.number().int().nonnegative(),
                pauses: z.number().int().nonnegative(),
                pausedMinutes: z.number().nonnegative(),
                reruns: z.number().int().nonnegative(),
                flaky: z.number().int().nonnegative(),
              })
              .optional(),
          }),
        )
        .max(200)
        .optional(),
    })
    .optional(),
  reruns: z
    .array(
      z.object({
        sha: SHA,
        run: z.number().int().positive(),
        attempt: z.number().int().positive(),
        checks: z.array(TEXT(300)).max(50),
        infrastructure: z.literal(true).optional(),
        refused: z.literal(true).optional(),
      }),
    )
    .max(100)
    .optional(),
  flaky: z
    .array(z.object({ sha: SHA, name: TEXT(300) }))
    .max(100)
    .optional(),
  /** The hand-off the loop sent last (the agent's jobs run only one the record asked for). */
  handOff: z
    .object({
      node: z.enum(['tdd', 'debug-fix', 'review-fix', 'revise']),
      attempt: z.number().int().min(1).max(100),
      sha: SHA,
      /** Its id, which the payload carries too (absent in a record of an older coder-loop). */
      id: HandOffIdSchema.optional(),
    })
    .optional(),
  /** How many hand-offs the loop asked for on the PR (the next id's number). */
  handOffs: z.number().int().nonnegative().optional(),
  /** Passes Spec?: the verdict on `sha` and what lacked evidence (the Revise hand-off's list). */
  spec: z
    .object({ sha: SHA, passed: z.boolean(), missing: z.array(TEXT(500)).max(SPEC_MISSING) })
    .optional(),
  /** The head whose lack of any CI the issue was told of (ciStall.ts): said once per head. */
  ciStall: SHA.optional(),
  /** The files the loop's own commits wrote, as the blobs they left (planChanges.ts). */
  loopFiles: z
    .array(z.object({ path: TEXT(1_000), blob: SHA }))
    .max(20)
    .optional(),
});

export type LoopRecord = z.infer<typeof LoopRecordSchema>;

const OPEN = '<!-- coder-loop:record ';
const CLOSE = ' -->';

/**
 * How long an encoded record may be. GitHub keeps at most 65,535 characters of a check run's
 * text, and the text shows where the PR stands before the record: the record keeps well within.
 */
export const RECORD_LIMIT = 45_000;

/**
 * How long the issue's text (`vetted`) may be once encoded: the rest of the record — attempts,
 * agent runs, a run's phases — has the remainder of `RECORD_LIMIT`. A longer issue is refused
 * with a reply (quick mode's start), never cut.
 */
const VETTED_LIMIT = 20_000;

/** The record as the last line of a check run's text: an HTML comment GitHub does not render. */
export function encodeRecord(marker: LoopMarker, head: string): string {
  let text = encodeWhole(pick(marker), head);
  // Bounded whatever the input: a failed attempt's detail (its checks' links, long names) is
  // shown in replies and the PR body already; the record keeps what the loop decides from.
  for (let level = 1; text.length > RECORD_LIMIT && level <= 2; level++)
    text = encodeWhole(compact(pick(marker), level), head);
  return text;
}

function encodeWhole(fields: Omit<LoopRecord, 'v' | 'head'>, head: string): string {
  const record: LoopRecord = LoopRecordSchema.parse({ ...fields, v: RECORD_VERSION, head });
  // `<`, `>` and `-` escaped: nothing in the JSON can end the comment early.
  const json = JSON.stringify(record).replace(
    /[<>-]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${OPEN}${json}${CLOSE}`;
}

/**
 * The record with less detail: level 1 keeps each attempt's first ten checks by name only, and a
 * shorter reason; level 2 keeps each attempt's head and agent run alone (what the attempt count
 * and the budget read) and the escalation's reason shortened.
 */
function compact(
  fields: Omit<LoopRecord, 'v' | 'head'>,
  level: number,
): Omit<LoopRecord, 'v' | 'head'> {
  const attempts = fields.attempts?.map((a) => ({
    sha: a.sha,
    checks:
      level === 1
        ? a.checks
            .slice(0, 10)
            .map((c) => ({ name: c.name.slice(0, 100), conclusion: c.conclusion }))
        : [],
    ...(a.reason !== undefined && level === 1 ? { reason: a.reason.slice(0, 300) } : {}),
    ...(a.agent !== undefined ? { agent: a.agent } : {}),
  }));
  return {
    ...fields,
    ...(attempts ? { attempts } : {}),
    ...(fields.escalation && level === 2
      ? { escalation: { ...fields.escalation, reason: fields.escalation.reason.slice(0, 300) } }
      : {}),
  };
}

/** Whether an issue's text fits the record (`VETTED_LIMIT`), as quick mode keeps it. */
export function vettedFits(vetted: { title: string; body: string }): boolean {
  const bare = encodeWhole({ mode: 'quick', issue: 1 }, '0'.repeat(40)).length;
  return (
    vetted.title.length <= 1_000 &&
    vetted.body.length <= 30_000 &&
    encodeWhole({ mode: 'quick', issue: 1, vetted }, '0'.repeat(40)).length - bare <= VETTED_LIMIT
  );
}

/**
 * The record in a check run's text, when it is one, well-formed, of this version, and about
 * `head`. Anything else — no record, a malformed one, one about another commit — is no record.
 */
export function decodeRecord(
  text: string | null | undefined,
  head: string,
): LoopMarker | undefined {
  if (!text) return undefined;
  const start = text.lastIndexOf(OPEN);
  if (start === -1) return undefined;
  const end = text.indexOf(CLOSE, start + OPEN.length);
  if (end === -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start + OPEN.length, end));
  } catch {
    return undefined;
  }
  const parsed = LoopRecordSchema.safeParse(value);
  if (!parsed.success || parsed.data.head !== head) return undefined;
  const marker: LoopMarker & { v?: number; head?: string } = { ...parsed.data };
  delete marker.v;
  delete marker.head;
  return marker;
}

/** A check run's text with its record replaced (or appended). */
export function withRecord(text: string | null | undefined, marker: LoopMarker, head: string) {
  return `${withoutRecord(text)}\n\n${encodeRecord(marker, head)}`;
}

/** A check run's text without its record (what people read). */
export function withoutRecord(text: string | null | undefined): string {
  const body = text ?? '';
  const start = body.lastIndexOf(OPEN);
  return (start === -1 ? body : body.slice(0, start)).trimEnd();
}

/** The fields the record keeps (drops anything else a caller's object carries). */
function pick(m: LoopMarker): Omit<LoopRecord, 'v' | 'head'> {
  return {
    mode: m.mode,
    issue: m.issue,
    ...(m.pr !== undefined ? { pr: m.pr } : {}),
    ...(m.branch !== undefined ? { branch: m.branch } : {}),
    ...(m.base !== undefined ? { base: m.base } : {}),
    ...(m.plan !== undefined ? { plan: m.plan } : {}),
    ...(m.phase !== undefined ? { phase: m.phase } : {}),
    ...(m.planFile !== undefined ? { planFile: m.planFile } : {}),
    ...(m.phaseId !== undefined ? { phaseId: m.phaseId } : {}),
    ...(m.comment !== undefined ? { comment: m.comment } : {}),
    ...(m.attempts?.length
      ? {
          attempts: m.attempts.map((a) => ({
            sha: a.sha,
            checks: a.checks.slice(0, 100).map((c) => ({
              name: c.name.slice(0, 300),
              conclusion: c.conclusion.slice(0, 60),
              ...(c.url ? { url: c.url.slice(0, 2_000) } : {}),
            })),
            ...(a.reason !== undefined ? { reason: a.reason.slice(0, 4_000) } : {}),
            ...(a.agent !== undefined ? { agent: a.agent.slice(0, 100) } : {}),
          })),
        }
      : {}),
    ...(m.reviewRounds?.length ? { reviewRounds: m.reviewRounds } : {}),
    ...(m.grew ? { grew: true as const } : {}),
    ...(m.escalation
      ? { escalation: { reason: m.escalation.reason.slice(0, 4_000), sha: m.escalation.sha } }
      : {}),
    ...(m.pushers?.length ? { pushers: m.pushers } : {}),
    ...(m.vetted
      ? { vetted: { title: m.vetted.title.slice(0, 1_000), body: m.vetted.body.slice(0, 30_000) } }
      : {}),
    // The newest 100 runs: what a budget counts is kept whole in the record for as long as it fits.
    ...(m.agentRuns?.length
      ? {
          agentRuns: m.agentRuns.slice(-100).map((r) => ({
            node: r.node,
            sha: r.sha,
            minutes: r.minutes,
            ...(r.partial ? { partial: true as const } : {}),
            ...(r.usage ? { usage: { ...r.usage } } : {}),
          })),
        }
      : {}),
    ...(m.pause ? { pause: { ...m.pause, reason: m.pause.reason.slice(0, 1_000) } } : {}),
    ...(m.pauses?.length
      ? { pauses: m.pauses.slice(-100).map((p) => ({ ...p, reason: p.reason.slice(0, 1_000) })) }
      : {}),
    ...(m.run ? { run: m.run } : {}),
    ...(m.reruns?.length
      ? {
          reruns: m.reruns.slice(-100).map((r) => ({
            sha: r.sha,
            run: r.run,
            attempt: r.attempt,
            checks: r.checks.slice(0, 50).map((c) => c.slice(0, 300)),
            ...(r.infrastructure ? { infrastructure: true as const } : {}),
            ...(r.refused ? { refused: true as const } : {}),
          })),
        }
      : {}),
    ...(m.flaky?.length
      ? { flaky: m.flaky.slice(-100).map((f) => ({ sha: f.sha, name: f.name.slice(0, 300) })) }
      : {}),
    ...(m.handOff
      ? {
          handOff: {
            node: m.handOff.node,
            attempt: m.handOff.attempt,
            sha: m.handOff.sha,
            ...(m.handOff.id !== undefined ? { id: m.handOff.id } : {}),
          },
        }
      : {}),
    ...(m.handOffs !== undefined ? { handOffs: m.handOffs } : {}),
    ...(m.spec
      ? {
          spec: {
            sha: m.spec.sha,
            passed: m.spec.passed,
            missing: m.spec.missing.slice(0, SPEC_MISSING).map((l) => l.slice(0, 500)),
          },
        }
      : {}),
    ...(m.ciStall !== undefined ? { ciStall: m.ciStall } : {}),
    ...(m.loopFiles?.length
      ? {
          loopFiles: m.loopFiles
            .slice(-20)
            .map((f) => ({ path: f.path.slice(0, 1_000), blob: f.blob })),
        }
      : {}),
  };
}

/** The mode a lock branch stands for: `coder/quick/…` is quick mode, any other `coder/` plan. */
export function modeOfBranch(branch: string): 'plan' | 'quick' {
  return branch.startsWith('coder/quick/') ? 'quick' : 'plan';
}
