import picomatch from 'picomatch';
import type { Config } from '../config.js';
import type { Phase } from '../plan/checklist.js';
import type { KindPhase } from '../plan/kinds/plan.js';
import type { ReportCommit, ReportTrace } from '../plan/report.js';
import { codeSpan, encodePath, escapeMarkdown } from '../markdown.js';
import { debugFix } from './debugFix.js';
import type { SpecRecord } from './marker.js';
import {
  done,
  type Decision,
  type Effect,
  type Need,
  type PullSnapshot,
  type SpecTask,
} from './pullSnapshot.js';

/**
 * The seed's "Passes Spec?" node, without a model: each task of the phase — and each requirement,
 * user story or criterion it cites — traced to evidence in the pull request that the plan makes
 * checkable, one line per task. Pure: the phase's tasks and the PR's files (with the patch GitHub
 * lists for each) in, the verdict out. The CLI asks the same function about a working tree.
 *
 * Evidence, per task:
 * - a path the task names (a code span, or a word with a `/` and a file extension) is changed;
 * - a changed test names the task's written id, or a requirement it cites (`Validates:
 *   Requirements 1.2`; `US1`, `FR-003` anywhere; a bare number only on a line that says task,
 *   requirement or validates).
 * A task that names neither is shown as naming nothing checkable; a phase that changes code
 * outside documentation and configuration must change a test (`testPaths`; `[]` turns that off).
 */

export type SpecCheck = 'require' | 'report' | 'off';

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

/** Ids a test can name: spec-kit's `[US1]`, `FR-003`, `SC-2`, `REQ-4`, `AC-1.2`, `NFR-1`. */
const CITED = /\b((?:US|FR|NFR|SC|REQ|AC|R)-?\d+(?:\.\d+)*)\b/g;

/** The ids a task cites in its text (beside those the plan lists for it). */
function citedIds(text: string): string[] {
  return [...new Set([...text.matchAll(CITED)].map((m) => m[1]!.toUpperCase()))];
}

/** The tasks of a coder plan's phase, as Passes Spec? reads them. */
export function specTasksOfPhase(phase: Pick<Phase, 'tasks'>): SpecTask[] {
  return phase.tasks.map((t) => ({
    id: t.id,
    text: t.text,
    state: t.state,
    writtenId: t.text.trimStart().startsWith(t.id),
  }));
}

/** The tasks of another kind's phase (spec-kit, Kiro, Task Master), as Passes Spec? reads them. */
export function specTasksOfKindPhase(phase: Pick<KindPhase, 'tasks'>): SpecTask[] {
  return phase.tasks.map((t) => {
    const taskmaster = t.requirements === undefined;
    const detail = [t.details, t.testStrategy].filter(Boolean).join('\n');
    return {
      id: t.id,
      text: t.text,
      state: t.state,
      ...(t.optional ? { optional: true } : {}),
      ...(t.requirements?.length ? { requirements: t.requirements } : {}),
      ...(detail ? { detail } : {}),
      ...(t.testStrategy ? { criterion: t.testStrategy } : {}),
      writtenId: taskmaster || t.text.trimStart().startsWith(t.id),
    };
  });
}

// ------------------------------------------------------------------ what the tests say

const NUMERIC = /^\d+(?:\.\d+)*$/;
const KEYWORD = /\b(?:tasks?|requirements?|validates|req|criteri(?:on|a)|acceptance)\b/i;
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

/** Every id some lines name → the keys (test paths, commit shas) of the lines naming it. */
function idsIn(
  sources: readonly { key: string; lines: readonly string[] }[],
): Map<string, string[]> {
  const named = new Map<string, string[]>();
  const add = (id: string, key: string) => {
    const list = named.get(id);
    if (!list) named.set(id, [key]);
    else if (list.at(-1) !== key) list.push(key);
  };
  for (const { key, lines } of sources) {
    for (const line of lines) {
      for (const m of line.matchAll(DISTINCT)) add(m[0].toUpperCase(), key);
      if (KEYWORD.test(line)) for (const m of line.matchAll(NUMBER)) add(m[0], key);
    }
  }
  return named;
}

/** Every id the changed tests name → the tests naming it (one pass over the patches). */
function idsInTests(tests: readonly SpecFile[]): Map<string, string[]> {
  return idsIn(tests.map((f) => ({ key: f.path, lines: headLines(f) })));
}

/** The key an id is looked up by: numbers as written, other ids in capitals. */
const idKey = (id: string) => (NUMERIC.test(id) ? id : id.toUpperCase());

