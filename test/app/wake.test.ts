import { jest } from '@jest/globals';
import { Octokit } from '@octokit/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { decodeRecord, parseConfigText, type AgentPayload } from '../../src/core/index.js';
import { pinApiVersion } from '../../src/github/client.js';
import { dispatchAgentPause, type LoopEnv } from '../../src/github/loop/index.js';
import { freshBuild } from '../helpers/build.js';
import { commentDelivery, examplePayload } from '../helpers/payloads.js';
import { examplePlanFiles } from '../helpers/plans.js';
import {
  appPrivateKey,
  deliverWebhook,
  settleQuiet,
  startNode,
  type NodeProcess,
} from '../helpers/process.js';
import { startRedis } from '../helpers/redis.js';
import { repoRoot } from '../paths.js';
import { SimGitHub } from '../sim/github.js';

// Runs the built App (lib/app-bundle/): stale after an edit to src/ until built again.
beforeAll(() => freshBuild('lib'));

/**
 * A pause the Action's `step: apply` recorded (it has no wake-up queue), on an App-hosted loop:
 * the App's two replicas, sharing one real redis-server, hear the agent's workflow complete and
 * schedule the pause's end as one delayed BullMQ job — the loop hands the node to the agent again
 * by itself, exactly once, also when both replicas restart while it waits.
 */
jest.setTimeout(180_000);

const MAIN = join(repoRoot, 'lib', 'app-bundle', 'app.js');
const SECRET = 'wake-webhook-secret';
const CONFIG = 'agent:\n  command: "true"\n';
const LIMIT = 'Claude Code reached its usage limit';

let cwd: string;
let redis: Awaited<ReturnType<typeof startRedis>>;
let sim: SimGitHub;
let github: { url: string; close: () => Promise<void> };
let env: Record<string, string>;
let replicas: NodeProcess[] = [];

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'coder-loop-wake-'));
  redis = await startRedis();
});

afterAll(async () => {
  redis.process.kill('SIGTERM');
  await rm(cwd, { recursive: true, force: true });
});

const startReplicas = async () =>
  Promise.all([startNode([MAIN], { cwd, env }), startNode([MAIN], { cwd, env })]);

beforeEach(async () => {
  sim = new SimGitHub({
    ...examplePlanFiles(),
    'src/server.ts': 'export {};\n',
    '.github/coder.yml': CONFIG,
  });
  sim.permissions.set('Codertocat', 'write');
  github = await sim.serve();
  env = {
    APP_ID: '1',
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: SECRET,
    REDIS_URL: redis.url,
    GHE_HOST: new URL(github.url).host,
    GHE_PROTOCOL: 'http',
    NODE_ENV: 'production',
  };
  replicas = await startReplicas();
});

afterEach(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await github.close();
  expect(sim.violations).toEqual([]);
});

async function deliver(
  replica: NodeProcess,
  delivery: { id: string; name: string; payload: unknown },
) {
  expect([200, 202]).toContain(await deliverWebhook(replica, SECRET, delivery));
}

/** Waits until `done` holds and GitHub then hears nothing for 3 s: no replica still acting. */
function settle(what: string, done: () => boolean): Promise<void> {
  return settleQuiet(() => sim.requests, done, {
    quietMs: 3000,
    timeoutMs: 90_000,
    pollMs: 200,
    failure: () =>
      `${what} never happened; comments so far:\n${sim.comments.map((c) => c.body.split('\n')[0]).join('\n')}\nthe replicas said:\n${replicas.map((r) => r.output().slice(-3000)).join('\n---\n')}`,
  });
}

/** `/coder next`: the start, and the TDD hand-off the Action's agent workflow runs. */
async function handedOff(): Promise<AgentPayload> {
  await deliver(replicas[0]!, commentDelivery('/coder next'));
  await settle('the hand-off', () => sim.dispatches.length === 1);
  return sim.dispatches[0]!.client_payload as unknown as AgentPayload;
}

/**
 * The Action's `step: apply` in the agent's workflow: the agent stopped at its provider's limit
 * (no change made), the pause recorded on the handed head — as src/action/main.ts does, with the
 * App's token and no wake-up queue.
 */
