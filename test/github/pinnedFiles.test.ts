import fc from 'fast-check';
import { ActionOctokit } from '../../src/action/octokit.js';
import type { PullFile } from '../../src/core/index.js';
import { readWholeTree } from '../../src/github/git.js';
import { pinnedFiles, pullRequestFiles } from '../../src/github/pulls.js';
import { OWNER, REPO } from '../helpers/github.js';
import {
  checkedFetch,
  NOCK_TRANSPORT,
  requestLog,
  resetRequestLog,
  transport,
  violations,
} from '../helpers/openapi.js';
import { fixSeed, runs } from '../helpers/seed.js';
import { SimGitHub, type SimPull } from '../sim/github.js';

fixSeed(import.meta.url);

const repo = { owner: OWNER, repo: REPO };

afterEach(() => {
  transport.fetch = NOCK_TRANSPORT;
  resetRequestLog();
});

/** A repository with `master`, a branch `feature` from it, and PR #2 from `feature`. */
function repository() {
  const sim = new SimGitHub({ 'README.md': 'hi\n', 'src/old.ts': 'export const old = 1;\n' });
  transport.fetch = sim.fetch;
  sim.refs.set('feature', sim.refs.get('master')!);
  const pr: SimPull = {
    number: 2,
    title: 'Phase 1',
    body: '',
    head: 'feature',
    base: 'master',
    state: 'open',
    merged: false,
    labels: new Set(),
    requested: [],
  };
  sim.pulls.push(pr);
  const gh = new ActionOctokit({ auth: 'ghs_x', request: { fetch: checkedFetch } });
  return { sim, gh, pr };
}

