/**
 * Text from outside the loop's control (CI logs, review comments, plan documents) on its way into
 * an agent's prompt or a PR comment: credentials redacted, hidden channels (HTML comments,
 * invisible and bidirectional characters) removed. After claude-code-action's sanitizer.
 */

const REDACTED = '[REDACTED]';

/** ANSI colour and cursor sequences (CSI, and OSC such as terminal hyperlinks). */
const ANSI =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-9;?]*[ -/]*[@-~]/g;

/** Credential formats worth catching wherever they appear. */
const SECRET_PATTERNS: readonly RegExp[] = [
  // PEM and OpenSSH keys, and PGP's "PRIVATE KEY BLOCK".
  /-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // A PuTTY key file, from its first line to its MAC.
  /PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:[ \t]*\S+|$)/g,
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]+/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}/g,
  /github_pat_[A-Za-z0-9_]{22,}/g,
  /sk-ant-[A-Za-z0-9_-]{20,}/g,
  /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /xox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
];

/** `Authorization: Bearer x`, `password=x`, `"api_key": "x"`: the name stays, the value goes. */
const ASSIGNMENT =
  /((?:authorization|proxy-authorization)\s*:\s*(?:bearer|basic|token)\s+|\b[\w.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key)["']?\s*[:=]\s*["']?)([^\s"',;]{4,})/gi;

/** `--token X`, `--password=X`, `docker login -p X`, `-u user:token`: the flag stays. */
const FLAGS: readonly RegExp[] = [
  /((?:^|\s)--?(?:token|password|passwd|pass|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)(?:=|\s+))(?!-)([^\s"']+)/gim,
  // `-p` is a password only for logins and database clients (`mkdir -p dir` is not).
  /(\b(?:(?:docker|podman|buildah|skopeo|helm|nerdctl|oras)\s+(?:registry\s+)?login|mysql(?:dump|admin)?|mariadb|sshpass)\b[^\n]*?\s-p\s*)(?!-)([^\s"']+)/g,
  /((?:^|\s)(?:-u|--user)(?:=|\s+)[^\s:"']+:)(?!\/\/)([^\s"']+)/gm,
];

/** `scheme://user:password@host` */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi;

/**
 * Credentials out of `text`: well-known token formats, `name=value` assignments of secret-looking
 * names, URL credentials, and every value in `known` (the agent's own variables) verbatim.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is redacted whole.
  for (const value of [...known].filter((v) => v.length >= 6).sort((a, b) => b.length - a.length))
    out = out.split(value).join(REDACTED);
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  for (const flag of FLAGS)
    out = out.replace(flag, (_m, name: string, value: string) =>
      value === REDACTED ? `${name}${value}` : `${name}${REDACTED}`,
    );
  out = out.replace(ASSIGNMENT, (_m, name: string, value: string) =>
    value === REDACTED ? `${name}${value}` : `${name}${REDACTED}`,
  );
  return out;
}

/**
 * Hidden channels out of untrusted text: HTML comments, zero-width, bidirectional-override and
 * control characters (newlines and tabs kept), then credentials.
 */
export function sanitizeUntrusted(text: string, known: readonly string[] = []): string {
  const visible = text
    .replace(ANSI, '')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    // Markdown's comment idiom: a link reference definition nothing uses, `[//]: # (hidden)`.
    .replace(/^ {0,3}\[(?:\/\/|comment)\]:[^\n]*(?:\n|$)/gim, '')
    .replace(/^ {0,3}\[[^\]\n]+\]:[ \t]*(?:#|<>)(?:[ \t][^\n]*)?(?:\n|$)/gm, '')
    // Unicode tag characters: invisible, and read by models as text.
    .replace(/[\u{E0000}-\u{E007F}]/gu, '')
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
    .replace(/[\u202A-\u202E\u2066-\u2069]/g, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g, '');
  return redactSecrets(visible, known);
}

const LOG_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm;

const LOG_TAIL = { lines: 150, chars: 12_000 } as const;

/** The end of a CI log, as an agent needs it: plain, short, no credentials. */
export function logTail(
  log: string,
  known: readonly string[] = [],
  limits: { lines: number; chars: number } = LOG_TAIL,
): string {
  // Redacted before the cut too, so a secret cut in half by it is not left standing.
  const plain = redactSecrets(
    log.replace(ANSI, '').replace(LOG_TIMESTAMP, '').replace(/\r\n?/g, '\n'),
    known,
  );
  let tail = plain.trimEnd().split('\n').slice(-limits.lines).join('\n');
  if (tail.length > limits.chars) tail = tail.slice(tail.length - limits.chars);
  return sanitizeUntrusted(tail, known);
}
