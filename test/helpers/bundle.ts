import { execFile, execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';

/** The BUILT Action: what a workflow runs. */
export const DIST = join(repoRoot, 'dist', 'index.js');

/** The step outputs an Action wrote to `$GITHUB_OUTPUT` (`name<<delimiter … delimiter`). */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const re = /^([^<\n]+)<<(ghadelimiter_[\w-]+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) outputs[m[1]!] = m[3]!;
  return outputs;
}

/**
 * What GitHub sets for a run of the loop's workflow (`file`) started by `event`: which ref's
 * workflow definition runs (GitHub's "Events that trigger workflows"). A pull request's and a
 * review's run the pull request's merge ref, a push its branch; the others — comments, issues,
 * `pull_request_target`, `workflow_run`, `check_suite`, `status`, `repository_dispatch` — the
 * default branch's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a webhook payload
export function workflowContext(event: string, payload: any, file = 'coder-loop.yml') {
  const repository = payload.repository;
  const full = repository.full_name ?? `${repository.owner.login}/${repository.name}`;
  let ref = `refs/heads/${repository.default_branch}`;
  if (event === 'pull_request' || event.startsWith('pull_request_review'))
    ref = `refs/pull/${payload.pull_request.number}/merge`;
  else if (event === 'push' || event === 'workflow_dispatch') ref = payload.ref;
  return { GITHUB_REF: ref, GITHUB_WORKFLOW_REF: `${full}/.github/workflows/${file}@${ref}` };
}

export interface BundleRun {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
}

/**
 * Runs the built Action as a child process for one workflow event, with only the environment
 * given (as a runner would: no variables of the test process leak in), in `cwd`.
 */
export async function runBundle(run: {
  work: string;
  event: string;
  payload: unknown;
  env: Record<string, string | undefined>;
  cwd?: string;
}): Promise<BundleRun> {
  const eventPath = join(run.work, 'event.json');
  const output = join(run.work, 'output.txt');
  await writeFile(eventPath, JSON.stringify(run.payload));
  await writeFile(output, '');
  const env = {
    PATH: process.env.PATH,
    HOME: run.work,
    GITHUB_EVENT_NAME: run.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: output,
    ...workflowContext(run.event, run.payload),
    ...run.env,
  };
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [DIST], { env, cwd: run.cwd ?? run.work }, (error, out) =>
      resolve({ code: error ? Number(error.code) : 0, stdout: out }),
    );
  });
  return { code, stdout, outputs: parseOutputs(await readFile(output, 'utf8')) };
}

/** git in `cwd`, isolated from the machine's config, with a fixed identity; its trimmed output. */
export function gitIn(cwd: string, home: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  })
    .toString('utf8')
    .trim();
}
