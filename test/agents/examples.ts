import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { repoRoot } from '../paths.js';

/** One documented agent CLI: examples/agents/<id>.yml, the one source of the docs and the test. */
export interface AgentExample {
  id: string;
  name: string;
  package: string;
  version: string;
  api: string;
  hosts: string;
  notes: string;
  /** What the test sets through agent.env (`{model}`: the scripted model's address). */
  test: { env: Record<string, string>; home?: Record<string, string> };
  agent: { command: string; timeoutMinutes: number; env: string[] };
}

export const EXAMPLES_DIR = join(repoRoot, 'examples', 'agents');

export function readAgentExamples(): AgentExample[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => ({
      id: f.replace(/\.yml$/, ''),
      ...(yaml.load(readFileSync(join(EXAMPLES_DIR, f), 'utf8')) as Omit<AgentExample, 'id'>),
    }));
}