async function pausedByTheAction(payload: AgentPayload, ahead: number) {
  // The Action's clock as its step started: the CLI's reset time `ahead` ms later.
  const now = new Date();
  const actionEnv: LoopEnv = {
    gh: new (Octokit.plugin(pinApiVersion))({
      auth: 'ghs_app_token',
      baseUrl: `${github.url}/api/v3`,
    }),
    repo: { owner: 'Codertocat', repo: 'Hello-World' },
    repoUrl: 'https://github.com/Codertocat/Hello-World',
    defaultBranch: 'master',
    loadConfig: async () => parseConfigText(CONFIG),
    identity: async () => ({ login: 'coder-loop[bot]', app: { id: 1, slug: 'coder-loop' } }),
    log: { info: () => undefined, warn: () => undefined },
    now: () => now,
  };
  const { config } = parseConfigText(CONFIG);
  const outcome = await dispatchAgentPause(actionEnv, config!, payload, {
    reason: LIMIT,
    until: new Date(now.getTime() + ahead).toISOString(),
  });
  expect(outcome.state).toBe('paused');
  // The Action cannot wake the loop: its reply names `/coder resume`.
  expect(sim.comments.at(-1)!.body).toContain('Nothing here resumes it by itself');
}

/** GitHub's `workflow_run.completed` for the agent's workflow (a `repository_dispatch` run). */
function agentWorkflowCompleted(id: string) {
  const payload = examplePayload('workflow_run', 'completed');
  payload.workflow_run.name = 'coder-agent';
  payload.workflow_run.path = '.github/workflows/coder-agent.yml';
  payload.workflow_run.event = 'repository_dispatch';
  payload.workflow_run.head_branch = 'master';
  payload.workflow_run.head_sha = sim.refs.get('master');
  // The repository as the other examples (and the simulator) have it: default branch `master`.
  payload.repository = examplePayload('check_suite', 'completed').repository;
  payload.workflow_run.head_repository = payload.repository;
  return { id, name: 'workflow_run', payload };
}

const scheduled = () => sim.comments.filter((c) => c.body.startsWith('⏰')).length;
const resumes = () => sim.dispatches.length - 1;

it('the App schedules the pause the Action recorded: the node is handed again once, at its end', async () => {
  const payload = await handedOff();
  await pausedByTheAction(payload, 400);
  const delivery = agentWorkflowCompleted('wake-1');
  // Both replicas, one of them twice (GitHub redelivering).
  await Promise.all([
    deliver(replicas[0]!, delivery),
    deliver(replicas[1]!, delivery),
    deliver(replicas[1]!, delivery),
  ]);
  await settle('the resume', () => resumes() >= 1);

  expect(resumes()).toBe(1);
  expect(sim.dispatches[1]!.client_payload).toMatchObject({
    node: 'tdd',
    attempt: payload.attempt,
    headSha: payload.headSha,
  });
  // Said once: whichever replicas asked for the wake-up, only the first to ask tells the issue.
  expect(scheduled()).toBe(1);
  const record = decodeRecord(sim.own(payload.headSha)?.output?.text, payload.headSha);
  expect(record?.pause).toBeUndefined();
  expect(record?.pauses).toHaveLength(1);
  expect(record?.attempts ?? []).toEqual([]);
});

it('a pause scheduled before both replicas restart resumes once after they are back', async () => {
  const payload = await handedOff();
  await pausedByTheAction(payload, 8_000);
  await Promise.all(replicas.map((r) => deliver(r, agentWorkflowCompleted('wake-2'))));
  await settle('the wake-up scheduled', () => scheduled() >= 1);
  await Promise.all(replicas.map((r) => r.stop()));

  // Nothing of the App runs now: the job waits in Redis alone.
  const queue = new Queue('coder-loop-wake', {
    connection: { url: redis.url, maxRetriesPerRequest: null },
  });
  try {
    const waiting = await queue.getJobs(['delayed', 'wait']);
    expect(
      waiting.filter((job) => (job.data as { sha: string }).sha === payload.headSha),
    ).toHaveLength(1);
  } finally {
    await queue.close();
  }
  expect(resumes()).toBe(0);

  replicas = await startReplicas();
  // A redelivery to the restarted replicas schedules nothing more: the record says it is.
  await deliver(replicas[0]!, agentWorkflowCompleted('wake-3'));
  await settle('the resume after the restart', () => resumes() >= 1);
  expect(resumes()).toBe(1);
  expect(sim.dispatches[1]!.client_payload).toMatchObject({
    node: 'tdd',
    headSha: payload.headSha,
  });
  expect(scheduled()).toBeLessThanOrEqual(2);
});
