import * as z from 'zod';

/** The file modes an agent's change may have: a file, an executable, a symbolic link. */
const FILE_MODES = ['100644', '100755', '120000'] as const;
export type FileMode = (typeof FILE_MODES)[number];

/** What the loop applies of one agent run, at most. */
const CHANGE_LIMITS = {
  files: 300,
  fileBytes: 1024 * 1024,
  totalBytes: 10 * 1024 * 1024,
} as const;
export type ChangeLimits = { files: number; fileBytes: number; totalBytes: number };

const AgentChangeSchema = z.union([
  z.strictObject({
    path: z.string().min(1).max(4096),
    mode: z.string(),
    /** The file's bytes (the link target for mode 120000), base64. */
    content: z.string().max(Math.ceil((CHANGE_LIMITS.totalBytes * 4) / 3) + 4),
  }),
  z.strictObject({ path: z.string().min(1).max(4096), deleted: z.literal(true) }),
]);
export type AgentChange = z.infer<typeof AgentChangeSchema>;

/** How the agent's run ended, as `step: agent` saw it. */
const AGENT_OUTCOMES = ['changed', 'no-change', 'failed', 'timed-out', 'stale', 'paused'] as const;
export type AgentOutcome = (typeof AGENT_OUTCOMES)[number];

/** `changes-dir/changes.json`: what `step: agent` hands to `step: apply`. */
export const ChangeSetSchema = z.strictObject({
  version: z.literal(1),
  headSha: z.string().regex(/^[0-9a-f]{40}$/),
  outcome: z.enum(AGENT_OUTCOMES),
  /** Why the run produced nothing to apply (exit code, timeout, stale head). */
  reason: z.string().max(2000).optional(),
  /** `paused`: the provider's usage or rate limit stopped the agent (limit.ts); when it resets. */
  pause: z
    .strictObject({
      reason: z.string().max(1000),
      until: z.string().datetime().optional(),
    })
    .optional(),
  changes: z.array(AgentChangeSchema).max(10_000),
});
export type ChangeSet = z.infer<typeof ChangeSetSchema>;

export type ValidChange =
  { path: string; mode: FileMode; bytes: Buffer } | { path: string; deleted: true };

/** Why a repository path cannot be written by an agent, or undefined when it can. */
function pathProblem(path: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'holds a control character';
  if (path.includes('\\')) return 'holds a backslash';
  if (path.startsWith('/')) return 'is absolute';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'has an empty segment (// or a trailing /)';
  if (segments.some((s) => s === '..')) return 'holds ".."';
  if (segments.some((s) => s === '.')) return 'holds "."';
  if (segments.some((s) => s.toLowerCase() === '.git')) return 'is inside .git';
  return undefined;
}

/** Where the agent may not write: `.github/` (workflows, the config) and the plans folder. */
function protectedArea(path: string, plansDir: string): string | undefined {
  const lower = path.toLowerCase();
  if (lower === '.github' || lower.startsWith('.github/'))
    return ".github/ is not the agent's (workflows and the loop's config)";
  const dir = plansDir.replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (dir === '' || dir === '.' || path === dir || path.startsWith(`${dir}/`))
    return `the plan documents under ${dir || '.'}/ are the loop's and the architect's`;
  return undefined;
}

/** A symbolic link's target stays inside the repository: relative and never above the root. */
function linkProblem(path: string, target: string): string | undefined {
  if (target === '' || target.includes('\0')) return 'is a symbolic link with an empty target';
  if (target.startsWith('/')) return 'is a symbolic link to an absolute path';
  let depth = path.split('/').length - 1;
  for (const segment of target.split('/')) {
    if (segment === '..') depth--;
    else if (segment !== '.' && segment !== '') depth++;
    if (depth < 0) return 'is a symbolic link that leaves the repository';
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The agent's change set, checked before anything is written: paths normalised (no `..`, no
 * absolute path, no `.git`), `.github/` and the plan documents refused, modes 100644, 100755 and
 * 120000 only, at most `limits.files` files of `limits.fileBytes` each and `limits.totalBytes`
 * in all. Every problem is listed; one problem refuses the whole set.
 */
export function validateChanges(
  changes: readonly AgentChange[],
  plansDir: string,
  limits: ChangeLimits = CHANGE_LIMITS,
): { ok: true; changes: ValidChange[] } | { ok: false; problems: string[] } {
  const { valid, problems } = checkEntries(changes, plansDir, limits);
  return problems.length ? { ok: false, problems } : { ok: true, changes: valid };
}

/** `validateChanges`' checks: the entries that pass, and every problem. */
export function checkEntries(
  changes: readonly AgentChange[],
  plansDir: string,
  limits: ChangeLimits = CHANGE_LIMITS,
): { valid: ValidChange[]; problems: string[] } {
  const problems: string[] = [];
  const valid: ValidChange[] = [];
  const seen = new Set<string>();
  let total = 0;
  if (changes.length > limits.files)
    problems.push(`${changes.length} files changed; at most ${limits.files} are applied at once`);
  for (const change of changes) {
    const name = JSON.stringify(change.path);
    const problem = pathProblem(change.path) ?? protectedArea(change.path, plansDir);
    if (problem) {
      problems.push(`${name} ${/^(holds|has|is) /.test(problem) ? problem : `— ${problem}`}`);
      continue;
    }
    if (seen.has(change.path)) {
      problems.push(`${name} is listed twice`);
      continue;
    }
    seen.add(change.path);
    if ('deleted' in change) {
      valid.push({ path: change.path, deleted: true });
      continue;
    }
    if (!(FILE_MODES as readonly string[]).includes(change.mode)) {
      problems.push(`${name} has mode ${change.mode}; only 100644, 100755 and 120000 are applied`);
      continue;
    }
    if (!BASE64.test(change.content) || change.content.length % 4 !== 0) {
      problems.push(`${name} has content that is not base64`);
      continue;
    }
    const bytes = Buffer.from(change.content, 'base64');
    if (bytes.length > limits.fileBytes) {
      problems.push(`${name} is ${bytes.length} bytes; at most ${limits.fileBytes} per file`);
      continue;
    }
    total += bytes.length;
    if (change.mode === '120000') {
      const link = linkProblem(change.path, bytes.toString('utf8'));
      if (link) {
        problems.push(`${name} ${link}`);
        continue;
      }
    }
    valid.push({ path: change.path, mode: change.mode as FileMode, bytes });
  }
  if (total > limits.totalBytes)
    problems.push(`the changes hold ${total} bytes; at most ${limits.totalBytes} in all`);
  // A path that is a file and a folder at once cannot be one tree.
  const written = valid.filter((c) => !('deleted' in c)).map((c) => c.path);
  const all = new Set(written);
  for (const path of written) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (all.has(parent)) problems.push(`${JSON.stringify(parent)} is both a file and a folder`);
    }
  }
  return { valid, problems };
}

/** Valid UTF-8 text that survives a round trip, so it can go into a tree inline. */
export function asText(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) && !text.includes('\0') ? text : undefined;
}
