import { errorMessage, isHttpError, type GitHub, type Repo } from './client.js';

/**
 * Git Data API reads for one event, each made at most once: the branch head, the tree, blobs.
 * Handlers share one GitReader per event so no file is read twice.
 */
export class GitReader {
  private readonly blobs = new Map<string, Promise<string>>();
  private readonly trees = new Map<string, Promise<Tree>>();
  private readonly bases = new Map<string, Promise<Base | undefined>>();

  constructor(
    private readonly gh: GitHub,
    private readonly repo: Repo,
  ) {}

  /** The commit a branch points at, or undefined when there is no such branch. */
  async branchHead(branch: string): Promise<string | undefined> {
    try {
      const { data } = await this.gh.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
        ...this.repo,
        ref: `heads/${branch}`,
      });
      return data.object.sha;
    } catch (error) {
      if (isHttpError(error, 404)) return undefined;
      throw error;
    }
  }

  /**
   * A branch's head commit and every file of it, in one round trip instead of two: the branch
   * (its head and that commit's root tree) and the recursive tree named by the branch are read
   * at once. GitHub resolves the name when it answers, so the branch may have moved between the
   * two answers, or the name may be a tag's too: the tree is taken only when it is the head
   * commit's own (the same root tree sha), and is otherwise read again by the head's sha. Read
   * once per branch for this reader: an event judges one snapshot of the default branch.
   * Undefined when there is no such branch.
   */
  base(branch: string): Promise<Base | undefined> {
    let base = this.bases.get(branch);
    if (!base) {
      base = this.readBase(branch);
      this.bases.set(branch, base);
    }
    return base;
  }

  private async readBase(branch: string): Promise<Base | undefined> {
    const named = this.readTree(branch).catch((error: unknown) => {
      if (isHttpError(error, 404) || isHttpError(error, 422)) return undefined;
      throw error;
    });
    let head: { sha: string; tree: string };
    try {
      const { data } = await this.gh.request('GET /repos/{owner}/{repo}/branches/{branch}', {
        ...this.repo,
        branch,
      });
      head = { sha: data.commit.sha, tree: data.commit.commit.tree.sha };
    } catch (error) {
      await named.catch(() => undefined);
      if (isHttpError(error, 404)) return undefined;
      throw error;
    }
    const tree = await named;
    if (tree && tree.sha === head.tree) this.trees.set(head.sha, Promise.resolve(tree));
    const files = await this.tree(head.sha);
    return { sha: head.sha, tree: files.sha, files: files.files };
  }

  /** Every file of a commit (recursive tree), and the root tree's sha. */
  tree(commitSha: string): Promise<Tree> {
    let tree = this.trees.get(commitSha);
    if (!tree) {
      tree = this.readTree(commitSha);
      this.trees.set(commitSha, tree);
    }
    return tree;
  }

  /** The recursive tree of a commit, or of what a ref name (a branch) resolves to. */
  private async readTree(commitOrName: string): Promise<Tree> {
    const whole = await readWholeTree(this.gh, this.repo, commitOrName);
    const files = new Map<string, string>();
    for (const entry of whole.entries) if (entry.type === 'blob') files.set(entry.path, entry.sha);
    return { sha: whole.sha, files };
  }

  /** A UTF-8 text file by blob sha. */
  blob(sha: string): Promise<string> {
    let text = this.blobs.get(sha);
    if (!text) {
      text = this.gh
        .request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { ...this.repo, file_sha: sha })
        .then(({ data }) =>
          Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString(
            'utf8',
          ),
        );
      this.blobs.set(sha, text);
    }
    return text;
  }
}

/** An entry of a tree listed whole: its path from the root, mode, type and object sha. */
export interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

/** A folder holds more entries than GitHub lists in one answer: no listing of it is whole. */
export class TreeTooLargeError extends Error {
  override readonly name = 'TreeTooLargeError';
}

/**
 * Every entry of a tree (a commit's, or what a ref name resolves to), every folder's included,
 * and the root tree's sha. A recursive listing GitHub truncated (past 100,000 entries or 7 MB) is
 * not taken: as GitHub's documentation says, the tree is then listed folder by folder, each folder
 * of the root read recursively on its own, and one that is still too large split the same way.
 * Only a single folder holding more entries than one answer lists cannot be read whole
 * (TreeTooLargeError). Every read after the first names a tree by its sha: what is listed is one
 * snapshot, however the ref moves meanwhile.
 */
export async function readWholeTree(
  gh: GitHub,
  repo: Repo,
  treeish: string,
): Promise<{ sha: string; entries: TreeEntry[] }> {
  const entries: TreeEntry[] = [];
  const sha = await listInto(gh, repo, treeish, '', entries);
  return { sha, entries };
}

async function listInto(
  gh: GitHub,
  repo: Repo,
  treeish: string,
  prefix: string,
  into: TreeEntry[],
): Promise<string> {
  const recursive = await listTree(gh, repo, treeish, true);
  if (!recursive.truncated) {
    for (const entry of recursive.entries) into.push({ ...entry, path: prefix + entry.path });
    return recursive.sha;
  }
  const top = await listTree(gh, repo, recursive.sha, false);
  if (top.truncated) {
    throw new TreeTooLargeError(
      `The folder ${prefix === '' ? 'at the repository root' : prefix} holds more entries than GitHub lists in one answer; coder-loop cannot list the repository's files whole.`,
    );
  }
  for (const entry of top.entries) {
    const path = prefix + entry.path;
    into.push({ ...entry, path });
    if (entry.type === 'tree') await listInto(gh, repo, entry.sha, `${path}/`, into);
  }
  return recursive.sha;
}

