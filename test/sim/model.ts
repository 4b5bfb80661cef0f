import fc from 'fast-check';
import { Octokit } from '@octokit/core';
import nock from 'nock';
import picomatch from 'picomatch';
import {
  decodeRecord,
  withRecord,
  parseAgentPayload,
  parseChecklist,
  parseConfigText,
  readMarker,
  updateMarker,
  type ChangeSet,
  type LoopMarker,
} from '../../src/core/index.js';
import { applyAgentRun } from '../../src/github/agent.js';
import { pinApiVersion } from '../../src/github/client.js';
import {
  agentRunFailed,
  dispatchAgentPause,
  resumeBranch,
  sweepPauses,
  type LoopEnv,
} from '../../src/github/loop/index.js';
import type { Probot } from 'probot';
import {
  afterScenario,
  beforeScenario,
  CI_APP,
  LOOP_APP,
  OWNER,
  REPO,
  requestLog,
  testProbot,
} from '../helpers/github.js';
import {
  answerVerdicts,
  checkedFetch,
  requestVerdicts,
  transport,
  violations,
  wire,
} from '../helpers/openapi.js';
import { commentDelivery } from '../helpers/payloads.js';
import { headTreesId } from '../helpers/seed.js';
import { CHECKLIST, examplePlanFiles, MASTER_LOG } from '../helpers/plans.js';
import { Deliver } from './events.js';
import { SimGitHub, type SimCheckRun, type SimPull, type SimReview } from './github.js';

/**
 * Model-based runs: random sequences of commands, duplicate deliveries, concurrent commands, CI
 * results (also for old heads), reviews (also of stale heads), releases, human pushes and config
 * changes, with faults injected — and the loop's promises checked after every step. Beside them,
 * what others do to get around the loop's record (issue 18): a push racing an approval, a writer
 * editing the PR body, a triage user adding and removing `coder:escalated`, pushes made with an
 * email linked to no account, more than 100 reviews and check runs, and renames (a locked path,
 * a plan document). And the adversary (`Adversary`): every move GitHub's API lets a writer, a
 * triage user and a fork's author make on the PR and its checks, made through the API as them.
 *
 * The runs are split over the `model.shard*.test.ts` files so Jest's workers run them side by
 * side.
 *
 * Replay a failure: FC_SEED=<seed> FC_PATH=<path> FC_REPLAY_PATH=<replay path> npm run jest --
 * <the failing shard's file> (the failure message prints that command in full). FC_RUNS sets the
 * number of runs over all shards: CI runs 500, 250 a shard, what the floors below are set for;
 * the hunting mode (docs/reliability.md) runs more, with `FC_SEED=random` (and `FC_HUNT=adversary`
 * to draw the adversary's moves more often).
 */

interface Real {
  sim: SimGitHub;
  probot: Probot;
  /**
   * A second replica of the App on the same GitHub: of deliveries handed over at once, every
   * other one goes here (one App process takes one head's events one at a time; two replicas
   * handle them at the same time).
   */
  replica: Probot;
  deliver: Deliver;
  /** The last delivery, for redelivering it. */
  last?: Parameters<Probot['receive']>[0];
  /** Notes humans appended to a lock branch's checklist: they must survive every loop commit. */
  notes: Map<string, string[]>;
  /** Heads each branch has had, for events about old heads. */
  heads: Map<string, string[]>;
  step: number;
  /** What the model knows of each loop PR (by number): from the events it delivered and the loop's writes. */
  beliefs: Map<number, Belief>;
  /** This step delivered a writer's `/coder resume` (which may clear an escalation and attempts). */
  resumed: boolean;
  /** Completion commits already judged: each once, against the config and reviews of its step. */
  judged: Set<string>;
}
type Model = Record<string, never>;

/** What the model knows about one loop PR, independently of what the loop believes. */
interface Belief {
  /** `synchronize` senders whose delivery the loop took without failing: it knows they pushed. */
  pushers: Set<string>;
  /** Every `synchronize` sender delivered: the only people the record may name as pushers. */
  senders: Set<string>;
  /** The loop's newest record as of the last step (decoded from its own check run). */
  record?: LoopMarker;
  /** The record said escalated, and neither a writer's `/coder resume` nor a completion came since. */
  escalated: boolean;
}

function belief(r: Real, pr: number): Belief {
  let b = r.beliefs.get(pr);
  if (!b) r.beliefs.set(pr, (b = { pushers: new Set(), senders: new Set(), escalated: false }));
  return b;
}

const WRITERS = ['alice', 'bob'] as const;
const PLAN_PREFIX = 'coder/example/phase-';
/** A locked file on the default branch, and a plain one (both may be moved on the branch). */
const LOCKED_FILE = 'src/core/auth.ts';
const PLAIN_FILE = 'src/util.ts';
const CODEMAP = 'docs/plans/Example/01_Master Plan/10_Master_Codemap.mmd';

/** A PR the loop opened: not a fork's, not one a person opened (the adversary's second PR). */
const isLoops = (p: SimPull) => !p.fork && p.author === undefined;

function openLoopPull(r: Real) {
  return r.sim.pulls.find(
    (p) =>
      p.state === 'open' && isLoops(p) && p.head.startsWith(PLAN_PREFIX) && r.sim.refs.has(p.head),
  );
}

function remember(r: Real, branch: string) {
  const head = r.sim.refs.get(branch);
  if (!head) return;
  const list = r.heads.get(branch) ?? [];
  if (!list.includes(head)) list.push(head);
  r.heads.set(branch, list);
}

type Delivery = Parameters<Probot['receive']>[0];

/**
 * Delivers one event. It may fail under an injected fault; the invariants must still hold, and a
 * writer's command that could not finish says so on its thread.
 */
async function receive(r: Real, ...events: Delivery[]) {
  r.last = events[0];
  const said = r.sim.comments.length;
  const failed = await Promise.all(
    events.map((event, i) =>
      (i % 2 === 0 ? r.probot : r.replica).receive(event).then(
        () => false,
        () => true,
      ),
    ),
  );
  for (const branch of r.sim.refs.keys()) remember(r, branch);
  events.forEach((event, i) => {
    if (event.name === 'pull_request') {
      const { action, pull_request, sender } = event.payload as {
        action: string;
        pull_request: { number: number };
        sender: { login: string };
      };
      if (action !== 'synchronize') return;
      const b = belief(r, pull_request.number);
      b.senders.add(sender.login);
      if (!failed[i]) b.pushers.add(sender.login);
    }
    if (isWritersCommand(event)) {
      const { comment } = event.payload as { comment: { body: string } };
      if (comment.body.startsWith('/coder resume')) r.resumed = true;
    }
  });
  const told = r.sim.comments.slice(said).filter((c) => c.body.includes('could not finish'));
  const threads = events
    .filter((event, i) => failed[i] && isWritersCommand(event))
    .map((event) => (event.payload as { issue: { number: number } }).issue.number);
  for (const issue of new Set(threads)) {
    expect(told.filter((c) => c.issue === issue).length).toBeGreaterThanOrEqual(
      threads.filter((n) => n === issue).length,
    );
  }
  commandsFailed += threads.length;
}
/** Writers' commands that failed under a fault (each said so), for the log of how far runs went. */
let commandsFailed = 0;
/** Agent commits seen by the invariants (summed over steps), for the log. */
let agentCommits = 0;

function isWritersCommand(event: Delivery): boolean {
  if (event.name !== 'issue_comment') return false;
  const { comment } = event.payload as { comment: { body: string; user: { login: string } } };
  return (
    comment.body.startsWith('/coder ') &&
    (WRITERS as readonly string[]).includes(comment.user.login)
  );
}

/** The adversary's moves made (on an open loop PR), by kind, for the log. */
const adversaryMoves: Record<string, number> = {};
/** Requests the model's adversary made (its own writes are not the loop's). */
const adversaryRequests = new WeakSet<object>();

/**
 * Writes since `from`, but for those a rate limit refused (403, 429: not carried out, retried).
 * Any other refused write still counts: an outsider must cause no attempt at all.
 */
const writesSince = (from: number) =>
  requestLog
    .slice(from)
    .filter(
      (q) =>
        !adversaryRequests.has(q) &&
        q.method !== 'GET' &&
        !q.path.includes('/access_tokens') &&
        q.status !== 403 &&
        q.status !== 429,
    );

class Next implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: (typeof WRITERS)[number],
    readonly concurrent: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const a = commentDelivery('/coder next', { login: this.user, id: 10_000 + ++r.step });
    delete a.payload.issue.pull_request;
    if (!this.concurrent) return receive(r, a);
    const b = commentDelivery('/coder next', {
      login: this.user === 'alice' ? 'bob' : 'alice',
      id: 10_000 + ++r.step,
    });
    delete b.payload.issue.pull_request;
    await receive(r, a, b);
  }
  toString = () => `next(${this.user}${this.concurrent ? ', concurrent' : ''})`;
}

class Redeliver implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    if (r.last) await receive(r, r.last);
  }
  toString = () => 'redeliver';
}

class Push implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly test: boolean,
    readonly note: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const changes: Record<string, string> = {
      [`src/work${r.step}.ts`]: `export const v = ${++r.step};\n`,
    };
    if (this.test) changes[`test/work${r.step}.test.ts`] = 'test\n';
    if (this.note) {
      const note = `Note ${r.step} by a human.`;
      changes[CHECKLIST] = `${r.sim.files(pr.head)[CHECKLIST]}\n${note}\n`;
      r.notes.set(pr.head, [...(r.notes.get(pr.head) ?? []), note]);
    }
    r.sim.push(pr.head, changes);
    remember(r, pr.head);
    await r.deliver.pullRequest('synchronize', pr.number).catch(() => undefined);
  }
  toString = () => `push(test=${this.test}, note=${this.note})`;
}

class Ci implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly conclusion: 'success' | 'failure',
    readonly old: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const heads = r.heads.get(pr.head) ?? [];
    const sha = this.old && heads.length > 1 ? heads[0] : r.sim.refs.get(pr.head);
    await r.deliver
      .ci(pr.head, this.conclusion, { ...(sha ? { sha } : {}) })
      .catch(() => undefined);
  }
  toString = () => `ci(${this.conclusion}${this.old ? ', old head' : ''})`;
}

/** Reviewers and actors who must move nothing: read-only, no permission, a bot. */
const OUTSIDERS = ['mallory', 'nobody', 'dependabot[bot]', 'coder-loop[bot]'] as const;
const isOutsider = (login: string) => (OUTSIDERS as readonly string[]).includes(login);

/** An outsider's event: no write of any kind (rate-limited retries aside), whatever it is. */
async function noWriteFrom(step: () => Promise<unknown>) {
  const from = requestLog.length;
  await step();
  expect(writesSince(from).map((w) => `${w.method} ${w.path}`)).toEqual([]);
}

class Review implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: string,
    readonly state: 'approved' | 'changes_requested',
    readonly stale: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const heads = r.heads.get(pr.head) ?? [];
    const commit = this.stale && heads.length > 1 ? heads[0] : undefined;
    const deliver = () =>
      r.deliver.review(pr.number, this.user, this.state, commit).catch(() => undefined);
    if (isOutsider(this.user)) await noWriteFrom(deliver);
    else await deliver();
    remember(r, pr.head);
  }
  toString = () => `review(${this.user}, ${this.state}${this.stale ? ', stale' : ''})`;
}

/**
 * The loop's main path in one step — work with a test pushed, CI green on it, an approval of it —
 * so runs reach completion often; every other command can still come between two of these.
 */
class Progress implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await new Push(true, false).run(m, r);
    await new Ci('success', false).run(m, r);
    await new Review('reviewer1', 'approved', false).run(m, r);
  }
  toString = () => 'progress(push with a test, CI green, approval)';
}

/**
 * An attacker's fork PR: the loop branch's name and head, the loop PR's body (marker and all) with
 * attacker-chosen attempts and text; a writer's and an outsider's reviews of it, a push and a
 * close. None of it is the loop's: nothing is written.
 */
class ForkPull implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const fork = r.sim.forkPull(
      { ...pr, body: pr.body.replace('"issue":1', '"issue":1,"attempts":[]') },
      '[@everyone <img src=x>](javascript:alert(1))',
    );
    await noWriteFrom(async () => {
      await r.deliver.review(fork.number, 'alice', 'approved').catch(() => undefined);
      await r.deliver.review(fork.number, 'mallory', 'changes_requested').catch(() => undefined);
      await r.deliver.pullRequest('synchronize', fork.number, { login: 'mallory' });
      await r.deliver.pullRequest('closed', fork.number, { login: 'alice' }).catch(() => undefined);
    });
    fork.state = 'closed';
  }
  toString = () => 'fork pull request (copied marker): reviews, push, close';
}

/** An outsider closes or "pushes to" the loop PR (triage can close): nothing is written. */
class OutsiderPullEvent implements fc.AsyncCommand<Model, Real> {
  constructor(readonly action: 'closed' | 'synchronize') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    await noWriteFrom(() =>
      r.deliver.pullRequest(this.action, pr.number, { login: 'mallory' }).catch(() => undefined),
    );
  }
  toString = () => `pull_request.${this.action} by mallory`;
}

/**
 * A push racing an approval: work with a test, CI green on it, an approval of that head — and
 * bob's push lands right when the loop moves the branch (its completion commit's compare-and-swap),
 * then its `synchronize`. The approval was about the old head: nothing may complete on the new one.
 */
