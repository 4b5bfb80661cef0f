import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  agentWorkflowProblems,
  ciGateProblems,
  CONFIG_PATH,
  formatProblem,
  isLoopWorkflow,
  isResumeSweep,
  isWorkflowPath,
  keyProblems,
  parseConfigText,
  parseWorkflow,
  permissionSummary,
  phaseBranch,
  relayProblems,
  WORKFLOWS_DIR,
  type Config,
  type LoopPullRefs,
  type Problem,
  type Workflow,
  type WorkflowFile,
} from '../../core/index.js';
import { InputError, linkLeaves, readText } from '../files.js';
import { KIND_LABELS, otherKindNames, skippedSentence } from '../../core/plan/kinds/index.js';
import { gitDefaultBranch } from '../git.js';
import { discover } from '../repo.js';
import {
  appManifest,
  DIR_OPTION,
  EXIT,
  planSummary,
  UsageError,
  type CommandSpec,
  type Parsed,
} from './shared.js';

/**
 * `coder-loop doctor`: what the loop will need in this repository, read from its files only —
 * the config, the plans, the workflows (the CI gate's names, the App key's reach, the agent's
 * hand-off) — each problem with its fix, and what only GitHub can show, with where to look.
 */

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function workflowFiles(
  root: string,
): Promise<{ files: WorkflowFile[]; problems: Problem[] }> {
  let entries;
  try {
    entries = await readdir(join(root, WORKFLOWS_DIR), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { files: [], problems: [] };
    throw error;
  }
  const files: WorkflowFile[] = [];
  const problems: Problem[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = `${WORKFLOWS_DIR}/${entry.name}`;
    if (!isWorkflowPath(path)) continue;
    // GitHub reads a link's own text, never its target: one out of the repository is not read.
    if (entry.isSymbolicLink() && (await linkLeaves(root, join(root, path)).catch(() => true))) {
      problems.push({
        severity: 'error',
        path,
        message:
          'A symbolic link out of the repository: doctor does not read it, and GitHub does not run it as a workflow (it reads the link, not the file it names).',
        fix: 'Commit the workflow itself in .github/workflows/.',
      });
      continue;
    }
    files.push({ path, text: await readText(join(root, path)) });
  }
  return { files, problems };
}

/** The plans the loop would find, each checked as `lint` checks it; one line per plan. */
async function planProblems(
  args: Parsed,
): Promise<{ lines: string[]; problems: Problem[]; first?: string }> {
  const { repo } = args;
  const found = await discover(repo, true);
  const problems: Problem[] = [...found.problems];
  // Other tools' plans found but not run (completed plans, a tool not read): said, never skipped.
  const skipped = found.skipped.length ? [`plans: ${skippedSentence(found.skipped)}`] : [];
  if (found.plans.length === 0)
    return {
      lines: [
        `plans: none under ${repo.plansDirRel}/ (nor ${otherKindNames('or')} plans).`,
        ...skipped,
      ],
      problems: [
        ...problems,
        {
          severity: 'warning',
          path: repo.plansDirRel,
          message: '`/coder next` has no plan to take a phase from (quick mode still works).',
          fix: `Run \`coder-loop init "My Plan"\` and commit it, or add a ${otherKindNames('or')} plan.`,
        },
      ],
    };
  const lines: string[] = [];
  for (const plan of found.plans) {
    let valid: boolean;
    try {
      ({ valid } = await planSummary(args, plan));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      valid = false;
    }
    const { ref: path } = plan;
    lines.push(
      `plan "${plan.name}" (${KIND_LABELS[plan.planKind]}, ${path}): ${valid ? 'ok' : 'invalid'}`,
    );
    if (!valid)
      problems.push({
        severity: 'error',
        path,
        message: `The plan "${plan.name}" does not read as valid: the loop would refuse to start it.`,
        fix: `Run \`coder-loop lint "${plan.name}"\` for each problem and its fix.`,
      });
  }
  return { lines: [...lines, ...skipped], problems, first: found.plans[0]?.name };
}

/** The workflows' problems: the loop's own, the CI gate, the key, the agent's hand-off. */
function workflowProblems(
  files: readonly WorkflowFile[],
  config: Config | undefined,
  configFile: WorkflowFile,
  refs: LoopPullRefs,
): { lines: string[]; problems: Problem[]; loops: Workflow[] } {
  const problems: Problem[] = [];
  const workflows: Workflow[] = [];
  for (const file of files) {
    const read = parseWorkflow(file);
    if ('problem' in read) problems.push(read.problem);
    else workflows.push(read.workflow);
  }
  // The scheduled sweep runs the loop too, on `schedule` alone: it hears no command and no CI, so
  // the gate's checks are not its own (examples/workflows/coder-resume.yml).
  const every = workflows.filter(isLoopWorkflow);
  const sweepOnly = (w: Workflow) =>
    Object.keys(w.on).every((event) => event === 'schedule' || event === 'workflow_dispatch');
  const loops = every.filter((w) => !sweepOnly(w));
  const lines = every.map((w) =>
    sweepOnly(w)
      ? `scheduled sweep: ${w.path} ("${w.name}")`
      : `loop workflow: ${w.path} ("${w.name}")`,
  );
  if (loops.length === 0)
    problems.push({
      severity: 'error',
      path: WORKFLOWS_DIR,
      message:
        'No workflow runs coder-loop, so nothing hears `/coder` commands here (if you run coder-loop as a GitHub App instead, ignore this and the other workflow checks).',
      fix: 'Copy examples/workflows/coder-loop.yml from coder-loop to .github/workflows/ and put your fork in its `uses:` line.',
    });
  for (const loop of every) {
    if (!sweepOnly(loop))
      problems.push(...ciGateProblems(loop, workflows, refs), ...relayProblems(loop, workflows));
    const placeholder = /^\s*-?\s*uses:\s*your-org\/coder-loop@/m.exec(loop.text);
    if (placeholder)
      problems.push({
        severity: 'error',
        path: loop.path,
        line: loop.text.slice(0, placeholder.index).split('\n').length,
        message: '`uses: your-org/coder-loop@…` still names the placeholder owner.',
        fix: 'Put the owner of your fork of coder-loop there (e.g. `uses: my-org/coder-loop@main`).',
      });
  }
  if (loops.length > 0 && !every.some(isResumeSweep))
    problems.push({
      severity: 'warning',
      path: WORKFLOWS_DIR,
      message:
        'No scheduled sweep runs coder-loop: a coding agent paused at its usage limit waits for `/coder resume`, and a loop pull request that no CI reaches is told so only on `/coder status`.',
      fix: 'Copy examples/workflows/coder-resume.yml from coder-loop to .github/workflows/ and put your fork in its `uses:` line.',
    });
  problems.push(...keyProblems(workflows));
  problems.push(...agentWorkflowProblems(workflows, config?.agent, configFile));
  return { lines, problems, loops };
}

/** What doctor cannot read from files: where to check it on GitHub. */
function byHand(
  loops: readonly Workflow[],
  config: Config | undefined,
  permissions: string,
): string[] {
  const text = loops.map((w) => w.text).join('\n');
  const key = /secrets\.([A-Za-z0-9_]+)/.exec(text)?.[1] ?? 'CODER_LOOP_PRIVATE_KEY';
  const id = /vars\.([A-Za-z0-9_]+)/.exec(text)?.[1] ?? 'CODER_LOOP_APP_ID';
  const environment = /^\s*environment:\s*(?:name:\s*)?["']?([\w.-]+)/m.exec(text)?.[1];
  const lines = [
    'Check by hand (doctor reads files only; these live on GitHub):',
    `  - the variable ${id} holds the App's id: Settings → Secrets and variables → Actions → Variables.`,
    environment
      ? `  - the secret ${key} (the App's private key) is in the environment "${environment}", whose deployment branches are the default branch only: Settings → Environments → ${environment}.`
      : `  - the secret ${key} holds the App's private key: Settings → Secrets and variables → Actions.`,
    `  - the App is installed on this repository: Settings → GitHub Apps (${permissions}).`,
    '  - branch protection: a rule or ruleset covering `coder/**` branches must let the App push and delete them; the default branch may require reviews and the CI checks (the loop waits for the same).',
  ];
  if (config?.requiredChecks.length)
    lines.push(
      `  - the checks in requiredChecks (${config.requiredChecks.join(', ')}) are the names CI's check runs show on a pull request.`,
    );
  return lines;
}

export const doctor: CommandSpec = {
  usage: 'doctor [--dir <plansDir>]',
  summary: 'what the loop needs in this repository, each problem with its fix',
  options: DIR_OPTION,
  async run(args, io) {
    if (args.positionals.length > 0) throw new UsageError('doctor takes options only');
    const configText = await readOptional(join(io.cwd, CONFIG_PATH));
    const { config, problems: configProblems } = parseConfigText(configText ?? '', CONFIG_PATH);
    const plans = await planProblems(args);
    // The loop's pull requests: a loop branch into the default branch, as the clone knows it.
    const known = await gitDefaultBranch(io.cwd);
    const base = known ?? 'main';
    const refs = { base, head: phaseBranch(plans.first ?? 'plan', 1) };
    const read = await workflowFiles(io.cwd);
    const workflows = workflowProblems(
      read.files,
      config,
      { path: CONFIG_PATH, text: configText ?? '' },
      refs,
    );
    io.stdout(
      `config: ${CONFIG_PATH} ${configText === undefined ? 'absent (the defaults apply)' : config ? 'valid' : 'invalid'}`,
    );
    io.stdout(
      `default branch: ${base} (${known ? "the clone's origin/HEAD" : 'assumed: no origin/HEAD here'}); loop pull requests: ${refs.head} and the like, into ${base}`,
    );
    for (const line of [...plans.lines, ...workflows.lines]) io.stdout(line);
    const problems = [
      ...configProblems,
      ...plans.problems,
      ...read.problems,
      ...workflows.problems,
    ];
    if (problems.length) io.stdout('');
    for (const p of problems)
      (p.severity === 'error' ? io.stderr : io.stdout)(formatProblem(p, io.cli));
    io.stdout('');
    const permissions = permissionSummary(await appManifest());
    for (const line of byHand(workflows.loops, config, permissions)) io.stdout(line);
    const errors = problems.filter((p) => p.severity === 'error').length;
    io.stdout('');
    io.stdout(
      errors || problems.length
        ? `${errors} error(s), ${problems.length - errors} warning(s).`
        : 'No problems found in the files.',
    );
    return errors ? EXIT.invalid : EXIT.ok;
  },
};
