import {
  ciGateOf,
  ciStallDue,
  ciStalled,
  isWorkflowPath,
  type CiGateFacts,
  type CiStallFacts,
  type Config,
  type LoopOutcome,
} from '../../core/index.js';
import { readerFor, type LoopEnv } from './env.js';
import { run } from './pull.js';
import { pullContext } from './snapshot.js';
import type { LoopPull } from './loopPull.js';

/**
 * Verification with no CI at all (src/core/loop/nodes/ciStall.ts), on GitHub: the head's checks and
 * the loop's own check run as the loop PR was read, the Action's CI gate read from the default
 * branch's workflows only when a head is found stalled, and the one applier.
 */

/** The CI gate of the loop's workflow (the Action), read once per event from the default branch. */
export function gateReader(env: LoopEnv): () => Promise<CiGateFacts | undefined> {
  let gate: Promise<CiGateFacts | undefined> | undefined;
  return () => (gate ??= readGate(env));
}

async function readGate(env: LoopEnv): Promise<CiGateFacts | undefined> {
  // The Action only: the App hears every check suite, whatever the workflows are named.
  if (env.loopWorkflow === undefined) return undefined;
  const reader = readerFor(env);
  const base = await reader.base(env.defaultBranch);
  if (!base) return undefined;
  const { files } = base;
  const paths = [...files.keys()].filter(isWorkflowPath);
  const texts = new Map(
    await Promise.all(paths.map(async (p) => [p, await reader.blob(files.get(p)!)] as const)),
  );
  return ciGateOf(texts);
}

/**
 * A loop PR whose head has had no CI for `ciStallMinutes`: its issue is told once for that head.
 * Undefined when there is nothing to say.
 */
export async function sayCiStall(
  env: LoopEnv,
  config: Config,
  loop: LoopPull,
  gate: () => Promise<CiGateFacts | undefined>,
): Promise<LoopOutcome | undefined> {
  const now = env.now();
  const ctx = pullContext(env, config, loop);
  const facts: CiStallFacts = {
    waitingSince: loop.checks.own?.startedAt,
    checks: loop.checks.results,
  };
  if (!ciStallDue(ctx.snap, config, facts, now)) return undefined;
  const read = await gate();
  const withGate: CiStallFacts = { ...facts, ...(read ? { gate: read } : {}) };
  return run(ctx, (snap) => ciStalled(snap, config, withGate, now)!);
}