class RacingApproval implements fc.AsyncCommand<Model, Real> {
  constructor(readonly reviewer: 'reviewer1' | 'archie') {}
  check = () => true;
  async run(m: Model, r: Real) {
    await new Push(true, false).run(m, r);
    await new Ci('success', false).run(m, r);
    const pr = openLoopPull(r);
    if (!pr) return;
    let raced = false;
    r.sim.beforeRefUpdate = () => {
      if (!r.sim.refs.has(pr.head)) return;
      r.sim.push(pr.head, { [`src/race${++r.step}.ts`]: 'unreviewed\n' }, 'race', 'bob');
      raced = true;
    };
    await new Review(this.reviewer, 'approved', false).run(m, r);
    // No ref update in that step (nothing to complete): the push does not wait for a later one.
    r.sim.beforeRefUpdate = undefined;
    remember(r, pr.head);
    if (raced)
      await receive(r, r.deliver.pullRequestEvent('synchronize', pr.number, { login: 'bob' }));
  }
  toString = () => `push racing an approval by ${this.reviewer}`;
}

/**
 * A writer pushes work (a locked file, or a plain one) with its test, CI passes, and a reviewer
 * approves; while the loop handles the approval, the writer force-pushes the branch back to the
 * head before the work at one of the loop's reads (`at`: its read of what the PR changes, or its
 * n-th read of anything) and forward to the approved head again at the next. GitHub sends a
 * `synchronize` for the last push. Whatever completes is judged by the approved head's own
 * files (`judgeCompletion`): a locked change hidden by the move completes nothing without an
 * architect.
 */
class ForceBackAroundRead implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly locked: boolean,
    readonly at: 'files' | number,
    readonly reviewer: 'reviewer1' | 'archie',
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const back = r.sim.refs.get(pr.head)!;
    const n = ++r.step;
    r.sim.push(
      pr.head,
      {
        [this.locked ? `src/core/back${n}.ts` : `src/back${n}.ts`]: `export const b = ${n};\n`,
        [`test/back${n}.test.ts`]: 'test\n',
      },
      'work',
      'bob',
    );
    remember(r, pr.head);
    await r.deliver.pullRequest('synchronize', pr.number).catch(() => undefined);
    await new Ci('success', false).run(m, r);
    const approved = r.sim.refs.get(pr.head);
    if (!approved || pr.state !== 'open') return;
    let reads = 0;
    let moved = false;
    const move = (to: string, from: string) => {
      r.sim.refs.set(pr.head, to);
      r.sim.recordRef(pr.head, from, to, 'bob');
    };
    r.sim.beforeRequest = (method, path) => {
      if (moved) {
        move(approved, back);
        r.sim.beforeRequest = undefined;
        return;
      }
      if (method !== 'GET' || !r.sim.refs.has(pr.head)) return;
      const files = path.includes('/compare/') || /\/pulls\/\d+\/files$/.test(path);
      if (this.at === 'files' ? files : reads++ === this.at) {
        move(back, approved);
        moved = true;
      }
    };
    await new Review(this.reviewer, 'approved', false).run(m, r);
    r.sim.beforeRequest = undefined;
    if (moved && r.sim.refs.get(pr.head) === back) move(approved, back);
    remember(r, pr.head);
    if (moved)
      await receive(r, r.deliver.pullRequestEvent('synchronize', pr.number, { login: 'bob' }));
  }
  toString = () =>
    `force-back around read ${this.at} (${this.locked ? 'locked' : 'plain'}) approved by ${this.reviewer}`;
}

/**
 * A writer edits the loop PR's body — the marker people see there: to quick mode, its attempts
 * cleared or forged, its escalation and pushers dropped, or the marker deleted. No event: GitHub's
 * `pull_request.edited` is not one the loop handles. The loop must believe what it did before.
 */
class EditBody implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: 'quick' | 'clear' | 'forge' | 'unescalate' | 'delete') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const marker = readMarker(pr.body);
    if (this.kind === 'quick') pr.body = pr.body.replace('"mode":"plan"', '"mode":"quick"');
    else if (this.kind === 'delete') {
      const start = pr.body.indexOf('<!-- coder-loop {');
      const end = pr.body.indexOf(' -->', start);
      if (start !== -1 && end !== -1) pr.body = pr.body.slice(0, start) + pr.body.slice(end + 4);
    } else if (marker) {
      const edited: LoopMarker = { ...marker };
      if (this.kind === 'clear') {
        edited.attempts = [];
        delete edited.escalation;
      } else if (this.kind === 'forge') {
        const sha = r.sim.refs.get(pr.head) ?? '';
        edited.attempts = [1, 2, 3].map(() => ({
          sha,
          checks: [{ name: 'forged', conclusion: 'failure' }],
        }));
      } else {
        delete edited.escalation;
        delete edited.pushers;
        delete edited.reviewRounds;
      }
      pr.body = updateMarker(pr.body, edited);
    }
  }
  toString = () => `alice edits the PR body (${this.kind})`;
}

/**
 * A triage user (no write) adds or removes `coder:escalated` on the PR and its issue, through the
 * API (GitHub keeps the label events, tracy's). No event: the loop does not handle `labeled` on
 * a PR, and the label is only what people see. The attack goes on (`then`) with the main path at
 * once: work with a test, green CI, a writer's approval.
 */
class TriageLabel implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly add: boolean,
    readonly then = false,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const tracy = as('tracy');
    for (const n of [pr.number, 1]) {
      const params = { ...REPO_PARAMS, issue_number: n };
      if (this.add)
        await tracy.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
          ...params,
          labels: ['coder:escalated'],
        });
      else
        await tracy
          .request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
            ...params,
            name: 'coder:escalated',
          })
          .catch(() => undefined); // not there: GitHub's 404
    }
    if (this.then) await new Progress().run(m, r);
  }
  toString = () =>
    `tracy (triage) ${this.add ? 'adds' : 'removes'} coder:escalated${this.then ? ', then progress' : ''}`;
}

/**
 * A reviewer pushes work (with a test) from an email linked to no account — the API names no
 * author — and the loop gets the `synchronize` they sent. Their approval must never count.
 */
class HiddenPush implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: 'reviewer1' | 'archie') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const n = ++r.step;
    r.sim.push(
      pr.head,
      { [`test/hidden${n}.test.ts`]: 'test\n', [`src/hidden${n}.ts`]: `export const h = ${n};\n` },
      'mine',
      null,
      this.user,
    );
    remember(r, pr.head);
    await receive(r, r.deliver.pullRequestEvent('synchronize', pr.number, { login: this.user }));
  }
  toString = () => `${this.user} pushes with an unlinked email`;
}

/**
 * A writer's workflow, with its job's `GITHUB_TOKEN` (`github-actions`): it creates a check run
 * or a commit status named like the loop's own (`coder-loop`, its record forged: the phase moved,
 * the escalation and the pushers dropped, Final Verification or End, green) or like CI's, or it
 * pushes to the lock branch (GitHub names `github-actions[bot]`; its `synchronize` is a bot's);
 * then GitHub's `check_suite` comes. Nothing it does completes, merges, de-escalates or moves a
 * phase: checked right after it (a red check may hold the loop back, as any CI's does).
 */
class WriterWorkflow implements fc.AsyncCommand<Model, Real> {
  constructor(readonly act: 'loop-check' | 'loop-status' | 'ci-check' | 'ci-status' | 'push') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr || !r.sim.refs.has(pr.head)) return;
    // What is due anyway happens first: CI that passed on the head unseen (a run paused or stopped
    // meanwhile) completes an earlier approval at the next event, forged or not. Only what the
    // writer's job adds is measured below.
    await r.deliver.checkSuite(pr.head).catch(() => undefined);
    remember(r, pr.head);
    const head = r.sim.refs.get(pr.head);
    if (!head || pr.state !== 'open') return;
    const completions = (sha: string | undefined) => {
      let n = 0;
      for (let at = sha; at; at = r.sim.commits.get(at)?.parents[0])
        if (r.sim.commits.get(at)!.message.includes('— Coder completed')) n++;
      return n;
    };
    const final = () =>
      r.sim.checkRuns.filter(
        (c) =>
          c.app.id === LOOP_APP.id &&
          (c.external_id.startsWith('FinalVerify') || c.external_id === 'End'),
      ).length;
    const recordOf = () => newestRecord(r.sim, pr.head, ancestry(r.sim, r.sim.refs.get('master')));
    const before = {
      completions: completions(head),
      final: final(),
      pulls: r.sim.pulls.length,
      merged: pr.merged,
      escalated: recordOf()?.escalation !== undefined,
    };
    // CI's verdict on this head so far: the workflow's CI-named check agrees with it, or fails.
    // The PR's own CI only: a fork's run at the same commit is no verdict of it.
    const ownCi = (c: SimCheckRun) =>
      c.head_sha === head && c.job !== undefined && !c.job.for?.repository && c.name === 'test';
    const ciGreen = r.sim.checkRuns.some((c) => ownCi(c) && c.conclusion === 'success');
    if (this.act === 'loop-check') {
      const record = recordOf();
      const forged: LoopMarker = {
        ...(record ?? { mode: 'plan', issue: 1 }),
        phase: (record?.phase ?? 1) + 2,
        pushers: [],
      };
      delete forged.escalation;
      // Green over CI's red, or over no CI at all, must change nothing: a check called like the
      // loop's own that is not the loop's is never CI passing (docs/security.md).
      await workflowCheck(head, 'coder-loop', 'success', {
        external_id: 'FinalVerify;next=3',
        output: { title: 'Final verification', summary: '', text: withRecord('', forged, head) },
      });
    } else if (this.act === 'loop-status') {
      // The same for a status: a green one where no CI reported would be CI passing.
      const ciRan = r.sim.checkRuns.some(ownCi);
      await workflowStatus(head, 'coder-loop', ciRan || ciGreen ? 'success' : 'failure');
    } else if (this.act === 'ci-check')
      await workflowCheck(head, 'test', ciGreen ? 'success' : 'failure');
    else if (this.act === 'ci-status')
      await workflowStatus(head, 'test', ciGreen ? 'success' : 'failure');
    else {
      r.sim.push(
        pr.head,
        { [`src/workflow${++r.step}.ts`]: 'export const formatted = true;\n' },
        'style: format',
        null,
        'github-actions[bot]',
      );
      remember(r, pr.head);
      await receive(
        r,
        r.deliver.pullRequestEvent('synchronize', pr.number, { login: 'github-actions[bot]' }),
      );
    }
    await r.deliver.checkSuite(pr.head).catch(() => undefined);
    remember(r, pr.head);
    expect(completions(r.sim.refs.get(pr.head))).toBe(before.completions);
    // A red check holds the loop back (Final Verification fails): never forward.
    expect(final()).toBeLessThanOrEqual(before.final);
    expect(r.sim.pulls.length).toBe(before.pulls);
    expect(pr.merged).toBe(before.merged);
    if (before.escalated && r.sim.refs.has(pr.head)) expect(recordOf()?.escalation).toBeDefined();
  }
  toString = () => `a writer's workflow (GITHUB_TOKEN): ${this.act}`;
}

/**
 * The adversary's tokens: a writer's, a reviewer's, a triage user's, a fork author's (personal
 * tokens), and a writer's workflow job's `GITHUB_TOKEN` (GitHub Actions, `github-actions[bot]`).
 * The in-memory GitHub makes each request as its token's caller (`SimGitHub.callers`).
 */
const CALLERS = {
  alice: { login: 'alice' },
  reviewer1: { login: 'reviewer1' },
  tracy: { login: 'tracy' },
  mallory: { login: 'mallory' },
  workflow: { login: 'github-actions[bot]', app: { id: CI_APP.id, slug: CI_APP.slug } },
} as const;
type Caller = keyof typeof CALLERS;
const tokenOf = (who: Caller) => `ghp_adversary_${who}`;

/**
 * The adversary's requests go through the same OpenAPI check as the loop's; the wire faults a
 * step injected are the loop's to meet (held back meanwhile), as the in-memory GitHub's are.
 */
const adversaryFetch: typeof fetch = async (input, init) => {
  const held = wire.faults.splice(0);
  const from = requestLog.length;
  try {
    return await checkedFetch(input, init);
  } finally {
    wire.faults.push(...held);
    for (const q of requestLog.slice(from)) adversaryRequests.add(q);
  }
};

/** An Octokit acting as `who`, through GitHub's REST API (the in-memory GitHub). */
function as(who: Caller) {
  return new ApplyOctokit({ auth: tokenOf(who), request: { fetch: adversaryFetch } });
}
const REPO_PARAMS = { owner: OWNER, repo: REPO } as const;

/** Completion commits on the first-parent history of `sha`. */
function completionsOn(r: Real, sha: string | undefined): number {
  let n = 0;
  for (let at = sha; at; at = r.sim.commits.get(at)?.parents[0])
    if (r.sim.commits.get(at)!.message.includes('— Coder completed')) n++;
  return n;
}

/** The loop's Final Verification and End check runs so far. */
const finals = (r: Real) =>
  r.sim.checkRuns.filter(
    (c) =>
      c.app.id === LOOP_APP.id &&
      (c.external_id.startsWith('FinalVerify') || c.external_id === 'End'),
  ).length;

/** What the adversary must not move, as the loop's record and GitHub stand. */
function standing(r: Real, pr: SimPull) {
  const record = recordOn(r, pr.head);
  return {
    head: r.sim.refs.get(pr.head),
    completions: completionsOn(r, r.sim.refs.get(pr.head)),
    /** Of those, the ones its base holds already (earlier phases'). */
    baseCompletions: completionsOn(r, r.sim.refs.get(pr.base)),
    finals: finals(r),
    loopPulls: r.sim.pulls.filter(isLoops).length,
    open: pr.state === 'open' && r.sim.refs.has(pr.head),
    merged: pr.merged,
    record,
    escalated: record?.escalation !== undefined,
    attempts: new Set((record?.attempts ?? []).map((a) => `${a.sha} ${a.agent ?? ''}`)),
    rounds: (record?.reviewRounds ?? []).length,
    dispatches: r.sim.dispatches.length,
  };
}

