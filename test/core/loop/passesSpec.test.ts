import {
  namedPaths,
  passesSpec,
  specTable,
  validateVsSpec,
  type SpecFile,
  type SpecTask,
} from '../../../src/core/index.js';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { isDocOrConfig } from '../../../src/core/loop/nodes/specEvidence.js';
import { ci, config, effects, HEAD, snap, state } from './pullFixtures.js';
import { fixSeed } from '../../helpers/seed.js';

fixSeed(import.meta.url);

const DEFAULT_TESTS = { testPaths: config().testPaths };
const task = (id: string, text: string, more: Partial<SpecTask> = {}): SpecTask => ({
  id,
  text,
  state: 'doing',
  writtenId: true,
  ...more,
});
const added = (path: string, text = 'x'): SpecFile => ({
  path,
  patch: `@@ -0,0 +1,1 @@\n${text
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n')}`,
});

describe('Passes Spec? — what a task names', () => {
  it.each<[string, string[]]>([
    ['T007 [P] [US1] Create Album model in src/models/album.ts', ['src/models/album.ts']],
    [
      'Contract test for POST /albums in tests/contract/test_albums.ts',
      ['tests/contract/test_albums.ts'],
    ],
    ['1.1 Test: `GET /health` answers 200 with `{"status":"ok"}`', []],
    ['Add `package.json` scripts and `src/cli/`', ['package.json', 'src/cli/']],
    ['Initialize TypeScript project with Node.js and authentication/authorization', []],
    ['Read `/specs/001-photo-albums/` first', ['specs/001-photo-albums/']],
    ['Bump to `1.2.3`, see https://example.com/a/b.html', []],
  ])('%s', (text, paths) => {
    expect(namedPaths(text)).toEqual(paths);
  });
});

