import { load, YAMLException } from 'js-yaml';
import * as z from 'zod';
import { CONFIG_PATH } from './configPath.js';
import { KIND_LABELS, type PlanKind } from './plan/kinds/discovery.js';
import type { Problem } from './problem.js';
import { closest } from './spelling.js';

/** A config larger than this is refused before it is parsed. */
const MAX_CONFIG_BYTES = 64 * 1024;

const login = z
  .string()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9._-]+)?$/,
    'must be a GitHub login ("alice") or a team ("my-org/architects")',
  );

/**
 * A folder of the repository as git names it, from what people write: `./docs/plans/`,
 * `docs//plans` and `docs\\plans` are `docs/plans`. A path that names no folder inside the
 * repository (absolute, with `..`, or the root itself) is refused with the reason.
 */
function normaliseFolder(raw: string): { value: string } | { error: string } {
  const path = raw.trim().replace(/\\/g, '/');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
    return { error: `must be a folder relative to the repository root, not the absolute "${raw}"` };
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..'))
    return { error: 'must be a path inside the repository, without ".."' };
  if (segments.length === 0)
    return { error: 'must name a folder inside the repository, not its root or ""' };
  return { value: segments.join('/') };
}

/**
 * A glob of repository paths (picomatch), as the loop matches it against paths from the root:
 * `./src/**` and `src//core/**` are `src/**` and `src/core/**`; a trailing `/` means everything
 * under the folder (`src/core/` is `src/core/**`). A leading `!` is kept. A glob that can match no
 * repository path (absolute, or with a `..` segment) is refused with the reason.
 */
function normaliseGlob(raw: string): { value: string } | { error: string } {
  const negated = raw.startsWith('!');
  const body = negated ? raw.slice(1) : raw;
  if (body.startsWith('/'))
    return {
      error: `is matched against paths from the repository root, which never start with "/": write "${body.replace(/^\/+/, '')}"`,
    };
  const segments = body.split('/');
  if (segments.includes('..'))
    return { error: 'must match paths inside the repository, without ".."' };
  const folder = body.endsWith('/');
  const kept = segments.filter((s) => s !== '' && s !== '.');
  if (kept.length === 0) return { error: 'must match some path of the repository' };
  return { value: `${negated ? '!' : ''}${kept.join('/')}${folder ? '/**' : ''}` };
}

/**
 * A string checked by `normalise` and replaced by its normal form (`overwrite` keeps the type a
 * plain string, so the JSON Schema keeps its default).
 */
function normalised(normalise: (raw: string) => { value: string } | { error: string }) {
  return z
    .string()
    .min(1, { abort: true })
    .check((ctx) => {
      const result = normalise(ctx.value);
      if ('error' in result)
        ctx.issues.push({ code: 'custom', message: result.error, input: ctx.value });
    })
    .overwrite((raw) => {
      const result = normalise(raw);
      return 'value' in result ? result.value : raw;
    });
}

const relativeDir = normalised(normaliseFolder);
const glob = normalised(normaliseGlob);

export const AgentConfigSchema = z.strictObject({
  command: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .describe(
      'The coding agent: a command run with bash in the checkout (the prompt is in $CODER_PROMPT_FILE). Setting it turns the hand-off on.',
    ),
  timeoutMinutes: z
    .number()
    .int()
    .min(1)
    .max(360)
    .default(30)
    .describe("The agent's process group is killed past this many minutes."),
  keepPartialWork: z
    .boolean()
    .default(false)
    .describe(
      "When the agent runs out of time, commit what it changed so far as one commit marked partial (still a failed attempt), so the next attempt starts from it; when it stops at its provider's limit, the same commit, and the paused node resumes from it. Off: a timed-out or paused run's changes are discarded.",
    ),
  maxReviewRounds: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(3)
    .describe('Review-fix rounds handed to the agent before escalation to the architects.'),
  maxPauses: z
    .number()
    .int()
    .min(0)
    .max(50)
    .default(3)
    .describe(
      "Pauses at the provider's usage or rate limit a phase may take (each resumes by itself at the reset); one more escalates to the architects.",
    ),
  pauseMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60)
    .describe('How long a pause lasts when the agent CLI does not say when its limit resets.'),
  env: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
        .refine((name) => !/^(CODER_|GITHUB_|ACTIONS_|RUNNER_|INPUT_)/.test(name), {
          message:
            'must not be a CODER_, GITHUB_, ACTIONS_, RUNNER_ or INPUT_ variable (the loop sets or withholds those)',
        }),
    )
    .max(50)
    .default([])
    .describe(
      'Names of the only environment variables passed through to the agent (besides PATH, HOME and CODER_*), e.g. its API key.',
    ),
});

/** A budget's limit per phase and per `/coder run`; absent means no limit. */
function budgetLimit(integer: boolean) {
  const n = integer ? z.number().int().positive() : z.number().positive();
  return z
    .strictObject({
      phase: n.optional().describe('The limit for one phase.'),
      run: n.optional().describe('The limit for a whole /coder run.'),
    })
    .optional();
}

