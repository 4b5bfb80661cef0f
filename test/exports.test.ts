import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './paths.js';

/**
 * No dead exports in src/: every exported function, class, constant or enum is imported
 * somewhere — by src/, a test, a bench or a script (an export only tests use counts as used).
 * Imports through `export *` and `export { … } from` are followed. Types are left out: an
 * exported signature needs the types it names exported too (declaration files).
 */
const DIRS = ['src', 'test', 'bench', 'scripts'];

function tsFiles(dir: string): string[] {
  return (readdirSync(join(repoRoot, dir), { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => /\.m?ts$/.test(f) && !f.includes('node_modules') && !f.startsWith('agents/clis'))
    .map((f) => join(repoRoot, dir, f));
}

const target = (from: string, spec: string): string | undefined => {
  if (!spec.startsWith('.')) return undefined;
  const path = resolve(dirname(from), spec).replace(/\.js$/, '');
  return `${path}.ts`;
};

function deadExports(): string[] {
  const files = DIRS.flatMap(tsFiles);
  /** Value exports declared in each file. */
  const declared = new Map<string, Set<string>>();
  /** Every name each file exports, re-exports included (for `export *`). */
  const named = new Map<string, Set<string>>();
  const stars: [string, string][] = [];
  const renamed: [string, string, string, string][] = [];
  const used = new Set<string>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const values = new Set<string>();
    const names = new Set<string>();
    for (const node of source.statements) {
      const exported =
        ts.canHaveModifiers(node) &&
        (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (exported) {
        if (ts.isVariableStatement(node))
          for (const d of node.declarationList.declarations)
            if (ts.isIdentifier(d.name)) values.add(d.name.text);
        if (
          (ts.isFunctionDeclaration(node) ||
            ts.isClassDeclaration(node) ||
            ts.isEnumDeclaration(node)) &&
          node.name
        )
          values.add(node.name.text);
        if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && node.name)
          names.add(node.name.text);
      }
      if (ts.isExportDeclaration(node)) {
        const from =
          node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
            ? target(file, node.moduleSpecifier.text)
            : undefined;
        if (!node.exportClause && from) stars.push([file, from]);
        else if (node.exportClause && ts.isNamedExports(node.exportClause))
          for (const el of node.exportClause.elements) {
            const original = (el.propertyName ?? el.name).text;
            names.add(el.name.text);
            if (from) renamed.push([file, el.name.text, from, original]);
            else used.add(`${file}#${original}`);
          }
      }
      const specifier =
        ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)
          ? node.moduleSpecifier.text
          : undefined;
      const from = specifier ? target(file, specifier) : undefined;
      if (!from || !ts.isImportDeclaration(node)) continue;
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements)
          used.add(`${from}#${(el.propertyName ?? el.name).text}`);
      if (bindings && ts.isNamespaceImport(bindings)) used.add(`${from}#*`);
    }
    // `await import('./x.js')`: the whole module counts as used.
    for (const m of readFileSync(file, 'utf8').matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g))
      used.add(`${target(file, m[1]!)}#*`);
    declared.set(file, values);
    for (const v of values) names.add(v);
    named.set(file, names);
  }
  // A module a build script names by path (scripts/bundle-cli.js: an entry point, or the module
  // the CLI's bundle puts in place of another) counts as used whole.
  for (const script of readdirSync(join(repoRoot, 'scripts')).filter((f) => f.endsWith('.js')))
    for (const m of readFileSync(join(repoRoot, 'scripts', script), 'utf8').matchAll(
      /['"](src\/[\w/.-]+\.ts)['"]/g,
    ))
      used.add(`${join(repoRoot, m[1]!)}#*`);
  const exportsOf = (file: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(file)) return new Set();
    seen.add(file);
    const all = new Set(named.get(file) ?? []);
    for (const [f, t] of stars) if (f === file) for (const n of exportsOf(t, seen)) all.add(n);
    return all;
  };
  for (let grew = true; grew;) {
    grew = false;
    const mark = (key: string) => {
      if (!used.has(key)) {
        used.add(key);
        grew = true;
      }
    };
    for (const [file, name, from, original] of renamed)
      if (used.has(`${file}#${name}`) || used.has(`${file}#*`)) mark(`${from}#${original}`);
    for (const [file, from] of stars)
      for (const name of exportsOf(from))
        if (used.has(`${file}#${name}`) || used.has(`${file}#*`)) mark(`${from}#${name}`);
  }
  return [...declared]
    .filter(([file]) => relative(repoRoot, file).startsWith('src/'))
    .flatMap(([file, values]) =>
      [...values]
        .filter((name) => !used.has(`${file}#${name}`) && !used.has(`${file}#*`))
        .map((name) => `${relative(repoRoot, file)}: ${name}`),
    );
}

it('every exported value of src/ is imported somewhere', () => {
  expect(deadExports()).toEqual([]);
});