const pathsOf = (files: readonly PullFile[]) => files.map((f) => f.path).sort();
const pages = (n: number, prefix = 'docs/page') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}-${i}.md`, `page ${i}\n`]));

describe('the files of the head judged, however the branch moves', () => {
  it('under 300 files: one comparison, listing what the PR files list lists at that head', async () => {
    const { sim, gh, pr } = repository();
    sim.push('feature', {
      'src/new.ts': 'export const old = 1;\n',
      'src/old.ts': null,
      'README.md': 'hello\n',
    });
    const head = sim.headOf(pr);
    const base = sim.refs.get('master')!;
    // The default branch gains a file the PR does not change.
    sim.push('master', { 'CHANGELOG.md': 'x\n' });
    const pinned = await pinnedFiles(gh, repo, 2, base, head);
    const listed = await pullRequestFiles(gh, repo, 2);
    expect(pinned).toEqual(listed);
    expect(pinned.items.find((f) => f.path === 'src/new.ts')?.previous).toBe('src/old.ts');
    expect(requestLog.filter((r) => r.path.includes('/compare/'))).toHaveLength(1);
    expect(violations).toEqual([]);
  });

  it('under 300 files: the branch moved on since: the comparison is still of the head named', async () => {
    const { sim, gh, pr } = repository();
    sim.push('feature', { 'src/a.ts': 'a\n' });
    const head = sim.headOf(pr);
    const base = sim.refs.get('master')!;
    sim.push('feature', { 'src/b.ts': 'b\n' });
    const pinned = await pinnedFiles(gh, repo, 2, base, head);
    expect(pathsOf(pinned.items)).toEqual(['src/a.ts']);
    expect(pinned.complete).toBe(true);
  });

  it('300 files or more: every path the head changes, details from the list where its blob is the head’s', async () => {
    const { sim, gh, pr } = repository();
    sim.push('feature', {
      ...pages(320),
      'src/new.ts': 'export const old = 1;\n',
      'src/old.ts': null,
      'README.md': 'hello\n',
    });
    const head = sim.headOf(pr);
    const base = sim.refs.get('master')!;
    const pinned = await pinnedFiles(gh, repo, 2, base, head);
    expect(pinned.complete).toBe(true);
    // The rename is one file, as GitHub lists it: its old path with it, not a second entry.
    expect(pathsOf(pinned.items)).toEqual(
      [...Object.keys(pages(320)), 'README.md', 'src/new.ts'].sort(),
    );
    expect(pinned.items.find((f) => f.path === 'src/new.ts')?.previous).toBe('src/old.ts');
    expect(pinned.items.every((f) => f.patch !== undefined)).toBe(true);
    expect(pinned).toEqual({ items: (await pullRequestFiles(gh, repo, 2)).items, complete: true });
  });

  it('300 files or more, the branch moved on before the list was read: the list’s other head adds nothing and hides nothing', async () => {
    const { sim, gh, pr } = repository();
    sim.push('feature', { ...pages(320), 'src/core/engine.ts': 'locked change\n' });
    const head = sim.headOf(pr);
    const base = sim.refs.get('master')!;
    // The branch is force-pushed to a head without the locked change and with a file of its own.
    sim.refs.set(
      'feature',
      sim.commit(
        { ...sim.files(head), 'src/core/engine.ts': 'x\n', 'src/late.ts': 'late\n' },
        [base],
        'other',
      ),
    );
    const pinned = await pinnedFiles(gh, repo, 2, base, head);
    expect(pinned.complete).toBe(true);
    const engine = pinned.items.find((f) => f.path === 'src/core/engine.ts');
    // Listed, though the list GitHub gave (of the other head) names another blob: no patch.
    expect(engine).toEqual({ path: 'src/core/engine.ts', additions: 0, deletions: 0 });
    expect(pinned.items.some((f) => f.path === 'src/late.ts')).toBe(false);
    expect(pinned.items).toHaveLength(321);
  });

  it('300 files or more, one deleted: listed as deleted', async () => {
    const { sim, gh, pr } = repository();
    sim.push('feature', { ...pages(310), 'src/old.ts': null });
    const head = sim.headOf(pr);
    const base = sim.refs.get('master')!;
    const pinned = await pinnedFiles(gh, repo, 2, base, head);
    expect(pinned.items.find((f) => f.path === 'src/old.ts')?.deleted).toBe(true);
    expect(pinned.items).toHaveLength(311);
    expect(violations).toEqual([]);
  });

  it('a head that shares no history with the base: every file the two trees hold differently', async () => {
    const { sim, gh, pr } = repository();
    const base = sim.refs.get('master')!;
    // The branch force-pushed to a commit of another history: the README kept, the rest other.
    sim.refs.set(
      'feature',
      sim.commit({ 'README.md': 'hi\n', 'src/core/engine.ts': 'locked\n' }, [], 'orphan'),
    );
    const pinned = await pinnedFiles(gh, repo, 2, base, sim.headOf(pr));
    expect(pinned.complete).toBe(true);
    expect(pinned.items).toEqual([
      { path: 'src/old.ts', additions: 0, deletions: 0, deleted: true },
      { path: 'src/core/engine.ts', additions: 0, deletions: 0 },
    ]);
    expect(violations).toEqual([]);
  });
});

/** A change of one commit: a path and its new content, or null to delete it. */
type Change = [string, string | null];

const PATHS = [
  'README.md',
  'src/old.ts',
  'src/a.ts',
  'src/core/engine.ts',
  'docs/x.md',
  'test/a.test.ts',
];
const change = fc.tuple(
  fc.constantFrom(...PATHS),
  fc.option(fc.constantFrom('a\n', 'b\n', 'export const old = 1;\n', 'hi\n'), { nil: null }),
);
const commitOf = fc.array(change, { minLength: 1, maxLength: 4 });

describe('the files of a head, as a property', () => {
  it('whatever the branch holds when asked: exactly the paths whose file differs between the merge base and the head, details only of the head’s blobs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          branch: fc.array(commitOf, { minLength: 1, maxLength: 4 }),
          master: fc.array(commitOf, { maxLength: 2 }),
          // The default branch merged into the branch after its own commits (the merge base moves).
          merged: fc.boolean(),
          after: fc.array(commitOf, { maxLength: 2 }),
          // Enough files that GitHub's comparison cannot list them all.
          bulk: fc.constantFrom(0, 0, 305),
          // Where the branch is when GitHub is asked: the head, back at its start, or elsewhere.
          moved: fc.constantFrom('no', 'back', 'ahead', 'other'),
        }),
        async (c) => {
          resetRequestLog();
          const { sim, gh, pr } = repository();
          const apply = (branch: string, changes: Change[]) =>
            sim.push(branch, Object.fromEntries(changes));
          const start = sim.refs.get('feature')!;
          for (const changes of c.branch) apply('feature', changes);
          if (c.bulk) sim.push('feature', pages(c.bulk));
          for (const changes of c.master) apply('master', changes);
          let mergeBase = start;
          if (c.merged && c.master.length) {
            const tip = sim.refs.get('master')!;
            const files = { ...sim.files(tip), ...sim.files('feature') };
            const merge = sim.commit(files, [sim.refs.get('feature')!, tip], 'merge');
            sim.refs.set('feature', merge);
            mergeBase = tip;
          }
          for (const changes of c.after) apply('feature', changes);
          const head = sim.headOf(pr);
          if (c.moved === 'back') sim.refs.set('feature', start);
          if (c.moved === 'ahead') apply('feature', [['src/late.ts', 'late\n']]);
          if (c.moved === 'other')
            sim.refs.set('feature', sim.commit({ 'README.md': 'other\n' }, [start], 'other'));
          const pinned = await pinnedFiles(gh, repo, 2, sim.refs.get('master')!, head);
          expect(pinned.complete).toBe(true);
          const [from, to] = [sim.files(mergeBase), sim.files(head)];
          const changed = [...new Set([...Object.keys(from), ...Object.keys(to)])]
            .filter((path) => from[path] !== to[path])
            .sort();
          const touched = pinned.items.flatMap((f) =>
            f.previous ? [f.path, f.previous] : [f.path],
          );
          expect([...new Set(touched)].sort()).toEqual(changed);
          expect(touched).toHaveLength(new Set(touched).size);
          const blobs = new Map(
            (await readWholeTree(gh, repo, head)).entries.map((e) => [e.path, e.sha]),
          );
          for (const f of pinned.items) {
            expect(f.deleted === true).toBe(to[f.path] === undefined);
            if (f.sha && !f.deleted) expect(f.sha).toBe(blobs.get(f.path));
          }
          expect(violations).toEqual([]);
        },
      ),
      runs(40),
    );
  });
});
