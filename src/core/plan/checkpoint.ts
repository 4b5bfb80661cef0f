import type { Problem } from '../problem.js';
import { markdownLimitProblem, parseMarkdown } from './markdown.js';
import { detectEol } from './text.js';

const MARKER_NAME = 'coder-loop:checkpoint';
export const CHECKPOINT_START = `<!-- ${MARKER_NAME} -->`;
export const CHECKPOINT_END = `<!-- /${MARKER_NAME} -->`;

export interface CheckpointBlock {
  /** Offset just past the start marker. */
  innerStart: number;
  /** Offset of the end marker. */
  innerEnd: number;
}

/** A marker as remark reads it: a top-level HTML node's offsets and line. */
interface Marker {
  start: number;
  end: number;
  line: number;
}

// A marker alone on its line, at column 0: a top-level HTML block of its own wherever it stands
// outside code, HTML and front matter (an HTML comment interrupts a paragraph, and a line at
// column 0 is in no list item, block quote or footnote).
const MARKER_LINE = /^<!-- \/?coder-loop:checkpoint -->[ \t]*$/;
// A line (after quote and list markers) that opens code or HTML: a marker after it may be inside.
const OPENS_CODE_OR_HTML = /^(?:[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t])*(?:<|```|~~~)/;

/**
 * The markers read line by line, or undefined where remark must read: a marker's text other than
 * alone at column 0, or a line that opens code, HTML or front matter. remark stays the authority:
 * test/core/checkpoint.test.ts holds the two to the same markers.
 */
function scanMarkers(source: string): { starts: Marker[]; ends: Marker[] } | undefined {
  if (!source.includes(MARKER_NAME)) return { starts: [], ends: [] };
  // Front matter, and a carriage return alone (a line ending to remark): remark reads those.
  if (/^(?:\ufeff)?(?:---|\+\+\+)|\r(?!\n)/.test(source)) return undefined;
  const starts: Marker[] = [];
  const ends: Marker[] = [];
  let line = 0;
  for (let at = 0; at <= source.length;) {
    line++;
    const lf = source.indexOf('\n', at);
    const next = lf === -1 ? source.length + 1 : lf + 1;
    const end = lf === -1 ? source.length : source[lf - 1] === '\r' ? lf - 1 : lf;
    const text = source.slice(at, end);
    if (MARKER_LINE.test(text)) {
      (text[5] === '/' ? ends : starts).push({ start: at, end, line });
    } else if (text.includes(MARKER_NAME) || OPENS_CODE_OR_HTML.test(text)) return undefined;
    at = next;
  }
  return { starts, ends };
}

/** The markers as remark reads them: top-level HTML nodes whose text is a marker. */
function parseMarkers(source: string): { starts: Marker[]; ends: Marker[] } {
  const starts: Marker[] = [];
  const ends: Marker[] = [];
  for (const node of parseMarkdown(source).children) {
    if (node.type !== 'html') continue;
    const value = node.value.trim();
    const { start, end } = node.position!;
    const marker = { start: start.offset!, end: end.offset!, line: start.line };
    if (value === CHECKPOINT_START) starts.push(marker);
    else if (value === CHECKPOINT_END) ends.push(marker);
  }
  return { starts, ends };
}

/**
 * Finds the checkpoint markers as HTML nodes of the document, so markers quoted inside code
 * fences do not count. Returns problems when they are doubled or out of order. A line reading
 * finds them where it is sure to agree with remark; `fast: false` reads with remark alone.
 */
export function findCheckpoint(
  source: string,
  path: string,
  options: { fast?: boolean } = {},
): { block?: CheckpointBlock; problems: Problem[] } {
  const limit = markdownLimitProblem(source, path, 'Keep the context file small and flat.');
  if (limit) return { problems: [limit] };
  const { starts, ends } =
    (options.fast !== false ? scanMarkers(source) : undefined) ?? parseMarkers(source);
  const problems: Problem[] = [];
  const fix = `Keep exactly one "${CHECKPOINT_START}" line followed by one "${CHECKPOINT_END}" line, or remove both.`;
  if (starts.length === 0 && ends.length === 0) return { problems };
  if (starts.length !== 1 || ends.length !== 1) {
    const at = (starts[1] ?? ends[1] ?? starts[0] ?? ends[0])!;
    problems.push({
      severity: 'error',
      path,
      line: at.line,
      message: `The checkpoint markers are incomplete or repeated (${starts.length} start, ${ends.length} end).`,
      fix,
    });
    return { problems };
  }
  const innerStart = starts[0]!.end;
  const innerEnd = ends[0]!.start;
  if (innerEnd < innerStart) {
    problems.push({
      severity: 'error',
      path,
      line: ends[0]!.line,
      message: 'The checkpoint end marker comes before its start marker.',
      fix,
    });
    return { problems };
  }
  return { block: { innerStart, innerEnd }, problems };
}

/**
 * Rewrites what lies between the checkpoint markers; nothing outside them changes. Without
 * markers, the block is appended at the end (after a blank line), in the file's line ending.
 * Throws when the markers are broken: the caller validates first.
 */
export function writeCheckpoint(source: string, path: string, lines: readonly string[]): string {
  const eol = detectEol(source);
  const body = lines.join(eol);
  const { block, problems } = findCheckpoint(source, path);
  if (problems.length > 0) throw new Error(problems[0]!.message);
  if (block) {
    return `${source.slice(0, block.innerStart)}${eol}${body}${eol}${source.slice(block.innerEnd)}`;
  }
  const lead = source === '' ? '' : source.endsWith('\n') ? eol : `${eol}${eol}`;
  return `${source}${lead}${CHECKPOINT_START}${eol}${body}${eol}${CHECKPOINT_END}${eol}`;
}

export interface Checkpoint {
  plan: string;
  /** ISO date-time of the update. */
  updated: string;
  completed?: { number: number | string; name: string };
  next?: { number: number | string; name: string };
  pullRequest?: { number: number; url: string };
  by?: string;
}

/** The checkpoint block's lines: what is done, what is next, where it happened. */
export function renderCheckpoint(checkpoint: Checkpoint): string[] {
  const phase = (p: { number: number | string; name: string }) =>
    `Phase ${p.number}${p.name ? `: ${p.name}` : ''}`;
  const lines = ['## Checkpoint', ''];
  lines.push(`- Updated: ${checkpoint.updated}${checkpoint.by ? ` by @${checkpoint.by}` : ''}`);
  if (checkpoint.completed) lines.push(`- Completed: ${phase(checkpoint.completed)}`);
  lines.push(
    `- Next: ${checkpoint.next ? `${phase(checkpoint.next)} (\`/coder next ${checkpoint.plan}\`)` : 'nothing, the plan is complete'}`,
  );
  if (checkpoint.pullRequest) {
    lines.push(
      `- Pull request: [#${checkpoint.pullRequest.number}](${checkpoint.pullRequest.url})`,
    );
  }
  return lines;
}
