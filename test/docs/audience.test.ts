import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';

/**
 * The docs README and the demo send users to speak of what users see: they name no source file
 * (`src/…`); the code behind each node is in docs/architecture.md, for developers.
 */
describe("users' docs name no source path", () => {
  it.each(['docs/loop.md', 'docs/run.md'])('%s', (doc) => {
    const text = readFileSync(join(repoRoot, doc), 'utf8');
    const named = text
      .split('\n')
      .map((line, i) => ({ line: i + 1, path: /\bsrc\/[\w./-]*/.exec(line)?.[0] }))
      .filter((hit) => hit.path !== undefined)
      .map((hit) => `${doc}:${hit.line}: ${hit.path}`);
    expect(named).toEqual([]);
  });

  it('docs/architecture.md keeps the code of the nodes loop.md tells', () => {
    const text = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    expect(text).toContain('## The loop in the code');
    expect(text).toContain('src/core/loop/nodes/start.ts');
  });
});
