import { unified } from 'unified';

const ONCE = Symbol('remarkOnce');

/**
 * remark reads each text once in this suite (issue 42): a differential suite reads the same
 * document with several readers, each both ways (the fast path, and remark alone), and every
 * reader's remark side parsed it again — a real plan of the shared corpus up to eight times,
 * most of the suite's time. Here unified's `parse` keeps the tree it made for a text and hands
 * each later caller of the same processor with the same text a deep copy of it: the very tree
 * remark gives for that text (parsing is a pure function of the processor and the text), which no
 * caller can change for the next. Nothing else changes: every reader still asks remark, remark
 * still reads every text, and what the readers make of the tree is compared as before.
 *
 * A long document is parsed in pieces (src/core/plan/markdown.ts), each one a text of its own
 * here. The trees are kept until each test's end (one document, or one property's documents).
 */
export function remarkOnce(): void {
  const proto = Object.getPrototypeOf(unified()) as { parse: (file?: unknown) => unknown };
  const parse = proto.parse;
  if (ONCE in parse) return;
  const trees = new Map<unknown, Map<string, unknown>>();
  afterEach(() => trees.clear());
  proto.parse = Object.assign(
    function (this: unknown, file?: unknown) {
      if (typeof file !== 'string') return parse.call(this, file);
      let byText = trees.get(this);
      if (!byText) trees.set(this, (byText = new Map()));
      let tree = byText.get(file);
      if (tree === undefined) {
        tree = parse.call(this, file);
        byText.set(file, tree);
      }
      return structuredClone(tree);
    },
    { [ONCE]: true },
  );
}
