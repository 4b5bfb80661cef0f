import { sanitizeUntrusted } from './redact.js';

/**
 * The agent's words as the loop may show them: no dependency beyond the sanitiser, so what
 * renders a phase report (the CLI's `report`) loads no schema library for it.
 */

/** HTML shown as text, mentions that ping no one, images and links that load and lead nowhere. */
export function defuse(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/@(?=[A-Za-z0-9])/g, '@\u200b')
      .replace(/!\[/g, '\\![')
      // `[text](url)` and `[text][ref]` stay text; a bare URL is not linked.
      .replace(/\]\(/g, ']\\(')
      .replace(/\]\[/g, ']\\[')
      // `[ref]: //host/x` defines no reference (its URL needs no scheme), so `[ref]` stays text.
      .replace(/\]:/g, ']\\:')
      .replace(/\b([a-z][a-z0-9+.-]*):\/\//gi, '$1:/\u200b/')
      .replace(/\bwww\./gi, 'www\u200b.')
  );
}

/**
 * Text the agent or its changes produced that goes inside the loop's own sentence (a reason, on
 * the PR, the issue, the check run): sanitised and defused like a summary, and on one line.
 */
export function escapeInline(text: string, limit = 500): string {
  let flat = sanitizeUntrusted(text).replace(/\s+/g, ' ').trim();
  if (flat.length > limit) flat = `${flat.slice(0, limit)}…`;
  return defuse(flat).replace(/[`*_#|~]/g, '\\$&');
}
