import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';

/**
 * docs/agent.md's table of agent CLIs, generated from examples/agents/<cli>.yml: the files
 * test/agents/clis.e2e.test.ts runs, so the documented command is the tested one.
 */
export const AGENT_DOCS_FILE = 'docs/agent.md';
export const AGENT_EXAMPLES_DIR = 'examples/agents';
const BEGIN = '<!-- generated:agent-clis -->';
const END = '<!-- /generated:agent-clis -->';

export interface AgentExampleFile {
  id: string;
  name: string;
  package: string;
  version: string;
  api: string;
  hosts: string;
  notes: string;
  test: { env: Record<string, string>; home?: Record<string, string> };
  agent: { command: string; timeoutMinutes: number; env: string[] };
}

export function agentExamples(root: string): AgentExampleFile[] {
  const dir = join(root, AGENT_EXAMPLES_DIR);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => ({
      id: f.replace(/\.yml$/, ''),
      ...(yaml.load(readFileSync(join(dir, f), 'utf8')) as Omit<AgentExampleFile, 'id'>),
    }));
}

const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** The generated part of docs/agent.md, markers included. */
export function agentTable(root: string): string {
  const examples = agentExamples(root);
  const rows = examples.map(
    (e) =>
      `| ${e.name} | ${code(`npm install -g ${e.package}@${e.version}`)} | ${code(e.agent.command)} | ${code(`[${e.agent.env.join(', ')}]`)} |`,
  );
  const notes = examples.flatMap((e) => [
    '',
    `**${e.name}** ([\`examples/agents/${e.id}.yml\`](../examples/agents/${e.id}.yml); ${e.api}). ${e.notes}`,
    '',
    `Hosts it contacts: ${e.hosts}`,
  ]);
  return [
    BEGIN,
    '<!-- prettier-ignore-start -->',
    '| agent | install step (the tested version) | `agent.command` | `agent.env` |',
    '| --- | --- | --- | --- |',
    ...rows,
    '<!-- prettier-ignore-end -->',
    ...notes,
    END,
  ].join('\n');
}

/** docs/agent.md with its generated part brought up to date. */
export function updateAgentDocs(doc: string, root: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`${AGENT_DOCS_FILE} lacks the ${BEGIN} markers`);
  return doc.slice(0, start) + agentTable(root) + doc.slice(end + END.length);
}