describe('Passes Spec? — the verdict', () => {
  it('a spec-kit task naming src/a.ts: missing until the PR changes it', () => {
    const tasks = [task('T001', 'T001 [US1] Implement the parser in src/a.ts')];
    const without = passesSpec(tasks, [added('src/b.ts'), added('test/b.test.ts')], DEFAULT_TESTS);
    expect(without.passed).toBe(false);
    expect(without.missing).toEqual([
      'T001: names `src/a.ts`, not changed; cites `US1`, named by no changed test.',
    ]);
    const withIt = passesSpec(tasks, [added('src/a.ts'), added('test/a.test.ts')], DEFAULT_TESTS);
    expect(withIt.passed).toBe(true);
    expect(withIt.tasks[0]).toMatchObject({ status: 'evidence', paths: ['src/a.ts'] });
    expect(withIt.tasks[0]!.line).toBe('changes `src/a.ts`.');
  });

  it('a path written from a sub-project root, and a named folder, match the changed file', () => {
    const tasks = [
      task('T1', 'T1 Model in models/user.py'),
      task('T2', 'T2 Everything under `src/cli/`'),
    ];
    const v = passesSpec(
      tasks,
      [added('backend/models/user.py'), added('src/cli/commands/spec.ts'), added('tests/x.py')],
      DEFAULT_TESTS,
    );
    expect(v.tasks.map((t) => t.status)).toEqual(['evidence', 'evidence']);
  });

  it('a Kiro task citing requirement 1.2 passes when a changed test says it validates it', () => {
    const tasks = [task('2.2', '2.2 Implement User model', { requirements: ['1.2'] })];
    const files = [added('src/user.ts')];
    const silent = passesSpec(
      tasks,
      [...files, added('test/user.test.ts', 'it("1.2")')],
      DEFAULT_TESTS,
    );
    // A bare number counts only on a line that says task, requirement or validates.
    expect(silent.passed).toBe(false);
    const says = passesSpec(
      tasks,
      [...files, added('test/user.test.ts', '// **Validates: Requirements 1.2**\nit("user")')],
      DEFAULT_TESTS,
    );
    expect(says.passed).toBe(true);
    expect(says.tasks[0]!.tests).toEqual([{ path: 'test/user.test.ts', id: '1.2' }]);
    // A removed line is not what the head says.
    const removed = passesSpec(
      tasks,
      [
        ...files,
        { path: 'test/user.test.ts', patch: '@@ -1,1 +0,0 @@\n-// Validates: Requirements 1.2' },
      ],
      DEFAULT_TESTS,
    );
    expect(removed.passed).toBe(false);
  });

  it.each([
    ['// Требования: 1.2', true],
    ['# 要件 1.2 を検証する', true],
    ['// 需求：1.2', true],
    ['// Anforderungen 1.2', true],
    ['/* requisitos: 1.2 */', true],
    ['// Version 1.2', false],
  ])("a test in the plan's language counts where it cites requirements: %s", (comment, counts) => {
    const tasks = [task('2.2', '2.2 Реализовать модель', { requirements: ['1.2'] })];
    const v = passesSpec(
      tasks,
      [added('src/user.ts'), added('test/user.test.ts', `${comment}\nit("user")`)],
      DEFAULT_TESTS,
    );
    expect(v.passed).toBe(counts);
  });

  describe('evidence is a change that could fail', () => {
    const tasks = [
      task('T001', 'T001 Add the health route'),
      task('T002', 'T002 Add the readiness route'),
      task('T003', 'T003 Add the metrics route'),
    ].map((t) => ({ ...t, criterion: 'A unit test covers it' }));
    const code = added('src/routes.ts', 'export const routes = [];');

    it('a Markdown file under test/ that lists the task ids satisfies no task, and is no test', () => {
      const v = passesSpec(
        tasks,
        [code, added('test/tasks.md', '- T001\n- T002\n- T003')],
        DEFAULT_TESTS,
      );
      expect(v.tasks.map((t) => t.status)).toEqual(['missing', 'missing', 'missing']);
      expect(v.testRule.passed).toBe(false);
    });

    it('deleting a test file is not changing a test', () => {
      const v = passesSpec(
        [],
        [code, { path: 'test/old.test.ts', patch: '@@ -1,1 +0,0 @@\n-it("x")', deleted: true }],
        DEFAULT_TESTS,
      );
      expect(v.testRule).toMatchObject({ applies: true, passed: false });
    });

    it('one comment line naming every id covers no task; a test per task on its own line does', () => {
      const listed = passesSpec(
        tasks,
        [code, added('test/routes.test.ts', '// T001 T002 T003\nit("routes", () => {});')],
        DEFAULT_TESTS,
      );
      expect(listed.tasks.map((t) => t.status)).toEqual(['missing', 'missing', 'missing']);
      const own = passesSpec(
        tasks,
        [
          code,
          added(
            'test/routes.test.ts',
            'it("T001 health", () => {});\nit("T002 readiness", () => {});\nit("T003 metrics", () => {});',
          ),
        ],
        DEFAULT_TESTS,
      );
      expect(own.passed).toBe(true);
      // One test for two tasks of a three-task phase is a test of both, not a list.
      const pair = passesSpec(
        tasks,
        [
          code,
          added(
            'test/routes.test.ts',
            'it("T001 and T002: health and readiness", () => {});\nit("T003 metrics", () => {});',
          ),
        ],
        DEFAULT_TESTS,
      );
      expect(pair.passed).toBe(true);
      // Every task of a two-task phase on one line is a list.
      const both = passesSpec(
        tasks.slice(0, 2),
        [code, added('test/r.test.ts', '// T001 T002')],
        DEFAULT_TESTS,
      );
      expect(both.tasks.map((t) => t.status)).toEqual(['missing', 'missing']);
    });

    it('a documentation-only Task Master task is traced to the files it names, whatever its test strategy', () => {
      const docs = [
        task('4', 'Document the API', {
          detail: 'Write `docs/api.md`.',
          criterion: 'Review the document for accuracy; test every example by hand.',
          writtenId: true,
        }),
        task('5', 'Write the changelog', {
          criterion: 'Check the changelog reads well.',
          writtenId: true,
        }),
      ];
      const v = passesSpec(docs, [added('docs/api.md', '# API')], DEFAULT_TESTS);
      expect(v.tasks.map((t) => t.status)).toEqual(['evidence', 'unchecked']);
      expect(v.passed).toBe(true);
      // Not changed: it lacks evidence, said as a path not changed.
      const not = passesSpec(docs, [added('README.md', '# x')], DEFAULT_TESTS);
      expect(not.tasks[0]).toMatchObject({ status: 'missing' });
      expect(not.tasks[0]!.line).toBe('names `docs/api.md`, not changed.');
    });
  });

  it('a task naming nothing checkable is shown as such, and passes', () => {
    const v = passesSpec(
      [task('T002', 'T002 Configure linting')],
      [added('README.md')],
      DEFAULT_TESTS,
    );
    expect(v.passed).toBe(true);
    expect(v.tasks[0]!.status).toBe('unchecked');
    expect(v.tasks[0]!.line).toContain('names nothing checkable');
  });

  it('the test rule: code needs a changed test; docs and config alone do not; testPaths [] turns it off', () => {
    const none: SpecTask[] = [];
    expect(passesSpec(none, [added('src/a.ts')], DEFAULT_TESTS).passed).toBe(false);
    expect(
      passesSpec(none, [added('src/a.ts'), added('test/a.test.ts')], DEFAULT_TESTS).passed,
    ).toBe(true);
    expect(
      passesSpec(none, [added('spec/a_spec.rb'), added('lib/a.rb')], { testPaths: ['spec/**'] })
        .passed,
    ).toBe(true);
    const docs = passesSpec(
      none,
      [
        added('docs/guide.md'),
        added('README.md'),
        added('.github/workflows/ci.yml'),
        added('package.json'),
      ],
      DEFAULT_TESTS,
    );
    expect(docs.passed).toBe(true);
    expect(docs.testRule.line).toContain('documentation and configuration only');
    expect(passesSpec(none, [added('src/a.ts')], { testPaths: [] }).passed).toBe(true);
  });

  it('tells tests from other files as picomatch does, for any globs and paths (one regex per verdict)', () => {
    const segment = fc.constantFrom(
      'src',
      'test',
      'tests',
      '__tests__',
      'a.test.ts',
      'b.spec.js',
      '.hidden',
      'x.ts',
      'lib',
      'c d',
    );
    const glob = fc.constantFrom(
      ...config().testPaths,
      'spec/**',
      '**/*_spec.rb',
      '!src/**',
      'src/*.ts',
      '**/*.{test,spec}.[jt]s',
      'lib/?.ts',
      'c d/**',
    );
    fc.assert(
      fc.property(
        fc.array(glob, { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(segment, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        (globs, parts) => {
          const paths = [...new Set(parts.map((p) => p.join('/')))];
          const isTest = picomatch(globs, { dot: true });
          // Under `testPaths` as picomatch says; documentation and data there is no test.
          const expected = paths.filter((p) => isTest(p) && !isDocOrConfig(p)).length;
          const verdict = passesSpec(
            [],
            paths.map((p) => added(p)),
            { testPaths: globs },
          );
          const line = verdict.testRule.line;
          const counted = /changed \((\d+) test files?\)/.exec(line);
          if (counted) expect(Number(counted[1])).toBe(expected);
          else expect(expected === 0 || !verdict.testRule.applies).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('done and optional tasks never lack evidence', () => {
    const v = passesSpec(
      [
        task('1.1', '1.1 Old work in src/old.ts', { state: 'done' }),
        task('2.3', '2.3 Tests', { optional: true, requirements: ['1.2'] }),
      ],
      [added('README.md')],
      DEFAULT_TESTS,
    );
    expect(v.passed).toBe(true);
    expect(v.tasks.map((t) => t.status)).toEqual(['done', 'optional']);
  });

  it('the table: lacking tasks first, paths linked at the head, bounded', () => {
    const v = passesSpec(
      [task('T1', 'T1 a in src/a.ts'), task('T2', 'T2 b in src/b.ts')],
      [added('src/a.ts'), added('test/a.test.ts')],
      DEFAULT_TESTS,
    );
    const table = specTable(v, { repoUrl: 'https://github.com/o/r', sha: HEAD });
    const rows = table.split('\n').filter((l) => l.startsWith('| `T'));
    expect(rows[0]).toContain('❌ missing');
    expect(rows[1]).toContain(`[\`src/a.ts\`](https://github.com/o/r/blob/${HEAD}/src/a.ts)`);
    // A task's id is no file: it stays text.
    expect(table).not.toContain('/blob/' + HEAD + '/T1');
    expect(table).not.toContain('/blob/' + HEAD + '/T2');
    const small = specTable(v, undefined, 200);
    expect(small).toContain('more tasks not shown');
    expect(small.length).toBeLessThan(500);
  });
});

describe('Passes Spec? — the node on a loop PR head', () => {
  const files = [
    { path: 'src/b.ts', additions: 1, deletions: 0 },
    { path: 'test/b.test.ts', additions: 1, deletions: 0 },
  ];
  const tasks = { tasks: [task('T001', 'T001 Implement src/a.ts')] };
  it('require: Revise Code with the task named; report: Code Review; off: no table', () => {
    const s = snap({ checks: [ci('success')], files, tasks });
    const revise = validateVsSpec(s, config(), false);
    expect(state(revise as never)).toBe('failed @Revise');
    expect(effects(revise as never)).toEqual([
      'marker attempts=1 rounds=0 spec=missing',
      'check Revise failure',
      'reply: **Passes Spec? no** on pull request #2 — attempt 1 of 3. Back to implementation (Revise Code): these lack evidence in the pull request.',
    ]);
    const reply = (revise as { effects: { kind: string; body?: string }[] }).effects[2]!.body!;
    expect(reply).toContain('- T001: names `src/a.ts`, not changed.');
    const report = validateVsSpec(s, config({ specCheck: 'report' }), false);
    expect('passed' in report && report.passed.table).toContain('❌ missing');
    const off = validateVsSpec(s, config({ specCheck: 'off' }), false);
    expect(off).toEqual({ passed: { effects: [] } });
  });

  it('with an agent, the Revise hand-off goes out, and the record keeps the missing list for it', () => {
    const agent = { command: 'true' };
    const s = snap({ checks: [ci('success')], files, tasks });
    const d = validateVsSpec(s, config({ agent }), false);
    expect(effects(d as never)).toContain('dispatch revise #1');
    const marker = (d as { effects: { kind: string; marker?: { spec?: unknown } }[] }).effects[0]!
      .marker!;
    expect(marker.spec).toEqual({
      sha: HEAD,
      passed: false,
      missing: ['T001: names `src/a.ts`, not changed.'],
    });
  });

  it('the phase tasks are read once asked', () => {
    const s = snap({ checks: [ci('success')], files, tasks: undefined });
    expect(validateVsSpec(s, config(), false)).toEqual({ need: 'tasks' });
  });
});