/**
 * What GitHub's API lets a writer, a triage user and a fork's author do to the loop PR and its
 * checks (docs/security.md, "What a writer can change, and what the loop does about it"), each
 * done through the in-memory GitHub as that caller, with the event GitHub then sends:
 *
 * - `base`: a writer switches the PR's base to a branch of theirs (at an earlier head: the diff
 *   GitHub shows then hides what came before), perhaps the main path meanwhile, perhaps back;
 * - `rerun`: a writer re-runs a CI run of the head or of an older head (GitHub keeps its actor
 *   and head; the re-run's result is CI's verdict, judged as any);
 * - `fork`: an outsider opens a fork PR at the loop head's commit, with the lock branch's name or
 *   another, its CI red or green; a writer's approval and the author's change request of it; closed;
 * - `second-pr`: a writer opens a second PR from the lock branch into another base; a reviewer
 *   approves it; the writer closes it;
 * - `label`: a triage user or a writer adds or removes `coder:escalated` (PR and issue), or a
 *   triage user adds `coder:quick` to the issue;
 * - `check`: a writer's workflow posts a check run under any name (the loop's, CI's, the relay's,
 *   another), green or red, the loop's with a forged record;
 * - `status`: a writer (their token, or a workflow's) posts a commit status under any context;
 * - `comment`, `review`: a triage user or an outsider comments a command, or reviews (perhaps
 *   an older head).
 *
 * The invariant, checked after each: nothing completes, merges, ends an escalation, moves a
 * phase or spends the loop's budget — no attempt, review round or hand-off for what no writer
 * did; at most what a red CI of the head costs for a writer's red check, status or re-run. Only
 * what the loop judges as it would without the adversary (a re-run's verdict; the base set back)
 * may complete, under the completion invariants every step checks.
 */
export class Adversary implements fc.AsyncCommand<Model, Real> {
  constructor(readonly move: AdversaryMove) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr || !r.sim.refs.has(pr.head)) return;
    // What is due anyway first (CI that passed unseen completes an earlier approval): only what
    // the adversary adds is measured.
    await r.deliver.checkSuite(pr.head).catch(() => undefined);
    remember(r, pr.head);
    if (pr.state !== 'open' || !r.sim.refs.has(pr.head)) return;
    const before = standing(r, pr);
    const move = this.move;
    adversaryMoves[move.kind] = (adversaryMoves[move.kind] ?? 0) + 1;
    const writer =
      !['fork', 'comment', 'review'].includes(move.kind) &&
      !('who' in move && move.who === 'tracy');
    let judged = false;
    try {
      judged = await this.act(m, r, pr, before);
    } catch (error) {
      // A request GitHub refused is a move not made; anything else is the model's own error.
      if (!(error instanceof Error && 'status' in error)) throw error;
    }
    for (const branch of r.sim.refs.keys()) remember(r, branch);
    if (judged) return;
    // A writer's workflow's green check run under any name but the loop's own (`coder-loop-review`
    // too, from a run no review started): GitHub files a workflow token's check run under GitHub
    // Actions, in a suite of the same branch, as it files CI's own — no different from a green
    // job the writer pushes. It may complete what an approval by someone who counts already waits
    // on (the completion invariants every step checks still hold). The same for a green commit
    // status (a workflow's token or the writer's): until CI itself reports on the head, the gate
    // takes every check and status but the loop's own as CI (docs/security.md: name the checks
    // waited for in `requiredChecks`).
    const greenCi =
      (move.kind === 'check' && move.conclusion === 'success' && move.name !== 'coder-loop') ||
      (move.kind === 'status' && move.state === 'success' && move.context !== 'coder-loop');
    const red =
      (move.kind === 'check' && move.conclusion === 'failure') ||
      (move.kind === 'status' && move.state === 'failure');
    held(r, pr, before, writer, greenCi, !red);
  }

  /** The move; true when what follows is the loop judging as it would anyway (checked globally). */
  private async act(m: Model, r: Real, pr: SimPull, before: ReturnType<typeof standing>) {
    const move = this.move;
    const head = before.head!;
    const number = pr.number;
    switch (move.kind) {
      case 'base': {
        const heads = r.heads.get(pr.head) ?? [];
        const at = heads.length > 1 ? heads.at(-2)! : r.sim.refs.get('master')!;
        const decoy = `decoy-${++r.step}`;
        const alice = as('alice');
        await alice.request('POST /repos/{owner}/{repo}/git/refs', {
          ...REPO_PARAMS,
          ref: `refs/heads/${decoy}`,
          sha: at,
        });
        const from = { ref: pr.base, sha: r.sim.refs.get(pr.base)! };
        await alice.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...REPO_PARAMS,
          pull_number: number,
          base: decoy,
        });
        await receive(r, r.deliver.baseEdited(number, from, { login: 'alice' }));
        if (move.meanwhile) await new Progress().run(m, r);
        // Switched: nothing judged, nothing spent, said once a head.
        held(r, pr, before, false);
        if (!move.back || pr.state !== 'open') return false;
        await alice.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...REPO_PARAMS,
          pull_number: number,
          base: from.ref,
        });
        await receive(r, r.deliver.baseEdited(number, { ref: decoy, sha: at }, { login: 'alice' }));
        return true;
      }
      case 'rerun': {
        const heads = r.heads.get(pr.head) ?? [];
        const sha = move.old && heads.length > 1 ? heads[0]! : head;
        const job = r.sim.checkRuns
          .filter(
            (c) =>
              c.head_sha === sha &&
              c.job &&
              !c.job.for?.repository &&
              !c.job.for?.event &&
              c.status === 'completed',
          )
          .at(-1);
        if (!job) return false;
        const run = job.job!.run;
        await as('alice').request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun', {
          ...REPO_PARAMS,
          run_id: run,
        });
        for (const queued of r.sim.checkRuns.filter(
          (c) => c.job?.run === run && c.status === 'queued',
        ))
          r.sim.ci(sha, move.conclusion, queued.name);
        const attempt = Math.max(
          ...r.sim.checkRuns.filter((c) => c.job?.run === run).map((c) => c.job!.attempt),
        );
        await r.deliver
          .rerunCompleted(
            { id: run, attempt, branch: pr.head, sha, conclusion: move.conclusion },
            'Codertocat',
            'alice',
          )
          .catch(() => undefined);
        await r.deliver
          .checkSuite(pr.head, { sha, conclusion: move.conclusion })
          .catch(() => undefined);
        return true;
      }
      case 'fork': {
        const name = move.sameName ? pr.head : `patch-${++r.step}`;
        r.sim.forkRefs.set(name, head);
        const mallory = as('mallory');
        const { data } = await mallory.request('POST /repos/{owner}/{repo}/pulls', {
          ...REPO_PARAMS,
          head: `attacker:${name}`,
          base: 'master',
          title: 'Small fix',
          body: `${pr.body}\n[@everyone <img src=x>](javascript:alert(1))`,
        });
        // The fork PR's CI: a run for it, on the loop head's commit, in the fork's repository.
        r.sim.ci(head, move.conclusion, 'test', undefined, {
          runFor: { event: 'pull_request', branch: name, repository: 'attacker/Hello-World' },
        });
        await r.deliver
          .checkSuite(name, { sha: head, conclusion: move.conclusion })
          .catch(() => undefined);
        await noWriteFrom(async () => {
          for (const [who, event] of [
            ['alice', 'APPROVE'],
            ['mallory', 'REQUEST_CHANGES'],
          ] as const) {
            const { data: review } = await as(who).request(
              'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
              { ...REPO_PARAMS, pull_number: data.number, event },
            );
            await r.deliver
              .reviewEvent(r.sim.reviews.find((v) => v.id === review.id)!)
              .catch(() => undefined);
          }
          await mallory.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
            ...REPO_PARAMS,
            pull_number: data.number,
            state: 'closed',
          });
          await r.deliver
            .pullRequest('closed', data.number, { login: 'mallory' })
            .catch(() => undefined);
        });
        return false;
      }
      case 'second-pr': {
        const alice = as('alice');
        const base = `decoy-${++r.step}`;
        await alice.request('POST /repos/{owner}/{repo}/git/refs', {
          ...REPO_PARAMS,
          ref: `refs/heads/${base}`,
          sha: r.sim.refs.get('master')!,
        });
        const { data } = await alice.request('POST /repos/{owner}/{repo}/pulls', {
          ...REPO_PARAMS,
          head: pr.head,
          base,
          title: pr.title,
          body: pr.body,
        });
        const { data: review } = await as('reviewer1').request(
          'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
          { ...REPO_PARAMS, pull_number: data.number, event: 'APPROVE' },
        );
        await r.deliver
          .reviewEvent(r.sim.reviews.find((v) => v.id === review.id)!)
          .catch(() => undefined);
        await alice.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...REPO_PARAMS,
          pull_number: data.number,
          state: 'closed',
        });
        await receive(r, r.deliver.pullRequestEvent('closed', data.number, { login: 'alice' }));
        return false;
      }
      case 'label': {
        const gh = as(move.who);
        const targets = move.label === 'coder:quick' ? [1] : [number, 1];
        for (const n of targets) {
          if (move.add)
            await gh.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
              ...REPO_PARAMS,
              issue_number: n,
              labels: [move.label],
            });
          else
            await gh
              .request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
                ...REPO_PARAMS,
                issue_number: n,
                name: move.label,
              })
              .catch(() => undefined); // not there: GitHub's 404
        }
        if (move.add && move.label === 'coder:quick') {
          const from = requestLog.length;
          await r.deliver.issueLabeled(1, move.label, move.who).catch(() => undefined);
          // A triage user's label starts nothing: one short reply at most.
          expect(
            writesSince(from)
              .map((w) => `${w.method} ${w.path.replace(/\?.*/, '')}`)
              .filter((w) => !w.endsWith('/comments')),
          ).toEqual([]);
        }
        return false;
      }
      case 'check': {
        const record = before.record;
        const forged: LoopMarker = {
          ...(record ?? { mode: 'plan', issue: 1 }),
          phase: (record?.phase ?? 1) + 1,
          pushers: [],
        };
        delete forged.escalation;
        await as('workflow').request('POST /repos/{owner}/{repo}/check-runs', {
          ...REPO_PARAMS,
          name: move.name,
          head_sha: head,
          status: 'completed',
          conclusion: move.conclusion,
          ...(move.name === 'coder-loop'
            ? {
                external_id: 'End',
                output: {
                  title: 'Final verification',
                  summary: 'Passed.',
                  text: withRecord('', forged, head),
                },
              }
            : {}),
        });
        await r.deliver
          .checkSuite(pr.head, { sha: head, conclusion: move.conclusion })
          .catch(() => undefined);
        return false;
      }
      case 'status': {
        await as(move.by).request('POST /repos/{owner}/{repo}/statuses/{sha}', {
          ...REPO_PARAMS,
          sha: head,
          state: move.state,
          context: move.context,
        });
        await r.deliver
          .status(pr.head, head, move.context, move.state, CALLERS[move.by].login)
          .catch(() => undefined);
        return false;
      }
      case 'comment': {
        const { data } = await as(move.who).request(
          'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
          { ...REPO_PARAMS, issue_number: number, body: move.body },
        );
        const event = commentDelivery(move.body, { login: move.who, id: Number(data.id) });
        event.payload.issue.number = number;
        const from = requestLog.length;
        await receive(r, event);
        // One short reply at most (the command needs write access); nothing else.
        expect(
          writesSince(from)
            .map((w) => `${w.method} ${w.path.replace(/\?.*/, '')}`)
            .filter((w) => !w.endsWith(`/issues/${number}/comments`)),
        ).toEqual([]);
        return false;
      }
      case 'review': {
        const heads = r.heads.get(pr.head) ?? [];
        const commit = move.stale && heads.length > 1 ? heads[0]! : head;
        const { data } = await as(move.who).request(
          'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
          { ...REPO_PARAMS, pull_number: number, event: move.event, commit_id: commit },
        );
        await noWriteFrom(() =>
          r.deliver
            .reviewEvent(r.sim.reviews.find((v) => v.id === data.id)!)
            .catch(() => undefined),
        );
        return false;
      }
    }
  }
  toString = () => `adversary ${JSON.stringify(this.move)}`;
}

/**
 * Nothing the adversary did moved the loop: no completion (but the one a writer's green check
 * under CI's name brings to an approved phase, `greenCi`), no final verification, no merge, no
 * new or closed loop PR, the escalation and phase kept; no review round or hand-off spent, and
 * no attempt — but, for a writer's red check, status or CI (`writer`), one for the head, as a
 * red CI of the head would cost.
 */
