import { load, type YAMLException } from 'js-yaml';
import picomatch from 'picomatch';
import { AGENT_EVENT_TYPE } from './agent/payload.js';
import type { Problem } from './problem.js';

/**
 * The repository's GitHub Actions workflows, read as the loop needs them: which names the loop's
 * workflow waits for (`workflow_run`), which workflows are CI, and whether the job holding the
 * loop's App key runs only from the default branch's definition. Pure: texts in, problems out.
 */

export const WORKFLOWS_DIR = '.github/workflows';

export function isWorkflowPath(path: string): boolean {
  return /^\.github\/workflows\/[^/]+\.ya?ml$/.test(path);
}

export interface WorkflowFile {
  path: string;
  text: string;
}

interface Step {
  uses?: unknown;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  environment?: unknown;
  steps?: unknown;
  env?: Record<string, unknown>;
}

export interface Workflow {
  path: string;
  text: string;
  /** What `workflow_run: workflows:` matches: the `name:`, else the file's path. */
  name: string;
  /** Each event it runs on, with its settings (null when it has none). */
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const isMapping = (data: unknown): data is Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data);

/** A workflow file, or the problem that keeps it from being read. */
export function parseWorkflow(file: WorkflowFile): { workflow: Workflow } | { problem: Problem } {
  let data: unknown;
  try {
    data = load(file.text, { filename: file.path });
  } catch (error) {
    const e = error as YAMLException;
    return {
      problem: {
        severity: 'error',
        path: file.path,
        line: e.mark ? e.mark.line + 1 : undefined,
        message: `The YAML does not parse: ${e.reason ?? e.message}.`,
        fix: 'Fix the YAML syntax; GitHub does not run this workflow as it is.',
      },
    };
  }
  if (!isMapping(data))
    return {
      problem: {
        severity: 'error',
        path: file.path,
        message: 'This is not a workflow: its top level is not a mapping.',
        fix: 'Write it as a workflow (`on:` and `jobs:`), or move it out of .github/workflows/.',
      },
    };
  const raw = data.on;
  const on: Record<string, unknown> =
    typeof raw === 'string'
      ? { [raw]: null }
      : Array.isArray(raw)
        ? Object.fromEntries(raw.map((e) => [String(e), null]))
        : isMapping(raw)
          ? raw
          : {};
  return {
    workflow: {
      path: file.path,
      text: file.text,
      name: typeof data.name === 'string' && data.name.trim() !== '' ? data.name : file.path,
      on,
      jobs: isMapping(data.jobs) ? (data.jobs as Record<string, Job>) : {},
    },
  };
}

function stepsOf(job: Job): Step[] {
  return Array.isArray(job.steps) ? job.steps.filter(isMapping) : [];
}

/** `owner/coder-loop@ref` (a fork of this repository) or a local `./` checkout of it. */
function usesCoderLoop(step: Step): boolean {
  return typeof step.uses === 'string' && /(^|\/)coder-loop(@|$)/.test(step.uses);
}

/** The coder-loop step's `step:` input: loop (the default), agent or apply. */
function coderLoopStep(step: Step): string {
  const value = step.with?.step;
  return typeof value === 'string' ? value : 'loop';
}

/** Runs the loop itself (a coder-loop step with `step: loop`). */
export function isLoopWorkflow(workflow: Workflow): boolean {
  return Object.values(workflow.jobs).some((job) =>
    stepsOf(job).some((s) => usesCoderLoop(s) && coderLoopStep(s) === 'loop'),
  );
}

/** The pauses' scheduled sweep: the loop run on `schedule` (examples/workflows/coder-resume.yml). */
export function isResumeSweep(workflow: Workflow): boolean {
  return 'schedule' in workflow.on && isLoopWorkflow(workflow);
}

/** Runs the coding agent's hand-off (`step: agent` / `step: apply`). */
function isAgentWorkflow(workflow: Workflow): boolean {
  return Object.values(workflow.jobs).some((job) =>
    stepsOf(job).some((s) => usesCoderLoop(s) && coderLoopStep(s) !== 'loop'),
  );
}

/** The events that make a pull request's code run: what CI listens to. */
const CI_EVENTS = ['pull_request', 'push', 'merge_group'];

