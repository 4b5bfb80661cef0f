import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPrompt } from '../src/core/agent/prompt.js';
import {
  defaultPlanGlobs,
  findPlanFiles,
  isPlanDocument,
  KIND_LABELS,
  kindOfPath,
  mayBePlanDocument,
  otherKindNames,
  planDocumentsRoot,
} from '../src/core/plan/kinds/index.js';
import { KIND_MARKS } from '../src/core/plan/kinds/plan.js';
import { KINDS } from '../src/core/plan/kinds/registry.js';
import { repoRoot } from './paths.js';

/**
 * A plan kind is one folder (`src/core/plan/kinds/<id>/`) and one line of the registry: nowhere
 * else in src/ says its name — not a switch, not a message, not a comment, not an identifier.
 * Every list of kinds is generated from the registry, so a new kind needs no edit elsewhere.
 */
const KINDS_DIR = 'src/core/plan/kinds';
const REGISTRY = `${KINDS_DIR}/registry.ts`;

function sourceFiles(): string[] {
  return (readdirSync(join(repoRoot, 'src'), { recursive: true }) as string[])
    .map((f) => `src/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts'))
    .sort();
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where a kind's id or display name is written as a word, in any case (`1: Kiro`, by line): not
 * inside a longer word, except at a camelCase seam (`readTaskmaster`, `speckitKind`) or beside
 * `_` (`TASKMASTER_STATUS`), so that an identifier made of the name says it too. The display
 * name's spaces match any run of spaces (a comment may wrap there).
 */
function mentions(text: string, names: readonly string[]): string[] {
  const pattern = new RegExp(names.map((n) => escape(n).replace(/ +/g, '\\s+')).join('|'), 'gi');
  const found: string[] = [];
  for (const m of text.matchAll(pattern)) {
    const [before, after] = [text[m.index - 1], text[m.index + m[0].length]];
    const seamBefore = /[a-z0-9]/.test(before ?? '') && /[A-Z]/.test(m[0][0]!);
    if (before !== undefined && /[A-Za-z0-9]/.test(before) && !seamBefore) continue;
    if (after !== undefined && /[a-z0-9]/.test(after)) continue;
    found.push(`${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
  }
  return found;
}

describe('a plan kind is one folder and one registry line', () => {
  const files = sourceFiles();
  const kinds = KINDS.map((k) => ({ id: k.id, names: [k.id, k.label] }));

  it('registers kinds whose folders exist', () => {
    expect(kinds.length).toBeGreaterThan(0);
    for (const { id } of kinds)
      expect(files.some((f) => f.startsWith(`${KINDS_DIR}/${id}/`))).toBe(true);
  });

  it('finds a name where one is written (the pattern itself)', () => {
    const names = ['speckit', 'spec-kit', 'Task Master', 'taskmaster'];
    expect(mentions("spec-kit's plan", names)).toEqual(['1: spec-kit']);
    expect(mentions('readTaskmaster(x)', names)).toEqual(['1: Taskmaster']);
    expect(mentions('TASKMASTER_STATUS', names)).toEqual(['1: TASKMASTER']);
    expect(mentions('speckitKind', names)).toEqual(['1: speckit']);
    expect(mentions('a Task\n   Master tag', names)).toEqual(['1: Task\n   Master']);
    expect(mentions('`.taskmaster/`', names)).toEqual(['1: taskmaster']);
    expect(mentions('taskmasters speckits respeckit', names)).toEqual([]);
  });

  it('says no kind name in src/ outside its folder and the registry', () => {
    const outside: string[] = [];
    for (const file of files) {
      if (file === REGISTRY) continue;
      const text = readFileSync(join(repoRoot, file), 'utf8');
      for (const { id, names } of kinds) {
        if (file.startsWith(`${KINDS_DIR}/${id}/`)) continue;
        for (const at of mentions(text, names)) outside.push(`${file}:${at}`);
      }
    }
    expect(outside).toEqual([]);
  });
});

/** A path a default glob matches: `*` a name, `**\/` no folder. */
const sample = (glob: string) => glob.replace(/\*\*\//g, '').replace(/\*/g, 'feature-1');

describe('every kind of the registry, as the loop reads it', () => {
  const globs = defaultPlanGlobs('docs/plans');

  it('has its own id and display name, and the lists of kinds show it in the registry order', () => {
    const ids = KINDS.map((k) => k.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+$/);
    expect(Object.keys(KIND_LABELS)).toEqual(['coder', ...ids]);
    expect(otherKindNames('or')).toBe(
      `${KINDS.slice(0, -1)
        .map((k) => k.label)
        .join(', ')} or ${KINDS[KINDS.length - 1]!.label}`,
    );
    for (const k of KINDS) expect(KIND_MARKS[k.id]).toBe(k.marks);
  });

  it.each(KINDS.map((k) => [k.id, k] as const))(
    "%s: its default places are found as its plans, its documents as the plan's",
    (id, kind) => {
      expect(kind.globs.length).toBeGreaterThan(0);
      for (const glob of kind.globs) {
        const path = sample(glob);
        expect(path.endsWith(`/${kind.tasksFile}`)).toBe(true);
        expect(kindOfPath(path)).toBe(id);
        const [found] = findPlanFiles([path, 'README.md'], globs);
        expect(found).toMatchObject({ kind: id, path });
        // A document beside the tasks file is the plan's, and is known to be from its path alone.
        const beside = `${found!.folder}/notes.md`;
        expect(isPlanDocument(beside, found!)).toBe(true);
        expect(mayBePlanDocument(beside, globs)).toBe(true);
        expect(planDocumentsRoot(found!)).toBeDefined();
      }
    },
  );

  it("names every kind's folders in the agent's rule against editing plans", () => {
    const prompt = buildPrompt({
      node: 'tdd',
      attempt: 1,
      repository: 'o/r',
      pullRequest: 1,
      branch: 'coder/x/phase-1',
      headSha: 'a'.repeat(40),
      plansDir: 'docs/plans',
      issue: { number: 1, title: 'x', body: '' },
    });
    const rule = prompt.split('\n').find((l) => l.startsWith('5. '))!;
    for (const k of KINDS) {
      const what = k.agentMayNotEdit;
      expect(rule).toContain('path' in what ? `\`${what.path}\`` : k.label);
    }
  });
});
