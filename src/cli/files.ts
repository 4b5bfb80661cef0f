// node:fs/promises alone: importing node:fs from an ES module builds its whole namespace, which
// loads Node's streams (some 2 ms of every call's start-up).
import {
  access,
  chmod,
  constants,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlanFiles } from '../core/index.js';
import { closest } from '../core/spelling.js';

/**
 * A file of this copy of coder-loop (`package.json`, `app.yml`): two folders up from this module,
 * as it sits in src/cli/, in lib/cli/ and in the CLI's bundle (lib/bundle/).
 */
export function packageFile(name: string): string {
  return fileURLToPath(new URL(`../../${name}`, import.meta.url));
}

/** The CLI's exit codes. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** Input the CLI refuses: it becomes exit code 1 with the message. */
export class InputError extends Error {
  override name = 'InputError';
}

/** A usage error: it becomes exit code 2 with the message and the command's usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A file that is not UTF-8: its path as shown, and the line of its first byte that is not. */
export class NotUtf8Error extends InputError {
  constructor(
    readonly shown: string,
    readonly line: number,
    /** What the file seems to be instead (`UTF-16 …`, `Latin-1 …`), when its bytes say. */
    readonly encoding?: string,
  ) {
    super(
      `${shown}:${line}: not valid UTF-8${encoding ? ` (${encoding})` : ''}; coder-loop will not rewrite it. Save the file as UTF-8.`,
    );
  }
}

/** What a file that is not UTF-8 seems to be: UTF-16 by its byte-order mark, else a one-byte code. */
function encodingOf(bytes: Uint8Array, bad: number): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return 'it is UTF-16, little-endian, with a byte-order mark';
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return 'it is UTF-16, big-endian, with a byte-order mark';
  const byte = bytes[bad]!;
  // A lone byte from 0x80 up, not starting a UTF-8 sequence: a one-byte code page's letter.
  if (byte >= 0x80 && !(bytes[bad + 1]! >= 0x80 && bytes[bad + 1]! <= 0xbf))
    return `byte 0x${byte.toString(16).toUpperCase()} stands alone, as in Latin-1 or Windows-1252`;
  return undefined;
}

/**
 * The offset of the first byte of `bytes` that is not part of a well-formed UTF-8 sequence: run
 * only on a file Node's own validator (`isUtf8`, native) has refused, to name the line.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const [length, min, max] =
      b < 0x80
        ? [1, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [2, 0x80, 0xbf]
          : b === 0xe0
            ? [3, 0xa0, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [3, 0x80, 0xbf]
                : b === 0xf0
                  ? [4, 0x90, 0xbf]
                  : b === 0xf4
                    ? [4, 0x80, 0x8f]
                    : b >= 0xf1 && b <= 0xf3
                      ? [4, 0x80, 0xbf]
                      : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      // The second byte has the narrower range (no overlong form, no surrogate, ≤ U+10FFFF).
      const [lo, hi] = k === 1 ? [min, max] : [0x80, 0xbf];
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += length;
  }
  return undefined;
}

/**
 * Reads a UTF-8 text file, refusing one that is not (NotUtf8Error, with the line of the first
 * byte that is not); `shown` is how messages name the file (default: its path).
 */
export async function readText(path: string, shown: string = path): Promise<string> {
  const bytes = await readFile(path);
  // Node's native check first: a byte-by-byte loop in JavaScript cost a first read more than
  // the plan reader did (some 0.7 ms per KiB of CJK text, run cold in every CLI call).
  const bad = isUtf8(bytes) ? undefined : firstInvalidUtf8(bytes);
  if (bad !== undefined) {
    let line = 1;
    for (let i = 0; i < bad; i++) if (bytes[i] === 0x0a) line++;
    throw new NotUtf8Error(shown, line, encodingOf(bytes, bad));
  }
  return bytes.toString('utf8');
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
async function realTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) throw error;
    return join(await realTarget(dirname(path)), relative(dirname(path), path));
  }
}

/**
 * Whether `full`, a symbolic link, leads out of `root` (to a path that need not exist). GitHub
 * never follows a link in a repository — it reads the link's own text — so nothing the CLI reads
 * or writes for it goes through a link to a file out of the repository, or out of a plan's folder.
 */