function held(
  r: Real,
  pr: SimPull,
  before: ReturnType<typeof standing>,
  writer: boolean,
  greenCi = false,
  /** A phase complete before the move may merge at its event (not on a red move, see above). */
  mayMerge = false,
) {
  const now = standing(r, pr);
  if (greenCi && now.completions > before.completions) {
    // One completion, of a phase already approved: what a green CI of the head would complete.
    expect(now.completions).toBe(before.completions + 1);
    return;
  }
  if (mayMerge && now.merged && !before.merged) {
    // With `autoMerge`, a phase complete before the move merged at the event it sent (a green
    // check or status, or any event after `autoMerge` was set): what was due anyway, or what a
    // green job of the writer's would merge (the branch then gone, nothing more is read from it).
    // Never on a red move, never a phase the move completed.
    expect(before.completions).toBeGreaterThan(before.baseCompletions);
    return;
  }
  expect(now.completions).toBe(before.completions);
  expect(now.finals).toBeLessThanOrEqual(before.finals);
  expect(now.loopPulls).toBe(before.loopPulls);
  expect(now.merged).toBe(before.merged);
  expect(now.open).toBe(before.open);
  if (!now.open || !now.record) return;
  expect(now.record.phase).toBe(before.record?.phase ?? now.record.phase);
  if (before.escalated) expect(now.escalated).toBe(true);
  expect(now.rounds).toBe(before.rounds);
  const spent = [...now.attempts].filter((a) => !before.attempts.has(a));
  if (!writer) {
    expect(spent).toEqual([]);
    expect(now.dispatches).toBe(before.dispatches);
  } else {
    expect(spent.length).toBeLessThanOrEqual(1);
    for (const a of spent) expect(a.startsWith(`${now.head} `)).toBe(true);
    expect(now.dispatches - before.dispatches).toBeLessThanOrEqual(spent.length);
  }
}

export type AdversaryMove =
  | { kind: 'base'; meanwhile: boolean; back: boolean }
  | { kind: 'rerun'; old: boolean; conclusion: 'success' | 'failure' }
  | { kind: 'fork'; sameName: boolean; conclusion: 'success' | 'failure' }
  | { kind: 'second-pr' }
  | {
      kind: 'label';
      who: 'tracy' | 'alice';
      label: 'coder:escalated' | 'coder:quick';
      add: boolean;
    }
  | {
      kind: 'check';
      name: 'coder-loop' | 'test' | 'coder-loop-review' | 'lint';
      conclusion: 'success' | 'failure';
    }
  | {
      kind: 'status';
      by: 'workflow' | 'alice';
      context: 'coder-loop' | 'test' | 'ci/external';
      state: 'success' | 'failure';
    }
  | { kind: 'comment'; who: 'tracy' | 'mallory'; body: string }
  | {
      kind: 'review';
      who: 'tracy' | 'mallory';
      event: 'APPROVE' | 'REQUEST_CHANGES';
      stale: boolean;
    };

const conclusion = fc.constantFrom<'success' | 'failure'>('success', 'failure');
/** The adversary's moves, each kind about as likely. */
const adversary = fc
  .oneof(
    fc
      .record({ meanwhile: fc.boolean(), back: fc.constantFrom(true, true, true, false) })
      .map((o) => ({ kind: 'base' as const, ...o })),
    fc.record({ old: fc.boolean(), conclusion }).map((o) => ({ kind: 'rerun' as const, ...o })),
    fc.record({ sameName: fc.boolean(), conclusion }).map((o) => ({ kind: 'fork' as const, ...o })),
    fc.constant({ kind: 'second-pr' as const }),
    fc
      .record({
        who: fc.constantFrom<'tracy' | 'alice'>('tracy', 'alice'),
        label: fc.constantFrom<'coder:escalated' | 'coder:quick'>('coder:escalated', 'coder:quick'),
        add: fc.boolean(),
      })
      .map((o) => ({
        kind: 'label' as const,
        ...o,
        // Only a triage user's `coder:quick` (a writer's starts quick mode: a command, not a move).
        ...(o.label === 'coder:quick' ? { who: 'tracy' as const, add: true } : {}),
      })),
    fc
      .record({
        name: fc.constantFrom<'coder-loop' | 'test' | 'coder-loop-review' | 'lint'>(
          'coder-loop',
          'test',
          'coder-loop-review',
          'lint',
        ),
        conclusion,
      })
      .map((o) => ({ kind: 'check' as const, ...o })),
    fc
      .record({
        by: fc.constantFrom<'workflow' | 'alice'>('workflow', 'alice'),
        context: fc.constantFrom<'coder-loop' | 'test' | 'ci/external'>(
          'coder-loop',
          'test',
          'ci/external',
        ),
        state: conclusion,
      })
      .map((o) => ({ kind: 'status' as const, ...o })),
    fc
      .record({
        who: fc.constantFrom<'tracy' | 'mallory'>('tracy', 'mallory'),
        body: fc.constantFrom('/coder resume', '/coder retry', '/coder release', '/coder next'),
      })
      .map((o) => ({ kind: 'comment' as const, ...o })),
    fc
      .record({
        who: fc.constantFrom<'tracy' | 'mallory'>('tracy', 'mallory'),
        event: fc.constantFrom<'APPROVE' | 'REQUEST_CHANGES'>('APPROVE', 'REQUEST_CHANGES'),
        stale: fc.boolean(),
      })
      .map((o) => ({ kind: 'review' as const, ...o })),
  )
  .map((move: AdversaryMove) => new Adversary(move));

/** A check run a writer's workflow creates with its `GITHUB_TOKEN` (`checks: write`). */
async function workflowCheck(
  sha: string,
  name: string,
  conclusion: 'success' | 'failure',
  extra: { external_id?: string; output?: { title: string; summary: string; text: string } } = {},
) {
  await as('workflow').request('POST /repos/{owner}/{repo}/check-runs', {
    ...REPO_PARAMS,
    name,
    head_sha: sha,
    status: 'completed',
    conclusion,
    ...extra,
  });
}

/** A commit status a writer's workflow posts with its `GITHUB_TOKEN` (`statuses: write`). */
async function workflowStatus(sha: string, context: string, state: 'success' | 'failure') {
  await as('workflow').request('POST /repos/{owner}/{repo}/statuses/{sha}', {
    ...REPO_PARAMS,
    sha,
    context,
    state,
  });
}

let reviewIds = 500_000;

/**
 * Work with a test is pushed, reviewer1 approves it, an outsider then leaves 101 COMMENTED reviews
 * (no events), and reviewer1 asks for changes: the later "changes requested" is on the reviews'
 * second page when CI on that head passes.
 */
class ManyReviews implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await new Push(true, false).run(m, r);
    const pr = openLoopPull(r);
    if (!pr) return;
    await new Review('reviewer1', 'approved', false).run(m, r);
    const head = r.sim.refs.get(pr.head);
    if (!head) return;
    for (let i = 0; i < 101; i++)
      r.sim.reviews.push({
        id: ++reviewIds,
        pr: pr.number,
        user: 'mallory',
        state: 'COMMENTED',
        commit_id: head,
      });
    await new Review('reviewer1', 'changes_requested', false).run(m, r);
  }
  toString = () => 'approval, 101 comments by an outsider, changes requested';
}

/** 101 green CI jobs on the head, and perhaps one red after them (on the second page); CI done. */
class ManyChecks implements fc.AsyncCommand<Model, Real> {
  constructor(readonly failing: boolean) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    const head = pr && r.sim.refs.get(pr.head);
    if (!pr || !head) return;
    for (let i = 0; i < 101; i++) r.sim.ci(head, 'success', `job-${i}`);
    if (this.failing) r.sim.ci(head, 'failure', 'late-job');
    await r.deliver.ci(pr.head, 'success', { sha: head }).catch(() => undefined);
  }
  toString = () => `101 check runs${this.failing ? ', a failed one on page 2' : ''}`;
}

/**
 * A file moved on the branch with the same content (GitHub lists one `renamed` file): the locked
 * file out of `src/core/`, the codemap out of the plan, or a plain file — with a test beside it.
 */
class Rename implements fc.AsyncCommand<Model, Real> {
  constructor(readonly what: 'locked' | 'plan' | 'plain') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const [from, to] =
      this.what === 'locked'
        ? [LOCKED_FILE, 'src/auth.ts']
        : this.what === 'plan'
          ? [CODEMAP, 'docs/codemap.mmd']
          : [PLAIN_FILE, 'lib/util.ts'];
    const text = r.sim.files(pr.head)[from];
    if (text === undefined) return;
    r.sim.push(pr.head, { [from]: null, [to]: text, [`test/moved${++r.step}.test.ts`]: 'test\n' });
    remember(r, pr.head);
    await r.deliver.pullRequest('synchronize', pr.number).catch(() => undefined);
  }
  toString = () => `rename (${this.what})`;
}

/** The coding agent is configured in every run: each TDD, Debug & Fix and review fix hands off. */
const AGENT_CONFIG = 'agent:\n  command: ./agent.sh\n  maxReviewRounds: 2\n';
/** `agent.keepPartialWork`: on in the first config (a pause keeps its partial work), drawn after. */
const keepPartialLine = (keep: boolean) => (keep ? '  keepPartialWork: true\n' : '');
const ApplyOctokit = Octokit.plugin(pinApiVersion);

/** The clock of the loop's hosts in the model: the Action's steps and the App's events alike. */
const NOON = new Date('2026-11-22T12:00:00.000Z');

/**
 * What the Action's steps (`step: apply`, the scheduled sweep) and the App's wake-up job are given:
 * the App's token through the OpenAPI-checked transport, the config on the default branch.
 */
function loopEnv(r: Real, now = NOON): LoopEnv {
  const gh = new ApplyOctokit({ auth: 'ghs_app_token', request: { fetch: checkedFetch } });
  return {
    gh,
    repo: { owner: OWNER, repo: REPO },
    repoUrl: `https://github.com/${OWNER}/${REPO}`,
    defaultBranch: 'master',
    loadConfig: async () => parseConfigText(r.sim.files('master')['.github/coder.yml'] ?? ''),
    identity: async () => ({
      login: 'coder-loop[bot]',
      app: { id: LOOP_APP.id, slug: 'coder-loop' },
    }),
    log: { info: () => undefined, warn: () => undefined },
    now: () => now,
  };
}

/**
 * The workflow a hand-off starts, its agent already run: `step: apply` with the agent's changes
 * (a test and code), or none, possibly after a human moved the branch, possibly twice (a re-run
 * job, a redelivered dispatch). A run without a commit is a failed attempt, as in the Action.
 */
class AgentApply implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly which: 'latest' | 'first',
    readonly kind: 'change' | 'none' | 'moved',
    readonly twice: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const d = this.which === 'latest' ? r.sim.dispatches.at(-1) : r.sim.dispatches[0];
    if (!d) return;
    const { payload } = parseAgentPayload(d.client_payload);
    expect(payload).toBeDefined(); // the loop sends only payloads the agent steps accept
    if (!payload) return;
    if (this.kind === 'moved' && r.sim.refs.has(payload.branch))
      r.sim.push(payload.branch, { [`src/human${++r.step}.ts`]: 'x\n' });
    const file = (text: string) => ({
      mode: '100644',
      content: Buffer.from(text).toString('base64'),
    });
    const run: ChangeSet = {
      version: 1,
      headSha: payload.headSha,
      outcome: this.kind === 'none' ? 'no-change' : 'changed',
      changes:
        this.kind === 'none'
          ? []
          : [
              { path: `test/agent${++r.step}.test.ts`, ...file('test\n') },
              { path: `src/agent${r.step}.ts`, ...file(`export const v = ${r.step};\n`) },
            ],
    };
    const env = loopEnv(r);
    const { gh, repo } = env;
    for (let i = 0; i < (this.twice ? 2 : 1); i++) {
      const outcome = await applyAgentRun(gh, repo, payload, run, 'done', 'docs/plans').catch(
        () => undefined,
      );
      const { config } = await env.loadConfig();
      if (outcome?.failedAttempt && config)
        await agentRunFailed(env, config, payload, outcome.reason ?? outcome.state).catch(
          () => undefined,
        );
    }
    for (const branch of r.sim.refs.keys()) remember(r, branch);
  }
  toString = () => `agent apply(${this.which}, ${this.kind}${this.twice ? ', twice' : ''})`;
}

/** The record on the newest own check run of `branch` (undefined when the branch is gone). */
function recordOn(r: Real, branch: string): LoopMarker | undefined {
  if (!r.sim.refs.has(branch)) return undefined;
  return newestRecord(r.sim, branch, ancestry(r.sim, r.sim.refs.get('master')));
}
const attemptsOf = (record: LoopMarker | undefined) => (record?.attempts ?? []).length;

/** The agent's CLI at its provider's usage limit, as Claude Code words it, and its reset. */
const LIMIT = 'Claude Code reached its usage limit';
const RESET = '2026-11-22T15:00:00.000Z';

/**
 * The latest hand-off's workflow, its agent stopped at its provider's usage limit (with the reset
 * time the CLI printed, or none): `step: apply` keeps its work so far as a partial commit, when
 * it made some, and records the pause, as the Action does. A pause spends no attempt.
 */