// ------------------------------------------------------------------ what the PR changes

const DOC_OR_CONFIG_EXT =
  /\.(md|mdx|markdown|txt|rst|adoc|json|jsonc|json5|ya?ml|toml|ini|cfg|conf|lock|csv|svg|png|jpe?g|gif|webp|ico|mmd)$/i;
const DOC_OR_CONFIG_NAME =
  /^(license|licence|readme|changelog|contributing|notice|authors|codeowners|makefile|dockerfile|\.[^/]*)(\.[^/]*)?$/i;

/** Documentation and configuration: what a phase may change without a test. */
function isDocOrConfig(path: string, plansDir = 'docs/plans'): boolean {
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
class ChangedIndex {
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

// ------------------------------------------------------------------ the verdict

export interface SpecOptions {
  testPaths: Config['testPaths'];
  plansDir?: string;
}

/** The default test globs, for telling which changed files are tests when `testPaths` is []. */
const DEFAULT_TESTS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
];

/**
 * The globs as ONE regular expression, compiled once per verdict: picomatch's own matcher for an
 * array calls each glob's matcher in turn, with its checks around each; on 3,000 paths in a cold
 * process that alone took 0.1 s or more. Same answers: a path matches when some glob matches it
 * (a negated glob matches what it does not name).
 */
function anyGlob(globs: readonly string[]): (path: string) => boolean {
  const re = new RegExp(
    globs.map((g) => `(?:${picomatch.makeRe(g, { dot: true }).source})`).join('|'),
  );
  return (path) => re.test(path);
}

/** Passes Spec?: every task of the phase, and the phase's test rule, against the PR's files. */
export function passesSpec(
  tasks: readonly SpecTask[],
  files: readonly SpecFile[],
  options: SpecOptions,
): SpecVerdict {
  const isTest = anyGlob(options.testPaths.length ? options.testPaths : DEFAULT_TESTS);
  const touched = files.flatMap((f) => (f.previous ? [f.path, f.previous] : [f.path]));
  const changed = new ChangedIndex(touched);
  const tests = files.filter((f) => !f.deleted && isTest(f.path));
  const ids = idsInTests(tests);

  const rows = tasks.map((task): TaskEvidence => {
    const paths = namedPaths(`${task.text}\n${task.detail ?? ''}`);
    const cited = [
      ...new Set([
        ...(task.requirements ?? []),
        ...citedIds(task.text),
        ...(task.detail ? citedIds(task.detail) : []),
      ]),
    ];
    const own = task.writtenId ? task.id : undefined;
    const lookups = [...(own ? [own] : []), ...cited];
    const found = paths.flatMap((p) => {
      const hit = changed.find(p);
      return hit ? [hit] : [];
    });
    const named: TaskEvidence['tests'] = [];
    for (const id of lookups) for (const path of ids.get(idKey(id)) ?? []) named.push({ path, id });
    const checkable = paths.length > 0 || cited.length > 0 || task.criterion !== undefined;
    const has = found.length > 0 || named.length > 0;
    const status: TaskStatus =
      task.state === 'done' || task.state === 'set-aside'
        ? 'done'
        : has
          ? 'evidence'
          : task.optional
            ? 'optional'
            : checkable
              ? 'missing'
              : 'unchecked';
    return {
      id: task.id,
      text: task.text,
      status,
      named: { paths, ids: lookups, cited },
      paths: [...new Set(found)],
      tests: named,
      line: explain(status, paths, cited, task, found, named),
    };
  });

  const code = files.filter((f) => !isDocOrConfig(f.path, options.plansDir));
  const applies = options.testPaths.length > 0 && code.length > 0;
  const testChanged = files.some((f) => isTest(f.path));
  const testRule = {
    applies,
    passed: !applies || testChanged,
    line:
      options.testPaths.length === 0
        ? 'Tests: not required (`testPaths` is empty).'
        : code.length === 0
          ? 'Tests: not required — the pull request changes documentation and configuration only.'
          : testChanged
            ? `Tests: changed (${tests.length} test file${tests.length === 1 ? '' : 's'}).`
            : `Write failing test: the pull request changes code (\`${code[0]!.path}\`${code.length > 1 ? ` and ${code.length - 1} more` : ''}) but no test file (\`testPaths\`).`,
  };
  const missing = rows
    .filter((r) => r.status === 'missing')
    .map((r) => `${r.id}: ${r.line}`)
    .concat(testRule.passed ? [] : [testRule.line]);
  return { passed: missing.length === 0, tasks: rows, testRule, missing };
}

function explain(
  status: TaskStatus,
  paths: readonly string[],
  cited: readonly string[],
  task: SpecTask,
  found: readonly string[],
  named: TaskEvidence['tests'],
): string {
  const list = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ');
  switch (status) {
    case 'done':
      return 'done before this pull request.';
    case 'unchecked':
      return 'names nothing checkable (no path, no requirement): the reviewer judges it.';
    case 'evidence': {
      const parts: string[] = [];
      if (found.length) parts.push(`changes ${list([...new Set(found)])}`);
      if (named.length)
        parts.push(
          `${list([...new Set(named.map((n) => n.path))])} names ${list([...new Set(named.map((n) => n.id))])}`,
        );
      return `${parts.join('; ')}.`;
    }
    case 'optional':
    case 'missing': {
      const lacks: string[] = [];
      if (paths.length) lacks.push(`names ${list(paths)}, not changed`);
      if (cited.length) lacks.push(`cites ${list(cited)}, named by no changed test`);
      if (!paths.length && !cited.length && task.criterion !== undefined)
        lacks.push(`has a test strategy, and no changed test names task \`${task.id}\``);
      return `${status === 'optional' ? 'optional: ' : ''}${lacks.join('; ')}.`;
    }
  }
}

// ------------------------------------------------------------------ the report's traceability

/**
 * The verdict as the phase report keeps it: each task and each requirement it cites → the changed
 * tests and the commits naming it (a commit names an id as a test does: `T012`, `FR-003`
 * anywhere; a number on a line that says task, requirement or validates).
 */
export function specTrace(verdict: SpecVerdict, commits: readonly ReportCommit[]): ReportTrace {
  const byId = idsIn(commits.map((c) => ({ key: c.sha, lines: c.message.split('\n') })));
  const naming = (ids: readonly string[]): ReportCommit[] => {
    const shas = new Set(ids.flatMap((id) => byId.get(idKey(id)) ?? []));
    return commits.filter((c) => shas.has(c.sha));
  };
  const requirements = new Map<string, { tasks: string[]; tests: Set<string> }>();
  const tasks = verdict.tasks.map((t) => {
    for (const id of t.named.cited) {
      const r = requirements.get(id) ?? { tasks: [], tests: new Set<string>() };
      r.tasks.push(t.id);
      for (const test of t.tests) if (test.id === id) r.tests.add(test.path);
      requirements.set(id, r);
    }
    return {
      id: t.id,
      status: t.status,
      line: t.line,
      tests: [...new Set(t.tests.map((x) => x.path))],
      commits: naming(t.named.ids),
    };
  });
  return {
    passed: verdict.passed,
    tasks,
    requirements: [...requirements].map(([id, r]) => ({
      id,
      tasks: r.tasks,
      tests: [...r.tests],
      commits: naming([id]),
    })),
    testRule: verdict.testRule.line,
  };
}

// ------------------------------------------------------------------ the table

/** Most characters of the table in a check run (GitHub's summary holds 65,535). */
const TABLE_CHARS = 40_000;

const STATUS_MARK: Record<TaskStatus, string> = {
  missing: '❌ missing',
  evidence: '✅ evidence',
  unchecked: '➖ nothing checkable',
  done: '✔️ done before',
  optional: '➖ optional',
};

/**
 * The verdict as markdown: one row per task (those lacking evidence first), the test rule under
 * it, file and test paths linked at `sha`. Bounded: past the limit, the rest are counted.
 */
export function specTable(
  verdict: SpecVerdict,
  link?: { repoUrl: string; sha: string },
  limit = TABLE_CHARS,
): string {
  const at = (path: string) =>
    link
      ? `[${codeSpan(path)}](${link.repoUrl}/blob/${link.sha}/${encodePath(path)})`
      : codeSpan(path);
  // Only what reads as a path is linked (a folder or a file name with an extension): task and
  // requirement ids (`1.2`, `T003`) stay text.
  const isPath = (p: string) => !p.includes(' ') && (p.includes('/') || /\.[A-Za-z]\w*$/.test(p));
  const lined = (text: string) =>
    text.replace(/`([^`]+)`/g, (_m, p: string) => (link && isPath(p) ? at(p) : codeSpan(p)));
  const order: TaskStatus[] = ['missing', 'evidence', 'unchecked', 'optional', 'done'];
  const rows = [...verdict.tasks].sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  const out = [
    `**Passes Spec?** ${verdict.passed ? 'yes' : 'no'} — ${rows.filter((r) => r.status === 'evidence').length} of ${rows.length} tasks traced to evidence, ${rows.filter((r) => r.status === 'missing').length} lacking.`,
    '',
    '| task | | evidence |',
    '| --- | --- | --- |',
  ];
  let size = out.join('\n').length;
  let shown = 0;
  for (const r of rows) {
    // The id once: a task whose text starts with it (`T012 …`, `1.2 …`) is shown after it.
    const own = r.text.startsWith(`${r.id} `) ? r.text.slice(r.id.length + 1) : r.text;
    const text = escapeMarkdown(own.replace(/\s+/g, ' ').slice(0, 120)).replace(/\|/g, '\\|');
    const row = `| ${codeSpan(r.id)} ${text} | ${STATUS_MARK[r.status]} | ${lined(r.line).replace(/\|/g, '\\|')} |`;
    if (size + row.length > limit) break;
    out.push(row);
    size += row.length + 1;
    shown++;
  }
  if (shown < rows.length) out.push(`| … | | ${rows.length - shown} more tasks not shown |`);
  out.push('', `${verdict.testRule.passed ? '✅' : '❌'} ${verdict.testRule.line}`);
  return out.join('\n');
}

// ------------------------------------------------------------------ the node on a loop PR head

/** At most this many lines of missing evidence go to the record, the reply and the hand-off. */
const MISSING_LINES = 50;

/** The verdict on the snapshot's head, or the fact it still needs (the files, the tasks). */
export function specVerdictOf(
  snap: PullSnapshot,
  config: Pick<Config, 'testPaths' | 'plansDir'>,
): { need: Need } | { verdict: SpecVerdict } {
  if (!snap.files) return { need: 'files' };
  if (!snap.tasks) return { need: 'tasks' };
  const files = snap.files.map((f): SpecFile => ({
    path: f.path,
    ...(f.previous ? { previous: f.previous } : {}),
    ...(f.patch !== undefined ? { patch: f.patch } : {}),
    ...(f.deleted ? { deleted: true } : {}),
  }));
  const options = { testPaths: config.testPaths, plansDir: config.plansDir };
  if ('problem' in snap.tasks) {
    const verdict = passesSpec([], files, options);
    const line = `The phase's tasks cannot be read on this head: ${snap.tasks.problem}`;
    return { verdict: { ...verdict, passed: false, missing: [line, ...verdict.missing] } };
  }
  return { verdict: passesSpec(snap.tasks.tasks, files, options) };
}

