import { agentExamples, type AgentExampleFile } from '../../scripts/agent-docs.js';
import { repoRoot } from '../paths.js';

/** One documented agent CLI: examples/agents/<id>.yml, the one source of the docs and the test. */
export type AgentExample = AgentExampleFile;

export const readAgentExamples = (): AgentExample[] => agentExamples(repoRoot);
