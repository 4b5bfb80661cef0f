import type { Html } from 'mdast';
import type { Problem } from '../problem.js';
import { markdownLimitProblem, parseMarkdown } from './markdown.js';
import { detectEol } from './text.js';

export const CHECKPOINT_START = '<!-- coder-loop:checkpoint -->';
export const CHECKPOINT_END = '<!-- /coder-loop:checkpoint -->';

export interface CheckpointBlock {
  /** Offset just past the start marker. */
  innerStart: number;
  /** Offset of the end marker. */
  innerEnd: number;
}

/**
 * Finds the checkpoint markers as HTML nodes of the document, so markers quoted inside code
 * fences do not count. Returns problems when they are doubled or out of order.
 */
export function findCheckpoint(
  source: string,
  path: string,
): { block?: CheckpointBlock; problems: Problem[] } {
  const limit = markdownLimitProblem(source, path, 'Keep the context file small and flat.');
  if (limit) return { problems: [limit] };
  const starts: Html[] = [];
  const ends: Html[] = [];
  for (const node of parseMarkdown(source).children) {
    if (node.type !== 'html') continue;
    const value = node.value.trim();
    if (value === CHECKPOINT_START) starts.push(node);
    else if (value === CHECKPOINT_END) ends.push(node);
  }
  const problems: Problem[] = [];
  const fix = `Keep exactly one "${CHECKPOINT_START}" line followed by one "${CHECKPOINT_END}" line, or remove both.`;
  if (starts.length === 0 && ends.length === 0) return { problems };
  if (starts.length !== 1 || ends.length !== 1) {
    const at = (starts[1] ?? ends[1] ?? starts[0] ?? ends[0])!;
    problems.push({
      severity: 'error',
      path,
      line: at.position?.start.line,
      message: `The checkpoint markers are incomplete or repeated (${starts.length} start, ${ends.length} end).`,
      fix,
    });
    return { problems };
  }
  const start = starts[0]!;
  const end = ends[0]!;
  const innerStart = start.position!.end.offset!;
  const innerEnd = end.position!.start.offset!;
  if (innerEnd < innerStart) {
    problems.push({
      severity: 'error',
      path,
      line: end.position?.start.line,
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
