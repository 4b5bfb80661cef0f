import { detectEol, oneLine } from './text.js';

export interface LogLink {
  label: string;
  url: string;
}

export interface LogEntry {
  /** ISO-8601 time of the event. */
  timestamp: string;
  /** "Coder started", "Coder completed", "Escalated to architect", … */
  event: string;
  plan: string;
  phase?: { number: number | string; name: string };
  /** GitHub login or local user name, without `@`. */
  actor?: string;
  links?: LogLink[];
  note?: string;
}

export const MASTER_LOG_TITLE = '# Master Log';

function escapeInline(text: string): string {
  return oneLine(text).replace(/([\\`*_[\]<>|])/g, '\\$1');
}

/** One line of markdown: `- 2026-11-22T21:56:00Z — **Coder started** — Example, Phase 1: Setup — @alice — [#12](…)`. */
export function renderLogEntry(entry: LogEntry): string {
  const parts = [oneLine(entry.timestamp), `**${escapeInline(entry.event)}**`];
  const where = entry.phase
    ? `${escapeInline(entry.plan)}, Phase ${entry.phase.number}${entry.phase.name ? `: ${escapeInline(entry.phase.name)}` : ''}`
    : escapeInline(entry.plan);
  parts.push(where);
  if (entry.actor) parts.push(`@${escapeInline(entry.actor)}`);
  if (entry.note) parts.push(escapeInline(entry.note));
  for (const link of entry.links ?? []) {
    parts.push(
      `[${escapeInline(link.label)}](${encodeURI(oneLine(link.url)).replace(/[()]/g, encodeURIComponent)})`,
    );
  }
  return `- ${parts.join(' — ')}`;
}

/**
 * Appends one entry to the master log: bytes are added at the end only, in the file's own line
 * ending. A file without a final newline gets one first; an absent (empty) log gets a title.
 */
export function appendLogEntry(log: string | undefined, entry: LogEntry): string {
  const existing = log ?? '';
  const eol = detectEol(existing);
  const line = renderLogEntry(entry);
  if (existing === '') return `${MASTER_LOG_TITLE}${eol}${eol}${line}${eol}`;
  const separator = existing.endsWith('\n') ? '' : eol;
  return `${existing}${separator}${line}${eol}`;
}

/**
 * Whether the log's latest entry of `event` for this plan and phase comes after its latest
 * "Coder started" — so a step that is repeated (a second approval after a red final
 * verification) does not log "Coder completed" twice for one attempt.
 */
export function loggedSinceStart(
  log: string | undefined,
  event: string,
  plan: string,
  phase: number | string,
): boolean {
  if (!log) return false;
  const where = `— ${escapeInline(plan)}, Phase ${phase}`;
  let started = -1;
  let logged = -1;
  log.split(/\r?\n/).forEach((line, i) => {
    if (!line.includes(where)) return;
    if (line.includes('**Coder started**')) started = i;
    if (line.includes(`**${escapeInline(event)}**`)) logged = i;
  });
  return logged > started;
}