/** A workflow that runs on pull requests or pushes and is not coder-loop's own. */
function isCi(workflow: Workflow): boolean {
  return (
    CI_EVENTS.some((e) => Object.hasOwn(workflow.on, e)) &&
    !isLoopWorkflow(workflow) &&
    !isAgentWorkflow(workflow)
  );
}

/**
 * The review relay: a workflow that runs on `pull_request_review` and nothing the CI gate waits
 * for. The loop waits for it too (reviews reach the loop through its completion), but it is no CI.
 */
function isReviewRelay(workflow: Workflow): boolean {
  return Object.hasOwn(workflow.on, 'pull_request_review') && !isCi(workflow);
}

/** The example relay's name (examples/workflows/coder-loop-review.yml), as the example loop lists it. */
const RELAY_NAME = 'coder-loop-review';

/**
 * The review relay of the Action: a review reaches the loop only as the completion of a relay
 * workflow named in the loop's `workflow_run.workflows`. No relay, or one the list leaves out,
 * and approvals never reach the loop.
 */
export function relayProblems(loop: Workflow, workflows: readonly Workflow[]): Problem[] {
  const waits = waitedFor(loop);
  if (waits === undefined) return [];
  const relays = workflows.filter((w) => w.path !== loop.path).filter(isReviewRelay);
  const where = workflowsLine(loop);
  const listed = relays.filter((r) => waits.some((p) => picomatch(p)(r.name)));
  if (relays.length === 0)
    return [
      {
        severity: 'error',
        path: WORKFLOWS_DIR,
        message:
          'No review relay: no workflow here runs on `pull_request_review`, so approvals never reach the loop and no phase completes.',
        fix: `Copy examples/workflows/coder-loop-review.yml from coder-loop to .github/workflows/${
          waits.includes(RELAY_NAME)
            ? ` (line ${where?.line ?? '?'} of ${loop.path} already waits for ${RELAY_NAME}).`
            : `, and change line ${where?.line ?? '?'} of ${loop.path} to \`${replacedLine(where?.text, [...waits, RELAY_NAME]).trim()}\`.`
        }`,
      },
    ];
  if (listed.length > 0) return [];
  const relay = relays[0]!;
  return [
    {
      severity: 'error',
      path: loop.path,
      line: where?.line,
      message: `The loop's \`workflow_run.workflows\` leaves out the review relay "${relay.name}" (${relay.path}): approvals never reach the loop and no phase completes.`,
      fix: `Change line ${where?.line ?? '?'} to \`${replacedLine(where?.text, [...waits, relay.name]).trim()}\`.`,
    },
  ];
}

/** The names in `on.workflow_run.workflows` (a list, or one name). */
function waitedFor(workflow: Workflow): string[] | undefined {
  const run = workflow.on.workflow_run;
  if (!Object.hasOwn(workflow.on, 'workflow_run')) return undefined;
  const names = isMapping(run) ? run.workflows : undefined;
  if (typeof names === 'string') return [names];
  return Array.isArray(names) ? names.map(String) : [];
}

/** 1-based line of the first `key:` at or after `from` (0-based), by its text. */
function lineOf(text: string, key: string, from = 0): number | undefined {
  const lines = text.split(/\r?\n/);
  const pattern = new RegExp(`^\\s*(- )?["']?${key}["']?\\s*:`);
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i]!)) return i + 1;
  return undefined;
}

/** The `workflows:` line under `workflow_run:`, as it reads. */
function workflowsLine(workflow: Workflow): { line: number; text: string } | undefined {
  const run = lineOf(workflow.text, 'workflow_run');
  if (run === undefined) return undefined;
  const line = lineOf(workflow.text, 'workflows', run);
  if (line === undefined) return undefined;
  return { line, text: workflow.text.split(/\r?\n/)[line - 1]! };
}

/** A name as a YAML flow sequence can hold it: plain when safe, quoted otherwise. */
function yamlName(name: string): string {
  return /^[A-Za-z0-9_.][A-Za-z0-9_ ./-]*$/.test(name) && !name.endsWith(' ')
    ? name
    : JSON.stringify(name);
}

