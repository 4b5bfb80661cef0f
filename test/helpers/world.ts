import { Octokit } from '@octokit/core';
import { parseConfigText, type LoopIdentity } from '../../src/core/index.js';
import { pinApiVersion } from '../../src/github/client.js';
import type { LoopEnv } from '../../src/github/loop/index.js';
import { OWNER, REPO, requestLog, testProbot } from './github.js';
import { checkedFetch } from './openapi.js';
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

/**
 * The loop's environment as a shell builds it, on the in-memory GitHub: a client with `token`
 * (every request checked against GitHub's OpenAPI), this repository, the configuration on the
 * default branch, and the identity and clock given (and, the Action's, its workflow file).
 */
export function simLoopEnv(
  sim: SimGitHub,
  o: {
    token: string;
    identity: LoopIdentity;
    now: () => Date;
    loopWorkflow?: string;
  },
): LoopEnv {
  return {
    gh: new (Octokit.plugin(pinApiVersion))({ auth: o.token, request: { fetch: checkedFetch } }),
    repo: { owner: OWNER, repo: REPO },
    repoUrl: `https://github.com/${OWNER}/${REPO}`,
    defaultBranch: 'master',
    loadConfig: async () => parseConfigText(sim.files('master')['.github/coder.yml'] ?? ''),
    identity: async () => o.identity,
    log: { info: () => undefined, warn: () => undefined },
    now: o.now,
    ...(o.loopWorkflow ? { loopWorkflow: o.loopWorkflow } : {}),
  };
}

/**
 * A person's own token against the in-memory GitHub: what they create or merge names them, as
 * GitHub's does, and every request is checked against GitHub's API description.
 */
export function asPerson(sim: SimGitHub, login: string) {
  const token = `ghp_person_${login}`;
  sim.callers.set(token, { login });
  const Person = Octokit.plugin(pinApiVersion);
  return new Person({ auth: token, request: { fetch: checkedFetch } });
}