class AgentPause implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly work: boolean,
    readonly reset: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const d = r.sim.dispatches.at(-1);
    if (!d) return;
    const { payload } = parseAgentPayload(d.client_payload);
    if (!payload) return;
    const before = recordOn(r, payload.branch);
    const file = (text: string) => ({
      mode: '100644',
      content: Buffer.from(text).toString('base64'),
    });
    const run: ChangeSet = {
      version: 1,
      headSha: payload.headSha,
      outcome: 'paused',
      reason: LIMIT,
      pause: { reason: LIMIT, ...(this.reset ? { until: RESET } : {}) },
      changes: this.work
        ? [{ path: `src/partial${++r.step}.ts`, ...file(`export const p = ${r.step};\n`) }]
        : [],
    };
    const env = loopEnv(r);
    // As the Action's apply step: `keepPartialWork` from the default branch's config.
    const { config } = await env.loadConfig();
    const outcome = await applyAgentRun(env.gh, env.repo, payload, run, 'done', 'docs/plans', {
      keepPartialWork: config?.agent?.keepPartialWork ?? false,
    }).catch(() => undefined);
    // As the Action's apply step: the pause on the head it left (the partial commit, if any).
    if (outcome?.state === 'paused' && outcome.pause && config)
      await dispatchAgentPause(env, config, payload, outcome.pause, outcome.commit).catch(
        () => undefined,
      );
    if (outcome?.failedAttempt && config)
      await agentRunFailed(env, config, payload, outcome.reason ?? outcome.state).catch(
        () => undefined,
      );
    for (const branch of r.sim.refs.keys()) remember(r, branch);
    // A pause spends no attempt.
    if (!outcome?.failedAttempt)
      expect(attemptsOf(recordOn(r, payload.branch))).toBeLessThanOrEqual(attemptsOf(before));
  }
  toString = () =>
    `agent paused at its usage limit(${this.work ? 'partial work' : 'no work'}${this.reset ? ', reset time' : ''})`;
}

/**
 * What comes after a pause: its end passes and the Action's scheduled sweep runs, or the App's
 * wake-up job for the branch fires; the sweep runs before the end (nothing is due); a writer's
 * `/coder resume` (early) or `/coder stop`. A resume hands the paused node to the agent again,
 * with the paused attempt, on the head as it is; a stop or a sweep before the end hands nothing.
 */
class AfterPause implements fc.AsyncCommand<Model, Real> {
  constructor(readonly how: 'sweep' | 'wake' | 'not-due' | 'resume' | 'stop') {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const head = r.sim.refs.get(pr.head)!;
    const before = recordOn(r, pr.head);
    const pause = before?.escalation ? undefined : before?.pause;
    const sent = r.sim.dispatches.length;
    const failedBefore = commandsFailed;
    let finished: boolean;
    if (this.how === 'resume' || this.how === 'stop') {
      const body = this.how === 'resume' ? '/coder resume' : '/coder stop';
      const event = commentDelivery(body, { login: 'alice', id: 10_000 + ++r.step });
      delete event.payload.issue.pull_request;
      await receive(r, event);
      finished = commandsFailed === failedBefore;
    } else {
      // Past any reset the model's pauses name, or at the pause's start (before its end).
      const env = loopEnv(r, this.how === 'not-due' ? NOON : new Date('2026-11-23T12:00:00.000Z'));
      const { config } = await env.loadConfig();
      if (!config) return;
      const outcome = await (
        this.how === 'wake' ? resumeBranch(env, config, pr.head) : sweepPauses(env, config)
      ).catch(() => undefined);
      finished = outcome !== undefined;
    }
    for (const branch of r.sim.refs.keys()) remember(r, branch);
    const sentNow = r.sim.dispatches.slice(sent);
    const after = recordOn(r, pr.head);
    if (!finished) return;
    if (pr.base !== r.sim.defaultBranch) {
      // A writer switched the PR's base (an adversary's move, not switched back): the PR is held,
      // so the sweep, a wake-up and a command all pass it by — nothing sent, the pause kept as
      // it was, to resume once the base is the one the loop opened it against again.
      expect(sentNow).toEqual([]);
      expect(after?.pause).toEqual(before?.pause);
      return;
    }
    if (this.how === 'sweep' || this.how === 'wake') {
      if (!pause) {
        expect(sentNow).toEqual([]);
        return;
      }
      // Resumed by itself: the same node, the same attempt, on the same head; no longer paused.
      expect(after?.pause).toBeUndefined();
      expect(sentNow.map((d) => d.client_payload)).toEqual([
        expect.objectContaining({ node: pause.node, attempt: pause.attempt, headSha: head }),
      ]);
      expect(attemptsOf(after)).toBe(attemptsOf(before));
    } else if (this.how === 'not-due') {
      expect(sentNow).toEqual([]);
      if (pause) expect(after?.pause).toEqual(pause);
    } else if (this.how === 'resume' && pause) {
      expect(after?.pause).toBeUndefined();
      expect(sentNow.map((d) => d.client_payload)).toEqual([
        expect.objectContaining({ node: pause.node, attempt: pause.attempt, headSha: head }),
      ]);
    } else if (this.how === 'stop' && pause) {
      expect(after?.pause).toBeUndefined();
      expect(sentNow).toEqual([]);
    }
  }
  toString = () => `after a pause: ${this.how}`;
}

/**
 * CI on the head, but no failure of the code's: a GitHub Actions job `cancelled`, or a workflow
 * run that never started (`startup_failure`) — GitHub refusing the loop's re-run, or not — then
 * the re-run's result (green, red, or none yet). Infrastructure spends no attempt: when nothing
 * else on the head is red, the record's attempts do not grow until the re-run itself fails.
 */
class CiInfrastructure implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: 'cancelled' | 'startup_failure',
    readonly refused: boolean,
    readonly then: 'success' | 'failure' | 'none',
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const head = r.sim.refs.get(pr.head)!;
    const before = recordOn(r, pr.head);
    // A `test` job that already failed on this head and was not counted yet (the loop held it back
    // while paused at the agent's limit) is the code's failure: the loop may count it at this event.
    const testJobs = new Map<number, string | null>();
    for (const c of r.sim.checkRuns)
      if (c.head_sha === head && c.job && c.name === 'test') testJobs.set(c.job.run, c.conclusion);
    const held =
      [...testJobs.values()].includes('failure') &&
      !(before?.attempts ?? []).some((a) => a.sha === head);
    const clean = onlyRed(r, head, 'test') && !held;
    const reruns = r.sim.reruns.length;
    const refusals = r.sim.rerunsRefused.length;
    if (this.refused)
      r.sim.rerunRefusal = {
        status: 403,
        message: 'Unable to retry this workflow run because it was created over a month ago',
      };
    let finished = true;
    let bare: ReturnType<SimGitHub['startupFailure']> | undefined;
    try {
      if (this.kind === 'cancelled') await r.deliver.ci(pr.head, 'cancelled', { sha: head });
      else bare = await r.deliver.startupFailure(pr.head);
    } catch {
      finished = false;
    } finally {
      delete r.sim.rerunRefusal;
    }
    remember(r, pr.head);
    if (this.refused) expect(r.sim.reruns.length).toBe(reruns);
    const mid = recordOn(r, pr.head);
    if (clean && finished) {
      expect(attemptsOf(mid)).toBeLessThanOrEqual(attemptsOf(before));
      // A refused re-run is not asked again: the same completion again asks nothing more.
      if (this.refused && r.sim.rerunsRefused.length > refusals) {
        const asked = r.sim.rerunsRefused.length;
        const ok = await r.deliver
          .checkSuite(pr.head, { sha: head, conclusion: 'failure' })
          .then(() => true)
          .catch(() => false);
        if (ok) expect(r.sim.rerunsRefused.length).toBe(asked);
      }
    }
    if (this.then === 'none' || r.sim.refs.get(pr.head) !== head) return;
    // The re-run (the loop's, when GitHub took it) starts its jobs and ends.
    if (bare && bare.status === 'queued')
      Object.assign(bare, { status: 'completed', conclusion: this.then });
    const passed = await r.deliver
      .ci(pr.head, this.then, { sha: head })
      .then(() => true)
      .catch(() => false);
    // A green re-run may still be an attempt by the loop's other rules (no test came with the
    // work): never one about what failed for the infrastructure.
    if (clean && finished && passed && this.then === 'success')
      for (const attempt of (recordOn(r, pr.head)?.attempts ?? []).slice(attemptsOf(before)))
        for (const c of attempt.checks)
          expect(['cancelled', 'startup_failure']).not.toContain(c.conclusion);
  }
  toString = () =>
    `CI ${this.kind}${this.refused ? ' (re-run refused)' : ''}, then ${this.then === 'none' ? 'no re-run result' : `the re-run ${this.then}`}`;
}

/**
 * A flaky check: `test` fails on the head, then passes on a re-run of the same head (the loop's,
 * with `rerun.failures`, or a person's). No attempt is left spent on it — unless the failure was
 * the last attempt and escalated: then the architects decide (`/coder resume`), as for any.
 */
class Flaky implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const head = r.sim.refs.get(pr.head)!;
    const clean = onlyRed(r, head, 'test');
    const deliver = (conclusion: string) =>
      r.deliver
        .ci(pr.head, conclusion, { sha: head })
        .then(() => true)
        .catch(() => false);
    const failed = await deliver('failure');
    if (r.sim.refs.get(pr.head) !== head) return;
    // A failure that escalated (the last attempt) waits for the architects, flaky or not.
    const escalated = recordOn(r, pr.head)?.escalation !== undefined;
    const passed = await deliver('success');
    remember(r, pr.head);
    // (The head may still be an attempt by the loop's other rules: Passes Spec? on the work.)
    // A PR whose base a writer switched is held: the loop judges neither run until the base is
    // set back, so an attempt spent before the switch stays as it was (docs/security.md).
    const heldByBase = pr.base !== r.sim.defaultBranch;
    if (clean && failed && passed && !escalated && !heldByBase && r.sim.refs.get(pr.head) === head)
      expect(
        (recordOn(r, pr.head)?.attempts ?? []).filter(
          (a) => a.sha === head && a.agent === undefined && a.checks.some((c) => c.name === 'test'),
        ),
      ).toEqual([]);
  }
  toString = () => 'flaky check (fails, passes on a re-run of the same head)';
}

/**
 * Whether nothing on `head` but CI's job `name` (and the loop's own) is red or unfinished. A job
 * reporting again (a re-run: its run's next attempt) replaces its verdict; a check run a writer's
 * workflow created through the API (GitHub Actions', no job) stands beside it, as the loop reads
 * them (`latestCheckRuns`).
 */
function onlyRed(r: Real, head: string, name: string): boolean {
  const latest = new Map<string, string | null>();
  for (const c of r.sim.checkRuns)
    if (c.head_sha === head && c.app.id !== LOOP_APP.id)
      latest.set(
        c.job
          ? `job ${c.job.run} ${c.name}`
          : c.app.id === CI_APP.id
            ? `api ${c.id}`
            : `${c.app.id} ${c.name}`,
        c.conclusion,
      );
  const statuses = new Map<string, string>();
  for (const st of r.sim.statuses) if (st.sha === head) statuses.set(st.context, st.state);
  return (
    [...latest].every(
      ([n, c]) => (n.startsWith('job ') && n.endsWith(` ${name}`)) || c === 'success',
    ) &&
    [...statuses.values()].every((state) => state === 'success') &&
    !r.sim.workflowRuns.some((w) => w.head_sha === head && w.conclusion === 'startup_failure')
  );
}

/**
 * A person merges the open loop PR once its final verification passed (its head's `coder-loop`
 * is End, green), as GitHub's merge endpoint does, then GitHub sends `closed`. With `autoMerge`
 * the loop merges itself; this is the person's way.
 */
class Merge implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    const head = r.sim.headOf(pr);
    const own = r.sim.own(head);
    if (own?.external_id !== 'End' || own.conclusion !== 'success') return;
    const merge = r.sim.commit(
      r.sim.files(head),
      [r.sim.refs.get(pr.base)!, head],
      `Merge #${pr.number}`,
    );
    r.sim.refs.set(pr.base, merge);
    pr.merged = true;
    pr.state = 'closed';
    (pr as typeof pr & { lastHead?: string }).lastHead = head;
    await receive(r, r.deliver.pullRequestEvent('closed', pr.number, { login: 'alice' }));
  }
  toString = () => 'merge(by a person)';
}

/**
 * A phase to its end in one step — the main path, CI green on the completion commit, and a
 * person's merge (unless the loop merged it) — so runs reach the next phase of a `/coder run`.
 */
class Land implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await new Progress().run(m, r);
    await new Ci('success', false).run(m, r);
    await new Merge().run(m, r);
  }
  toString = () => 'land(progress, final CI green, merge)';
}

/** A writer closes the open loop PR without merging it. */
class CloseUnmerged implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    const pr = openLoopPull(r);
    if (!pr) return;
    (pr as typeof pr & { lastHead?: string }).lastHead = r.sim.headOf(pr);
    pr.state = 'closed';
    await receive(r, r.deliver.pullRequestEvent('closed', pr.number, { login: 'bob' }));
  }
  toString = () => 'close(unmerged)';
}

class Comment implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: string,
    readonly body: string,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const bot = this.user.endsWith('[bot]');
    const event = commentDelivery(this.body, {
      login: this.user,
      id: 10_000 + ++r.step,
      type: bot ? 'Bot' : 'User',
    });
    delete event.payload.issue.pull_request;
    const from = requestLog.length;
    await receive(r, event);
    // Outsiders: no write at all by a bot; one short reply at most for a read-only user.
    if (bot) expect(requestLog.length).toBe(from);
    if (this.user === 'mallory' || this.user === 'tracy') {
      expect(writesSince(from).map((w) => `${w.method} ${w.path.replace(/\?.*/, '')}`)).toEqual([
        'POST /repos/Codertocat/Hello-World/issues/1/comments',
      ]);
    }
  }
  toString = () => `comment(${this.user}: ${JSON.stringify(this.body)})`;
}

/** The model's config: `src/core/**` locked, archie the architect, the agent configured. */
const configText = (
  maxRetries: number,
  selfApproval = false,
  autoMerge = false,
  rerunFailures = false,
  keepPartialWork = true,
) =>
  `maxRetries: ${maxRetries}\narchitects: [archie]\nlocked: ["src/core/**"]\n${
    selfApproval ? 'allowSelfApproval: true\n' : ''
  }${autoMerge ? 'autoMerge: true\n' : ''}${rerunFailures ? 'rerun:\n  failures: true\n' : ''}${AGENT_CONFIG}${keepPartialLine(keepPartialWork)}`;