/** The `workflows:` line with these names, its indentation and comment kept. */
function replacedLine(current: string | undefined, names: readonly string[]): string {
  const list = `workflows: [${names.map(yamlName).join(', ')}]`;
  if (current === undefined) return list;
  const indent = /^\s*/.exec(current)![0];
  const comment = /\s#[^\]]*$/.exec(current)?.[0] ?? '';
  return `${indent}${list}${comment}`;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * The CI gate of the Action: the loop hears about a GitHub Actions CI run only through
 * `workflow_run`, and only for the workflows it names. A name no workflow has, or a list that
 * holds none of the repository's CI workflows, leaves every loop PR waiting forever: the problem
 * names the line of the loop's workflow to change, and what to change it to.
 */
export function ciGateProblems(
  loop: Workflow,
  workflows: readonly Workflow[],
  refs?: LoopPullRefs,
): Problem[] {
  const others = workflows.filter((w) => w.path !== loop.path);
  const ci = others.filter(isCi);
  const ciNames = ci.map((w) => w.name);
  const relays = others.filter(isReviewRelay);
  // The relay's name is waited for as well, for reviews: the CI gate's names are the others (the
  // example relay's name, its file not copied, is relayProblems' to say).
  const waitsAll = waitedFor(loop);
  const waits = waitsAll?.filter(
    (p) => !relays.some((w) => picomatch(p)(w.name)) && !(relays.length === 0 && p === RELAY_NAME),
  );
  const where = workflowsLine(loop);
  const found = ci.length
    ? `The workflows here that run on pull requests: ${ci.map((w) => `"${w.name}" (${w.path})`).join(', ')}.`
    : 'No workflow here runs on pull requests.';
  if (waits === undefined) {
    if (ci.length === 0) return [];
    return [
      {
        severity: 'error',
        path: loop.path,
        line: lineOf(loop.text, 'on'),
        message: `The loop's workflow has no \`workflow_run\` trigger, so it never hears that CI finished (a check suite made by GitHub Actions starts no workflow). ${found}`,
        fix: `Add under \`on:\`: \`workflow_run: { ${replacedLine(undefined, ciNames)}, types: [completed] }\`.`,
      },
    ];
  }
  const matches = (pattern: string) => picomatch(pattern);
  const missing = waits.filter((p) => !others.some((w) => matches(p)(w.name)));
  // The names kept on the line, in their order: the CI names found, and the relay's.
  const kept = (waitsAll ?? []).filter((p) => !missing.includes(p));
  const waitedCi = ci.filter((w) => waits.some((p) => matches(p)(w.name)));
  if (ci.length === 0) {
    if (missing.length === 0) return [];
    return [
      {
        severity: 'warning',
        path: loop.path,
        line: where?.line,
        message: `The loop waits for the workflow${missing.length > 1 ? 's' : ''} ${quoted(missing)}, and no workflow here has that name. ${found}`,
        fix: 'Add a CI workflow that runs on `pull_request` and name it so; if CI runs outside GitHub Actions (a GitHub App, commit statuses), this line can stay.',
      },
    ];
  }
  if (missing.length === 0 && waitedCi.length > 0) {
    const misses = refs ? waitedCi.map((w) => ({ w, why: missesLoopPulls(w, refs) })) : [];
    if (!refs || misses.some((m) => m.why === undefined)) return [];
    return [
      {
        severity: 'error',
        path: misses[0]!.w.path,
        line: lineOf(misses[0]!.w.text, 'on'),
        message: `The loop waits for ${quoted(waits)}, which never runs on the loop's pull requests (branch ${refs.head} into ${refs.base}): ${misses.map((m) => `"${m.w.name}" (${m.w.path}): ${m.why}`).join('; ')}. Loop pull requests wait for CI forever.`,
        fix: `Let it run on pull requests into ${refs.base}: \`pull_request:\` under \`on:\`, with no \`branches\` filter or one that admits ${refs.base}.`,
      },
    ];
  }
  const names = [...kept, ...ciNames.filter((n) => !kept.some((p) => matches(p)(n)))];
  const what =
    missing.length > 0
      ? `The loop waits for the workflow${missing.length > 1 ? 's' : ''} ${quoted(missing)}, and no workflow here has that name`
      : `The loop waits for ${quoted(waits)}, none of which runs on pull requests`;
  return [
    {
      severity: 'error',
      path: loop.path,
      line: where?.line,
      message: `${what}: loop pull requests wait for CI forever. ${found}`,
      fix: `Change line ${where?.line ?? '?'} to \`${replacedLine(where?.text, names).trim()}\`.`,
    },
  ];
}

/** The names the loop's workflow waits for as CI (its `workflow_run` list, the review relay's aside). */
export function ciGateNames(loop: Workflow, workflows: readonly Workflow[]): string[] | undefined {
  const relays = workflows.filter((w) => w.path !== loop.path).filter(isReviewRelay);
  return waitedFor(loop)?.filter((p) => !relays.some((w) => picomatch(p)(w.name)));
}

/**
 * One of GitHub's filter patterns (`branches`, `branches-ignore`, `paths`, …) as picomatch reads
 * it. GitHub's cheat sheet: `*` is any run of characters but `/`, `**` any run at all, `?` zero or
 * one of the preceding character, `+` one or more of it, `[…]` one character of a class, `\`
 * escapes the next one; nothing else is special. picomatch's extglobs say `?` and `+` as
 * `?(c)` and `+(c)`; a `**` inside a path segment becomes `*{,/**\/}*`, since picomatch takes `**`
 * as "any folders" only as a whole segment.
 */
function githubFilterToGlob(pattern: string): string {
  const atoms: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      atoms.push(`\\${pattern[++i]}`);
    } else if (c === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        const before = i - 2 < 0 || pattern[i - 2] === '/';
        const after = i + 1 >= pattern.length || pattern[i + 1] === '/';
        atoms.push(before && after ? '**' : '*{,/**/}*');
      } else atoms.push('*');
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) atoms.push('\\[');
      else {
        atoms.push(pattern.slice(i, end + 1));
        i = end;
      }
    } else if ((c === '?' || c === '+') && atoms.length > 0 && atoms.at(-1) !== '*') {
      atoms.push(`${c}(${atoms.pop()!})`);
    } else if (/[A-Za-z0-9/_-]/.test(c)) atoms.push(c);
    else atoms.push(`\\${c}`);
  }
  return atoms.join('');
}

