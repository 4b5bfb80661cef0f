/**
 * The evidence Passes Spec? traces a task to (`passesSpec.ts`): what a task's text names (paths,
 * cited requirement ids), what the changed tests and the commits name (ids), what the pull
 * request changes (paths, and which of them are documentation and configuration); and the
 * verdict's shape, per task.
 */

import { LOCALIZED_FORMS } from '../../plan/requirementWords.js';

/** A file of the pull request: its path (and old path), and the patch GitHub lists, if any. */
export interface SpecFile {
  path: string;
  previous?: string;
  /** The unified diff of the file; absent for binary files and diffs GitHub does not show. */
  patch?: string;
  /** The file was deleted by the PR. */
  deleted?: boolean;
}

export type TaskStatus = 'evidence' | 'missing' | 'unchecked' | 'done' | 'optional';

export interface TaskEvidence {
  id: string;
  text: string;
  status: TaskStatus;
  /** What the plan makes checkable: the paths the task names, the ids a test may name. */
  named: { paths: string[]; ids: string[]; cited: string[] };
  /** Named paths the PR changes (the changed file's path). */
  paths: string[];
  /** Changed tests naming the task's id or a requirement it cites. */
  tests: { path: string; id: string }[];
  /** The one line a reviewer reads. */
  line: string;
}

export interface SpecVerdict {
  passed: boolean;
  tasks: TaskEvidence[];
  /** The phase rule: code outside documentation and configuration needs a changed test. */
  testRule: { applies: boolean; passed: boolean; line: string };
  /** One line per task lacking evidence (and the test rule, when it fails). */
  missing: string[];
}

// ------------------------------------------------------------------ what a task names

/** Known file extensions are not required: a word with `/` and `.ext`, or any code span path. */
const BARE_PATH =
  /(?:^|[\s(])((?:\.{0,2}\/)?(?:[\w@.-]+\/)+[\w@.-]*\.[A-Za-z0-9]{1,10})(?=$|[\s),;:])/g;
const CODE_SPAN = /`([^`\n]+)`/g;
const PATHLIKE = /^(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\/?$/;

function cleanPath(raw: string): string | undefined {
  const p = raw
    .replace(/^\.\//, '')
    .replace(/^\/+/, '')
    .replace(/[.,;:]+$/, '');
  if (!p || p.startsWith('../') || p.includes('/../')) return undefined;
  return p;
}

/** The repository paths a task's text names: code spans that read as a path, and `dir/file.ext`. */
export function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(CODE_SPAN)) {
    const span = m[1]!.trim();
    if (!PATHLIKE.test(span)) continue;
    // `file.ext`, `dir/file.ext` or `dir/`: a bare word (`main`) is not a path.
    if (!/\.[A-Za-z0-9]{1,10}$/.test(span) && !span.includes('/')) continue;
    if (/^\d+(\.\d+)*$/.test(span)) continue; // a version or an id
    const p = cleanPath(span);
    if (p) found.add(p);
  }
  const outside = text.replace(CODE_SPAN, ' ');
  for (const m of outside.matchAll(BARE_PATH)) {
    const p = cleanPath(m[1]!);
    if (p && !/^https?:/.test(p) && !p.includes('//')) found.add(p);
  }
  return [...found];
}

/** Ids a test can name: a user story's `[US1]`, `FR-003`, `SC-2`, `REQ-4`, `AC-1.2`, `NFR-1`. */
const CITED = /\b((?:US|FR|NFR|SC|REQ|AC|R)-?\d+(?:\.\d+)*)\b/g;

/** The ids a task cites in its text (beside those the plan lists for it). */
export function citedIds(text: string): string[] {
  return [...new Set([...text.matchAll(CITED)].map((m) => m[1]!.toUpperCase()))];
}

// ------------------------------------------------------------------ what the tests say

const NUMERIC = /^\d+(?:\.\d+)*$/;
// A word that says the numbers on its line are ids: English's, or another language's word for
// requirements (`// Требования: 2.3`, `// 要件 1.2`), in any case.
const KEYWORD = new RegExp(
  String.raw`\b(?:tasks?|requirements?|validates|req|criteri(?:on|a)|acceptance)\b|${LOCALIZED_FORMS}`,
  'iu',
);
const DISTINCT = /\b[A-Za-z]{1,6}-?\d+(?:\.\d+)*\b/g;
const NUMBER = /(?<![\w.])\d+(?:\.\d+)*(?![\w]|\.\d)/g;

