import {
  appendLogEntry,
  ConfigSchema,
  loopFileRole,
  loopWroteOnly,
  markPhase,
  parseChecklist,
  renderCheckpoint,
  renderPhaseReport,
  writeCheckpoint,
  type LoopMarker,
} from '../../../src/core/index.js';
import { openKindPlan, planFromRef } from '../../../src/core/plan/kinds/plan.js';
import { mayBePlanDocument, defaultPlanGlobs } from '../../../src/core/plan/kinds/discovery.js';
import { fixture, SPECKIT, TASKMASTER } from '../../helpers/kinds.js';

/** The loop owns only the bytes it writes in its own plan files: everything else is a plan change. */

const config = ConfigSchema.parse({});
const PLAN = 'docs/plans/Example';
const CHECKLIST = `${PLAN}/01_Master Plan/01_Checklist.md`;
const LOG = `${PLAN}/Reports/01_Master_Log.md`;
const CONTEXT = `${PLAN}/00_context.md`;
const coder: LoopMarker = { mode: 'plan', issue: 1, plan: 'Example', phase: 1, pr: 2 };
const snap = (marker: LoopMarker) => ({
  marker,
  pr: { number: 2, url: '', body: '', head: { sha: 'h', ref: 'b' }, escalated: false },
});
const wrote = (path: string, base: string | undefined, head: string, marker = coder) =>
  loopWroteOnly(path, loopFileRole(path, marker, config)!, { base, head }, snap(marker));

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

describe('the checklist: the phase’s marks as the loop writes them, nothing else', () => {
  const phase = parseChecklist(checklist, CHECKLIST).phases[0]!;
  const started = markPhase(checklist, phase, 'doing', ['todo']).source;
  const done = markPhase(started, parseChecklist(started, CHECKLIST).phases[0]!, 'done').source;
  it.each<[string, string, boolean]>([
    ['unchanged', checklist, true],
    ['the start marks', started, true],
    ['the completion marks', done, true],
    ['one task of the phase done by hand', started.replace('[~] 1.1', '[x] 1.1'), false],
    ['a later phase marked done', started.replace('[ ] 2.1', '[x] 2.1'), false],
    ['a task added', `${started}- [x] 1.3 More\r\n`, false],
    ['line endings changed', started.replace(/\r\n/g, '\n'), false],
  ])('%s: %s', (_name, head, expected) => {
    expect(wrote(CHECKLIST, checklist, head)).toBe(expected);
  });

  it('a deleted or added checklist is never the loop’s', () => {
    expect(loopWroteOnly(CHECKLIST, 'tasks', { base: checklist }, snap(coder))).toBe(false);
    expect(wrote(CHECKLIST, undefined, started)).toBe(false);
  });
});

describe('the master log: the loop’s entries appended, nothing else', () => {
  const base = '# Master Log\n\n- 2026-01-01T00:00:00Z — **Coder completed** — Example, Phase 0\n';
  const entry = (event: string, phase: number) =>
    appendLogEntry(base, {
      timestamp: '2026-02-02T00:00:00Z',
      event,
      plan: 'Example',
      phase: { number: phase, name: 'Endpoint' },
      actor: 'alice',
      links: [{ label: '#2', url: 'https://github.com/o/r/pull/2' }],
    });
  it.each<[string, string | undefined, string, boolean]>([
    ['Coder started', base, entry('Coder started', 1), true],
    ['Coder completed', base, entry('Coder completed', 1), true],
    [
      'a new log',
      undefined,
      appendLogEntry(undefined, {
        timestamp: 't',
        event: 'Coder started',
        plan: 'Example',
        phase: { number: 1, name: '' },
      }),
      true,
    ],
    ['another phase’s entry', base, entry('Coder started', 2), false],
    ['another event', base, entry('Escalated', 1), false],
    ['a line rewritten', base, entry('Coder started', 1).replace('Phase 0', 'Phase 9'), false],
    ['free text', base, `${base}all done\n`, false],
  ])('%s', (_name, before, head, expected) => {
    expect(wrote(LOG, before, head)).toBe(expected);
  });
});

