import { readFile, writeFile } from 'node:fs/promises';
import { AGENT_DOCS_FILE, updateAgentDocs } from './agent-docs.js';
import { DOCS_FILE, SCHEMA_FILE, schemaText, updateDocs } from './config-docs.js';

// Writes the JSON Schema and the configuration table from the zod schema (src/core/config.ts).
await writeFile(SCHEMA_FILE, schemaText());
await writeFile(DOCS_FILE, updateDocs(await readFile(DOCS_FILE, 'utf8')));
// The agent CLIs' table from examples/agents/<cli>.yml (the commands the real-CLI test runs).
await writeFile(
  AGENT_DOCS_FILE,
  updateAgentDocs(await readFile(AGENT_DOCS_FILE, 'utf8'), process.cwd()),
);
console.log(`wrote ${SCHEMA_FILE}, ${DOCS_FILE} and ${AGENT_DOCS_FILE}`);
