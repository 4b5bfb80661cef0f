import { Octokit } from '@octokit/core';
import { pinApiVersion } from '../../src/github/client.js';
import { GitReader } from '../../src/github/git.js';
import { afterScenario, beforeScenario, OWNER, REPO } from '../helpers/github.js';
import { checkedFetch, transport } from '../helpers/openapi.js';
import { SimGitHub } from '../sim/github.js';

/**
 * `GitReader.base`: a branch's head and every file of it in one round trip — the branch and the
 * tree named by the branch asked together — and the tree taken only when it is the head's own.
 * GitHub is the in-memory model behind a gate: each request waits until the test answers it, so
 * what went out together, and in which state of the repository each was answered, is the test's.
 */

interface Held {
  request: string;
  answer: () => void;
}

let sim: SimGitHub;
let held: Held[];
let asked: string[];

beforeEach(() => {
  beforeScenario();
  sim = new SimGitHub({ 'README.md': 'hello\n', 'docs/a.md': 'a\n' });
  held = [];
  asked = [];
  transport.fetch = (input, init) =>
    new Promise((resolve, reject) => {
      const url = new URL(typeof input === 'string' ? input : (input as Request).url);
      const request = `${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname)}`;
      asked.push(request);
      held.push({ request, answer: () => void sim.fetch(input, init).then(resolve, reject) });
    });
});
afterEach(afterScenario);

function reader(): GitReader {
  const gh = new (Octokit.plugin(pinApiVersion))({
    auth: 'ghs_app_installation_token',
    request: { fetch: checkedFetch },
  });
  return new GitReader(gh, { owner: OWNER, repo: REPO });
}

/** Turns of the event loop until `n` requests wait for an answer (no clock involved). */
async function waiting(n: number): Promise<string[]> {
  for (let turn = 0; turn < 10_000 && held.length < n; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  return held.map((h) => h.request).sort();
}

/** Answers the waiting request `request` (as it stands in the repository now). */
function answer(request: string): void {
  const at = held.findIndex((h) => h.request === request);
  if (at === -1) throw new Error(`${request} is not waiting: ${held.map((h) => h.request)}`);
  held.splice(at, 1)[0]!.answer();
}

const R = `/repos/${OWNER}/${REPO}`;
const BRANCH = `GET ${R}/branches/master`;
const NAMED_TREE = `GET ${R}/git/trees/master`;

it('asks for the branch and its tree together: one round trip, two requests', async () => {
  const read = reader().base('master');
  expect(await waiting(2)).toEqual([BRANCH, NAMED_TREE]);
  answer(BRANCH);
  answer(NAMED_TREE);
  const base = await read;
  const head = sim.refs.get('master')!;
  expect(base).toEqual({
    sha: head,
    tree: sim.commits.get(head)!.tree,
    files: new Map(
      Object.entries(sim.files('master')).map(([path]) => [
        path,
        expect.stringMatching(/^[0-9a-f]{40}$/),
      ]),
    ),
  });
  expect([...base!.files.keys()].sort()).toEqual(['README.md', 'docs/a.md']);
  expect(asked).toHaveLength(2);
});

it('the branch moved between the two answers: the tree is read again, by the head it names', async () => {
  const read = reader().base('master');
  await waiting(2);
  // The tree answers for the old head; a push lands; the branch answers with the new head.
  answer(NAMED_TREE);
  const pushed = sim.push('master', { 'docs/b.md': 'b\n' });
  answer(BRANCH);
  expect(await waiting(1)).toEqual([`GET ${R}/git/trees/${pushed}`]);
  answer(`GET ${R}/git/trees/${pushed}`);
  const base = await read;
  expect(base!.sha).toBe(pushed);
  expect(base!.tree).toBe(sim.commits.get(pushed)!.tree);
  expect([...base!.files.keys()].sort()).toEqual(['README.md', 'docs/a.md', 'docs/b.md']);
});

it('no such branch: undefined, and nothing read again', async () => {
  const read = reader().base('nope');
  await waiting(2);
  answer(`GET ${R}/branches/nope`);
  answer(`GET ${R}/git/trees/nope`);
  expect(await read).toBeUndefined();
  expect(asked).toHaveLength(2);
});

it('read once per reader: a second ask is answered from the first', async () => {
  const git = reader();
  const first = git.base('master');
  await waiting(2);
  answer(BRANCH);
  answer(NAMED_TREE);
  expect(await git.base('master')).toBe(await first);
  expect(asked).toHaveLength(2);
});