async function listTree(
  gh: GitHub,
  repo: Repo,
  treeish: string,
  recursive: boolean,
): Promise<{ sha: string; truncated: boolean; entries: TreeEntry[] }> {
  const { data } = await gh.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
    ...repo,
    tree_sha: treeish,
    ...(recursive ? { recursive: '1' } : {}),
  });
  const entries: TreeEntry[] = [];
  for (const e of data.tree) {
    if (e.path === undefined || e.sha === undefined || e.mode === undefined) continue;
    if (e.type !== 'blob' && e.type !== 'tree' && e.type !== 'commit') continue;
    entries.push({ path: e.path, mode: e.mode, type: e.type, sha: e.sha });
  }
  return { sha: data.sha, truncated: data.truncated, entries };
}

export interface Tree {
  sha: string;
  /** path → blob sha */
  files: Map<string, string>;
}

/** A branch's head commit (`sha`), its root tree (`tree.sha`) and every file of it. */
export interface Base {
  sha: string;
  /** The head commit's root tree. */
  tree: string;
  files: Map<string, string>;
}

/** A file mode in a tree: a file, an executable, a symbolic link. */
export type BlobMode = '100644' | '100755' | '120000';

/** A tree entry to write: text inline, or a blob already created (`sha`), or `sha: null` to delete. */
export type NewFile =
  | { path: string; content: string; mode?: BlobMode }
  | { path: string; sha: string | null; mode?: BlobMode };

/** A blob of any bytes (binary included); its sha, for a tree entry. */
export async function createBlob(gh: GitHub, repo: Repo, bytes: Buffer): Promise<string> {
  const { data } = await gh.request('POST /repos/{owner}/{repo}/git/blobs', {
    ...repo,
    content: bytes.toString('base64'),
    encoding: 'base64',
  });
  return data.sha;
}

/** One commit holding `files` on top of `parent` (tree with base_tree, then commit). */
export async function createCommit(
  gh: GitHub,
  repo: Repo,
  parent: { sha: string; tree: string },
  files: readonly NewFile[],
  message: string,
): Promise<string> {
  let tree = parent.tree;
  if (files.length > 0) {
    const { data } = await gh.request('POST /repos/{owner}/{repo}/git/trees', {
      ...repo,
      base_tree: parent.tree,
      tree: files.map((f) => ({
        path: f.path,
        mode: f.mode ?? ('100644' as const),
        type: 'blob' as const,
        ...('content' in f ? { content: f.content } : { sha: f.sha }),
      })),
    });
    tree = data.sha;
  }
  const { data } = await gh.request('POST /repos/{owner}/{repo}/git/commits', {
    ...repo,
    message,
    tree,
    parents: [parent.sha],
  });
  return data.sha;
}

export type LockResult = { acquired: true } | { acquired: false; sha: string };

/**
 * LockCheck: the lock branch is created with ONE atomic ref creation, pointing straight at the
 * start commit. "Reference already exists" means another command holds the lock — unless the ref
 * points at our own commit (a create that succeeded before a retried request). Any other 422 is
 * checked by reading the ref.
 */
export async function createLockRef(
  gh: GitHub,
  repo: Repo,
  branch: string,
  sha: string,
): Promise<LockResult> {
  try {
    await gh.request('POST /repos/{owner}/{repo}/git/refs', {
      ...repo,
      ref: `refs/heads/${branch}`,
      sha,
    });
    return { acquired: true };
  } catch (error) {
    if (!isHttpError(error, 422)) throw error;
    const current = await new GitReader(gh, repo).branchHead(branch);
    if (current === undefined) {
      throw new Error(`Could not create branch ${branch}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return current === sha ? { acquired: true } : { acquired: false, sha: current };
  }
}

/**
 * Moves a branch to `sha` compare-and-swap (`force: false`): GitHub refuses (422) unless `sha`
 * descends from the branch head. Returns false when refused, so the caller can re-apply on the
 * new head.
 */
export async function advanceBranch(
  gh: GitHub,
  repo: Repo,
  branch: string,
  sha: string,
): Promise<boolean> {
  try {
    await gh.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
      ...repo,
      ref: `heads/${branch}`,
      sha,
      force: false,
    });
    return true;
  } catch (error) {
    if (isHttpError(error, 422)) return false;
    throw error;
  }
}

/** Deletes a branch; one already gone (a retried request) is no error. */
export async function deleteBranch(gh: GitHub, repo: Repo, branch: string): Promise<void> {
  try {
    await gh.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', {
      ...repo,
      ref: `heads/${branch}`,
    });
  } catch (error) {
    if (!isHttpError(error, 422) && !isHttpError(error, 404)) throw error;
  }
}

/** A commit's message, parents and tree. */
export async function readCommit(
  gh: GitHub,
  repo: Repo,
  sha: string,
): Promise<{ message: string; parents: string[]; tree: string }> {
  const { data } = await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', {
    ...repo,
    commit_sha: sha,
  });
  return { message: data.message, parents: data.parents.map((p) => p.sha), tree: data.tree.sha };
}

/** A commit's message (the loop's start commits carry its marker). */
export async function commitMessage(gh: GitHub, repo: Repo, sha: string): Promise<string> {
  return (await readCommit(gh, repo, sha)).message;
}

/** The branches whose names start with `prefix`, with their head commits. */
export async function branchesWithPrefix(
  gh: GitHub,
  repo: Repo,
  prefix: string,
): Promise<{ branch: string; sha: string }[]> {
  const { data } = await gh.request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', {
    ...repo,
    ref: `heads/${prefix}`,
  });
  return data.map((r) => ({ branch: r.ref.replace(/^refs\/heads\//, ''), sha: r.object.sha }));
}
