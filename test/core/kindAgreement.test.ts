import fc from 'fast-check';
import { inProcessAt } from '../helpers/cli.js';
import { decideRunNext, type RunSnapshot } from '../../src/core/loop/nodes/run.js';
import { phaseInteger } from '../../src/core/loop/messages/phaseName.js';
import { kindPhaseToStart, kindRunState } from '../../src/core/loop/phasePlan/startKind.js';
import type { NamedPlan } from '../../src/core/plan/kinds/index.js';
import { openKindPlan } from '../../src/core/plan/kinds/plan.js';
import { fixSeed } from '../helpers/seed.js';
import { scratchCheckouts } from '../helpers/checkout.js';

fixSeed(import.meta.url);

/**
 * The loop (`/coder next`), `/coder run` after a merge, and the CLI (`status`, `plans`) give one
 * answer about a plan of another kind: the phase to start, complete, or waiting (nothing can
 * start) — on generated spec-kit, Kiro and Task Master plans with optional, blocked, deferred,
 * cancelled, in-review and tagged tasks.
 */

type Answer = `start ${string}` | 'complete' | 'waiting' | 'invalid';

const RUN = { starter: 'octocat', plan: 'gen', startedAt: '2026-11-24T10:00:00Z' };
const SNAPSHOT: Omit<RunSnapshot, 'nextPhase' | 'planComplete'> = {
  record: { mode: 'plan', plan: 'gen', phase: 1, issue: 7, run: RUN },
  merged: true,
  verified: true,
  starterPermitted: true,
  otherPhaseOpen: false,
  now: '2026-11-24T11:00:00Z',
};

/** Writes one checkout's files into a fresh folder; returns it. */
const checkout = scratchCheckouts('coder-loop-agree-');

const cli = inProcessAt('2026-11-24T12:00:00Z');

/** The loop's answer, `/coder run`'s, and the CLI's `status` and `plans` for one plan. */
async function answers(plan: NamedPlan, files: Record<string, string>) {
  const kp = openKindPlan(plan, Object.keys(files), new Map(Object.entries(files)));
  const chosen = kindPhaseToStart(plan.name, kp);
  const loop: Answer =
    'phase' in chosen
      ? `start ${chosen.phase.number}`
      : chosen.outcome.state === 'plan-complete'
        ? 'complete'
        : chosen.outcome.state === 'plan-waiting'
          ? 'waiting'
          : 'invalid';
  const next = decideRunNext({ ...SNAPSHOT, ...kindRunState(kp, undefined) });
  const run =
    next.kind === 'start'
      ? `start ${next.phase}`
      : next.kind === 'stop' && next.state === 'run-complete'
        ? 'complete'
        : next.kind === 'stop' && next.state === 'run-waiting'
          ? 'waiting'
          : next.kind;
  const cwd = checkout(files);
  const status = await cli(cwd, 'status', plan.tag ? `${plan.path}#${plan.tag}` : plan.path);
  const first = status.stdout.split('\n')[0] ?? '';
  const cliStatus: Answer =
    status.code !== 0
      ? 'invalid'
      : /: current phase (\S+)$/.test(first)
        ? `start ${/: current phase (\S+)$/.exec(first)![1]}`
        : first.endsWith(': complete')
          ? 'complete'
          : first.includes(': no phase can start')
            ? 'waiting'
            : 'invalid';
  const listed = JSON.parse((await cli(cwd, 'plans', '--json')).stdout) as {
    name: string;
    phases: { done: number; total: number } | null;
    valid?: false;
  }[];
  const row = listed.find((r) => r.name === plan.name)!;
  // `plans --json` counts what it could read, and says `"valid": false` for a plan the loop refuses.
  const plansSays: Answer | 'open' =
    row.valid === false || !row.phases
      ? 'invalid'
      : row.phases.total > 0 && row.phases.done === row.phases.total
        ? 'complete'
        : 'open'; // 0 of 0 (an empty Task Master tag) is a plan waiting for its tasks
  return { loop, run, cliStatus, plansSays, kp };
}