export const ConfigSchema = z
  .strictObject({
    plansDir: relativeDir.default('docs/plans').describe('Folder that holds one folder per plan.'),
    plans: z
      .array(glob)
      .min(1)
      .optional()
      .describe(
        `Globs of the tasks files the loop runs, of every kind (${(Object.keys(KIND_LABELS) as PlanKind[]).map((k) => KIND_LABELS[k]).join(', ')}). Absent: the default places of each kind (docs/plan-format.md).`,
      ),
    architects: z
      .array(login)
      .default([])
      .describe(
        'Who escalations go to: logins or org/team. Their approval may touch locked paths.',
      ),
    reviewers: z
      .array(login)
      .default([])
      .describe('Review is requested from them when CI passes on a loop pull request.'),
    allowSelfApproval: z
      .boolean()
      .default(false)
      .describe(
        'Let an approval count from someone who pushed commits to the loop branch. Off: the approval must come from another person with write access.',
      ),
    locked: z
      .array(glob)
      .default([])
      .describe('Globs of paths only an architect may approve changes to (picomatch syntax).'),
    testPaths: z
      .array(glob)
      .default(['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**'])
      .describe(
        'Globs of test files. In plan mode a pull request that changes code outside documentation and configuration must change one of them (Passes Spec?); [] turns that rule off.',
      ),
    specCheck: z
      .enum(['require', 'report', 'off'])
      .default('require')
      .describe(
        'Passes Spec? in plan mode: each task of the phase traced to evidence in the pull request. require: missing evidence goes back to implementation (Revise Code); report: the table is shown, nothing is blocked; off: no table and no test rule.',
      ),
    requiredChecks: z
      .array(
        z
          .string()
          .min(1)
          .refine((name) => name !== 'coder-loop', {
            message:
              "must not name coder-loop: that is the loop's own check, not CI (name the CI jobs to wait for)",
          }),
      )
      .default([])
      .describe(
        'Names of the checks that gate a loop pull request. Empty: every check but coder-loop.',
      ),
    ciStallMinutes: z
      .number()
      .int()
      .min(0)
      .max(10_080)
      .default(30)
      .describe(
        "Minutes a loop pull request head may wait with no CI at all (no check run or commit status but the loop's) before its issue is told, once per head, which CI the loop waits for and how to fix it (by the Action's scheduled sweep, coder-resume.yml, and on /coder status). 0: never.",
      ),
    maxRetries: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(3)
      .describe('Failed CI attempts (distinct head commits) before escalation to the architects.'),
    rerun: z
      .strictObject({
        infrastructure: z
          .boolean()
          .default(true)
          .describe(
            'Re-run (through the API) a GitHub Actions run that was cancelled, never started (startup_failure), went stale, or failed before any of its steps ran, instead of counting an attempt.',
          ),
        failures: z
          .boolean()
          .default(false)
          .describe(
            'Re-run a failing GitHub Actions job once before it counts as an attempt: one that passes on the re-run is named flaky, and no attempt or agent run is spent on it.',
          ),
        perHead: z
          .number()
          .int()
          .min(1)
          .max(5)
          .default(2)
          .describe(
            'Most re-runs the loop asks on one head; an infrastructure failure that outlasts them escalates to the architects.',
          ),
      })
      .prefault({})
      .describe('Triage: what the loop re-runs before a red head counts as a failed attempt.'),
    budget: z
      .strictObject({
        failedAttempts: budgetLimit(true).describe(
          'Failed attempts (CI and agent runs) a phase, and a /coder run, may spend.',
        ),
        agentMinutes: budgetLimit(false).describe(
          'Minutes of coding-agent runs a phase, and a /coder run, may spend.',
        ),
        costUsd: budgetLimit(false).describe(
          'Cost in USD of coding-agent runs (as the agent reports it) a phase, and a /coder run, may spend.',
        ),
      })
      .default({})
      .describe(
        'Budgets counted by the loop across retries, each per phase and per /coder run. A spent budget escalates with the figures. Absent: no limit.',
      ),
    autoMerge: z
      .boolean()
      .default(false)
      .describe('Merge the phase pull request once final verification passes.'),
    deleteBranchOnMerge: z
      .boolean()
      .default(true)
      .describe(
        'Delete the lock branch when its pull request is merged. A PR closed without merging always frees its branch.',
      ),
    quick: z
      .strictObject({
        label: z
          .string()
          .min(1)
          .max(50)
          .default('coder:quick')
          .describe('Label that asks for quick mode.'),
        maxFiles: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .default(1)
          .describe('Most files a quick change may touch.'),
        maxLines: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .default(50)
          .describe('Most changed lines a quick change may have.'),
        log: z
          .boolean()
          .default(false)
          .describe('Append one master-log entry on the quick branch when a plan exists.'),
      })
      .prefault({})
      .describe('Quick mode: a branch, a pull request and CI, without plan bookkeeping.'),
    agent: AgentConfigSchema.optional().describe(
      'The coding agent the implementation nodes are handed to; absent: humans code.',
    ),
  })
  .describe('coder-loop configuration (.github/coder.yml)');

