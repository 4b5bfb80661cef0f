import { scanDialect, type ScanMode } from '../../src/core/plan/kinds/dialectScan.js';
import { scanSegments } from '../../src/core/plan/kinds/markdownDialect.js';

/**
 * Whether a document the line scanner refuses as a whole is read in pieces with both readers at
 * work: at least one piece read by the scanner and one by remark (see `scanSegments`), so that a
 * differential test holds both sides of a cut to remark.
 */
export function readInMixedPieces(source: string, mode: ScanMode): boolean {
  if (scanDialect(source, mode)) return false;
  const pieces = scanSegments(source, mode);
  return !!pieces && pieces.byRemark.length > 0 && pieces.byRemark.length < pieces.segments;
}

/**
 * Lines of tables GFM reads or not, then a rule: after a table, a thematic break; after a
 * paragraph of `|` lines, a heading's underline. Both kinds' generated documents hold them.
 */
export const TABLES_THEN_RULE = [
  '| a |',
  '|-|',
  '|:-:|--|',
  '| `a|b` | c |',
  '| a \\| b |',
  '|',
  '***',
] as const;