/** What each property saw: every kind of answer must come up, or the property proves little. */
const seen = new Set<string>();
const kindOf = (a: Answer) => (a.startsWith('start ') ? 'start' : a);

function expectAgreement(a: Awaited<ReturnType<typeof answers>>): void {
  seen.add(kindOf(a.loop));
  expect(a.cliStatus).toBe(a.loop);
  if (a.loop !== 'invalid') {
    const expectedRun = a.loop.startsWith('start ')
      ? `start ${phaseInteger(a.loop.slice(6))}`
      : a.loop;
    expect(a.run).toBe(expectedRun);
    expect(a.plansSays).toBe(a.loop === 'complete' ? 'complete' : 'open');
  } else expect(a.plansSays).toBe('invalid');
  // A plan from which no task could be read is never complete.
  if (a.kp.phases.length === 0) expect(a.loop).not.toBe('complete');
}

const RUNS = { numRuns: 40 };
beforeEach(() => seen.clear());

describe('the loop, /coder run and the CLI agree on every kind', () => {
  it('spec-kit: phases with done and open tasks, repeated headings, empty phases', async () => {
    const phase = fc.record({
      number: fc.constantFrom('1', '2', '3', '3.1', '4'),
      depth: fc.constantFrom(2, 3),
      tasks: fc.array(fc.constantFrom(' ', 'x', 'X'), { maxLength: 3 }),
    });
    let id = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(phase, { maxLength: 5 }), async (phases) => {
        const lines = ['# Tasks: gen', ''];
        for (const p of phases) {
          lines.push(`${'#'.repeat(p.depth)} Phase ${p.number}: Step`, '');
          for (const mark of p.tasks)
            lines.push(`- [${mark}] T${String(++id).padStart(3, '0')} Do it`);
          lines.push('');
        }
        const plan: NamedPlan = {
          kind: 'speckit',
          path: 'specs/001-gen/tasks.md',
          folder: 'specs/001-gen',
          sidecar: 'specs/001-gen/coder-loop',
          name: '001-gen',
        };
        expectAgreement(
          await answers(plan, {
            [plan.path]: lines.join('\n'),
            'specs/001-gen/spec.md': '# Spec\n',
            'specs/001-gen/plan.md': '# Plan\n',
          }),
        );
      }),
      RUNS,
    );
    expect([...seen].sort()).toEqual(['complete', 'invalid', 'start']);
  });

  it('Kiro: required and optional tasks, optional top-level tasks, in progress and done', async () => {
    const box = fc.record({
      mark: fc.constantFrom(' ', 'x', '-'),
      optional: fc.boolean(),
    });
    const task = fc.record({ self: box, subs: fc.array(box, { maxLength: 3 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(task, { maxLength: 4 }), async (tasks) => {
        const lines = ['# Implementation Plan', ''];
        tasks.forEach((t, i) => {
          const n = i + 1;
          lines.push(`- [${t.self.mark}]${t.self.optional ? '*' : ''} ${n}. Task ${n}`);
          t.subs.forEach((s, j) =>
            lines.push(`  - [${s.mark}]${s.optional ? '*' : ''} ${n}.${j + 1} Sub-task`),
          );
        });
        const plan: NamedPlan = {
          kind: 'kiro',
          path: '.kiro/specs/gen-kiro/tasks.md',
          folder: '.kiro/specs/gen-kiro',
          sidecar: '.kiro/specs/gen-kiro/coder-loop',
          name: 'gen-kiro',
        };
        expectAgreement(
          await answers(plan, {
            [plan.path]: `${lines.join('\n')}\n`,
            '.kiro/specs/gen-kiro/requirements.md': '# Requirements\n',
            '.kiro/specs/gen-kiro/design.md': '# Design\n',
          }),
        );
      }),
      RUNS,
    );
    expect([...seen].sort()).toEqual(['complete', 'invalid', 'start']);
  });

  it('Task Master: tags, dependencies, priorities, blocked, review, deferred and cancelled', async () => {
    const status = fc.constantFrom(
      'pending',
      'in-progress',
      'done',
      'review',
      'deferred',
      'cancelled',
      'blocked',
      'completed',
    );
    const task = fc.record({
      status,
      priority: fc.constantFrom('high', 'medium', 'low', undefined),
      deps: fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 2 }),
      subs: fc.array(status, { maxLength: 3 }),
    });
    // A tag's tasks, and (one time in five) a dependency of its first task on a task 99 the tag
    // does not have: an error of that tag. An empty tag waits for its tasks.
    const tag = fc.tuple(
      fc.array(task, { minLength: 0, maxLength: 5 }),
      fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    );
    await fc.assert(
      fc.asyncProperty(tag, tag, fc.constantFrom('master', 'feat'), async (a, b, which) => {
        const json = ([tasks, stray]: typeof a) => ({
          tasks: tasks.map((t, i) => ({
            id: i + 1,
            title: `Task ${i + 1}`,
            status: t.status,
            ...(t.priority ? { priority: t.priority } : {}),
            dependencies: [
              ...new Set(t.deps.filter((d) => d <= tasks.length && d !== i + 1)),
              ...(stray && i === 0 ? [99] : []),
            ],
            subtasks: t.subs.map((s, j) => ({ id: j + 1, title: `Sub ${j + 1}`, status: s })),
          })),
          metadata: { created: '2026-11-24T10:00:00Z' },
        });
        const source = `${JSON.stringify({ master: json(a), feat: json(b) }, null, 2)}\n`;
        const plan: NamedPlan = {
          kind: 'taskmaster',
          path: '.taskmaster/tasks/tasks.json',
          folder: '.taskmaster/tasks',
          sidecar: `.taskmaster/tasks/coder-loop/${which}`,
          name: which,
          tag: which,
        };
        expectAgreement(await answers(plan, { [plan.path]: source }));
      }),
      RUNS,
    );
    expect([...seen].sort()).toEqual(['complete', 'invalid', 'start', 'waiting']);
  });
});

