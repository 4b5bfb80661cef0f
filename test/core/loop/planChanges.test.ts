import {
  appendLogEntry,
  architectItems,
  ConfigSchema,
  gitBlobSha,
  loopFileRole,
  loopWroteExactly,
  markPhase,
  parseChecklist,
  withLoopFiles,
  type LoopMarker,
  type PullFile,
  type PullSnapshot,
} from '../../../src/core/index.js';
import { mayBePlanDocument, defaultPlanGlobs } from '../../../src/core/plan/kinds/discovery.js';

/** The loop owns only the bytes it writes in its own plan files: everything else is a plan change. */

const config = ConfigSchema.parse({});
const PLAN = 'docs/plans/Example';
const CHECKLIST = `${PLAN}/01_Master Plan/01_Checklist.md`;
const LOG = `${PLAN}/Reports/01_Master_Log.md`;
const CONTEXT = `${PLAN}/00_context.md`;
const coder: LoopMarker = { mode: 'plan', issue: 1, plan: 'Example', phase: 1, pr: 2 };

const checklist = [
  '# Example',
  '',
  '## Phase 1: Endpoint',
  '',
  '- [ ] 1.1 Test',
  '- [ ] 1.2 Route',
  '',
  '## Phase 2: Probe',
  '',
  '- [ ] 2.1 Probe',
  '',
].join('\r\n');

describe('the roles of the loop’s own plan files', () => {
  it.each<[string, string | undefined]>([
    [CHECKLIST, 'tasks'],
    [CONTEXT, 'checkpoint'],
    [LOG, 'log'],
    [`${PLAN}/Reports/01_Endpoint.md`, 'report'],
    [`${PLAN}/Reports/02_Probe.md`, undefined],
    [`${PLAN}/Task Plans/Phase 1 - Endpoint.md`, undefined],
    ['docs/plans/Other/00_context.md', undefined],
  ])('%s: %s', (path, role) => {
    expect(loopFileRole(path, coder, config)).toBe(role);
  });

  it('quick mode owns a master log only with quick.log', () => {
    const quick: LoopMarker = { mode: 'quick', issue: 1 };
    expect(loopFileRole(LOG, quick, config)).toBeUndefined();
    expect(loopFileRole(LOG, quick, ConfigSchema.parse({ quick: { log: true } }))).toBe('log');
  });
});

