import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseAppManifest,
  permissionLabel,
  permissionReasons,
  permissionSummary,
} from '../src/core/appRegistration.js';

/**
 * The App's permissions, said from one place: `app.yml`. docs/github-action.md's table is
 * generated from it; the README, docs/cli.md and doctor say its one-line summary
 * (test/docs/generated.test.ts fails when one of them drifts).
 */
export const PERMISSIONS_DOCS_FILE = 'docs/github-action.md';
export const PERMISSION_SUMMARY_FILES = ['README.md', 'docs/cli.md', 'docs/github-action.md'];
const BEGIN = '<!-- generated:app-permissions (app.yml; npm run schema) -->';
const END = '<!-- /generated:app-permissions -->';

function appYml(root: string): string {
  return readFileSync(join(root, 'app.yml'), 'utf8');
}

/** `Contents, Pull requests, …: write; …: read`, from app.yml. */
export function appPermissionSummary(root: string): string {
  return permissionSummary(parseAppManifest(appYml(root)));
}

/** The generated table of docs/github-action.md, markers included. */
export function permissionTable(root: string): string {
  const text = appYml(root);
  const manifest = parseAppManifest(text);
  const reasons = permissionReasons(text);
  const rows = Object.entries(manifest.default_permissions).map(([permission, access]) => [
    permission === 'members' ? 'Members (organization)' : permissionLabel(permission),
    access,
    reasons[permission] ?? '',
  ]);
  const header = ['permission', 'access', 'why'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    BEGIN,
    '',
    line(header),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.map(line),
    '',
    END,
  ].join('\n');
}

/** docs/github-action.md with its generated table brought up to date. */
export function updatePermissionDocs(doc: string, root: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1)
    throw new Error(`${PERMISSIONS_DOCS_FILE} lacks the ${BEGIN} markers`);
  return doc.slice(0, start) + permissionTable(root) + doc.slice(end + END.length);
}
