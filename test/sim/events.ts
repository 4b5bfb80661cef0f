import type { Probot } from 'probot';
import { examplePayload } from '../helpers/payloads.js';
import type { SimGitHub, SimReview } from './github.js';

/** Real example payloads, changed only where the scenario needs, delivered to the App. */
export class Deliver {
  private n = 0;
  /**
   * Other replicas of the App, sharing the same GitHub: a delivery handed over `times` at once
   * goes to this App and these in turn, as GitHub's redelivery to another replica does (one App
   * process takes one head's events one at a time).
   */
  readonly replicas: Probot[] = [];
  constructor(
    private readonly probot: Probot,
    private readonly sim: SimGitHub,
  ) {}

  async comment(
    body: string,
    {
      login = 'Codertocat',
      issue = 1,
      commentId,
    }: { login?: string; issue?: number; commentId?: number } = {},
  ) {
    const payload = examplePayload('issue_comment', 'created');
    payload.comment.body = body;
    payload.comment.id = commentId ?? 1000 + ++this.n;
    payload.comment.user.login = login;
    payload.sender.login = login;
    payload.issue.number = issue;
    delete payload.issue.pull_request;
    await this.probot.receive({ id: `c-${this.n}`, name: 'issue_comment', payload });
  }

  /** A label added to an issue by `login` (the quick label starts quick mode). */
  async label(name: string, { login = 'Codertocat', issue = 1, title = 'Fix it', body = '' } = {}) {
    // GitHub first: the issue as it is, with the label on it; then the event that says so.
    const author = this.sim.issueTexts.get(issue)?.author;
    this.sim.issueTexts.set(issue, { title, body, ...(author ? { author } : {}) });
    this.sim.issueLabels.set(issue, new Set([...(this.sim.issueLabels.get(issue) ?? []), name]));
    this.sim.labelEvents.push({ issue, event: 'labeled', label: name, actor: login });
    return this.labelDelivered(name, { login, issue, title, body });
  }

  /** The `issues.labeled` of a label added before, delivered (again): GitHub's issue unchanged. */
  async labelDelivered(
    name: string,
    { login = 'Codertocat', issue = 1, title = 'Fix it', body = '' } = {},
  ) {
    const payload = examplePayload('issues', 'labeled');
    payload.label.name = name;
    payload.issue.number = issue;
    payload.issue.title = title;
    payload.issue.body = body;
    payload.sender.login = login;
    await this.probot.receive({ id: `l-${++this.n}`, name: 'issues', payload });
  }

  /** CI finished on a branch head: a check run with `conclusion`, then `check_suite.completed`. */
  async ci(
    branch: string,
    conclusion: string,
    {
      sha,
      name = 'test',
      setup,
      annotation,
    }: { sha?: string; name?: string; setup?: boolean; annotation?: string } = {},
  ) {
    const head = sha ?? this.sim.refs.get(branch)!;
    this.sim.ci(head, conclusion, name, undefined, {
      setup: setup === true,
      ...(annotation === undefined ? {} : { annotation }),
    });
    await this.checkSuite(branch, { sha: head, conclusion });
  }

  /** `check_suite.completed` on a branch head, for check runs or statuses already there. */
  async checkSuite(
    branch: string,
    { sha, conclusion = 'success' }: { sha?: string; conclusion?: string } = {},
  ) {
    const head = sha ?? this.sim.refs.get(branch)!;
    const payload = examplePayload('check_suite', 'completed');
    payload.check_suite.head_branch = branch;
    payload.check_suite.head_sha = head;
    payload.check_suite.conclusion = conclusion;
    payload.check_suite.pull_requests = [];
    await this.probot.receive({ id: `ci-${++this.n}`, name: 'check_suite', payload });
  }

  async workflowRun(branch: string, conclusion: string) {
    const head = this.sim.refs.get(branch)!;
    this.sim.ci(head, conclusion, 'build');
    const payload = examplePayload('workflow_run', 'completed');
    payload.workflow_run.head_branch = branch;
    payload.workflow_run.head_sha = head;
    payload.workflow_run.conclusion = conclusion;
    await this.probot.receive({ id: `wr-${++this.n}`, name: 'workflow_run', payload });
  }

  /** A workflow run on the branch head that never started a job: `workflow_run.completed`. */
  async startupFailure(branch: string, name = 'CI') {
    const head = this.sim.refs.get(branch)!;
    const run = this.sim.startupFailure(head, name);
    const payload = examplePayload('workflow_run', 'completed');
    payload.workflow_run.id = run.id;
    payload.workflow_run.name = name;
    payload.workflow_run.head_branch = branch;
    payload.workflow_run.head_sha = head;
    payload.workflow_run.conclusion = 'startup_failure';
    await this.probot.receive({ id: `wr-${++this.n}`, name: 'workflow_run', payload });
    return run;
  }

  /** `pull_request_review.submitted` for a review already made through the API (`SimReview`). */
  async reviewEvent(review: SimReview) {
    const pr = this.sim.pull(review.pr);
    const payload = examplePayload('pull_request_review', 'submitted');
    payload.review.id = review.id;
    payload.review.state = review.state.toLowerCase();
    payload.review.commit_id = review.commit_id;
    payload.review.user.login = review.user;
    payload.review.user.type = review.user.endsWith('[bot]') ? 'Bot' : 'User';
    payload.sender.login = review.user;
    payload.pull_request = { ...payload.pull_request, ...this.sim.pullJson(pr) };
    await this.probot.receive({ id: `rv-${++this.n}`, name: 'pull_request_review', payload });
  }