class SetConfig implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly maxRetries: number,
    readonly selfApproval: boolean,
    readonly autoMerge = false,
    readonly rerunFailures = false,
    readonly keepPartialWork = true,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    r.sim.push('master', {
      '.github/coder.yml': configText(
        this.maxRetries,
        this.selfApproval,
        this.autoMerge,
        this.rerunFailures,
        this.keepPartialWork,
      ),
    });
  }
  toString = () =>
    `config(maxRetries=${this.maxRetries}${this.selfApproval ? ', allowSelfApproval' : ''}${this.autoMerge ? ', autoMerge' : ''}${this.rerunFailures ? ', rerun.failures' : ''}${this.keepPartialWork ? '' : ', keepPartialWork off'})`;
}

class Fault implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: string) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    if (this.kind === '422 ref') r.sim.faults.set('POST /git/refs', 422);
    else if (this.kind.startsWith('403 secondary ')) {
      r.sim.secondaryLimits.add(this.kind.slice('403 secondary '.length));
    } else if (this.kind.startsWith('outage ')) {
      r.sim.outages.set(this.kind.slice('outage '.length), 4);
    } else if (this.kind.startsWith('timeout ')) {
      const [, when, match] = this.kind.split(' ');
      wire.faults.push({ when: when as 'before' | 'after', match: match! });
    } else r.sim.faultsAfter.add(this.kind);
  }
  toString = () => `fault(${this.kind})`;
}

const normalize = (text: string, notes: readonly string[]) =>
  text
    .replace(/\[[ ~xX]\]/g, '[?]')
    .split('\n')
    .filter((line) => !notes.includes(line))
    .join('\n')
    .replace(/\n+$/, '');

/** The loop's promises, checked against the simulated GitHub after every command. */
/**
 * Jest's matchers, built only when a check fails. `expect(x)` builds every matcher (and an error
 * for its stack) on each call, ~25 µs; the invariants make tens of checks after each of a shard's
 * ~3,500 steps, which was ~1.5 s of its CPU (issue 42). Each helper tests exactly what its matcher
 * tests (`toBe`: `Object.is`; `toBeLessThanOrEqual`: `<=` on numbers; `toContain`: a substring of a
 * string, or an element `===` in an array; `toEqual` on arrays of strings: the same strings in
 * order), and where that fails the matcher itself fails, with its own message.
 */
function is(actual: unknown, expected: unknown): void {
  if (!Object.is(actual, expected)) expect(actual).toBe(expected);
}
function atMost(actual: number, most: number): void {
  if (!(typeof actual === 'number' && actual <= most)) expect(actual).toBeLessThanOrEqual(most);
}
function contains(within: string | readonly unknown[] | undefined, item: unknown): void {
  const found =
    typeof within === 'string'
      ? typeof item === 'string' && within.includes(item)
      : Array.isArray(within) && within.some((x) => x === item);
  if (!found) expect(within).toContain(item);
}
function sameStrings(actual: readonly string[], expected: readonly string[]): void {
  if (actual.length !== expected.length || actual.some((a, i) => a !== expected[i]))
    expect(actual).toEqual(expected);
}

function invariants(r: Real) {
  const { sim } = r;
  // Every request passed the OpenAPI check (one that fails it also throws), and every answer's
  // status and body the operation's response schema (see `checkAnswer` for what it leaves out).
  if (violations.length > 0) expect(violations).toEqual([]);
  // At most one agent commit per hand-off, and never on a moved branch: each agent commit in any
  // branch's history is the child of the head it was handed.
  const reachable = new Set<string>();
  for (const head of sim.refs.values())
    for (let sha: string | undefined = head; sha && !reachable.has(sha);) {
      reachable.add(sha);
      sha = sim.commits.get(sha)?.parents[0];
    }
  const byHandOff = new Map<string, number>();
  for (const sha of reachable) {
    const commit = sim.commits.get(sha)!;
    const trailer = /^Coder-Loop-Agent: (\S+) ([0-9a-f]{40}) (\d+)$/m.exec(commit.message);
    if (!trailer) continue;
    sameStrings(commit.parents, [trailer[2]!]);
    byHandOff.set(trailer[0], (byHandOff.get(trailer[0]) ?? 0) + 1);
  }
  for (const count of byHandOff.values()) is(count, 1);
  agentCommits += byHandOff.size;
  const master = sim.files('master');
  const onMaster = ancestry(sim, sim.refs.get('master'));
  // Never two phases of one plan open at once (`/coder run` and `/coder next` alike).
  const openPhases = sim.pulls.filter(
    (p) =>
      p.state === 'open' && isLoops(p) && p.head.startsWith(PLAN_PREFIX) && sim.refs.has(p.head),
  );
  atMost(new Set(openPhases.map((p) => p.head)).size, 1);
  // The seed's rule 2: no phase starts while an earlier one is not all `[x]` on the default
  // branch — the commit a lock branch started from has every earlier phase done.
  for (const pr of openPhases) {
    let base: string | undefined = sim.refs.get(pr.head);
    while (base && !onMaster.has(base)) base = sim.commits.get(base)?.parents[0];
    if (!base) continue;
    const phase = Number(pr.head.slice(PLAN_PREFIX.length));
    const earlier = parseChecklist(sim.files(base)[CHECKLIST] ?? '', CHECKLIST).phases.filter(
      (p) => p.number < phase,
    );
    for (const p of earlier)
      sameStrings(
        p.tasks.map((t) => `${p.number} ${t.state}`),
        p.tasks.map(() => `${p.number} done`),
      );
  }
  /** Loop PRs (by branch) on which a completion commit appeared in this step. */
  const completedNow = new Set<string>();
  for (const [branch] of sim.refs) {
    if (!branch.startsWith(PLAN_PREFIX)) continue;
    // One open PR per lock branch.
    atMost(
      sim.pulls.filter((p) => p.state === 'open' && isLoops(p) && p.head === branch).length,
      1,
    );
    const files = sim.files(branch);
    const phase = Number(branch.slice(PLAN_PREFIX.length));
    const log = files[MASTER_LOG] ?? '';
    // Never two "Coder started" or "Coder completed" for one phase attempt (one branch).
    atMost(log.split(`**Coder started** — Example, Phase ${phase}:`).length - 1, 1);
    atMost(log.split(`**Coder completed** — Example, Phase ${phase}:`).length - 1, 1);
    // A human's edit is never lost.
    const notes = r.notes.get(branch) ?? [];
    for (const note of notes) contains(files[CHECKLIST], note);
    // Outside the boxes (and the humans' notes), the checklist bytes never change.
    is(normalize(files[CHECKLIST]!, notes), normalize(master[CHECKLIST]!, []));
    // No [x] without an approval of a head that passed CI.
    for (
      let sha: string | undefined = sim.refs.get(branch);
      sha;
      sha = sim.commits.get(sha)?.parents[0]
    ) {
      const commit = sim.commits.get(sha)!;
      if (!commit.message.includes('— Coder completed')) continue;
      const parent = commit.parents[0]!;
      // Judged once, right after the command that completed it: CI that reports on the parent
      // later (a re-run failing on an old head) does not undo what was true when it completed.
      if (r.judged.has(sha)) continue;
      r.judged.add(sha);
      completedNow.add(branch);
      judgeCompletion(r, branch, sha, master, onMaster);
      // ... by a human with write permission (never an outsider, a bot or a fork's reviewer).
      expect(
        sim.reviews.some(
          (v) =>
            v.state === 'APPROVED' &&
            v.commit_id === parent &&
            !v.user.endsWith('[bot]') &&
            ['write', 'maintain', 'admin'].includes(sim.permissions.get(v.user) ?? 'read') &&
            sim.pulls.find((p) => p.number === v.pr)?.fork !== true,
        ),
      ).toBe(true);
      // The PR's own CI: not the runs a fork's PR (another head repository) or a review started
      // on the same commit, which are no CI of the loop PR (docs/security.md).
      const latest = new Map<string, string | null>();
      for (const run of sim.checkRuns.filter(
        (c) =>
          c.head_sha === parent &&
          c.app.id !== LOOP_APP.id &&
          c.name !== 'coder-loop' &&
          !c.job?.for?.repository &&
          !c.job?.for?.event,
      ))
        latest.set(run.name, run.conclusion);
      // Commit statuses count as CI too, each context's newest per creator (the loop's own
      // `coder-loop` state aside): a head with no CI check run may pass on them alone.
      for (const status of sim.statuses.filter(
        (x) => x.sha === parent && x.context !== 'coder-loop',
      ))
        latest.set(`status ${status.context} ${status.creator ?? ''}`, status.state);
      expect([...latest.values()].length).toBeGreaterThan(0);
      expect([...latest.values()].every((c) => c === 'success')).toBe(true);
    }
  }
  // A base switched away is said once per base and head: never again on a later event.
  const notes = sim.comments
    .map((c) => /<!-- coder-loop base .* -->/.exec(c.body)?.[0])
    .filter((k): k is string => k !== undefined);
  is(new Set(notes).size, notes.length);
  // A plan-mode PR's `coder-loop` concludes success only on a completion commit (final
  // verification): never on CI alone, whatever its body says the mode is.
  for (const run of sim.checkRuns)
    if (run.app.id === LOOP_APP.id && run.name === 'coder-loop' && run.conclusion === 'success')
      contains(sim.commits.get(run.head_sha)?.message ?? '', '— Coder completed');
  // Nothing but the loop changes what the loop believes.
  for (const pr of sim.pulls) {
    if (pr.state !== 'open' || !isLoops(pr) || !pr.head.startsWith(PLAN_PREFIX)) continue;
    if (!sim.refs.has(pr.head)) continue;
    believed(r, pr.number, pr.head, onMaster, completedNow.has(pr.head));
  }
}

/** Every commit reachable from `sha` (first parents and merges alike). */
function ancestry(sim: SimGitHub, sha: string | undefined): Set<string> {
  const seen = new Set<string>();
  const stack = sha ? [sha] : [];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    stack.push(...(sim.commits.get(s)?.parents ?? []));
  }
  return seen;
}

/** The record the loop reads for a branch: on its head's check run, else the newest earlier one. */
function newestRecord(
  sim: SimGitHub,
  branch: string,
  onMaster: Set<string>,
): LoopMarker | undefined {
  for (
    let sha: string | undefined = sim.refs.get(branch);
    sha && !onMaster.has(sha);
    sha = sim.commits.get(sha)?.parents[0]
  ) {
    const runs = sim.checkRuns.filter(
      (c) => c.head_sha === sha && c.name === 'coder-loop' && c.app.id === LOOP_APP.id,
    );
    for (let i = runs.length - 1; i >= 0; i--) {
      const record = decodeRecord(runs[i]!.output?.text, sha);
      if (record) return record;
    }
  }
  return undefined;
}

const COUNTING = ['write', 'maintain', 'admin'];

/**
 * A completion commit, judged once, in the step it appeared: its parent is a head approved by a
 * reviewer who counts — write permission, not a bot, no push to the branch (its commits' authors
 * and the `synchronize` senders the model delivered) unless `allowSelfApproval`, whose latest
 * review of the PR is that approval — and, where the approval needs an architect (a locked path
 * or a plan document touched, a rename's old path included) or the phase was escalated (and no
 * `/coder resume` came since), an architect.
 */
function judgeCompletion(
  r: Real,
  branch: string,
  completion: string,
  master: Record<string, string>,
  onMaster: Set<string>,
) {
  const { sim } = r;
  const parent = sim.commits.get(completion)!.parents[0]!;
  const pr = sim.pulls.filter((p) => p.head === branch && isLoops(p)).at(-1)!;
  const b = belief(r, pr.number);
  const { config } = parseConfigText(master['.github/coder.yml'] ?? '');
  expect(config).toBeDefined();
  if (!config) return;
  const pushed = new Set(b.pushers);
  for (
    let sha: string | undefined = parent;
    sha && !onMaster.has(sha);
    sha = sim.commits.get(sha)?.parents[0]
  ) {
    const author = sim.commits.get(sha)?.author;
    if (author) pushed.add(author);
  }
  // GitHub's record of the branch's ref updates since its creation: every pusher but the loop;
  // a workflow's or an app's push names no person, and then no approval counts. Only the updates
  // up to the loop's own that wrote the completion: the loop read the record before it wrote it,
  // and GitHub lists each update when it happens ("List repository activities": its `before`,
  // `after` and `timestamp`), so a push the same command makes after the completion (a writer's
  // workflow pushing on top of it) was not there to read, and does not undo it.
  const written = sim.activity.findIndex(
    (a) => a.ref === `refs/heads/${branch}` && a.after === completion,
  );
  let automation = false;
  for (let i = written < 0 ? sim.activity.length - 1 : written; i >= 0; i--) {
    const a = sim.activity[i]!;
    if (a.ref !== `refs/heads/${branch}`) continue;
    if (a.actor !== 'coder-loop[bot]') {
      if (a.actor.endsWith('[bot]')) automation = true;
      else pushed.add(a.actor);
    }
    if (a.activity_type === 'branch_creation') break;
  }
  const head = sim.files(parent);
  const touched = [...new Set([...Object.keys(master), ...Object.keys(head)])].filter(
    (path) => master[path] !== head[path],
  );
  const isLocked = config.locked.length ? picomatch(config.locked, { dot: true }) : () => false;
  const plan = `${config.plansDir}/Example/`;
  const owned = (path: string) =>
    path === `${plan}01_Master Plan/01_Checklist.md` ||
    path === `${plan}00_context.md` ||
    (path.startsWith(`${plan}Reports/`) && path.endsWith('.md'));
  const needsArchitect = touched.some(
    (path) => isLocked(path) || (path.startsWith(`${config.plansDir}/`) && !owned(path)),
  );
  // Each reviewer's latest review as it stood then: reviews of the parent or an earlier head
  // (a review of the completion commit, or of anything later, came after it).
  const before = ancestry(sim, parent);
  const latest = new Map<string, SimReview>();
  for (const v of sim.reviews)
    if (v.pr === pr.number && v.state !== 'COMMENTED' && before.has(v.commit_id))
      latest.set(v.user, v);
  const counting = [...latest.values()].filter(
    (v) =>
      v.state === 'APPROVED' &&
      v.commit_id === parent &&
      !v.user.endsWith('[bot]') &&
      COUNTING.includes(sim.permissions.get(v.user) ?? 'read') &&
      (config.allowSelfApproval || (!pushed.has(v.user) && !automation)) &&
      // A writer's `/coder resume` in the same step ends the escalation first (then the gate is
      // evaluated again, and an approval given meanwhile counts).
      ((!needsArchitect && (!b.escalated || r.resumed)) || config.architects.includes(v.user)),
  );
  if (counting.length === 0)
    throw new Error(
      `completion ${completion.slice(0, 7)} of ${parent.slice(0, 7)} on ${branch}: no approval that counts ` +
        JSON.stringify({
          latest: [...latest.values()].map(
            (v) => `${v.user} ${v.state} ${v.commit_id.slice(0, 7)}`,
          ),
          pushed: [...pushed],
          needsArchitect,
          escalated: b.escalated,
          touched: touched.filter((p) => !owned(p)),
        }),
    );
}

