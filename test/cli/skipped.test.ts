import { KIND_LABELS, skippedPlanFiles } from '../../src/core/plan/kinds/discovery.js';
import { inProcess } from '../helpers/cli.js';
import { scratchCheckouts } from '../helpers/checkout.js';

/**
 * What the CLI looked for, found, and did not run: with no plan, the message names every kind and
 * where it looked; OpenSpec's archived changes and BMAD's files are named as skipped (BMAD is
 * not read), never passed over in silence.
 */
/** Writes one checkout's files into a fresh folder; returns it. */
const checkout = scratchCheckouts('coder-loop-skipped-');

const TASKS = '## 1. Setup\n\n- [x] 1.1 Done\n';
const OTHER_TOOLS = {
  'openspec/changes/archive/2025-01-01-add-export/tasks.md': TASKS,
  'openspec/changes/archive/2025-01-01-add-export/proposal.md': '# Proposal\n',
  '_bmad-output/implementation-artifacts/sprint-status.yaml':
    'development_status:\n  1-1-setup: done\n',
  '_bmad-output/implementation-artifacts/1-1-setup.md': '# Story 1.1\n',
  'docs/stories/1.1.story.md': '# Story 1.1\n',
  'docs/sprint-artifacts/sprint-status.yaml': 'development_status: {}\n',
};
const SKIPPED =
  "Skipped: _bmad-output/ (BMAD's output: BMAD is not read); docs/sprint-artifacts/sprint-status.yaml (BMAD's sprint status: BMAD is not read); docs/stories/ (BMAD stories: BMAD is not read); openspec/changes/archive/ (1 archived OpenSpec change: completed, never run).";
const NONE =
  'There are no plans here: none under docs/plans/, and no spec-kit, Kiro, Task Master or OpenSpec tasks file where those tools write them.';

describe('what was looked for, found and skipped', () => {
  it('status with no plan: where it looked, and what it skipped', async () => {
    const run = await inProcess(checkout(OTHER_TOOLS), 'status');
    expect(run).toEqual({ code: 1, stdout: '', stderr: `coder-loop status: ${NONE} ${SKIPPED}` });
    // Every kind but the coder layout is named, from the one list of kinds.
    for (const [kind, label] of Object.entries(KIND_LABELS))
      if (kind !== 'coder') expect(run.stderr).toContain(label);
  });

  it('plans with no plan: the same, exit 0', async () => {
    const run = await inProcess(checkout(OTHER_TOOLS), 'plans');
    expect(run).toEqual({ code: 0, stdout: `No plans found. ${NONE} ${SKIPPED}`, stderr: '' });
  });

  it('plans lists an active change and names the archived ones after it', async () => {
    const run = await inProcess(
      checkout({
        'openspec/changes/add-import/tasks.md': TASKS,
        'openspec/changes/add-import/proposal.md': '# Proposal\n',
        'openspec/changes/archive/2025-01-01-a/tasks.md': TASKS,
        'openspec/changes/archive/2025-02-01-b/tasks.md': TASKS,
      }),
      'plans',
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'openspec  add-import  openspec/changes/add-import/tasks.md  (1/1 phases done)',
      'Skipped: openspec/changes/archive/ (2 archived OpenSpec changes: completed, never run).',
    ]);
  });

  it('doctor says what it skipped beside the plans it found', async () => {
    const run = await inProcess(checkout(OTHER_TOOLS), 'doctor');
    expect(run.stdout.split('\n')).toContain(`plans: ${SKIPPED}`);
  });

  it('a nested OpenSpec archive and BMAD files at any depth, one entry per folder', () => {
    expect(
      skippedPlanFiles([
        'hw3/openspec/changes/archive/x/tasks.md',
        'hw3/openspec/changes/archive/y/tasks.md',
        'hw3/openspec/changes/archive/y/proposal.md',
        'hw3/openspec/changes/live/tasks.md',
        'app/_bmad-output/planning-artifacts/prd.md',
        'app/_bmad-output/implementation-artifacts/sprint-status.yaml',
        'stories/2.1.story.md',
        'stories/2.2.story.md',
        'README.md',
      ]),
    ).toEqual([
      { path: 'app/_bmad-output/', why: "BMAD's output: BMAD is not read" },
      {
        path: 'hw3/openspec/changes/archive/',
        why: '2 archived OpenSpec changes: completed, never run',
      },
      { path: 'stories/', why: 'BMAD stories: BMAD is not read' },
    ]);
  });
});
