import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { AGENT_DOCS_FILE, updateAgentDocs } from '../../scripts/agent-docs.js';
import { DOCS_FILE, SCHEMA_FILE, schemaText, updateDocs } from '../../scripts/config-docs.js';
import {
  appPermissionSummary,
  PERMISSION_SUMMARY_FILES,
  PERMISSIONS_DOCS_FILE,
  updatePermissionDocs,
} from '../../scripts/permission-docs.js';
import { inProcess } from '../helpers/cli.js';

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

describe("the App's permissions, said from one place: app.yml", () => {
  const summary = appPermissionSummary(repo);
  const flat = (text: string) => text.replace(/\s+/g, ' ');

  it(`${PERMISSIONS_DOCS_FILE}'s table (run "npm run schema" to refresh)`, () => {
    const doc = read(PERMISSIONS_DOCS_FILE);
    expect(doc).toBe(updatePermissionDocs(doc, repo));
  });

  it.each(PERMISSION_SUMMARY_FILES)('%s says the one-line summary', (file) => {
    expect(flat(read(file))).toContain(`(${summary})`.replace(/^\(/, ''));
  });

  it("docs/github-app.md's table names the same permissions and access", () => {
    const rows = [
      ...read('docs/github-app.md').matchAll(/^\| ([A-Z][^|]*?) +\| (read|write) +\|/gm),
    ].map((r) => `${r[1]!.replace(' (organization)', '')}: ${r[2]}`);
    const listed = summary.split('; ').flatMap((group) => {
      const [names, access] = group.split(': ');
      return names!.split(', ').map((n) => `${n}: ${access}`);
    });
    expect(rows.sort()).toEqual(listed.sort());
  });

  it("coder-loop app and doctor's hand-check print it", async () => {
    const app = await inProcess(repo, 'app', '--url', 'https://example.com/x');
    expect(app.stdout).toContain(summary);
    const doctor = await inProcess(repo, 'doctor');
    expect(doctor.stdout).toContain(`Settings → GitHub Apps (${summary}).`);
  });
});
