import { codeSpan, encodePath, escapeMarkdown } from '../../markdown.js';
import type { SpecVerdict, TaskStatus } from './specEvidence.js';

/** Most characters of the table in a check run (GitHub's summary holds 65,535). */
const TABLE_CHARS = 40_000;

const STATUS_MARK: Record<TaskStatus, string> = {
  missing: '❌ missing',
  evidence: '✅ evidence',
  unchecked: '➖ nothing checkable',
  done: '✔️ done before',
  optional: '➖ optional',
};

/**
 * The verdict as markdown: one row per task (those lacking evidence first), the test rule under
 * it, file and test paths linked at `sha`. Bounded: past the limit, the rest are counted.
 */
export function specTable(
  verdict: SpecVerdict,
  link?: { repoUrl: string; sha: string },
  limit = TABLE_CHARS,
): string {
  const at = (path: string) =>
    link
      ? `[${codeSpan(path)}](${link.repoUrl}/blob/${link.sha}/${encodePath(path)})`
      : codeSpan(path);
  // Only what reads as a path is linked (a folder or a file name with an extension): task and
  // requirement ids (`1.2`, `T003`) stay text.
  const isPath = (p: string) => !p.includes(' ') && (p.includes('/') || /\.[A-Za-z]\w*$/.test(p));
  const lined = (text: string) =>
    text.replace(/`([^`]+)`/g, (_m, p: string) => (link && isPath(p) ? at(p) : codeSpan(p)));
  const order: TaskStatus[] = ['missing', 'evidence', 'unchecked', 'optional', 'done'];
  const rows = [...verdict.tasks].sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  const out = [
    `**Passes Spec?** ${verdict.passed ? 'yes' : 'no'} — ${rows.filter((r) => r.status === 'evidence').length} of ${rows.length} tasks traced to evidence, ${rows.filter((r) => r.status === 'missing').length} lacking.`,
    '',
    '| task | | evidence |',
    '| --- | --- | --- |',
  ];
  let size = out.join('\n').length;
  let shown = 0;
  for (const r of rows) {
    // The id once: a task whose text starts with it (`T012 …`, `1.2 …`) is shown after it.
    const own = r.text.startsWith(`${r.id} `) ? r.text.slice(r.id.length + 1) : r.text;
    const text = escapeMarkdown(own.replace(/\s+/g, ' ').slice(0, 120)).replace(/\|/g, '\\|');
    const row = `| ${codeSpan(r.id)} ${text} | ${STATUS_MARK[r.status]} | ${lined(r.line).replace(/\|/g, '\\|')} |`;
    if (size + row.length > limit) break;
    out.push(row);
    size += row.length + 1;
    shown++;
  }
  if (shown < rows.length) out.push(`| … | | ${rows.length - shown} more tasks not shown |`);
  out.push('', `${verdict.testRule.passed ? '✅' : '❌'} ${verdict.testRule.line}`);
  return out.join('\n');
}