  /** GitHub's `status` event for a status posted on `sha`, the head of `branch`. */
  async status(branch: string, sha: string, context: string, state: string, login: string) {
    const payload = examplePayload('status');
    payload.sha = sha;
    payload.context = context;
    payload.state = state;
    payload.commit.sha = sha;
    payload.branches = [
      { ...payload.branches[0], name: branch, commit: { ...payload.branches[0].commit, sha } },
    ];
    payload.sender.login = login;
    payload.sender.type = login.endsWith('[bot]') ? 'Bot' : 'User';
    await this.probot.receive({ id: `st-${++this.n}`, name: 'status', payload });
  }

  /**
   * `workflow_run.completed` for a re-run: its next attempt, on the same head and branch; GitHub
   * keeps the run's `actor` (who first triggered it) and names who re-ran it `triggering_actor`.
   */
  async rerunCompleted(
    run: { id: number; attempt: number; branch: string; sha: string; conclusion: string },
    actor: string,
    rerunBy: string,
  ) {
    const payload = examplePayload('workflow_run', 'completed');
    payload.workflow_run.id = run.id;
    payload.workflow_run.run_attempt = run.attempt;
    payload.workflow_run.head_branch = run.branch;
    payload.workflow_run.head_sha = run.sha;
    payload.workflow_run.conclusion = run.conclusion;
    payload.workflow_run.actor = { ...payload.sender, login: actor };
    payload.workflow_run.triggering_actor = { ...payload.sender, login: rerunBy };
    payload.sender.login = rerunBy;
    await this.probot.receive({ id: `wr-${++this.n}`, name: 'workflow_run', payload });
  }

  /** `issues.labeled` (an issue) for a label `login` added. */
  async issueLabeled(issue: number, label: string, login: string) {
    const payload = examplePayload('issues', 'labeled');
    payload.label.name = label;
    payload.issue.number = issue;
    payload.sender.login = login;
    await this.probot.receive({ id: `l-${++this.n}`, name: 'issues', payload });
  }

  /**
   * A review submitted through the API, then its `pull_request_review.submitted`; `times`: the
   * same delivery handed over that many times at once, to this App and its `replicas` in turn
   * (GitHub redelivering it to another replica while the first still handles it).
   */
  async review(
    prNumber: number,
    login: string,
    state: 'approved' | 'changes_requested',
    commit?: string,
    { times = 1 }: { times?: number } = {},
  ) {
    const pr = this.sim.pull(prNumber);
    const head = commit ?? this.sim.headOf(pr);
    const id = 9000 + ++this.n;
    this.sim.reviews.push({
      id,
      pr: prNumber,
      user: login,
      state: state === 'approved' ? 'APPROVED' : 'CHANGES_REQUESTED',
      commit_id: head,
    });
    const payload = examplePayload('pull_request_review', 'submitted');
    payload.review.id = id;
    payload.review.state = state;
    payload.review.commit_id = head;
    payload.review.user.login = login;
    payload.review.user.type = 'User';
    payload.pull_request = { ...payload.pull_request, ...this.sim.pullJson(pr) };
    const delivery = { id: `rv-${this.n}`, name: 'pull_request_review' as const, payload };
    const apps = [this.probot, ...this.replicas];
    await Promise.all(
      Array.from({ length: times }, (_, i) => apps[i % apps.length]!.receive(delivery)),
    );
  }

  /** Any other delivery, built by the test from a real example payload. */
  async event(name: 'workflow_run' | 'check_run' | 'check_suite' | 'status', payload: object) {
    await this.probot.receive({ id: `ev-${++this.n}`, name, payload } as never);
  }

  async pullRequest(
    action: 'synchronize' | 'closed',
    prNumber: number,
    { login = 'Codertocat' } = {},
  ) {
    await this.probot.receive(this.pullRequestEvent(action, prNumber, { login }));
  }

  /**
   * `pull_request.edited` for a base switched from `from` (the PR already has its new base).
   * @octokit/webhooks-examples holds no `edited` example: this is the real `synchronize` one with
   * the action set to `edited`, its `before`/`after` (a push's) removed, and `changes.base` as
   * GitHub's webhook documentation gives it for a base change: `ref.from` and `sha.from`.
   */
  baseEdited(prNumber: number, from: { ref: string; sha: string }, { login = 'Codertocat' } = {}) {
    const event = this.pullRequestEvent('synchronize', prNumber, { login });
    const payload = event.payload as Record<string, unknown>;
    delete payload.before;
    delete payload.after;
    payload.action = 'edited';
    payload.changes = { base: { ref: { from: from.ref }, sha: { from: from.sha } } };
    return event;
  }

  /** A delivery built by one of the methods here (`baseEdited`, `pullRequestEvent`). */
  async probotReceive(event: Parameters<Probot['receive']>[0]) {
    await this.probot.receive(event);
  }

  /** The `pull_request` event `pullRequest` delivers, for a caller that delivers it itself. */
  pullRequestEvent(
    action: 'synchronize' | 'closed',
    prNumber: number,
    { login = 'Codertocat' } = {},
  ) {
    const payload = examplePayload('pull_request', action === 'closed' ? 'closed' : 'synchronize');
    payload.pull_request = {
      ...payload.pull_request,
      ...this.sim.pullJson(this.sim.pull(prNumber)),
    };
    payload.sender.login = login;
    // A bot's push (a workflow's `GITHUB_TOKEN`: `github-actions[bot]`) is sent as a bot's.
    payload.sender.type = login.endsWith('[bot]') ? 'Bot' : 'User';
    return { id: `pr-${++this.n}`, name: 'pull_request' as const, payload };
  }
}
