import { afterScenario, beforeScenario, testProbot } from '../helpers/github.js';
import { examplePayload } from '../helpers/payloads.js';
import { CHECKLIST } from '../helpers/plans.js';
import { BRANCH, started, world } from '../helpers/world.js';

/**
 * The one error boundary (`dispatch`): an event whose handling fails says so once, on the thread
 * its payload names — a command's issue, the labelled issue, a loop PR's orchestrator issue — and
 * the error still reaches the adapter.
 */
beforeEach(beforeScenario);
afterEach(afterScenario);

/** GitHub answering 503 more often than Octokit retries. */
const OUTAGE = 4;

it('a /coder command that fails says so once on its issue', async () => {
  const { sim, deliver } = await world();
  sim.outages.set('POST /git/refs', OUTAGE);
  await expect(deliver.comment('/coder next', { issue: 3 })).rejects.toThrow();
  const notes = sim.comments.filter((c) => c.body.includes('could not finish'));
  expect(notes.map((c) => [c.issue, c.body.split(':')[0]])).toEqual([
    [3, '`/coder next` could not finish'],
  ]);
});

it('the quick label whose start fails says so once on the labelled issue', async () => {
  const { sim } = await world();
  sim.outages.set('POST /git/refs', OUTAGE);
  const payload = examplePayload('issues', 'labeled');
  payload.label.name = 'coder:quick';
  payload.issue.number = 5;
  payload.sender.login = 'Codertocat';
  payload.sender.type = 'User';
  delete (payload.issue as { pull_request?: unknown }).pull_request;
  // GitHub's issue 5 as the label left it: open, labelled.
  sim.issueTexts.set(5, { title: payload.issue.title, body: payload.issue.body ?? '' });
  sim.issueLabels.set(5, new Set(['coder:quick']));
  const probot = await testProbot();
  await expect(probot.receive({ id: 'label-1', name: 'issues', payload })).rejects.toThrow();
  const notes = sim.comments.filter((c) => c.body.includes('could not finish'));
  expect(notes.map((c) => [c.issue, c.body.split(':')[0]])).toEqual([
    [5, 'Quick mode for the `coder'],
  ]);
});

it("a loop PR's event whose sender cannot be checked writes nothing: who acts comes first", async () => {
  const { sim, deliver, pr } = await started();
  const before = sim.comments.length;
  sim.push(BRANCH, { 'src/more.ts': 'more\n' });
  sim.outages.set('GET /collaborators/Codertocat/permission', OUTAGE);
  await expect(deliver.pullRequest('synchronize', pr.number)).rejects.toThrow();
  expect(sim.comments.slice(before)).toEqual([]);
});

it("a loop PR's event that fails after who acts is known says so once: on the PR until the loop's record names the issue, then on the issue", async () => {
  const { sim, deliver, pr } = await started();
  const before = sim.comments.length;
  const head = sim.push(BRANCH, { 'src/more.ts': 'more\n' });
  // The record is read from the loop's check runs: the PR's own thread is the one known then.
  sim.outages.set(`GET /commits/${head}/check-runs`, OUTAGE);
  await expect(deliver.pullRequest('synchronize', pr.number)).rejects.toThrow();
  sim.outages.clear();
  // Once the record is read, the orchestrator's issue.
  sim.outages.set(`POST /check-runs`, OUTAGE);
  await expect(deliver.pullRequest('synchronize', pr.number)).rejects.toThrow();
  const notes = sim.comments.slice(before);
  expect(notes.map((c) => [c.issue, c.body.split(':')[0]])).toEqual([
    [
      pr.number,
      `The loop could not finish handling pull_request.synchronize on pull request #${pr.number}`,
    ],
    [
      1,
      `The loop could not finish handling pull_request.synchronize on pull request #${pr.number}`,
    ],
  ]);
});

it("a repository with a folder too large for one tree listing: the review's failure is said once, in one sentence, and nothing is half-written", async () => {
  const { sim, deliver, pr } = await started();
  await deliver.ci(BRANCH, 'success');
  const head = sim.headOf(pr);
  const before = sim.comments.length;
  // The root folder of the head lists more entries than one of GitHub's answers holds.
  sim.treeListLimit = 2;
  await expect(deliver.review(pr.number, 'reviewer1', 'approved')).rejects.toThrow(
    'holds more entries than GitHub lists in one answer',
  );
  expect(sim.headOf(pr)).toBe(head);
  expect(sim.comments.slice(before).map((c) => [c.issue, c.body])).toEqual([
    [
      1,
      "The loop could not finish handling @reviewer1's review on pull request #2: The folder at the repository root holds more entries than GitHub lists in one answer; coder\\-loop cannot list the repository's files whole. Nothing was left half-done; `/coder retry` evaluates the pull request again.",
    ],
  ]);
  // Nothing was half-done: once the tree lists whole, the same review completes the phase.
  sim.treeListLimit = Infinity;
  await deliver.review(pr.number, 'reviewer1', 'approved');
  expect(sim.commits.get(sim.headOf(pr))!.parents).toEqual([head]);
  expect(sim.files(sim.headOf(pr))[CHECKLIST]).toContain('- [x] 1.1 Test');
});