export async function linkLeaves(root: string, full: string): Promise<boolean> {
  return !inside(await realpath(root), await realTarget(full));
}

/**
 * Writes `content` to `root/file` through a temporary file and a rename: never half a file.
 * A symbolic link inside the plan directory is written through (the link stays a link); one that
 * leads out of the plan directory is refused. An existing file keeps its mode; one we may not
 * write is refused, not replaced.
 */
export async function writeInPlan(root: string, file: string, content: string): Promise<void> {
  const path = join(root, file);
  const realRoot = await realpath(root);
  const target = await realTarget(path);
  if (!inside(realRoot, target)) {
    throw new InputError(
      `${path}: a symbolic link out of the plan directory; coder-loop will not write through it.`,
    );
  }
  let mode: number | undefined;
  try {
    const found = await stat(target);
    if (!found.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR', path });
    mode = found.mode & 0o7777;
    await access(target, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await writeAtomic(target, content, mode);
}

/** Writes through a temporary file in the same folder and a rename: never half a file. */
export async function writeAtomic(path: string, content: string, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Loaded on the first write: a call that writes nothing (status, lint) does not load node:crypto.
  const { randomBytes } = await import('node:crypto');
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, 'utf8');
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

const LOCK_WAIT_MS = 30_000;
const LOCK_STALE_MS = 30_000;

/**
 * Runs `fn` holding `<path>.lock` (created exclusively), so two `coder-loop` runs that read,
 * change and write one file take turns instead of losing an edit. A run waits up to 30 s. A lock
 * older than 30 s is left by a run that died (a run holds it for milliseconds) and is taken over.
 */
export async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lock, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      // No folder for the lock: no file to protect either; the command says what is missing.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fn();
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await lstat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw new InputError(
          `${lock}: another coder-loop run holds this lock; try again, or delete the file if no run is going on.`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** Math.min(attempt, 6))));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Every file under `root` (symbolic links to files included, but not those that lead out of
 * `repoRoot`), relative to it, sorted.
 */
async function listFiles(root: string, repoRoot: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const e of entries) {
    const full = join(e.parentPath, e.name);
    const isFile =
      e.isFile() ||
      (e.isSymbolicLink() &&
        !(await linkLeaves(repoRoot, full).catch(() => true)) &&
        (await stat(full).then(
          (s) => s.isFile(),
          () => false,
        )));
    if (isFile && !e.name.endsWith('.lock')) files.push(relative(root, full).split(sep).join('/'));
  }
  return files.sort();
}

/** Every plan folder under the plans directory. */
export async function listPlans(plansDir: string): Promise<string[]> {
  try {
    const entries = await readdir(plansDir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Reads a plan folder: every path, and the content of every markdown file. A symbolic link out
 * of the repository (`repoRoot`) is not there.
 */
export async function readPlanFolder(
  plansDir: string,
  name: string,
  shownDir: string,
  repoRoot: string,
): Promise<PlanFiles> {
  const root = join(plansDir, name);
  let paths: string[];
  try {
    paths = await listFiles(root, repoRoot);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      const plans = await listPlans(plansDir);
      const near = closest(name, plans);
      const known = plans.length
        ? ` Plans here: ${plans.join(', ')}.`
        : ' There are no plans here.';
      throw new InputError(
        `${shownDir}: no such plan.${near ? ` Did you mean "${near}"?` : ''}${known}`,
      );
    }
    throw error;
  }
  const files = new Map<string, string>();
  for (const path of paths) {
    if (path.endsWith('.md'))
      files.set(path, await readText(join(root, path), `${shownDir}/${path}`));
  }
  return { name, dir: shownDir, paths, files };
}

const FS_PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ENAMETOOLONG: 'the name is too long for the file system',
  ENOENT: 'no such file or directory',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ELOOP: 'too many levels of symbolic links',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  EBUSY: 'the file is busy',
};

/** `path: problem` for a file-system error, or undefined for any other error. */
export function describeFsError(error: unknown, cwd: string): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return undefined;
  const problem = FS_PROBLEMS[e.code] ?? e.message.replace(/^[A-Z]+: /, '').split(',')[0]!;
  const path = e.path === undefined ? undefined : relative(cwd, e.path) || '.';
  const shown = path === undefined || path.startsWith('..') ? e.path : path;
  return shown === undefined ? problem : `${shown}: ${problem}`;
}
