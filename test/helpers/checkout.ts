import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Scratch checkouts for one test file: a temporary folder made before its tests and removed after
 * them; the function returned writes a checkout's files (path → text) into a fresh folder in it.
 */
export function scratchCheckouts(prefix: string): (files: Record<string, string>) => string {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return (files) => {
    const dir = mkdtempSync(join(root, 'repo-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };
}
