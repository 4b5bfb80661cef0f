import { createRequire } from 'node:module';
import type { remarkTree as RemarkTree } from '../core/plan/remark.js';

/**
 * What the CLI's bundle puts in place of src/core/plan/remark.ts (scripts/bundle-cli.js): the
 * same function, but remark itself lives in lib/bundle/remark.cjs, beside the bundle's chunks,
 * and is loaded (synchronously: the readers are) the first time a file needs it. A command whose
 * plans the line scanners read alone never loads or compiles remark and micromark.
 */
let tree: typeof RemarkTree | undefined;

export function remarkTree(source: string, frontMatter: boolean): ReturnType<typeof RemarkTree> {
  tree ??= (createRequire(import.meta.url)('./remark.cjs') as { remarkTree: typeof RemarkTree })
    .remarkTree;
  return tree(source, frontMatter);
}
