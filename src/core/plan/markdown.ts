import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import type { Root } from 'mdast';

// One processor, built once: GFM for task-list items, front matter so it is never read as tasks.
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml']);

/** The mdast of a markdown source, with positions (offsets index into `source`). */
export function parseMarkdown(source: string): Root {
  return processor.parse(source);
}
