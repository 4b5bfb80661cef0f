import fc from 'fast-check';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import type { Nodes } from 'mdast';
import {
  mayDefine,
  opensUnclosedFrontMatter,
  parseMarkdown,
  segmentCuts,
} from '../../src/core/plan/markdown.js';
import { fixSeed, runs } from '../helpers/seed.js';

fixSeed(import.meta.url);

const withFrontMatter = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml']);
const plain = unified().use(remarkParse).use(remarkGfm);
/** remark on the whole source; front matter only where it closes (an unclosed one loses lists). */
const whole = {
  parse: (source: string) =>
    (opensUnclosedFrontMatter(source) ? plain : withFrontMatter).parse(source),
};

/** Blocks chosen to stress segment cuts: unclosed fences and comments, HTML, front matter. */
const piece = fc.constantFrom(
  '# Heading',
  '## Phase 1: A',
  '### Phase 2',
  '- [ ] task',
  '  - [x] nested',
  '1. [~] ordered',
  '> - [ ] quoted',
  'paragraph text',
  '```',
  '~~~~',
  '```js',
  '    indented',
  '<!--',
  '-->',
  '<!-- one line -->',
  '<div>',
  '</div>',
  '<pre>',
  '</pre>',
  '---',
  '+++',
  'title: x',
  '',
  '| a | b |',
  '| - | - |',
  '[^1]: footnote',
  // Definitions count for the whole document: a reference before or after one is a link.
  '[foo]: /url',
  '- [bar]: /url "title"',
  'see [foo], [bar] and [^1]',
  '## Phase 3: [foo]',
  // Brackets and colons that define nothing, and labels that do in spite of escapes or lines.
  '- [ ] T1 commit `feat[ui]: x`',
  '- [ ] T2 [P] see [a\\]b] and [x\\\\] and [multi line]',
  '[a\\]b]: /u',
  '[x\\\\]: /y',
  '\\[esc]: /z',
  '[multi',
  'line]: /url',
  '  - note [P]: parallel',
);

const doc = fc
  .tuple(fc.array(piece, { minLength: 1, maxLength: 60 }), fc.constantFrom('\n', '\r\n'))
  .map(([lines, eol]) => lines.join(eol));

describe('parseMarkdown in segments', () => {
  it('gives exactly the tree remark gives for the whole source', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 1, max: 40 }), (source, segment) => {
        const expected = whole.parse(source).children;
        expect(parseMarkdown(source, segment).children).toEqual(expected);
      }),
      runs(500),
    );
  });

  it('reads an unclosed front matter fence as a thematic break, and keeps the list after it', () => {
    const types = (source: string) => parseMarkdown(source).children.map((c) => c.type);
    expect(types('---\n\n## Phase 1\n\n- [ ] x')).toEqual(['thematicBreak', 'heading', 'list']);
    expect(types('---\r\na: 1\r\n---  \r\n- [ ] x')).toEqual(['yaml', 'list']);
    expect(types('+++\na = 1\n+++\n- [ ] x')).toEqual(['toml', 'list']);
    expect(types('---\na: 1\n+++\n- [ ] x')).toEqual(['thematicBreak', 'paragraph', 'list']);
  });

  it('cuts a long document into segments and still agrees', () => {
    const lines: string[] = [];
    for (let p = 1; p <= 60; p++) {
      lines.push(`## Phase ${p}`, '', '```', '# not a heading', '```', '');
      for (let t = 1; t <= 30; t++) lines.push(`- [ ] ${p}.${t} task`, '  - [ ] nested');
    }
    const source = lines.join('\n');
    expect(parseMarkdown(source, 1024).children).toEqual(whole.parse(source).children);
  });
});

/** Whether remark's tree of the whole source holds a definition or a footnote definition. */
function defines(source: string): boolean {
  const stack: Nodes[] = [whole.parse(source)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'definition' || node.type === 'footnoteDefinition') return true;
    if ('children' in node) stack.push(...(node.children as Nodes[]));
  }
  return false;
}

describe('mayDefine: whether a source is read whole for its definitions', () => {
  it('is true for every source remark finds a definition in', () => {
    fc.assert(
      fc.property(doc, (source) => {
        if (defines(source)) expect(mayDefine(source)).toBe(true);
      }),
      runs(1000),
    );
  });

  it('passes over brackets and colons that open no label at a line start', () => {
    // A commit message in a task's detail, a label after text: no definition, so the plan is read
    // in pieces (the nearest `[` before `]:` is inside the line, and a label holds no other).
    const commit = '- [ ] T001 Add search\n  - commit: `feat[ui]: add search box`\n';
    expect(defines(commit)).toBe(false);
    expect(mayDefine(commit)).toBe(false);
    expect(mayDefine('- [ ] T002 [P] x\n  - note [P]: parallel\n')).toBe(false);
    expect(mayDefine('\\[esc]: /z\n')).toBe(false);
    // Labels remark reads as definitions: escaped brackets inside, a label over two lines.
    for (const source of [
      '[a\\]b]: /u\n',
      '- [foo]: /url\n',
      '[multi\nline]: /url\n',
      '> [^1]: note\n',
    ]) {
      expect(defines(source)).toBe(true);
      expect(mayDefine(source)).toBe(true);
    }
  });
});

describe('segmentCuts', () => {
  it('cuts before column-0 headings, not inside fenced code, with either line ending', () => {
    for (const eol of ['\n', '\r\n']) {
      const source = ['# Tasks', '', '```bash', '# a comment', '```', '## Phase 1', '- [ ] x'].join(
        eol,
      );
      const cuts = segmentCuts(source);
      expect(cuts.map((c) => source.slice(c, c + 5))).toEqual(['# Tas', '## Ph', '']);
    }
  });
});
