import { readFile } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, relative, resolve } from 'node:path';
import { CLI_NAME } from '../core/index.js';

/**
 * How the user ran this CLI, as the commands it prints name it (`Usage:`, "Next: … run: …",
 * doctor's fixes, a problem's fix): coder-loop is not published on npm, so `coder-loop …` runs
 * only where it is installed, and each form below is one that runs again as printed, from the
 * same folder:
 *
 * - `npx <spec>`: npx installed it in its cache (`<cache>/_npx/<hash>/node_modules/.bin/…`) from
 *   the spec the user typed (`github:my-org/coder-loop`, a tarball, a folder), which npx keeps in
 *   that folder's package.json (`_npx.packages`, npm's libnpmexec);
 * - `npx coder-loop`: installed in the project the current folder is in (`npm install <tgz>`);
 * - `coder-loop`: found on PATH (`npm install -g`);
 * - `node <script>`: run by its path (`node lib/bundle/coder-loop.js` in a clone of coder-loop).
 */
export interface Launch {
  /** The script Node was started with, as given (`process.argv[1]`: a bin's link, not its target). */
  script: string | undefined;
  /** The folder the user ran it in. */
  cwd: string;
  /** The PATH it was run with. */
  path: string | undefined;
}

/**
 * A word as a POSIX shell takes it back: bare when plain (unless `quote`, as a plan's name is
 * printed), in double quotes, or in single quotes when double ones would expand something.
 */
export function shellWord(word: string, quote = false): string {
  if (!quote && /^[\w@%+=:,./-][\w@%+=:,./#-]*$/.test(word)) return word;
  return /["$`\\!]/.test(word) ? `'${word.replaceAll("'", `'\\''`)}'` : `"${word}"`;
}

/** The spec npx installed its cache folder from, when it is one package's (`_npx.packages`). */
async function npxSpec(installDir: string): Promise<string | undefined> {
  try {
    const text = await readFile(resolve(installDir, 'package.json'), 'utf8');
    const packages = (JSON.parse(text) as { _npx?: { packages?: unknown } })._npx?.packages;
    return Array.isArray(packages) && packages.length === 1 && typeof packages[0] === 'string'
      ? packages[0]
      : undefined;
  } catch {
    return undefined;
  }
}

const within = (folder: string, path: string) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The command prefix that runs this CLI again as the user ran it (see Launch). */
export async function invokedAs(launch: Launch): Promise<string> {
  const script = launch.script && resolve(launch.cwd, launch.script);
  if (!script) return CLI_NAME;
  const bin = dirname(script);
  const name = basename(script).replace(/\.(cmd|ps1|exe)$/i, '');
  if (name === CLI_NAME && basename(bin) === '.bin' && basename(dirname(bin)) === 'node_modules') {
    const project = dirname(dirname(bin));
    if (basename(dirname(project)) === '_npx') {
      const spec = await npxSpec(project);
      if (spec) return `npx ${shellWord(spec)}`;
    } else if (within(project, launch.cwd)) return `npx ${CLI_NAME}`;
  }
  const onPath = (launch.path ?? '').split(delimiter).some((dir) => dir && resolve(dir) === bin);
  if (name === CLI_NAME && onPath) return CLI_NAME;
  const rel = relative(launch.cwd, script);
  const shown = isAbsolute(rel) || rel.length > script.length ? script : rel;
  return `node ${shellWord(shown.split('\\').join('/'))}`;
}

/** `Usage: …`: a command's forms (each written without the CLI's name), as the user runs them. */
export function usageText(usage: string, cli: string): string {
  return usage
    .split('\n')
    .map((form, i) => `${i === 0 ? 'Usage: ' : '       '}${cli} ${form.trim()}`)
    .join('\n');
}
