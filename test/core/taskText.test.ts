import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { readOpenspec } from '../../src/core/plan/kinds/openspec/index.js';
import { readSpeckit } from '../../src/core/plan/kinds/speckit/index.js';
import { specTasksOfKindPhase } from '../../src/core/loop/phasePlan/specTasks.js';

/**
 * A task's text is its first line after the box as written (docs/cli.md): inline markup is kept,
 * so `~~Plot output~~ — skipped` still says the task was struck, and a code span keeps its
 * backticks. Ids are still read as the tool reads them (`**T001**` is task T001), by the fast
 * path and by remark alike.
 */
const SPECKIT = [
  '## Phase 1: Setup',
  '',
  '- [ ] T001 ~~Plot output~~ — skipped',
  '- [x] T002 Run `npm test` first',
  '- [ ] **T003** [US1] Bold id',
  '',
].join('\n');

const OPENSPEC = [
  '## 1. Group',
  '',
  '- [ ] 1.1 ~~Plot output~~ — skipped',
  '- [ ] 1.2 Use `zod`',
  '',
].join('\n');

describe("a task's text, as written", () => {
  for (const fast of [true, false]) {
    it(`spec-kit keeps inline markup and reads the ids (${fast ? 'fast path' : 'remark'})`, () => {
      const plan = readSpeckit(SPECKIT, 'tasks.md', { fast });
      expect(plan.problems).toEqual([]);
      expect(plan.phases[0]!.tasks.map((t) => [t.id, t.text, t.requirements])).toEqual([
        ['T001', 'T001 ~~Plot output~~ — skipped', []],
        ['T002', 'T002 Run `npm test` first', []],
        ['T003', '**T003** [US1] Bold id', ['US1']],
      ]);
    });

    it(`OpenSpec keeps inline markup (${fast ? 'fast path' : 'remark'})`, () => {
      const plan = readOpenspec(OPENSPEC, 'tasks.md', { fast });
      expect(plan.phases[0]!.tasks.map((t) => [t.id, t.text])).toEqual([
        ['1.1', '1.1 ~~Plot output~~ — skipped'],
        ['1.2', '1.2 Use `zod`'],
      ]);
    });
  }

  it('a bold id is still the id the task writes (Passes Spec? takes it as cited)', () => {
    const plan = readSpeckit(SPECKIT, 'tasks.md');
    const tasks = specTasksOfKindPhase({
      tasks: plan.phases[0]!.tasks.map((t) => ({ ...t, state: 'todo' as const })),
    });
    expect(tasks.map((t) => [t.id, t.writtenId])).toEqual([
      ['T001', true],
      ['T002', true],
      ['T003', true],
    ]);
  });

  it('status --json shows the text as written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coder-loop-text-'));
    try {
      const files: Record<string, string> = {
        'specs/001-plot/tasks.md': SPECKIT,
        'specs/001-plot/spec.md': '# Spec\n',
        'specs/001-plot/plan.md': '# Plan\n',
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      const out: string[] = [];
      const code = await main(['status', '001-plot', '--json'], {
        cwd: dir,
        cli: 'coder-loop',
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
        now: () => new Date('2026-11-28T00:00:00Z'),
        env: {},
      });
      expect(code).toBe(0);
      const json = JSON.parse(out.join('\n')) as { phases: { tasks: { text: string }[] }[] };
      expect(json.phases[0]!.tasks.map((t) => t.text)).toEqual([
        'T001 ~~Plot output~~ — skipped',
        'T002 Run `npm test` first',
        '**T003** [US1] Bold id',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
