import {
  buildAgentPayload,
  makeHandOffId,
  withHandOffId,
  type AgentNode,
  type AgentPayload,
} from '../../agent/payload.js';
import type { Config } from '../../config.js';
import type { CheckRunView } from './checkRun.js';
import type { HandOffRecord, LoopMarker } from './marker.js';

/**
 * The Implementation Track handed to a coding agent (SPEC §9): at TDD, Debug & Fix and review
 * fixes, when config `agent` is set. Pure: which hand-off, with which payload, and what the
 * check run says while the agent works. The adapters send it (`repository_dispatch`).
 */

export interface HandOffAt {
  node: AgentNode;
  repo: { owner: string; repo: string };
  branch: string;
  headSha: string;
  pullRequest: number;
  marker: LoopMarker;
  attempt: number;
}

/** The dispatch payload for this node, or undefined when no agent is configured. */
export function agentHandOff(
  config: Pick<Config, 'agent'>,
  at: HandOffAt,
): AgentPayload | undefined {
  if (!config.agent) return undefined;
  const { marker } = at;
  return buildAgentPayload({
    node: at.node,
    repo: at.repo,
    branch: at.branch,
    headSha: at.headSha,
    pullRequest: at.pullRequest,
    issue: marker.issue,
    ...(marker.mode === 'plan' && marker.plan && (marker.phase || marker.phaseId)
      ? {
          plan: {
            name: marker.plan,
            phase: marker.phase ?? 0,
            ...(marker.planFile !== undefined ? { planFile: marker.planFile } : {}),
            ...(marker.phaseId !== undefined ? { phaseId: marker.phaseId } : {}),
          },
        }
      : {}),
    attempt: at.attempt,
    agent: config.agent,
  });
}

const WHAT: Record<AgentNode, string> = {
  tdd: 'writes a failing test, then the code',
  'debug-fix': 'fixes the failing checks',
  'review-fix': 'answers the review',
  revise: 'gives the tasks that lack evidence their change and test',
};

/** The check run's "next" while the agent works: what it does, and where its runs are. */
function agentWorking(payload: AgentPayload, repoUrl: string): string {
  const runs = `${repoUrl}/actions?query=${encodeURIComponent('event:repository_dispatch')}`;
  return `Agent working (attempt ${payload.attempt}): the coding agent ${WHAT[payload.node]} and pushes one commit; CI runs on it. [Workflow runs](${runs}).`;
}

/** A check-run view with the agent's status in place of the human instructions. */
export function withAgent(
  view: CheckRunView,
  payload: AgentPayload | undefined,
  repoUrl: string,
): CheckRunView {
  return payload ? { ...view, next: agentWorking(payload, repoUrl) } : view;
}

/**
 * Code Review → Issues with an agent: the review rounds so far (one per head that a counting
 * reviewer asked changes on). Past `maxReviewRounds`: escalation instead of another hand-off.
 */
export function reviewRound(
  marker: LoopMarker,
  head: string,
  config: Pick<Config, 'agent'>,
): { round: number; repeat: boolean; exhausted: boolean } {
  const rounds = marker.reviewRounds ?? [];
  const repeat = rounds.includes(head);
  const round = repeat ? rounds.indexOf(head) + 1 : rounds.length + 1;
  const max = config.agent?.maxReviewRounds ?? Infinity;
  return { round, repeat, exhausted: round > max };
}

/** The hand-off a payload is, as the record asks for it (on the head it names), with its id. */
export function handOffOfPayload(
  payload: Pick<AgentPayload, 'node' | 'attempt' | 'headSha'> & {
    agent?: { handOffId?: string | undefined };
  },
): HandOffRecord {
  const id = payload.agent?.handOffId;
  return {
    node: payload.node,
    attempt: payload.attempt,
    sha: payload.headSha,
    ...(id !== undefined ? { id } : {}),
  };
}

/**
 * The loop asks for `payload`, at `now`: the payload gets the next id of the PR's hand-offs, and
 * the record names that hand-off (and counts it). Pure: the adapter gives the decision's time.
 */
export function askHandOff(
  marker: LoopMarker,
  payload: AgentPayload,
  now: Date,
): { marker: LoopMarker; payload: AgentPayload } {
  const count = (marker.handOffs ?? 0) + 1;
  const sent = withHandOffId(payload, makeHandOffId(now, count));
  return { marker: { ...marker, handOff: handOffOfPayload(sent), handOffs: count }, payload: sent };
}

