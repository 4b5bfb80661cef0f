/**
 * What the loop writes into its pull requests and commits so that later events — on any
 * replica, or in the Action — can tell which plan, phase, issue and command they belong to.
 * State lives on GitHub, never in memory.
 */
export interface LoopMarker {
  mode: 'plan' | 'quick';
  plan?: string;
  phase?: number;
  issue: number;
  /** The comment that started it (absent when a label did). */
  comment?: number;
}

const PREFIX = '<!-- coder-loop ';
const SUFFIX = ' -->';

/** An HTML comment holding the marker as JSON (`<` and `>` escaped, so it cannot end early). */
export function renderMarker(marker: LoopMarker): string {
  const json = JSON.stringify(marker).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  return `${PREFIX}${json}${SUFFIX}`;
}

export function readMarker(text: string | null | undefined): LoopMarker | undefined {
  if (!text) return undefined;
  const start = text.indexOf(PREFIX);
  if (start === -1) return undefined;
  const end = text.indexOf(SUFFIX, start + PREFIX.length);
  if (end === -1) return undefined;
  try {
    const value = JSON.parse(text.slice(start + PREFIX.length, end)) as Partial<LoopMarker>;
    if ((value.mode !== 'plan' && value.mode !== 'quick') || typeof value.issue !== 'number') {
      return undefined;
    }
    return value as LoopMarker;
  } catch {
    return undefined;
  }
}