export type Config = z.infer<typeof ConfigSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export const DEFAULT_CONFIG: Config = ConfigSchema.parse({});

/** The line of `key:` in the YAML text, for messages; best effort (first match at any depth). */
function lineOfKey(text: string | undefined, key: string | undefined): number | undefined {
  if (!text || !key) return undefined;
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^[ \\t-]*["']?${escaped}["']?[ \\t]*:`, 'm').exec(text);
  return m ? text.slice(0, m.index).split('\n').length : undefined;
}

/** The keys the config takes at `path` (`[]` for the top level, `['quick']`), from its schema. */
function knownKeys(path: readonly string[]): string[] {
  type Node = { properties?: Record<string, Node>; items?: Node; anyOf?: Node[] };
  const withKeys = (node: Node | undefined): Node | undefined =>
    node?.properties ? node : node?.anyOf?.map(withKeys).find((n) => n !== undefined);
  let node: Node | undefined = configJsonSchema() as Node;
  for (const key of path) {
    node = /^\d+$/.test(key)
      ? (withKeys(node)?.items ?? node?.items)
      : withKeys(node)?.properties?.[key];
  }
  return Object.keys(withKeys(node)?.properties ?? {});
}

/** Validates a parsed config (an object, or undefined/null for "no file"). */
export function parseConfig(
  data: unknown,
  path: string = CONFIG_PATH,
  text?: string,
): { config?: Config; problems: Problem[] } {
  // `_extends` (Probot's way to inherit another repository's file) is not followed: the config is
  // this repository's own file (SPEC §6). Named as such, rather than as an unknown key.
  const extended = isMapping(data) && EXTENDS_KEY in data;
  const own = extended
    ? Object.fromEntries(Object.entries(data).filter(([key]) => key !== EXTENDS_KEY))
    : data;
  const result = ConfigSchema.safeParse(own ?? {});
  if (result.success && !extended) return { config: result.data, problems: [] };
  const problems = (result.success ? [] : result.error.issues).map((issue): Problem => {
    const keys = issue.path.map(String);
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const key = [...keys.filter((k) => !/^\d+$/.test(k)), ...unknown.slice(0, 1)].pop();
    const where = keys.length > 0 ? `\`${keys.join('.')}\`` : 'The top level';
    const known = issue.code === 'unrecognized_keys' ? knownKeys(keys) : [];
    const near = unknown
      .map((k) => [k, closest(k, known)] as const)
      .filter(([, n]) => n !== undefined)
      .map(([k, n]) => (unknown.length > 1 ? `\`${k}\` → \`${n}\`` : `\`${n}\``));
    const message =
      issue.code === 'unrecognized_keys'
        ? `${where} has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''}`
        : `${where}: ${issue.message}.`;
    return {
      severity: 'error',
      path,
      line: lineOfKey(text, key),
      message,
      fix: 'See docs/configuration.md for every key and its type.',
    };
  });
  if (extended) {
    problems.push({
      severity: 'error',
      path,
      line: lineOfKey(text, EXTENDS_KEY),
      message: `\`${EXTENDS_KEY}\` is not followed: coder-loop reads only this repository's own ${path}, never another repository's.`,
      fix: `Copy the settings you want from the extended file into this file, and remove \`${EXTENDS_KEY}\`.`,
    });
  }
  problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  return { problems };
}

/** Probot's key for inheriting another repository's config; refused (see `parseConfig`). */
const EXTENDS_KEY = '_extends';

const isMapping = (data: unknown): data is Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data);

/** Parses and validates `.github/coder.yml` text. Empty text means the defaults. */
export function parseConfigText(
  text: string,
  path: string = CONFIG_PATH,
): { config?: Config; problems: Problem[] } {
  if (text.length > MAX_CONFIG_BYTES) {
    return {
      problems: [
        {
          severity: 'error',
          path,
          message: `The config is larger than ${MAX_CONFIG_BYTES / 1024} KiB.`,
          fix: 'Keep .github/coder.yml small: it holds a handful of keys.',
        },
      ],
    };
  }
  let data: unknown;
  try {
    data = load(text, { filename: path, json: false });
  } catch (error) {
    const e = error as YAMLException;
    return {
      problems: [
        {
          severity: 'error',
          path,
          line: e.mark ? e.mark.line + 1 : undefined,
          message: `The YAML does not parse: ${e.reason ?? e.message}.`,
          fix: 'Fix the YAML syntax (indentation, quotes, colons).',
        },
      ],
    };
  }
  if (data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data))) {
    return {
      problems: [
        {
          severity: 'error',
          path,
          line: 1,
          message: 'The config must be a mapping of keys to values.',
          fix: 'Write it as "key: value" lines, e.g. "maxRetries: 3".',
        },
      ],
    };
  }
  return parseConfig(data, path, text);
}

/** The JSON Schema of the config file, for editors (`schema/coder.schema.json`). */
export function configJsonSchema(): Record<string, unknown> {
  return { title: 'coder-loop configuration', ...z.toJSONSchema(ConfigSchema, { io: 'input' }) };
}
