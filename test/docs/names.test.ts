import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOP_STATES } from '../../src/core/index.js';
import { repoRoot } from '../paths.js';

/**
 * docs/loop.md and docs/architecture.md name only what exists: every backticked `src/...` path is
 * a file or folder, every backticked `file.ts` (or `loop/file.ts`) is a file under src/, every
 * backticked `name(...)`, camelCase or PascalCase name is defined somewhere in src/ (or is a
 * string the code uses: an effect's kind, a state), and every "`name` in `src/file.ts`" is in
 * that file.
 */
const DOCS = ['docs/loop.md', 'docs/architecture.md'];

const sourceFiles = (readdirSync(join(repoRoot, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.split('\\').join('/'));
const sources = sourceFiles.map((f) => readFileSync(join(repoRoot, 'src', f), 'utf8')).join('\n');

/** Whether `name` is declared (function, const, class, type, method or object key) in `text`. */
function declares(text: string, name: string): boolean {
  const n = name.replace(/[$]/g, '\\$&');
  return new RegExp(
    `(function\\*?|const|let|class|interface|type|enum)\\s+${n}\\b|^\\s*(async\\s+)?${n}\\s*[(:<]|\\b${n}\\s*:\\s*\\(|export\\s*\\{[^}]*\\b${n}\\b`,
    'm',
  ).test(text);
}

describe.each(DOCS)('%s', (doc) => {
  const text = readFileSync(join(repoRoot, doc), 'utf8');
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

  it('names only paths that exist', () => {
    const paths = spans.filter((s) => /^src\/[\w./-]+$/.test(s));
    // loop.md speaks to users (test/docs/audience.test.ts): the paths are architecture.md's.
    expect(paths.length > 0).toBe(doc === 'docs/architecture.md');
    expect(paths.filter((p) => !existsSync(join(repoRoot, p.replace(/\/$/, ''))))).toEqual([]);
  });

  it('names only functions that exist', () => {
    const calls = spans
      .map((s) => /^([A-Za-z_$][\w$.]*)\(/.exec(s)?.[1])
      .filter((s): s is string => s !== undefined)
      .map((s) => s.split('.').pop()!);
    expect(calls.filter((name) => !declares(sources, name))).toEqual([]);
  });

  it('names only files that exist: a `file.ts` or `folder/file.ts` is one under src/ (or the repository)', () => {
    const files = spans.filter((s) => /^[\w-]+(\/[\w.-]+)*\.ts$/.test(s) && !s.startsWith('src/'));
    const missing = files.filter(
      (f) =>
        !existsSync(join(repoRoot, f)) &&
        !sourceFiles.some((path) => path === f || path.endsWith(`/${f}`)),
    );
    expect(missing).toEqual([]);
  });

  it('names only identifiers that exist: each camelCase or PascalCase name is in src/', () => {
    const names = spans.filter((s) => /^[A-Za-z_$][\w$]*[a-z][A-Z][\w$]*$/.test(s));
    expect(names.length).toBeGreaterThan(0);
    const missing = names.filter(
      (name) => !declares(sources, name) && !new RegExp(`['"]${name}['"]`).test(sources),
    );
    expect(missing).toEqual([]);
  });

  it('finds each "`name` in `src/file`" in that file', () => {
    const placed = [
      ...text.matchAll(
        /`([A-Za-z_$][\w$.]*)`(?:,\s*`[A-Za-z_$][\w$.]*`)* in `(src\/[\w./-]+\.ts)`/g,
      ),
    ];
    const missing = placed.filter(([, name, file]) => {
      const path = join(repoRoot, file!);
      return !existsSync(path) || !declares(readFileSync(path, 'utf8'), name!.split('.').pop()!);
    });
    expect(missing.map(([whole]) => whole)).toEqual([]);
  });
});

it("docs/github-action.md lists every state of the loop step's `state` output, and no other", () => {
  const doc = readFileSync(join(repoRoot, 'docs/github-action.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` +\| /gm)].map((m) => m[1]);
  const table = rows.slice(rows.indexOf('ignored'));
  expect([...table].sort()).toEqual([...LOOP_STATES].sort());
});
