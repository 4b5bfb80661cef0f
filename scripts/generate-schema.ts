import { readFile, writeFile } from 'node:fs/promises';
import { DOCS_FILE, SCHEMA_FILE, schemaText, updateDocs } from './config-docs.js';

// Writes the JSON Schema and the configuration table from the zod schema (src/core/config.ts).
await writeFile(SCHEMA_FILE, schemaText());
await writeFile(DOCS_FILE, updateDocs(await readFile(DOCS_FILE, 'utf8')));
console.log(`wrote ${SCHEMA_FILE} and ${DOCS_FILE}`);