const filterMatcher = (pattern: string) =>
  picomatch(githubFilterToGlob(pattern), { dot: true, nonegate: true });

/**
 * Whether a name passes a `branches` (or `tags`, `paths`) filter as GitHub reads it: the patterns
 * in order, the last one that matches decides — a `!` pattern excludes, any other includes.
 */
export function filterAdmits(patterns: readonly string[], name: string): boolean {
  let admitted = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (filterMatcher(negated ? pattern.slice(1) : pattern)(name)) admitted = !negated;
  }
  return admitted;
}

/** A `*-ignore` filter: any pattern that matches excludes the name. */
function filterIgnores(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => filterMatcher(p)(name));
}

const listOf = (value: unknown): string[] | undefined =>
  value === undefined || value === null
    ? undefined
    : (Array.isArray(value) ? value : [value]).map(String);

/** The activity types `pull_request` runs on when its `types` are not given. */
const PULL_REQUEST_DEFAULT_TYPES = ['opened', 'synchronize', 'reopened'];

/** A loop pull request as a CI workflow's triggers see it: its base and its head branch. */
export interface LoopPullRefs {
  /** The default branch, which every loop pull request targets. */
  base: string;
  /** A loop branch, e.g. `coder/my-plan/phase-1`. */
  head: string;
}

/**
 * Why a CI workflow never runs on a loop pull request, read from its triggers as GitHub reads
 * them (`pull_request` filters the base branch and its activity types, `push` the pushed branch;
 * `merge_group` runs only in a merge queue); undefined when some trigger runs it.
 */
