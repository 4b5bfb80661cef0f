import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HELP_TEXT } from '../../src/core/command.js';
import { repoRoot } from '../paths.js';

/** The README's command table is `/coder help`'s, row for row. */
it('README.md lists every /coder command exactly as /coder help does', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block =
    /<!-- prettier-ignore-start -->\n([\s\S]*?)\n<!-- prettier-ignore-end -->\n<!-- \/generated:commands -->/.exec(
      readme,
    );
  const table = HELP_TEXT.split('\n').filter((line) => line.startsWith('|'));
  expect(table.length).toBeGreaterThan(5);
  expect(block?.[1]).toBe(table.join('\n'));
});
