import { Octokit } from '@octokit/core';
import { pinApiVersion } from '../../src/github/client.js';
import { recordOn, writeCheckRun, writeRecord } from '../../src/github/checks.js';
import { setPullBody } from '../../src/github/pulls.js';
import { afterScenario, beforeScenario, LOOP_APP, OWNER, REPO } from '../helpers/github.js';
import { checkedFetch, transport } from '../helpers/openapi.js';
import { SimGitHub } from '../sim/github.js';

/**
 * GitHub counts every content-creating request against an installation's secondary limit (80 a
 * minute, 500 an hour), whether it changes anything or not: a write whose content GitHub has
 * already is not sent. The in-memory GitHub answers; its `writes` are what reached it.
 */

const repo = { owner: OWNER, repo: REPO };
const identity = { login: `${LOOP_APP.slug}[bot]`, app: { id: LOOP_APP.id, slug: LOOP_APP.slug } };
const URL_ = `https://github.com/${OWNER}/${REPO}`;
const marker = { mode: 'plan' as const, plan: 'Example', phase: 1, issue: 1 };
const view = { mode: 'plan' as const, node: 'Verification' as const, title: 'V', next: 'CI runs.' };

let sim: SimGitHub;
let gh: Octokit;

beforeEach(() => {
  beforeScenario();
  sim = new SimGitHub({ 'README.md': 'hello\n' });
  transport.fetch = sim.fetch;
  gh = new (Octokit.plugin(pinApiVersion))({
    auth: 'ghs_app_installation_token',
    request: { fetch: checkedFetch },
  });
});
afterEach(() => {
  expect(sim.violations).toEqual([]);
  afterScenario();
});

it('a check run that shows what the write would set is not written again', async () => {
  const head = sim.refs.get('master')!;
  await writeCheckRun(gh, repo, head, undefined, { view, record: marker }, URL_, 'master');
  const own = await recordOn(gh, repo, head, identity);
  const before = sim.writes.length;
  await writeCheckRun(gh, repo, head, own, { view, record: marker }, URL_, 'master');
  await writeRecord(gh, repo, own!, marker, head);
  expect(sim.writes.slice(before)).toEqual([]);
  // Something else to show, or another record: written, in place.
  await writeCheckRun(
    gh,
    repo,
    head,
    own,
    { view: { ...view, next: 'CI failed.' }, record: marker },
    URL_,
    'master',
  );
  await writeRecord(gh, repo, own!, { ...marker, phase: 2 }, head);
  expect(sim.writes.slice(before)).toEqual([
    `PATCH /repos/${OWNER}/${REPO}/check-runs/${own!.id}`,
    `PATCH /repos/${OWNER}/${REPO}/check-runs/${own!.id}`,
  ]);
});

it('a PR body that is the body already is not written again', async () => {
  sim.refs.set('coder/x', sim.refs.get('master')!);
  sim.push('coder/x', { 'a.md': 'a\n' });
  const { data: pr } = await gh.request('POST /repos/{owner}/{repo}/pulls', {
    ...repo,
    head: 'coder/x',
    base: 'master',
    title: 'title',
    body: 'the body',
  });
  const before = sim.writes.length;
  await setPullBody(gh, repo, pr.number, 'the body', 'the body');
  expect(sim.writes.slice(before)).toEqual([]);
  await setPullBody(gh, repo, pr.number, 'another body', 'the body');
  expect(sim.writes.slice(before)).toEqual([`PATCH /repos/${OWNER}/${REPO}/pulls/${pr.number}`]);
});
