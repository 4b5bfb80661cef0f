import { requestLog, testProbot } from './github.js';
import { examplePlanFiles } from './plans.js';
import { Deliver } from '../sim/events.js';
import { SimGitHub } from '../sim/github.js';

export const BRANCH = 'coder/example/phase-1';

/**
 * The example plan on the default branch of an in-memory GitHub (through nock), a Probot with the
 * real App, and `writers` with write permission (everyone else reads).
 */
export async function world(
  config = '',
  extra: Record<string, string> = {},
  writers: readonly string[] = ['Codertocat', 'reviewer1', 'archie'],
) {
  const files: Record<string, string> = {
    ...examplePlanFiles(),
    'src/server.ts': 'export {};\n',
    ...extra,
  };
  if (config) files['.github/coder.yml'] = config;
  const sim = new SimGitHub(files);
  sim.mount();
  for (const login of writers) sim.permissions.set(login, 'write');
  const deliver = new Deliver(await testProbot(), sim);
  return { sim, deliver };
}

/** `/coder next`, then the coder pushes a test and the code: the PR of phase 1 at Verification. */
export async function started(
  config = '',
  extra: Record<string, string> = {},
  writers?: readonly string[],
) {
  const w = await world(config, extra, writers);
  await w.deliver.comment('/coder next');
  const pr = w.sim.pulls[0]!;
  if (!pr) throw new Error(requestLog.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n'));
  w.sim.push(BRANCH, {
    'test/health.test.ts': 'test("health", () => {});\n',
    'src/health.ts': 'export const ok = true;\n',
  });
  await w.deliver.pullRequest('synchronize', pr.number);
  return { ...w, pr };
}

/** The first line of each reply on the thread (a run's progress comment is not a reply). */
export const replies = (sim: SimGitHub) =>
  sim.comments.filter((c) => !isProgress(c.body)).map((c) => c.body.split('\n')[0]!);

/** A run's progress comment: edited in place, never one of the replies. */
export const isProgress = (body: string) => body.includes('<!-- coder-loop:progress ');

/** The run's progress comments on the thread. */
export const progressComments = (sim: SimGitHub) => sim.comments.filter((c) => isProgress(c.body));
