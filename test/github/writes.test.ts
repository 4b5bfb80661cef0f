import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../paths.js';

/**
 * One applier per side: under `src/github/loop/`, only the appliers — `start.ts` (the start side)
 * and `apply.ts` (the PR side and every other write) — call GitHub's write helpers. Every other
 * handler builds effects and hands them over; none sends a request itself.
 *
 * The write helpers are found, not listed: every function of `src/github/*.ts` that sends a
 * POST, PATCH, PUT or DELETE, or calls one that does.
 */
const GITHUB = join(repoRoot, 'src/github');
const LOOP = join(GITHUB, 'loop');
const APPLIERS = new Set(['start.ts', 'apply.ts']);

const parse = (path: string) =>
  ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);

/** Each function (top-level, or a class's method) of a file: its name, body text, exported. */
function functionsOf(file: ts.SourceFile): { name: string; text: string; exported: boolean }[] {
  const found: { name: string; text: string; exported: boolean }[] = [];
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const node of file.statements) {
    if (ts.isFunctionDeclaration(node) && node.name)
      found.push({ name: node.name.text, text: node.getText(file), exported: exported(node) });
    if (ts.isClassDeclaration(node))
      for (const member of node.members)
        if (ts.isMethodDeclaration(member) && ts.isIdentifier(member.name))
          found.push({ name: member.name.text, text: member.getText(file), exported: false });
    if (ts.isVariableStatement(node))
      for (const d of node.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer && ts.isArrowFunction(d.initializer))
          found.push({ name: d.name.text, text: d.getText(file), exported: exported(node) });
  }
  return found;
}

function writeHelpers(): Set<string> {
  const all = readdirSync(GITHUB)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => functionsOf(parse(join(GITHUB, f))));
  const writes = new Set<string>();
  const sends = /\brequest\(\s*['"`](POST|PATCH|PUT|DELETE) /;
  for (let grew = true; grew;) {
    grew = false;
    for (const fn of all) {
      if (writes.has(fn.name)) continue;
      const calls = [...writes].some((w) => new RegExp(`\\b${w}\\s*[(<]`).test(fn.text));
      if (sends.test(fn.text) || calls) {
        writes.add(fn.name);
        grew = true;
      }
    }
  }
  return new Set(all.filter((f) => f.exported && writes.has(f.name)).map((f) => f.name));
}

/** The names a file imports from `src/github/*.ts` (not from `loop/` or the core). */
function githubImports(path: string): string[] {
  const file = parse(path);
  const names: string[] = [];
  for (const node of file.statements) {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) continue;
    const target = resolve(dirname(path), node.moduleSpecifier.text);
    if (dirname(target) !== GITHUB) continue;
    const bindings = node.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
  }
  return names;
}

const loopFiles = (readdirSync(LOOP, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(LOOP, f));

describe('one applier per side', () => {
  const helpers = writeHelpers();

  it('finds the write helpers (a sample the rule must know)', () => {
    for (const name of [
      'createCommit',
      'advanceBranch',
      'deleteBranch',
      'createLockRef',
      'replyOnIssue',
      'reactEyes',
      'createCheckRun',
      'writeCheckRun',
      'writeRecord',
      'mergePull',
      'closePull',
      'setPullBody',
      'requestReviews',
      'labelEscalated',
      'clearEscalated',
      'openPullRequest',
      'sendAgentDispatch',
    ])
      expect(helpers).toContain(name);
    for (const read of ['readHeadChecks', 'pullReviews', 'readPermission', 'findPullRequest'])
      expect(helpers).not.toContain(read);
  });

  it('only the appliers under src/github/loop/ import a write helper', () => {
    const offending = loopFiles
      .filter((path) => !APPLIERS.has(basename(path)))
      .flatMap((path) =>
        githubImports(path)
          .filter((name) => helpers.has(name))
          .map((name) => `${relative(repoRoot, path)}: ${name}`),
      );
    expect(offending).toEqual([]);
  });

  it('no handler under src/github/loop/ sends a request itself', () => {
    const offending = loopFiles
      .filter((path) => /\.request\s*\(|\.rest\./.test(readFileSync(path, 'utf8')))
      .map((path) => relative(repoRoot, path));
    expect(offending).toEqual([]);
  });
});
