import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../paths.js';

/**
 * The real plans people wrote, kept beside the clone (`../shared/corpus/real-plans`, or where
 * CODER_LOOP_CORPUS names): data read in place, never copied into the repository. Undefined
 * when the folder is absent (a clone on its own): tests then check the generated documents only.
 */
export function corpusDir(): string | undefined {
  const dir =
    process.env.CODER_LOOP_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus', 'real-plans');
  return existsSync(dir) ? dir : undefined;
}

export interface CorpusFile {
  /** The path inside the corpus, such as `kiro/01-…/tasks.md`. */
  path: string;
  /** The plan kind its folder holds (`speckit`, `kiro`, `taskmaster`, `other`). */
  kind: string;
  source: string;
}

/** Every file of the corpus (its README's notes aside), sorted by path; empty when absent. */
export function corpusFiles(): CorpusFile[] {
  const dir = corpusDir();
  if (!dir) return [];
  const out: CorpusFile[] = [];
  const visit = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) visit(path);
      else {
        const rel = relative(dir, path).split('\\').join('/');
        if (!rel.includes('/')) continue; // ORACLE.md, SOURCES.md
        out.push({ path: rel, kind: rel.split('/')[0]!, source: readFileSync(path, 'utf8') });
      }
    }
  };
  visit(dir);
  return out;
}
