import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import process from 'node:process';

/**
 * Jest's global set-up: the folder the suites make their scratch repositories in (`tmpdir()`) is
 * one outside every git working copy.
 *
 * The CLI finds a repository's root as git does, from the current folder up to the nearest folder
 * holding `.git`; a suite's scratch repository is a folder under `tmpdir()`, and the suites expect
 * it to be the root. Where `tmpdir()` is itself inside a working copy (a machine whose /tmp is a
 * git repository, or TMPDIR set to a folder of one), the CLI would take that working copy's root
 * instead, and every path it prints would be off by the folders between. So, when it is, TMPDIR
 * is set to the first of the usual scratch folders that is outside one, before Jest starts its
 * workers, which take it (with every process a suite starts that passes the environment on).
 * Where there is none, the run stops here, with what to do, rather than in a hundred suites.
 */
export default function scratchOutsideWorkingCopies() {
  const current = tmpdir();
  if (workingCopyAbove(current) === undefined) return;
  const candidates = [process.env.CODER_LOOP_TEST_TMPDIR, '/tmp', '/var/tmp', '/dev/shm'].filter(
    (dir) => dir !== undefined && dir !== '',
  );
  const usable = candidates.find(
    (dir) => existsSync(dir) && writable(dir) && workingCopyAbove(dir) === undefined,
  );
  if (usable === undefined) {
    throw new Error(
      `The tests make scratch repositories under ${current}, which is inside the git working copy at ${workingCopyAbove(current)}, and so are ${candidates.join(', ')}: the CLI would take that working copy as their root. Set CODER_LOOP_TEST_TMPDIR (or TMPDIR) to a writable folder outside any git working copy.`,
    );
  }
  process.env.TMPDIR = usable;
}

/** The nearest folder, `dir` or above (symbolic links resolved), that holds `.git`. */
function workingCopyAbove(dir) {
  let at;
  try {
    at = realpathSync(dir);
  } catch {
    return undefined;
  }
  for (;;) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
    at = dirname(at);
  }
}

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
