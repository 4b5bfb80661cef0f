/**
 * Untrusted text (issue titles, comments, logins, plan names) echoed into a GitHub comment or
 * check run: markdown characters are escaped and mentions are defused, so the text shows as
 * written and can neither ping people nor inject links, images or HTML.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .replace(/([\\`*_{}[\]()#+\-.!|<>~])/g, '\\$1')
      .replace(/@/g, '@\u200b')
  );
}

/** Text for inside a `code span`: backticks cannot close it early. */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A path inside a URL: each segment percent-encoded (plan paths have spaces). */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