/**
 * What the loop believes about an open loop PR — the record decoded from its newest own check
 * run — moves only by the loop's own steps, never by a body edit, a label or a forged list:
 * the same plan, phase, issue and mode throughout; attempts and review rounds only appended to
 * (reset only by a writer's `/coder resume`), each attempt about a commit of the branch whose
 * listed checks failed there; pushers only added, each one a `synchronize` sender; an
 * escalation kept until a writer's `/coder resume` or a completion.
 */
function believed(r: Real, pr: number, branch: string, onMaster: Set<string>, completed: boolean) {
  const { sim } = r;
  const b = belief(r, pr);
  const record = newestRecord(sim, branch, onMaster);
  if (!record) return;
  expect({
    mode: record.mode,
    plan: record.plan,
    phase: record.phase,
    issue: record.issue,
    grew: record.grew,
    vetted: record.vetted,
  }).toEqual({
    mode: 'plan',
    plan: 'Example',
    phase: Number(branch.slice(PLAN_PREFIX.length)),
    issue: 1,
    grew: undefined,
    vetted: undefined,
  });
  const onBranch = ancestry(sim, sim.refs.get(branch));
  for (const attempt of record.attempts ?? []) {
    is(onBranch.has(attempt.sha), true);
    for (const check of attempt.checks)
      is(
        sim.checkRuns.some(
          (c) =>
            c.head_sha === attempt.sha &&
            c.name === check.name &&
            c.conclusion === check.conclusion &&
            !(c.app.id === LOOP_APP.id && c.name === 'coder-loop'),
        ) ||
          sim.statuses.some(
            (st) =>
              st.sha === attempt.sha && st.context === check.name && st.state === check.conclusion,
          ) ||
          // A workflow run that started no job (its first attempt; a re-run may have passed).
          (check.conclusion === 'startup_failure' &&
            sim.workflowRuns.some((w) => w.head_sha === attempt.sha && w.name === check.name)),
        true,
      );
  }
  for (const pusher of record.pushers ?? []) is(b.senders.has(pusher), true);
  const before = b.record;
  if (before) {
    if (!r.resumed) {
      // An attempt is one per failed head (and agent run); a head failing again is updated.
      const key = (a: { sha: string; agent?: string }) => `${a.sha} ${a.agent ?? ''}`;
      const attempts = (record.attempts ?? []).map(key);
      // …unless the head passed on a re-run of the check that failed: flaky, its attempt taken back.
      const flaky = new Set((record.flaky ?? []).map((f) => f.sha));
      for (const attempt of before.attempts ?? [])
        if (!(attempt.agent === undefined && flaky.has(attempt.sha)))
          contains(attempts, key(attempt));
      for (const round of before.reviewRounds ?? []) contains(record.reviewRounds, round);
    }
    for (const pusher of before.pushers ?? []) contains(record.pushers ?? [], pusher);
    is(record.comment, before.comment);
    // Paused through the step: the phase did not complete.
    if (before.pause && record.pause) expect(completed).toBe(false);
  }
  if (b.escalated && !r.resumed && !completed) expect(record.escalation).toBeDefined();
  b.record = record;
  b.escalated = record.escalation !== undefined;
}

const next = fc.tuple(fc.constantFrom(...WRITERS), fc.boolean()).map(([u, c]) => new Next(u, c));
const push = fc.tuple(fc.boolean(), fc.boolean()).map(([t, n]) => new Push(t || !n, n));
const ci = fc
  .tuple(fc.constantFrom<'success' | 'failure'>('success', 'success', 'failure'), fc.boolean())
  .map(([c, o]) => new Ci(c, o));
const review = fc
  .tuple(
    fc.constantFrom('reviewer1', 'reviewer1', 'archie', ...OUTSIDERS),
    fc.constantFrom<'approved' | 'changes_requested'>('approved', 'approved', 'changes_requested'),
    fc.boolean(),
  )
  .map(([u, s, st]) => new Review(u, s, st));
// The loop's main path is weighted up, so runs reach review, completion and escalation.
/** The faults a run may meet: a write that fails after GitHub did it, a 422, a secondary rate
 * limit, an outage (several 5xx in a row), a request that times out before or after GitHub. */
const FAULTS = [
  'POST /pulls',
  'POST /git/refs',
  'PATCH /git/refs/heads/coder/example/phase-1',
  'POST /git/commits',
  'POST /comments',
  'POST /check-runs',
  '422 ref',
  '403 secondary POST /git/refs',
  '403 secondary POST /pulls',
  '403 secondary POST /comments',
  '403 secondary GET /permission',
  '403 secondary PATCH /git/refs/heads/coder/example/phase-1',
  'outage POST /git/trees',
  'outage POST /pulls',
  'outage PATCH /git/refs/heads/coder/example/phase-1',
  'timeout before /git/refs',
  'timeout after /git/refs',
  'timeout after /pulls',
  'timeout after /comments',
  'timeout before /check-runs',
];

/** Steps run one after the other as one command: a situation the generator reaches on purpose. */
class Then implements fc.AsyncCommand<Model, Real> {
  readonly steps: fc.AsyncCommand<Model, Real>[];
  constructor(...steps: fc.AsyncCommand<Model, Real>[]) {
    this.steps = steps;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    for (const step of this.steps) await step.run(m, r);
  }
  toString = () => this.steps.map((step) => step.toString()).join(', then ');
}

const commands = [
  next,
  next,
  fc.constant(new Progress()),
  push,
  push,
  ci,
  ci,
  ci,
  review,
  review,
  fc.constant(new Redeliver()),
  fc.constant(new ForkPull()),
  fc
    .tuple(
      fc.constantFrom<'latest' | 'first'>('latest', 'latest', 'first'),
      fc.constantFrom<'change' | 'none' | 'moved'>('change', 'change', 'none', 'moved'),
      fc.boolean(),
    )
    .map(([w, k, t]) => new AgentApply(w, k, t)),
  fc.constant(new AgentApply('latest', 'change', false)),
  fc
    .constantFrom<'closed' | 'synchronize'>('closed', 'synchronize')
    .map((a) => new OutsiderPullEvent(a)),
  fc
    .tuple(
      fc.constantFrom('alice', 'mallory', 'tracy', 'dependabot[bot]'),
      fc.constantFrom(
        '/coder release',
        '/coder retry',
        '/coder resume',
        '/coder next',
        '/coder status',
        '/coder run',
        '/coder stop',
      ),
    )
    .map(([u, b]) => new Comment(u, b)),
  // A run, and its stop, by a writer; merges by a person; a PR closed unmerged.
  fc.constant(new Comment('alice', '/coder run')),
  fc.constant(new Comment('bob', '/coder stop')),
  fc.constant(new Merge()),
  fc.constant(new Land()),
  fc.constant(new CloseUnmerged()),
  fc
    .tuple(
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(false, false, false, true),
      fc.constantFrom(false, false, true),
      fc.boolean(),
      fc.constantFrom(true, true, false),
    )
    .map(([n, self, auto, rerun, keep]) => new SetConfig(n, self, auto, rerun, keep)),
  fc.constantFrom<'reviewer1' | 'archie'>('reviewer1', 'archie').map((u) => new RacingApproval(u)),
  fc
    .tuple(
      fc.boolean(),
      fc.oneof(fc.constant<'files'>('files'), fc.nat(12)),
      fc.constantFrom<'reviewer1' | 'archie'>('reviewer1', 'reviewer1', 'archie'),
    )
    .map(([l, at, u]) => new ForceBackAroundRead(l, at, u)),
  fc
    .constantFrom<EditBody['kind']>('quick', 'clear', 'forge', 'unescalate', 'delete')
    .map((k) => new EditBody(k)),
  fc.boolean().map((add) => new TriageLabel(add)),
  // Taking the label off, then a writer's approval of a green head: the attack, weighted up.
  fc.constant(new TriageLabel(false, true)),
  fc.constant(new TriageLabel(false, true)),
  fc.constant(new TriageLabel(false, true)),
  fc.constantFrom<'reviewer1' | 'archie'>('reviewer1', 'archie').map((u) => new HiddenPush(u)),
  fc.constant(new ManyReviews()),
  // A writer's workflow: a check run or status like the loop's or CI's, or its push then the
  // main path (no approval counts: GitHub names no person for the push). One slot, so the other
  // steps keep their weights.
  fc.constantFrom<fc.AsyncCommand<Model, Real>>(
    new WriterWorkflow('loop-check'),
    new WriterWorkflow('loop-status'),
    new WriterWorkflow('ci-check'),
    new WriterWorkflow('ci-status'),
    new Then(new WriterWorkflow('push'), new Progress()),
  ),
  fc.boolean().map((f) => new ManyChecks(f)),
  // What GitHub's API lets a writer, a triage user and a fork's author do to the PR and its
  // checks (`Adversary`): two slots, so the other steps keep their weights.
  adversary,
  adversary,
  // Hunting the adversary's moves (FC_HUNT=adversary, with FC_SEED=random): ten slots more.
  ...(process.env.FC_HUNT === 'adversary' ? Array.from({ length: 10 }, () => adversary) : []),
  fc.constantFrom<Rename['what']>('locked', 'plan', 'plain').map((w) => new Rename(w)),
  fc.constantFrom(...FAULTS).map((k) => new Fault(k)),
  // Weighted up so that every shard reaches each kind of step its coverage asserts (see
  // `MINIMUM_REACHED`): a secondary rate limit, a writer's command failing under a fault, a run
  // stopped, a run's next phase, an approval that does not count, a locked file's escalation.
  fc.constantFrom(...FAULTS.filter((k) => k.startsWith('403'))).map((k) => new Fault(k)),
  // A writer's command meeting an outage of a request every command makes, or of a start's.
  fc
    .tuple(
      fc.constantFrom(
        'outage GET /permission',
        'outage GET /permission',
        'outage POST /git/refs',
        'outage POST /pulls',
      ),
      fc.constantFrom<fc.AsyncCommand<Model, Real>>(
        new Next('alice', false),
        new Comment('alice', '/coder run'),
        new Comment('bob', '/coder release'),
      ),
    )
    .map(([k, c]) => new Then(new Fault(k), c)),
  // A reviewer's push from an unlinked email, CI green on it, then their approval.
  fc
    .constantFrom<'reviewer1' | 'archie'>('reviewer1', 'archie')
    .map(
      (u) =>
        new Then(new HiddenPush(u), new Ci('success', false), new Review(u, 'approved', false)),
    ),
  fc.constant(new Comment('alice', '/coder run')),
  fc.constant(new Comment('bob', '/coder stop')),
  // A run, then a stop while it goes on: reached by chance only about 11 times a shard otherwise.
  fc.constant(new Then(new Comment('alice', '/coder run'), new Comment('bob', '/coder stop'))),
  fc.constant(new Land()),
  fc.constant(new Rename('locked')),
  // The agent stopped at its provider's usage limit, alone (the phase waits, paused, through
  // whatever comes) or followed by what ends the pause: its end and a resume by itself (the
  // scheduled sweep, the App's wake-up job), a sweep before the end, `/coder resume`, `/coder stop`.
  fc.tuple(fc.boolean(), fc.boolean()).map(([w, t]) => new AgentPause(w, t)),
  ...[1, 2, 3].map(() =>
    fc
      .tuple(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<AfterPause['how']>('sweep', 'wake', 'not-due', 'resume', 'stop'),
      )
      .map(([w, t, how]) => new Then(new AgentPause(w, t), new AfterPause(how))),
  ),
  fc
    .tuple(fc.boolean(), fc.constantFrom<AfterPause['how']>('sweep', 'wake'))
    .map(
      ([w, how]) =>
        new Then(new AgentPause(w, true), new AfterPause('not-due'), new AfterPause(how)),
    ),
  fc
    .constantFrom<AfterPause['how']>('sweep', 'wake', 'not-due', 'resume', 'stop')
    .map((how) => new AfterPause(how)),
  // CI red for no fault of the code's (re-run by the loop, or refused by GitHub), and a flaky check.
  fc
    .tuple(
      fc.constantFrom<CiInfrastructure['kind']>('cancelled', 'startup_failure'),
      fc.constantFrom(false, false, true),
      fc.constantFrom<CiInfrastructure['then']>('success', 'success', 'failure', 'none'),
    )
    .map(([k, refused, then]) => new CiInfrastructure(k, refused, then)),
  fc
    .tuple(
      fc.constantFrom<CiInfrastructure['kind']>('cancelled', 'startup_failure'),
      fc.constantFrom<CiInfrastructure['then']>('success', 'failure'),
    )
    .map(([k, then]) => new CiInfrastructure(k, false, then)),
  // A re-run GitHub refuses, and `/coder stop` during a pause: reached a few times a shard else.
  fc
    .constantFrom<CiInfrastructure['kind']>('cancelled', 'startup_failure')
    .map((k) => new CiInfrastructure(k, true, 'none')),
  fc
    .tuple(fc.boolean(), fc.boolean())
    .map(([w, t]) => new Then(new AgentPause(w, t), new AfterPause('stop'))),
  fc.constant(new Flaky()),
];

