import { Octokit } from '@octokit/core';
import { pinApiVersion } from '../../src/github/client.js';
import { GitReader, readWholeTree, TreeTooLargeError } from '../../src/github/git.js';
import { afterScenario, beforeScenario, OWNER, REPO } from '../helpers/github.js';
import { checkedFetch, transport } from '../helpers/openapi.js';
import { SimGitHub } from '../sim/github.js';

/**
 * A repository too large for one recursive listing (GitHub cuts one past 100,000 entries or 7 MB
 * and says `truncated`) is listed whole all the same, folder by folder, as GitHub's documentation
 * says to; only a single folder holding more than one answer lists cannot be. GitHub is the
 * in-memory model, its listing limit set low, every request checked against the OpenAPI
 * description.
 */

const REPO_FILES: Record<string, string> = {
  'README.md': 'hello\n',
  'docs/plans/Example/01_Master Plan/01_Checklist.md': '## Phase 1: Setup\n\n- [ ] 1.1 Do it\n',
  'docs/plans/Example/01_Master Plan/Master Log.md': '# Log\n',
  'docs/guide.md': 'guide\n',
  'src/a/one.ts': '1\n',
  'src/a/two.ts': '2\n',
  'src/b/three.ts': '3\n',
  'src/b/deep/four.ts': '4\n',
  'tools/run.sh': '#!/bin/sh\n',
};

let sim: SimGitHub;
let asked: string[];

beforeEach(() => {
  beforeScenario();
  sim = new SimGitHub(REPO_FILES);
  asked = [];
  transport.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : (input as Request).url);
    asked.push(`${decodeURIComponent(url.pathname)}${url.search}`);
    return sim.fetch(input, init);
  };
});
afterEach(afterScenario);

const octokit = () =>
  new (Octokit.plugin(pinApiVersion))({
    auth: 'ghs_app_installation_token',
    request: { fetch: checkedFetch },
  });
const repo = { owner: OWNER, repo: REPO };
const R = `/repos/${OWNER}/${REPO}`;

it('one recursive listing when it is whole: one request, every file and folder', async () => {
  const whole = await readWholeTree(octokit(), repo, 'master');
  expect(whole.entries.filter((e) => e.type === 'blob').map((e) => e.path)).toEqual(
    Object.keys(REPO_FILES).sort(),
  );
  expect(whole.entries.filter((e) => e.type === 'tree').map((e) => e.path)).toContain('src/b/deep');
  expect(asked).toEqual([`${R}/git/trees/master?recursive=1`]);
});

it('a listing cut short is not taken: each folder is read on its own, to every file', async () => {
  // Each of these limits cuts the root's listing (18 entries: 9 files, 9 folders); the lower ones
  // cut folders too (docs/: 6 entries), down to the root's own 4.
  for (const limit of [17, 8, 5, 4]) {
    sim.treeListLimit = limit;
    asked = [];
    const files = await new GitReader(octokit(), repo).tree('master');
    expect({ limit, files: [...files.files.keys()].sort() }).toEqual({
      limit,
      files: Object.keys(REPO_FILES).sort(),
    });
    expect(files.sha).toBe(sim.commits.get(sim.refs.get('master')!)!.tree);
    // Past the first request, every tree is named by its sha: one snapshot however the ref moves.
    expect(asked[0]).toBe(`${R}/git/trees/master?recursive=1`);
    for (const request of asked.slice(1))
      expect(request).toMatch(new RegExp(`^${R}/git/trees/[0-9a-f]{40}(\\?recursive=1)?$`));
  }
});

it('a push between the reads changes nothing listed: the snapshot is the first answer’s', async () => {
  sim.treeListLimit = 8;
  const before = sim.refs.get('master')!;
  const gh = octokit();
  let pushed = false;
  transport.fetch = (input, init) => {
    // After the first (cut) answer, a push adds a file and moves the branch.
    if (!pushed && asked.length === 1) {
      pushed = true;
      sim.push('master', { 'src/a/late.ts': 'late\n' });
    }
    const url = new URL(typeof input === 'string' ? input : (input as Request).url);
    asked.push(`${decodeURIComponent(url.pathname)}${url.search}`);
    return sim.fetch(input, init);
  };
  const whole = await readWholeTree(gh, repo, 'master');
  expect(pushed).toBe(true);
  expect(sim.refs.get('master')).not.toBe(before);
  expect(whole.entries.map((e) => e.path)).not.toContain('src/a/late.ts');
  expect(whole.sha).toBe(sim.commits.get(before)!.tree);
});

it('a single folder holding more than one listing: an error that says so, and nothing else', async () => {
  sim.treeListLimit = 3;
  const read = readWholeTree(octokit(), repo, 'master');
  await expect(read).rejects.toThrow(TreeTooLargeError);
  await expect(read).rejects.toThrow(
    'The folder at the repository root holds more entries than GitHub lists in one answer',
  );
});