/** The verdict as the record keeps it: about this head, the missing lines bounded. */
function specRecord(verdict: SpecVerdict, sha: string): SpecRecord {
  return { sha, passed: verdict.passed, missing: verdict.missing.slice(0, MISSING_LINES) };
}

/**
 * Passes Spec? on a head whose CI passed, before Code Review. `specCheck: off`: nothing to check.
 * `report`: the table goes to the check run, nothing is blocked. `require`: a head lacking
 * evidence goes back to implementation — Revise Code, an attempt like a failed CI run (bounded by
 * `maxRetries`), the missing list on the check run, once on the orchestrator's issue, and to the
 * coding agent where one is configured. Returns the decision when the head stops here, else what
 * Code Review shows beside its own effects (the record's verdict, the table).
 */
export function validateVsSpec(
  snap: PullSnapshot,
  config: Config,
  again: boolean,
): Decision | { passed: { effects: Effect[]; table?: string } } {
  if (config.specCheck === 'off') return { passed: { effects: [] } };
  const read = specVerdictOf(snap, config);
  if ('need' in read) return read;
  const { verdict } = read;
  const sha = snap.pr.head.sha;
  const table = specTable(verdict, { repoUrl: snap.repoUrl, sha });
  const spec = specRecord(verdict, sha);
  if (verdict.passed || config.specCheck === 'report')
    return {
      passed: { effects: [{ kind: 'marker', marker: { ...snap.marker, spec } }], table },
    };
  if (snap.own?.node === 'Revise' && !again)
    return done(snap, 'failed', 'Revise', [], { reason: 'already reported' });
  const lacking = verdict.tasks.filter((t) => t.status === 'missing').length;
  const reason = `Passes Spec?: ${lacking ? `${lacking} task${lacking === 1 ? '' : 's'} of the phase lack evidence` : 'the phase lacks evidence'}${verdict.testRule.passed ? '' : lacking ? '; no test changed' : ' (no test changed)'}.`;
  return debugFix(snap, config, [], reason, undefined, { spec, table });
}
