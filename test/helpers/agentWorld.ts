import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SimGitHub } from '../sim/github.js';
import { gitIn } from './bundle.js';
import { CHECKLIST } from './plans.js';

/**
 * The world an agent job starts in, after `/coder next`: the in-memory GitHub holding `files` on
 * master, phase 1 started (`[~]`) on `branch` as the loop's start commit, the loop PR #2 open,
 * and a git checkout of that commit under `work` (the job's `actions/checkout`), whose sha the
 * in-memory GitHub takes for the start commit.
 */
export async function phaseStartedWorld(
  files: Record<string, string>,
  work: string,
  branch: string,
): Promise<{ sim: SimGitHub; checkout: string; head: string }> {
  const sim = new SimGitHub(files);
  const started = { ...files, [CHECKLIST]: files[CHECKLIST]!.replace(/\[ \] (1\.)/g, '[~] $1') };
  const start = sim.commit(started, [sim.refs.get('master')!], 'coder-loop: start phase 1');
  const checkout = join(work, 'checkout');
  for (const [path, text] of Object.entries(started)) {
    await mkdir(dirname(join(checkout, path)), { recursive: true });
    await writeFile(join(checkout, path), text);
  }
  const git = (...args: string[]) => gitIn(checkout, work, ...args);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'coder-loop: start phase 1');
  const head = git('rev-parse', 'HEAD');
  sim.refs.set(branch, start);
  sim.rekey(start, head);
  sim.pulls.push({
    number: 2,
    title: 'Phase 1',
    body: '',
    head: branch,
    base: 'master',
    state: 'open',
    merged: false,
    labels: new Set(),
    requested: [],
  });
  return { sim, checkout, head };
}