/**
 * Whether `run` is the hand-off the record asks for (`asked`). Strictness follows the record,
 * which only the loop writes: when it names an id, the run must carry that very id — a resume
 * asks for the same node, attempt and head again, and an old run of that triple (its apply job
 * re-run alone) is not the new hand-off. A record an older coder-loop wrote names no id: node,
 * attempt and head are compared as before, and a run's id is not looked at.
 */
export function isAskedHandOff(asked: HandOffRecord | undefined, run: HandOffRecord): boolean {
  if (!asked) return false;
  if (asked.node !== run.node || asked.attempt !== run.attempt || asked.sha !== run.sha)
    return false;
  return asked.id === undefined || asked.id === run.id;
}

/** The hand-off the record asks for, in words. */
function asking(asked: HandOffRecord | undefined): string {
  return asked
    ? `${asked.node} (attempt ${asked.attempt}) on ${asked.sha.slice(0, 7)}`
    : 'no hand-off';
}

/** Same node, attempt and head, another id: the loop has asked for that triple again since. */
function askedAgain(asked: HandOffRecord | undefined, run: HandOffRecord): boolean {
  return (
    !!asked &&
    asked.node === run.node &&
    asked.attempt === run.attempt &&
    asked.sha === run.sha &&
    !isAskedHandOff(asked, run)
  );
}

/**
 * Why the loop's record (on the hand-off's head) does not ask for the hand-off `wanted`, or
 * undefined when it does: the record must name this very hand-off (node, attempt, head, and its
 * id when the record has one: `isAskedHandOff`), and the PR must be neither escalated nor paused
 * since. A writer's "Re-run jobs" of the agent's last workflow run delivers the loop's own
 * dispatch again, its sender the loop: the record's escalation or pause on that head, or the id
 * of the hand-off it asks for since, is what still tells it from the loop asking.
 */
export function handOffRefusal(
  record: LoopMarker | undefined,
  wanted: HandOffRecord,
): string | undefined {
  const asked = record?.handOff;
  if (askedAgain(asked, wanted))
    return `the loop's record on ${wanted.sha.slice(0, 7)} asks for ${wanted.node} (attempt ${wanted.attempt}) again since, as hand-off ${asked!.id}: this dispatch (${
      wanted.id !== undefined ? `hand-off ${wanted.id}` : 'no hand-off id'
    }) is not the hand-off the loop asks for`;
  if (!record || !isAskedHandOff(asked, wanted))
    return `the loop's record on ${wanted.sha.slice(0, 7)} asks for ${asking(asked)}, not ${wanted.node} (attempt ${wanted.attempt})`;
  if (record.escalation)
    return `the pull request is escalated since (${record.escalation.reason}): an architect decides, or \`/coder resume\``;
  if (record.pause)
    return `the pull request is paused since, until ${record.pause.until} (${record.pause.reason}): the loop hands the work on again then`;
  return undefined;
}

/**
 * Why the record on the head an agent run left — the head it was handed, or its partial commit,
 * whose record the apply step made from the handed head's — no longer names that run's hand-off,
 * or undefined when it does (`isAskedHandOff`: its id too, when the record has one). The run's
 * outcome (a failure, a pause) is the loop's to act on only then: once the loop has gone on from
 * it (a stop, a resume, a new hand-off, an earlier report of the same run), an apply job re-run or
 * delivered late tells it nothing.
 */
export function handOffGone(
  record: LoopMarker | undefined,
  run: HandOffRecord,
): string | undefined {
  const asked = record?.handOff;
  if (isAskedHandOff(asked, run)) return undefined;
  if (askedAgain(asked, run))
    return `the loop's record has gone on from ${run.node} (attempt ${run.attempt}) on ${run.sha.slice(0, 7)}: it asks for the same node, attempt and head again since, as hand-off ${asked!.id}, and this run (${
      run.id !== undefined ? `hand-off ${run.id}` : 'no hand-off id'
    }) is not the hand-off the loop asks for`;
  return `the loop's record has gone on from ${run.node} (attempt ${run.attempt}) on ${run.sha.slice(0, 7)}: it asks for ${asking(asked)}`;
}
