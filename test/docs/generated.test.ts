import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { AGENT_DOCS_FILE, updateAgentDocs } from '../../scripts/agent-docs.js';
import { DOCS_FILE, SCHEMA_FILE, schemaText, updateDocs } from '../../scripts/config-docs.js';

const repo = repoRoot;
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

describe('generated files match the zod schema (run "npm run schema" to refresh)', () => {
  it(SCHEMA_FILE, () => {
    expect(read(SCHEMA_FILE)).toBe(schemaText());
  });

  it(DOCS_FILE, () => {
    const doc = read(DOCS_FILE);
    expect(doc).toBe(updateDocs(doc));
  });

  it(`${AGENT_DOCS_FILE} (its table of agent CLIs, from examples/agents/<cli>.yml)`, () => {
    const doc = read(AGENT_DOCS_FILE);
    expect(doc).toBe(updateAgentDocs(doc, repo));
  });
});
