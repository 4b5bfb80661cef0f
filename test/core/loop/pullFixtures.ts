import {
  parseConfig,
  type CheckResult,
  type Config,
  type Decision,
  type Effect,
  type PullSnapshot,
} from '../../../src/core/index.js';

/**
 * What the PR side's decision tables share (one test file per decision, mirroring
 * `src/core/loop/`): a snapshot in, the exact outcome and effects out — every node and edge of
 * the flowchart from Verification to Final Verification, with no GitHub.
 */

export const HEAD = 'a'.repeat(40);
export const OLD = 'b'.repeat(40);

export function config(input: Record<string, unknown> = {}): Config {
  const { config: parsed, problems } = parseConfig(input);
  if (!parsed) throw new Error(problems.map((p) => p.message).join('; '));
  return parsed;
}

export function snap(over: Partial<PullSnapshot> & { escalated?: boolean } = {}): PullSnapshot {
  const { escalated = false, ...rest } = over;
  return {
    repo: { owner: 'o', repo: 'r' },
    repoUrl: 'https://github.com/o/r',
    pr: {
      number: 2,
      url: 'https://github.com/o/r/pull/2',
      body: '',
      head: { sha: HEAD, ref: 'coder/example/phase-1' },
      escalated,
    },
    marker: { mode: 'plan', plan: 'Example', phase: 1, issue: 1 },
    checks: [],
    // Read: none approves the head (a table that needs approvals passes them, or `undefined`).
    approvals: [],
    // Read: the phase names no task (Passes Spec? checks the test rule only).
    tasks: { tasks: [] },
    // Read: the PR's history holds no standing escalation either.
    escalatedBefore: false,
    ...rest,
  };
}

export const ci = (conclusion: string | null, name = 'test'): CheckResult => ({
  name,
  status: conclusion === null ? 'in_progress' : 'completed',
  conclusion,
  url: `https://ci/${name}`,
});
export const TEST_FILE = [{ path: 'test/a.test.ts', additions: 1, deletions: 0 }];
export const CODE_ONLY = [{ path: 'src/a.ts', additions: 1, deletions: 0 }];

/** An effect in one short line, so the tables read as the flowchart does. */
function line(e: Effect): string {
  switch (e.kind) {
    case 'check':
      return `check ${e.view.node}${e.conclusion ? ` ${e.conclusion}` : ''}${e.next !== undefined ? ` next=${e.next}` : ''}${e.when ? ` (${e.when})` : ''}`;
    case 'reply':
      return `reply${e.to ? ` to #${e.to}` : ''}${e.when ? ` (${e.when})` : ''}: ${e.body.split('\n')[0]}`;
    case 'marker':
      return `marker attempts=${e.marker.attempts?.length ?? 0} rounds=${e.marker.reviewRounds?.length ?? 0}${e.marker.grew ? ' grew' : ''}${e.marker.spec ? ` spec=${e.marker.spec.passed ? 'passed' : 'missing'}` : ''}`;
    case 'requestReviews':
      return `request reviews [${e.names.join(', ')}]`;
    case 'dispatch':
      return `dispatch ${e.payload.node} #${e.payload.attempt}`;
    case 'complete':
      return `complete by @${e.approver}`;
    case 'deleteBranch':
      return `deleteBranch${e.when ? ` (${e.when})` : ''}`;
    default:
      return e.kind;
  }
}

export function effects(decision: Decision): string[] {
  if ('need' in decision) return [`need ${decision.need}`];
  return decision.effects.map(line);
}
export const state = (decision: Decision) =>
  'need' in decision
    ? `need ${decision.need}`
    : `${decision.outcome.state} @${decision.outcome.node ?? '-'}`;