/** The lines of a patch the head holds (added and context), or the whole text when no patch. */
function headLines(file: SpecFile): string[] {
  if (file.patch === undefined) return [];
  const lines: string[] = [];
  for (const line of file.patch.split('\n')) {
    if (line.startsWith('@@') || line.startsWith('-') || line.startsWith('\\')) continue;
    lines.push(line.startsWith('+') || line.startsWith(' ') ? line.slice(1) : line);
  }
  return lines;
}

/**
 * Every id some lines name → the keys (test paths, commit shas) of the lines naming it. With
 * `tasks` (the phase's task ids, as `idKey` has them): a line that names three or more of them, or
 * every one of a phase of two or more, is a list, not evidence — it stands for none of those tasks
 * (its other ids still count). A test named for two tasks of a larger phase counts for both.
 */
export function idsIn(
  sources: readonly { key: string; lines: readonly string[] }[],
  tasks?: ReadonlySet<string>,
): Map<string, string[]> {
  const named = new Map<string, string[]>();
  const add = (id: string, key: string) => {
    const list = named.get(id);
    if (!list) named.set(id, [key]);
    else if (list.at(-1) !== key) list.push(key);
  };
  for (const { key, lines } of sources) {
    for (const line of lines) {
      const ids = new Set<string>();
      for (const m of line.matchAll(DISTINCT)) ids.add(m[0].toUpperCase());
      if (KEYWORD.test(line)) for (const m of line.matchAll(NUMBER)) ids.add(m[0]);
      const listed = tasks ? [...ids].filter((id) => tasks.has(id)).length : 0;
      const isList = listed >= 3 || (listed >= 2 && listed === tasks!.size);
      for (const id of ids) if (!isList || !tasks!.has(id)) add(id, key);
    }
  }
  return named;
}

/**
 * Every id the changed tests name → the tests naming it (one pass over the patches); a line that
 * lists the phase's `tasks` (see `idsIn`) names none of them.
 */
export function idsInTests(
  tests: readonly SpecFile[],
  tasks?: ReadonlySet<string>,
): Map<string, string[]> {
  return idsIn(
    tests.map((f) => ({ key: f.path, lines: headLines(f) })),
    tasks,
  );
}

/** The key an id is looked up by: numbers as written, other ids in capitals. */
export const idKey = (id: string) => (NUMERIC.test(id) ? id : id.toUpperCase());
// ------------------------------------------------------------------ what the PR changes

const DOC_OR_CONFIG_EXT =
  /\.(md|mdx|markdown|txt|rst|adoc|json|jsonc|json5|ya?ml|toml|ini|cfg|conf|lock|csv|svg|png|jpe?g|gif|webp|ico|mmd)$/i;
const DOC_OR_CONFIG_NAME =
  /^(license|licence|readme|changelog|contributing|notice|authors|codeowners|makefile|dockerfile|\.[^/]*)(\.[^/]*)?$/i;

/** Documentation and configuration: what a phase may change without a test. */
export function isDocOrConfig(path: string, plansDir = 'docs/plans'): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    path.startsWith('docs/') ||
    path.startsWith('.github/') ||
    path.startsWith(`${plansDir.replace(/\/+$/, '')}/`) ||
    DOC_OR_CONFIG_EXT.test(name) ||
    DOC_OR_CONFIG_NAME.test(name)
  );
}

/** The changed paths, indexed so each named path is looked up, not scanned for. */
export class ChangedIndex {
  private readonly byName = new Map<string, string[]>();
  private readonly dirs = new Map<string, string>();
  constructor(paths: readonly string[]) {
    for (const p of paths) {
      const name = p.slice(p.lastIndexOf('/') + 1);
      const list = this.byName.get(name);
      if (list) list.push(p);
      else this.byName.set(name, [p]);
      // Every run of directories a path sits in (`a/b/`, `b/`): a named folder matches by lookup.
      const segments = p.split('/').slice(0, -1);
      for (let i = 0; i < segments.length && i < 8; i++)
        for (let j = i + 1; j <= segments.length && j - i <= 8; j++) {
          const dir = `${segments.slice(i, j).join('/')}/`;
          if (!this.dirs.has(dir)) this.dirs.set(dir, p);
        }
    }
  }
  /** The changed path a named path stands for: itself, or written from a sub-folder's root. */
  find(named: string): string | undefined {
    if (named.endsWith('/')) return this.dirs.get(named);
    const name = named.slice(named.lastIndexOf('/') + 1);
    return this.byName.get(name)?.find((p) => p === named || p.endsWith(`/${named}`));
  }
}
