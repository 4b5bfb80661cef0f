import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOP_STATES } from '../../src/core/index.js';
import { repoRoot } from '../paths.js';

/**
 * docs/loop.md and docs/architecture.md name only what exists: every backticked `src/...` path is
 * a file or folder, every backticked `name(...)` is defined somewhere in src/, and every
 * "`name` in `src/file.ts`" is in that file.
 */
const DOCS = ['docs/loop.md', 'docs/architecture.md'];

const sources = (readdirSync(join(repoRoot, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(repoRoot, 'src', f), 'utf8'))
  .join('\n');

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
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !existsSync(join(repoRoot, p.replace(/\/$/, ''))))).toEqual([]);
  });

  it('names only functions that exist', () => {
    const calls = spans
      .map((s) => /^([A-Za-z_$][\w$.]*)\(/.exec(s)?.[1])
      .filter((s): s is string => s !== undefined)
      .map((s) => s.split('.').pop()!);
    expect(calls.filter((name) => !declares(sources, name))).toEqual([]);
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
