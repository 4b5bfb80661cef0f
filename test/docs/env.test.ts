import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUEST_TIMEOUT_ENV } from '../../src/github/client.js';
import { repoRoot } from '../paths.js';

/** `.env.example` names every variable the App's docs table and the App's sources read. */
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const example = read('.env.example');
const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));

it('names every variable of the Environment table in docs/github-app.md', () => {
  const doc = read('docs/github-app.md');
  const table = doc.slice(
    doc.indexOf('## Environment'),
    doc.indexOf('\n## ', doc.indexOf('## Environment') + 1),
  );
  const named = table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
  expect(named).toEqual(expect.arrayContaining(['APP_ID', 'PRIVATE_KEY', 'WEBHOOK_PROXY_URL']));
  expect(named.filter((name) => !listed.has(name))).toEqual([]);
});

it('names every variable src/app reads', () => {
  const read_ = readdirSync(join(repoRoot, 'src', 'app'))
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => [...read(`src/app/${name}`).matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)])
    .map((m) => m[1]!);
  const names = [...new Set([...read_, REQUEST_TIMEOUT_ENV])];
  expect(names).toEqual(expect.arrayContaining(['WEBHOOK_SECRET', 'REDIS_URL']));
  expect(names.filter((name) => !listed.has(name))).toEqual([]);
});
