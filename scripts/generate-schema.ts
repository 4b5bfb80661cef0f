import { readFile, writeFile } from 'node:fs/promises';
import { AGENT_DOCS_FILE, updateAgentDocs } from './agent-docs.js';
import { PERMISSIONS_DOCS_FILE, updatePermissionDocs } from './permission-docs.js';
import { DOCS_FILE, SCHEMA_FILE, schemaText, updateDocs } from './config-docs.js';

// Writes the JSON Schema and the configuration table from the zod schema (src/core/config.ts).
await writeFile(SCHEMA_FILE, schemaText());
await writeFile(DOCS_FILE, updateDocs(await readFile(DOCS_FILE, 'utf8')));
// The agent CLIs' table from examples/agents/<cli>.yml (the commands the real-CLI test runs).
await writeFile(
  AGENT_DOCS_FILE,
  updateAgentDocs(await readFile(AGENT_DOCS_FILE, 'utf8'), process.cwd()),
);
// The App's permissions table from app.yml (the one list of them).
await writeFile(
  PERMISSIONS_DOCS_FILE,
  updatePermissionDocs(await readFile(PERMISSIONS_DOCS_FILE, 'utf8'), process.cwd()),
);
console.log(`wrote ${SCHEMA_FILE}, ${DOCS_FILE}, ${AGENT_DOCS_FILE} and ${PERMISSIONS_DOCS_FILE}`);