describe('the loop’s own bytes: the blobs its commits left, nothing else', () => {
  const phase = parseChecklist(checklist, CHECKLIST).phases[0]!;
  const started = markPhase(checklist, phase, 'doing', ['todo']).source;
  const log = appendLogEntry('# Master Log\n', {
    timestamp: '2026-02-02T00:00:00Z',
    event: 'Coder started',
    plan: 'Example',
    phase: { number: 1, name: 'Endpoint' },
    actor: 'alice',
  });
  const recorded: LoopMarker = {
    ...coder,
    loopFiles: withLoopFiles(undefined, [
      { path: CHECKLIST, content: started },
      { path: LOG, content: log },
    ]),
  };
  const changed = (path: string, text: string, extra: Partial<PullFile> = {}): PullFile => ({
    path,
    additions: 1,
    deletions: 0,
    sha: gitBlobSha(text),
    ...extra,
  });
  const snapOf = (marker: LoopMarker, files: PullFile[]) =>
    ({
      repo: { owner: 'o', repo: 'r' },
      repoUrl: 'https://github.com/o/r',
      marker,
      files,
      pr: {
        number: 2,
        url: '',
        body: '',
        head: { sha: 'h', ref: 'coder/Example' },
        escalated: false,
      },
    }) as PullSnapshot;
  const forged = appendLogEntry(log, {
    timestamp: '2026-02-02T00:00:01Z',
    event: 'Coder started',
    plan: 'Example',
    phase: { number: 1, name: 'Endpoint' },
    actor: 'mallory',
  });

  it('the blob id is git’s (git hash-object)', () => {
    expect(gitBlobSha('')).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(gitBlobSha('hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(gitBlobSha('é\r\n')).not.toBe(gitBlobSha('é\n'));
  });

  it('a later commit of the loop’s replaces its file’s blob and keeps the others', () => {
    const after = withLoopFiles(recorded.loopFiles, [{ path: LOG, content: forged }]);
    expect(after).toEqual([
      { path: CHECKLIST, blob: gitBlobSha(started) },
      { path: LOG, blob: gitBlobSha(forged) },
    ]);
    const many = Array.from({ length: 30 }, (_, i) => ({ path: `f${i}`, content: `${i}` }));
    expect(withLoopFiles(undefined, many)).toHaveLength(20);
  });

  it.each<[string, PullFile, LoopMarker, boolean]>([
    ['the start’s marks', changed(CHECKLIST, started), recorded, true],
    ['the start’s log entry', changed(LOG, log), recorded, true],
    ['a line in the loop’s shape appended to its log', changed(LOG, forged), recorded, false],
    [
      'a later phase marked',
      changed(CHECKLIST, started.replace('[ ] 2.1', '[x] 2.1')),
      recorded,
      false,
    ],
    ['the same bytes at another path', changed(CONTEXT, log), recorded, false],
    ['deleted', changed(LOG, log, { deleted: true }), recorded, false],
    ['renamed here', changed(LOG, log, { previous: 'x.md' }), recorded, false],
    ['no blob named', { path: LOG, additions: 1, deletions: 0 }, recorded, false],
    ['a record that keeps no files (an older one)', changed(LOG, log), coder, false],
  ])('%s: %s', (_name, file, marker, expected) => {
    expect(loopWroteExactly(file, marker)).toBe(expected);
  });

  it('Touched Locked Items?: the start commit alone needs no architect; a forged log line does', () => {
    const own = [changed(CHECKLIST, started), changed(LOG, log)];
    expect(architectItems(snapOf(recorded, own), config)).toEqual({
      locked: [],
      planDocuments: [],
    });
    expect(architectItems(snapOf(recorded, [own[0]!, changed(LOG, forged)]), config)).toEqual({
      locked: [],
      planDocuments: [LOG],
    });
    // An older record keeps no bytes: its own files are plan changes, for an architect.
    expect(architectItems(snapOf(coder, own), config)).toEqual({
      locked: [],
      planDocuments: [CHECKLIST, LOG],
    });
  });

  it('with a shared identity (the default GITHUB_TOKEN) the record owns no bytes: the loop’s own marks are a plan change', () => {
    const files = [changed(CHECKLIST, started), changed(LOG, log)];
    expect(architectItems(snapOf(recorded, files), config)).toEqual({
      locked: [],
      planDocuments: [],
    });
    expect(architectItems({ ...snapOf(recorded, files), shared: true }, config)).toEqual({
      locked: [],
      planDocuments: [CHECKLIST, LOG],
    });
  });

  it('the loop’s bytes at a path that is not one of this phase’s own files are a plan change', () => {
    const other = 'docs/plans/Other/01_Master Plan/01_Checklist.md';
    const marker = {
      ...recorded,
      loopFiles: withLoopFiles(undefined, [{ path: other, content: 'x' }]),
    };
    expect(architectItems(snapOf(marker, [changed(other, 'x')]), config)).toEqual({
      locked: [],
      planDocuments: [other],
    });
  });
});

describe('mayBePlanDocument: from the path alone, whether the trees are worth reading', () => {
  const globs = defaultPlanGlobs('docs/plans');
  it.each<[string, boolean]>([
    ['specs/001/spec.md', true],
    ['specs/001/contracts/api.yaml', true],
    ['.kiro/specs/auth/design.md', true],
    ['.kiro/steering/product.md', true],
    ['.kiro/steering', true],
    ['docs/steering/product.md', false],
    ['.taskmaster/docs/prd.txt', true],
    ['openspec/specs/profile/spec.md', true],
    ['src/specs/a.ts', false],
    ['README.md', false],
  ])('%s: %s', (path, expected) => {
    expect(mayBePlanDocument(path, globs)).toBe(expected);
  });
});