function missesLoopPulls(workflow: Workflow, refs: LoopPullRefs): string | undefined {
  const why: string[] = [];
  for (const [event, raw] of Object.entries(workflow.on)) {
    const settings = isMapping(raw) ? raw : {};
    if (event === 'pull_request') {
      const types = listOf(settings.types) ?? PULL_REQUEST_DEFAULT_TYPES;
      const branches = listOf(settings.branches);
      const ignored = listOf(settings['branches-ignore']);
      if (!types.some((t) => PULL_REQUEST_DEFAULT_TYPES.includes(t)))
        why.push(`\`pull_request\` runs only on ${types.join(', ')}`);
      else if (branches && !filterAdmits(branches, refs.base))
        why.push(
          `\`pull_request: branches: [${branches.join(', ')}]\` leaves out pull requests to ${refs.base}`,
        );
      else if (ignored && filterIgnores(ignored, refs.base))
        why.push(`\`pull_request: branches-ignore\` leaves out pull requests to ${refs.base}`);
      else return undefined;
    } else if (event === 'push') {
      const branches = listOf(settings.branches);
      const ignored = listOf(settings['branches-ignore']);
      const tagsOnly =
        !branches && !ignored && (listOf(settings.tags) ?? listOf(settings['tags-ignore']));
      if (tagsOnly) why.push('`push` runs on tags only');
      else if (branches && !filterAdmits(branches, refs.head))
        why.push(
          `\`push: branches: [${branches.join(', ')}]\` leaves out ${refs.head}${branches.some((b) => /(^|[^*])\*([^*]|$)/.test(b)) ? ' (`*` stops at a `/`; `**` does not)' : ''}`,
        );
      else if (ignored && filterIgnores(ignored, refs.head))
        why.push(`\`push: branches-ignore\` leaves out ${refs.head}`);
      else return undefined;
    } else if (event === 'merge_group') why.push('`merge_group` runs only in a merge queue');
  }
  return why.length ? why.join('; ') : 'it runs on no pull request or push';
}

/** Events that run the default branch's workflow definition, whoever pushed what where. */
const DEFAULT_BRANCH_EVENTS = new Set([
  'issue_comment',
  'issues',
  'pull_request_target',
  'workflow_run',
  'check_suite',
  'check_run',
  'status',
  'repository_dispatch',
  'schedule',
]);

/** What a writer can do with each event that runs a branch's own workflow definition. */
const WHY_UNSAFE: Record<string, string> = {
  pull_request:
    "runs the workflow file of the pull request's merge ref: a writer's branch can read the key. Use `pull_request_target` (never checking out the pull request's code)",
  pull_request_review:
    "runs the workflow file of the pull request's merge ref: a writer's branch can read the key. Reviews reach the loop through a relay workflow that holds no secret, whose completion the loop hears through `workflow_run` (docs/github-action.md)",
  pull_request_review_comment:
    "runs the workflow file of the pull request's merge ref: a writer's branch can read the key. Remove it",
  push: 'runs the workflow file of the branch pushed to: a writer can push a branch whose workflow reads the key. Remove it',
  workflow_dispatch:
    'runs the workflow file of the branch the person picks: a writer can pick their own branch. Remove it',
};

/** The App credential a job mints its token with (actions/create-github-app-token). */
interface KeyUse {
  job: string;
  environment: string | undefined;
  appId: string | undefined;
  privateKey: string | undefined;
}

const SECRET_OR_VAR = /\$\{\{\s*(secrets|vars)\.([A-Za-z0-9_]+)\s*\}\}/;

function named(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = SECRET_OR_VAR.exec(value);
  return m ? `${m[1]}.${m[2]}` : value.trim() || undefined;
}

/** The placeholder examples/workflows/coder-agent.yml gives for the App's slug. */
const EXAMPLE_SLUG = 'your-coder-loop-app';

function keyUses(workflow: Workflow): KeyUse[] {
  const uses: KeyUse[] = [];
  for (const [id, job] of Object.entries(workflow.jobs)) {
    if (!isMapping(job)) continue;
    for (const step of stepsOf(job)) {
      if (typeof step.uses !== 'string' || !step.uses.startsWith('actions/create-github-app-token'))
        continue;
      const env = job.environment;
      uses.push({
        job: id,
        environment:
          typeof env === 'string'
            ? env
            : isMapping(env) && typeof env.name === 'string'
              ? env.name
              : undefined,
        appId: named(step.with?.['app-id'] ?? step.with?.app_id),
        privateKey: named(step.with?.['private-key'] ?? step.with?.private_key),
      });
    }
  }
  return uses;
}