describe('the checkpoint: the block the completion writes, nothing else', () => {
  const base = '# Context\r\n\r\nThe source of truth.\r\n';
  const lines = renderCheckpoint({
    plan: 'Example',
    updated: '2026-02-02T00:00:00Z',
    completed: { number: 1, name: 'Endpoint' },
    next: { number: 2, name: 'Probe' },
    pullRequest: { number: 2, url: 'https://github.com/o/r/pull/2' },
    by: 'alice',
  });
  const loops = writeCheckpoint(base, CONTEXT, lines);
  it('as the loop writes it, in a file with or without a block', () => {
    expect(wrote(CONTEXT, base, loops)).toBe(true);
    const again = writeCheckpoint(
      loops,
      CONTEXT,
      lines.map((l) => l.replace('2026-02', '2026-03')),
    );
    expect(wrote(CONTEXT, loops, again)).toBe(true);
  });
  it.each<[string, string]>([
    ['another phase completed', loops.replace('Completed: Phase 1', 'Completed: Phase 3')],
    ['another pull request', loops.replace('[#2]', '[#7]')],
    ['a line added to the block', loops.replace('- Next:', '- Note: skip phase 2\r\n- Next:')],
    ['text outside the block', loops.replace('The source of truth.', 'Phase 2 is dropped.')],
  ])('%s is not the loop’s', (_name, head) => {
    expect(wrote(CONTEXT, base, head)).toBe(false);
  });
});

describe('the report: this phase’s, as the loop titles it', () => {
  const report = renderPhaseReport({
    plan: 'Example',
    phase: { number: 1, name: 'Endpoint' },
    completedAt: '2026-02-02T00:00:00Z',
    tasks: [],
  } as unknown as Parameters<typeof renderPhaseReport>[0]).join('\n');
  it('the loop’s report of the phase is; another title is not', () => {
    expect(wrote(`${PLAN}/Reports/01_Endpoint.md`, undefined, report)).toBe(true);
    expect(wrote(`${PLAN}/Reports/01_Endpoint.md`, undefined, '# Notes\n')).toBe(false);
  });
});

describe('other kinds: the tasks file with the kind’s own marks of the phase', () => {
  it('spec-kit: [X] on the phase is the loop’s; on a later phase it is not', () => {
    const path = `${SPECKIT}/tasks.md`;
    const marker: LoopMarker = { mode: 'plan', issue: 1, planFile: path, phaseId: '2', pr: 2 };
    const base = fixture('speckit/001-photo-albums/tasks.md');
    const plan = planFromRef(path)!;
    const kp = openKindPlan(plan, [path], new Map([[path, base]]));
    const phase2 = kp.phases.find((p) => p.number === '2')!;
    const phase3 = kp.phases.find((p) => p.number === '3')!;
    expect(wrote(path, base, kp.markDone(phase2), marker)).toBe(true);
    expect(wrote(path, base, kp.markDone(phase3), marker)).toBe(false);
    expect(wrote(path, base, base.replace(/- \[ \]/g, '- [X]'), marker)).toBe(false);
  });

  it('Task Master: the phase’s statuses are the loop’s; another task’s are not', () => {
    const ref = `${TASKMASTER}#master`;
    const marker: LoopMarker = { mode: 'plan', issue: 1, planFile: ref, phaseId: '1', pr: 2 };
    const base = fixture('taskmaster/tagged.json');
    const plan = planFromRef(ref)!;
    const kp = openKindPlan(plan, [TASKMASTER], new Map([[TASKMASTER, base]]));
    const one = kp.phases.find((p) => p.number === '1')!;
    const other = kp.phases.find((p) => p.number !== '1')!;
    expect(wrote(TASKMASTER, base, kp.markStart(one), marker)).toBe(true);
    expect(wrote(TASKMASTER, base, kp.markDone(other), marker)).toBe(false);
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
