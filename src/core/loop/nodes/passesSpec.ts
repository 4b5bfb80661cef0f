import picomatch from 'picomatch';
import type { Config } from '../../config.js';
import type { ReportCommit, ReportTrace } from '../../plan/report.js';
import { debugFix } from './debugFix.js';
import type { SpecRecord } from '../record/marker.js';
import {
  done,
  type Decision,
  type Effect,
  type Need,
  type PullSnapshot,
  type SpecTask,
} from '../snapshot/pullSnapshot.js';
import {
  ChangedIndex,
  citedIds,
  idKey,
  idsIn,
  idsInTests,
  isDocOrConfig,
  namedPaths,
  type SpecFile,
  type SpecVerdict,
  type TaskEvidence,
  type TaskStatus,
} from './specEvidence.js';
import { specTable } from './specTable.js';

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

/** A test strategy that asks for a test (a kind may write one for almost every task). */
const ASKS_FOR_TEST = /\b(?:tests?|tested|testing|specs?|assert\w*|unit|e2e|integration)\b/i;

/** Passes Spec?: every task of the phase, and the phase's test rule, against the PR's files. */
export function passesSpec(
  tasks: readonly SpecTask[],
  files: readonly SpecFile[],
  options: SpecOptions,
): SpecVerdict {
  const inTests = anyGlob(options.testPaths.length ? options.testPaths : DEFAULT_TESTS);
  // A test is code under `testPaths`: prose or data there (a Markdown list of ids) proves nothing.
  const isTest = (path: string) => inTests(path) && !isDocOrConfig(path, options.plansDir);
  const touched = files.flatMap((f) => (f.previous ? [f.path, f.previous] : [f.path]));
  const changed = new ChangedIndex(touched);
  // Deleting a test is not changing one: only tests the head holds are evidence.
  const tests = files.filter((f) => !f.deleted && isTest(f.path));
  const ids = idsInTests(tests, new Set(tasks.filter((t) => t.writtenId).map((t) => idKey(t.id))));

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
    // A test strategy asks for evidence only when it asks for a test, and not of a task that
    // names documentation and configuration only: such a task is traced to the files it names.
    const docsOnly = paths.length > 0 && paths.every((p) => isDocOrConfig(p, options.plansDir));
    const strategy =
      task.criterion !== undefined && !docsOnly && ASKS_FOR_TEST.test(task.criterion);
    const checkable = paths.length > 0 || cited.length > 0 || strategy;
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
  const testChanged = tests.length > 0;
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
