import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './paths.js';

/**
 * No import circle in src/: the graph of every relative import and re-export (type-only ones
 * included — a circle of types is still a circle of ideas) has no cycle. Barrels live only at
 * folder boundaries (`index.ts`), and nothing inside a folder imports its own folder's barrel.
 */
const SRC = join(repoRoot, 'src');

function sourceFiles(): string[] {
  return (readdirSync(SRC, { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(SRC, f));
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const path = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const candidate of [`${path}.ts`, join(path, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every strongly connected component of more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/** One concrete circle inside a component, as a path a → b → … → a. */
function circleIn(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

const name = (file: string): string => relative(repoRoot, file).split('\\').join('/');

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads every file and its imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(graph.size);
  });

  it('has no import circle', () => {
    const found = cycles(graph).map((component) => {
      const circle = circleIn(component, graph).map(name).join(' → ');
      return `${component.length} files, e.g. ${circle}\n  ${component.map(name).sort().join('\n  ')}`;
    });
    expect(found).toEqual([]);
  });

  it('imports a folder barrel (index.ts) only from outside its folder', () => {
    const inward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => target.endsWith('/index.ts') && file.startsWith(dirname(target) + '/'))
        .map((target) => `${name(file)} imports ${name(target)}`),
    );
    expect(inward).toEqual([]);
  });

  it('re-exports values only in a folder barrel (index.ts)', () => {
    const barrels = [...graph.keys()]
      .filter((file) => !file.endsWith('/index.ts'))
      .filter((file) => {
        const source = ts.createSourceFile(
          file,
          readFileSync(file, 'utf8'),
          ts.ScriptTarget.Latest,
        );
        return source.statements.some(
          (s) => ts.isExportDeclaration(s) && s.moduleSpecifier && !s.isTypeOnly,
        );
      })
      .map(name);
    expect(barrels).toEqual([]);
  });
});