/** A `pull_request_target` job that checks out the pull request's own code. */
function checksOutPullCode(job: Job): boolean {
  return stepsOf(job).some(
    (s) =>
      typeof s.uses === 'string' &&
      s.uses.startsWith('actions/checkout') &&
      /github\.(event\.pull_request\.head|head_ref)/.test(String(s.with?.ref ?? '')),
  );
}

/**
 * The loop's identity out of every writer's reach: a job that mints the App's token runs only on
 * events that run the default branch's workflow definition, inside an environment (which can be
 * limited to the default branch), and never next to the pull request's own code. Each secret and
 * variable is named alike in every workflow.
 */
export function keyProblems(workflows: readonly Workflow[]): Problem[] {
  const problems: Problem[] = [];
  const all: (KeyUse & { path: string })[] = [];
  for (const workflow of workflows) {
    const uses = keyUses(workflow);
    if (uses.length === 0) continue;
    all.push(...uses.map((u) => ({ ...u, path: workflow.path })));
    for (const event of Object.keys(workflow.on)) {
      if (DEFAULT_BRANCH_EVENTS.has(event)) continue;
      problems.push({
        severity: 'error',
        path: workflow.path,
        line: lineOf(workflow.text, event),
        message: `This workflow holds the loop's App key and runs on \`${event}\`, which ${WHY_UNSAFE[event] ?? 'may run a workflow file from a branch other than the default one. Remove it'}.`,
        fix: 'The job that holds the key may run only on issue_comment, issues, pull_request_target, workflow_run, check_suite, status, schedule and repository_dispatch.',
      });
    }
    for (const use of uses) {
      const line = lineOf(workflow.text, use.job);
      if (use.environment === undefined)
        problems.push({
          severity: 'error',
          path: workflow.path,
          line,
          message: `Job \`${use.job}\` mints the App's token with no \`environment:\`: the key is a repository secret, which a workflow on any branch a writer pushes can read.`,
          fix: `Add \`environment: coder-loop\` to job \`${use.job}\`, move ${use.privateKey ?? 'the private key'} into that environment (Settings → Environments → coder-loop) and limit its deployment branches to the default branch.`,
        });
      const job = workflow.jobs[use.job]!;
      if (Object.hasOwn(workflow.on, 'pull_request_target') && checksOutPullCode(job))
        problems.push({
          severity: 'error',
          path: workflow.path,
          line,
          message: `Job \`${use.job}\` runs on \`pull_request_target\` with the App key and checks out the pull request's code: that code runs with the key in reach.`,
          fix: 'Do not check out the pull request in the job that holds the key; the loop reads what it needs through the API.',
        });
    }
  }
  // The key lives in one environment: a job in another cannot read it.
  const environments = [...new Set(all.map((u) => u.environment).filter((n) => n !== undefined))];
  if (environments.length > 1)
    problems.push({
      severity: 'error',
      path: all[0]!.path,
      message: `The jobs that mint the App's token run in different environments: ${all
        .filter((u) => u.environment !== undefined)
        .map((u) => `"${u.environment}" (${u.path}, job ${u.job})`)
        .join(
          ', ',
        )}; the private key is a secret of one environment, so the others cannot read it.`,
      fix: 'Use one environment everywhere (the examples use `environment: coder-loop`), the one that holds the private key.',
    });
  for (const field of ['privateKey', 'appId'] as const) {
    const names = [...new Set(all.map((u) => u[field]).filter((n) => n !== undefined))];
    if (names.length > 1)
      problems.push({
        severity: 'error',
        path: all[0]!.path,
        message: `The workflows name the App's ${field === 'appId' ? 'id' : 'private key'} differently: ${all
          .filter((u) => u[field] !== undefined)
          .map((u) => `${u[field]} (${u.path}, job ${u.job})`)
          .join(', ')}.`,
        fix: `Use one name everywhere (the examples use ${field === 'appId' ? 'vars.CODER_LOOP_APP_ID' : 'secrets.CODER_LOOP_PRIVATE_KEY'}).`,
      });
  }
  return problems;
}

