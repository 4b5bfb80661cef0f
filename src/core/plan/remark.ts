import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import type { Root } from 'mdast';

/**
 * remark, the markdown parser every reader's fast path is held to, and the only module that
 * imports it: the CLI's bundle puts it in a file of its own (lib/bundle/remark.cjs), loaded the
 * first time a file needs it (src/cli/remarkOnDemand.ts), so a call whose plans the line scanners
 * read alone never loads or compiles it.
 */

// Processors, built once: GFM for task-list items, front matter so it is never read as tasks.
const withFrontMatter = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml']);
const withoutFrontMatter = unified().use(remarkParse).use(remarkGfm);

/** remark's tree of `source` (GFM), reading front matter on its first line unless told not to. */
export function remarkTree(source: string, frontMatter: boolean): Root {
  return (frontMatter ? withFrontMatter : withoutFrontMatter).parse(source);
}
