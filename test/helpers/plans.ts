import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { repoRoot } from '../paths.js';

/** The shipped example plan, as repository files (`docs/plans/Example/...` → content). */
export function examplePlanFiles(): Record<string, string> {
  const root = join(repoRoot, 'docs', 'plans', 'Example');
  const files: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files[`docs/plans/Example/${relative(root, full).split(sep).join('/')}`] = readFileSync(
      full,
      'utf8',
    );
  }
  return files;
}

export const CHECKLIST = 'docs/plans/Example/01_Master Plan/01_Checklist.md';
export const MASTER_LOG = 'docs/plans/Example/Reports/01_Master_Log.md';