describe('the CLI on the cases the loop reads differently from before', () => {
  it('an error inside one Task Master tag leaves the other tags readable', async () => {
    const source = `${JSON.stringify(
      {
        master: { tasks: [{ id: 1, title: 'A', status: 'pending', dependencies: [] }] },
        'test-tag': { tasks: [{ id: 1, title: 'B', status: 'pending', dependencies: [16] }] },
      },
      null,
      2,
    )}\n`;
    const cwd = checkout({ '.taskmaster/tasks/tasks.json': source });
    const master = await cli(cwd, 'status', 'master');
    expect(master.code).toBe(0);
    expect(master.stdout.split('\n')[0]).toBe(
      'master (Task Master, .taskmaster/tasks/tasks.json#master): current phase 1',
    );
    expect((await cli(cwd, 'status', 'test-tag')).code).toBe(1);
    expect((await cli(cwd, 'lint', '.taskmaster/tasks/tasks.json#master')).code).toBe(0);
  });

  it('a VS Code tasks/tasks.json is no plan: at most a warning, and lint exits 0', async () => {
    const cwd = checkout({
      'tasks/tasks.json':
        '{\n  // VS Code reads comments here\n  "version": "2.0.0",\n  "tasks": [{ "label": "build", "type": "shell", "command": "make" }]\n}\n',
      'specs/001-x/tasks.md': '## Phase 1: Setup\n\n- [ ] T001 Init\n',
      'specs/001-x/spec.md': '# Spec\n',
      'specs/001-x/plan.md': '# Plan\n',
    });
    const listed = JSON.parse((await cli(cwd, 'plans', '--json')).stdout) as { path: string }[];
    expect(listed.map((p) => p.path)).toEqual(['specs/001-x/tasks.md']);
    expect((await cli(cwd, 'plans')).stdout).toContain(
      'tasks/tasks.json: warning: not read as a Task Master plan',
    );
    expect((await cli(cwd, 'lint')).code).toBe(0);
  });
});