/** Whether a workflow runs on the loop's hand-off to the agent. */
function onAgentDispatch(workflow: Workflow): boolean {
  if (!Object.hasOwn(workflow.on, 'repository_dispatch')) return false;
  const settings = workflow.on.repository_dispatch;
  const types = isMapping(settings) ? settings.types : undefined;
  if (types === undefined || types === null) return true;
  return (Array.isArray(types) ? types : [types]).map(String).includes(AGENT_EVENT_TYPE);
}

/**
 * With `agent` set, a workflow must take the hand-off (`repository_dispatch` of type
 * coder-loop-agent) and run `step: agent` with each variable `agent.env` names.
 */
export function agentWorkflowProblems(
  workflows: readonly Workflow[],
  agent: { env: readonly string[] } | undefined,
  config: WorkflowFile,
): Problem[] {
  const takers = workflows.filter((w) => onAgentDispatch(w) && isAgentWorkflow(w));
  // Without `agent` set, a copied agent workflow is still read: it is there to be used.
  if (!agent && takers.length === 0) return [];
  if (agent && takers.length === 0)
    return [
      {
        severity: 'error',
        path: config.path,
        line: lineOf(config.text, 'agent'),
        message: `\`agent\` is set, and no workflow in ${WORKFLOWS_DIR}/ runs on the \`repository_dispatch\` type \`${AGENT_EVENT_TYPE}\` with a coder-loop \`step: agent\`: every hand-off would wait forever.`,
        fix: 'Copy examples/workflows/coder-agent.yml to .github/workflows/ and put your fork in its `uses:` lines.',
      },
    ];
  const problems: Problem[] = [];
  // The App's token minted somewhere: the hand-off comes from the App, which step agent must know.
  const appSetup = workflows.some((w) => keyUses(w).length > 0);
  for (const workflow of takers) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      const steps = stepsOf(job);
      const agentStep = steps.find((s) => usesCoderLoop(s) && coderLoopStep(s) === 'agent');
      if (!agentStep) continue;
      const given = new Set([...Object.keys(job.env ?? {}), ...Object.keys(agentStep.env ?? {})]);
      for (const name of (agent?.env ?? []).filter((n) => !given.has(n)))
        problems.push({
          severity: 'warning',
          path: workflow.path,
          line: lineOf(workflow.text, id),
          message: `\`agent.env\` passes ${name} to the agent, and job \`${id}\` does not set it.`,
          fix: `Add \`${name}: \${{ secrets.${name} }}\` to the \`env:\` of its coder-loop step (step: agent), and the secret ${name} to the repository.`,
        });
      const slug = agentStep.with?.['app-slug'];
      if (appSetup && (typeof slug !== 'string' || slug.trim() === ''))
        problems.push({
          severity: 'error',
          path: workflow.path,
          line: lineOf(workflow.text, id),
          message: `Job \`${id}\` runs the agent without \`app-slug\`, and the workflows mint an App's token: step agent refuses a hand-off an App sends unless it is told which App is the loop.`,
          fix: "Add `app-slug: <your App's slug>` (the name in its page's address, github.com/apps/<slug>) to the `with:` of its coder-loop step (step: agent).",
        });
      else if (slug === EXAMPLE_SLUG)
        problems.push({
          severity: 'error',
          path: workflow.path,
          line: lineOf(workflow.text, 'app-slug', lineOf(workflow.text, id)),
          message: `Job \`${id}\` names the example's App, \`${EXAMPLE_SLUG}\`: step agent ignores every hand-off your App sends.`,
          fix: "Put your App's slug there (the name in its page's address, github.com/apps/<slug>).",
        });
      if (keyUses({ ...workflow, jobs: { [id]: job } }).length > 0)
        problems.push({
          severity: 'error',
          path: workflow.path,
          line: lineOf(workflow.text, id),
          message: `Job \`${id}\` runs the agent and holds the App key: the agent's code can reach the key.`,
          fix: "Run the agent with the job's read-only GITHUB_TOKEN; only the apply job mints the App's token.",
        });
    }
  }
  return problems;
}