/**
 * The least each kind of step must be reached, per 1,000 runs (scaled to a shard's runs), so that
 * a change that stops the sequences reaching a kind of step fails, and chance does not: each floor
 * sits three standard deviations or more below what a shard of 250 runs reaches (the ranges below,
 * measured over the four shards; a count of rare events with mean `m` varies by about `sqrt(m)`),
 * so chance fails a shard under one run in a thousand. Floors at half the mean failed about one CI
 * run in seven: `runStopped` reached 5 where 6 was asked.
 */
const MINIMUM_REACHED = {
  // The ranges are the four shards of one CI run once the pause and re-run steps joined the
  // generator (they thinned the older steps: `raced` reached 7 where 8 was asked), and the floors
  // were set again from them, per shard: the mean \`m\` less 3·sqrt(m), rounded down.
  // 210–219 a shard
  started: 600,
  // 74–85
  approved: 212,
  // 36–44
  completed: 84,
  // 21–29
  escalated: 32,
  // 26–39
  merged: 56,
  // 25–44
  rateLimited: 56,
  // 7–18
  raced: 8,
  // 11–23
  lockedOrPlanEscalated: 12,
  // 13–25
  approvalNotCounted: 28,
  // 8–20
  nextPhaseStarted: 8,
  // 31–54 (5–17 before a run-then-stop step was added to the generator)
  runStopped: 88,
  // 22–26
  commandsFailed: 36,
  // Passes Spec? sends heads without evidence back before an agent's next commit: 146–329 over
  // nine shards (2026-11-29; the seed of one commit reached 146 where 600 a thousand asked 150):
  // the mean less three standard deviations, 80 a shard.
  agentCommits: 320,
  // 49–63
  paused: 128,
  // 16–27, by the sweep, the wake-up job or \`/coder resume\`
  resumed: 28,
  // 4–10 (by \`/coder resume\`)
  resumedEarly: 4,
  // 14–22 (8 before the pause-then-stop step was added)
  pauseStopped: 16,
  // 28–34
  rerun: 52,
  // 18–27 (6 before the refused-re-run step was added)
  rerunRefused: 36,
  // 10–26
  flaky: 20,
};

/**
 * Shards of the model-based runs (one per `model.shard*.test.ts` file): one per Jest worker. Each
 * runs 250 of CI's 500 runs: the floors above hold each kind of step to three standard deviations
 * below what 250 runs reach; at 125 runs they would sit about two below, and some shard of a CI
 * run would fail by chance. CI ran four shards of 250 before (1,000 runs): twice the time for the
 * same floors. More runs hunt for bugs (`FC_RUNS`, `FC_SEED=random`; docs/reliability.md).
 */
export const SHARDS = 2;
/** CI's runs over all shards: 250 a shard, what `MINIMUM_REACHED`'s floors are measured for. */
const CI_RUNS = 500;

export function describeModel(shard: number): void {
  const reached = {
    started: 0,
    approved: 0,
    completed: 0,
    escalated: 0,
    merged: 0,
    rateLimited: 0,
    raced: 0,
    lockedOrPlanEscalated: 0,
    approvalNotCounted: 0,
    nextPhaseStarted: 0,
    runStopped: 0,
    paused: 0,
    resumed: 0,
    resumedEarly: 0,
    pauseStopped: 0,
    rerun: 0,
    rerunRefused: 0,
    flaky: 0,
  };
  describe(`model-based runs against the in-memory GitHub (shard ${shard} of ${SHARDS})`, () => {
    it('never acts twice, never loses an edit, never obeys an outsider, a bot or a fork', async () => {
      // A replay (FC_SEED, FC_PATH and FC_REPLAY_PATH) runs exactly one sequence.
      const runs = process.env.FC_PATH
        ? 1
        : Math.ceil(Number(process.env.FC_RUNS ?? CI_RUNS) / SHARDS);
      const replayPath = process.env.FC_REPLAY_PATH;
      const details = await fc.check(
        fc.asyncProperty(
          fc.constantFrom(true, true, true, false),
          fc.commands(commands, {
            maxCommands: 14,
            size: 'large',
            // Which steps of the failing run ran: the shrinking of commands replays only with it.
            ...(replayPath ? { replayPath } : {}),
          }),
          async (startFirst, cmds) => {
            beforeScenario();
            const sim = new SimGitHub({
              ...examplePlanFiles(),
              [LOCKED_FILE]: 'export const strict = true;\n',
              [PLAIN_FILE]: 'export const util = 1;\n',
              '.github/coder.yml': configText(2),
            });
            transport.fetch = sim.fetch;
            for (const login of ['alice', 'bob', 'reviewer1', 'archie'])
              sim.permissions.set(login, 'write');
            sim.permissions.set('mallory', 'read');
            sim.permissions.set('tracy', 'triage');
            sim.permissions.set('nobody', 'none');
            for (const [who, caller] of Object.entries(CALLERS))
              sim.callers.set(tokenOf(who as Caller), caller);
            wire.faults.length = 0;
            const steps = [...cmds];
            // A run that meets a secondary rate limit has the throttling plugin on, as the App
            // does (the others leave it off: its queues cost ~10 ms of timers per request).
            const rateLimited = steps.some((c) => c.toString().startsWith('fault(403'));
            const probot = await testProbot({ throttle: rateLimited ? 'unspaced' : 'off' });
            const replica = await testProbot({ throttle: rateLimited ? 'unspaced' : 'off' });
            const real: Real = {
              sim,
              probot,
              replica,
              deliver: new Deliver(probot, sim),
              notes: new Map(),
              heads: new Map(),
              step: 0,
              beliefs: new Map(),
              resumed: false,
              judged: new Set(),
            };
            // Most runs begin with a started phase, so the sequence explores what follows.
            if (startFirst) await wrap(new Next('alice', false)).run({} as Model, real);
            await fc.asyncModelRun(
              () => ({ model: {} as Model, real }),
              steps.map((c) => wrap(c)),
            );
            nock.cleanAll();
            reached.started += sim.pulls.length > 0 ? 1 : 0;
            reached.approved += [...sim.commits.values()].some((c) =>
              c.message.includes('— Coder completed'),
            )
              ? 1
              : 0;
            const loopRuns = sim.checkRuns.filter((c) => c.app.id === LOOP_APP.id);
            reached.completed += loopRuns.some((c) => c.external_id.startsWith('FinalVerify'))
              ? 1
              : 0;
            reached.escalated += sim.pulls.some((p) => p.labels.has('coder:escalated')) ? 1 : 0;
            reached.merged += loopRuns.some((c) => c.external_id === 'End') ? 1 : 0;
            reached.rateLimited += requestLog.some(
              (q) => q.status === 403 && !adversaryRequests.has(q),
            )
              ? 1
              : 0;
            const said = (text: string) =>
              sim.comments.some((c) => c.body.includes(text)) ? 1 : 0;
            reached.raced += said('before the loop could complete the phase');
            reached.lockedOrPlanEscalated += said('is not an architect');
            reached.approvalNotCounted += said('does not count');
            reached.nextPhaseStarted += sim.pulls.some((p) => p.head === `${PLAN_PREFIX}2`) ? 1 : 0;
            reached.runStopped += said('Stopped the run');
            reached.paused += said('⏸️ Paused until');
            reached.resumed += loopRuns.some((c) => c.output?.title === 'Resumed after the pause')
              ? 1
              : 0;
            reached.resumedEarly += said('▶️ Resumed #');
            reached.pauseStopped += said('is ended: the coding agent is not handed');
            reached.rerun += sim.reruns.some((q) => !q.by) ? 1 : 0;
            reached.rerunRefused += sim.rerunsRefused.length > 0 ? 1 : 0;
            reached.flaky += said('**Flaky**');
          },
        ),
        {
          numRuns: runs,
          ...seedOf(shard),
          ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
        },
      );
      if (details.failed) throw new Error(replayReport(details, shard));
      afterScenario();
      // How far the runs went, for the CI log: proof the sequences reach the whole loop.
      console.log(
        `model runs (shard ${shard}): ${runs}; reached ${JSON.stringify(reached)}; commands that failed and said so: ${commandsFailed}; agent commits checked: ${agentCommits}; adversary moves: ${JSON.stringify(adversaryMoves)}; OpenAPI verdicts reused: requests ${requestVerdicts.hits} of ${requestVerdicts.hits + requestVerdicts.misses}, answers ${answerVerdicts.hits} of ${answerVerdicts.hits + answerVerdicts.misses}`,
      );
      // ... and asserted: runs that never escalate, race or fail a command prove nothing about
      // them. A replay (FC_PATH) runs one sequence and is not held to it.
      if (!process.env.FC_PATH) {
        const counts: Record<keyof typeof MINIMUM_REACHED, number> = {
          ...reached,
          commandsFailed,
          agentCommits,
        };
        const short = Object.entries(MINIMUM_REACHED)
          .map(([name, per1000]) => ({
            name,
            reached: counts[name as keyof typeof MINIMUM_REACHED],
            minimum: Math.floor((per1000 * runs) / 1000),
          }))
          .filter((c) => c.reached < c.minimum)
          .map((c) => `${c.name}: ${c.reached} of ${runs} runs, fewer than ${c.minimum}`);
        expect(short).toEqual([]);
      }
    }, 1_800_000);
  });
}

/**
 * fast-check's report of a failed run, and the one command that replays it, shrunk, in its shard:
 * the seed, the path, and the replay path of the commands (which of them ran), without which
 * fast-check cannot follow the path ("Unable to replay, got wrong path").
 */
function replayReport(
  details: fc.RunDetails<[boolean, Iterable<fc.AsyncCommand<Model, Real>>]>,
  shard: number,
): string {
  const report = fc.defaultReportMessage(details) ?? 'The model-based property failed.';
  if (!details.counterexample || details.counterexamplePath === null) return report;
  const replayPath = /\/\*replayPath="([^"]*)"\*\//.exec(String(details.counterexample[1]))?.[1];
  const replay = [
    `FC_SEED=${details.seed}`,
    `FC_PATH='${details.counterexamplePath}'`,
    ...(replayPath ? [`FC_REPLAY_PATH='${replayPath}'`] : []),
    `npm run jest -- test/sim/model.shard${shard}.test.ts`,
  ].join(' ');
  const error = details.errorInstance;
  const got = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `${report}\n\nReplay it (after \`npm run build\`):\n\n  ${replay}\n\nGot error: ${got}`;
}

/**
 * A shard's seed: `FC_SEED` when set (`random`: a fresh one each run); else one fixed by the code
 * and tests under test (git's ids of `src/` and `test/` at HEAD) and the shard, so that CI on one
 * commit gives one verdict — a failure there fails again on every re-run of that commit and
 * replays from the seed it prints — while a change to the code or the tests explores other
 * sequences (one to the docs alone does not). Outside a git checkout, a fresh one.
 */
function seedOf(shard: number): { seed?: number } {
  const given = process.env.FC_SEED;
  if (given === 'random') return {};
  if (given) return { seed: Number(given) };
  const id = headTreesId();
  return id === undefined ? {} : { seed: (id ^ Math.imul(shard, 0x9e3779b9)) | 0 };
}

/** Every command is followed by the invariants. */
function wrap(command: fc.AsyncCommand<Model, Real>): fc.AsyncCommand<Model, Real> {
  return {
    check: () => true,
    run: async (m, r) => {
      r.resumed = false;
      const pulls = r.sim.pulls.length;
      const paused = [...r.beliefs].filter(([, b]) => b.record?.pause).map(([n]) => n);
      await command.run(m, r);
      // A deleted branch ends that attempt: a new branch of the same name starts afresh.
      for (const branch of [...r.notes.keys(), ...r.heads.keys()]) {
        if (!r.sim.refs.has(branch)) {
          r.notes.delete(branch);
          r.heads.delete(branch);
        }
      }
      invariants(r);
      // No phase opens while one is paused (and still is).
      const stillPaused = paused.filter(
        (n) =>
          r.sim.pulls.find((p) => p.number === n)?.state === 'open' &&
          r.beliefs.get(n)?.record?.pause,
      );
      if (stillPaused.length)
        expect(
          r.sim.pulls.slice(pulls).filter((p) => isLoops(p) && p.head.startsWith(PLAN_PREFIX)),
        ).toEqual([]);
    },
    toString: () => command.toString(),
  };
}
