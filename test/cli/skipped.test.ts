import { KIND_LABELS, skippedPlanFiles } from '../../src/core/plan/kinds/discovery.js';
import { inProcess } from '../helpers/cli.js';
import { scratchCheckouts } from '../helpers/checkout.js';

/**
 * What the CLI looked for, found, and did not run: with no plan, the message names every kind and
 * where it looked; OpenSpec's archived changes and BMAD v4's stories (the loop reads v6's
 * sprint-status.yaml) are named as skipped, never passed over in silence.
 */
/** Writes one checkout's files into a fresh folder; returns it. */
const checkout = scratchCheckouts('coder-loop-skipped-');

const TASKS = '## 1. Setup\n\n- [x] 1.1 Done\n';
const OTHER_TOOLS = {
  'openspec/changes/archive/2025-01-01-add-export/tasks.md': TASKS,
  'openspec/changes/archive/2025-01-01-add-export/proposal.md': '# Proposal\n',
  'docs/stories/1.1.story.md': '# Story 1.1\n',
};
const SKIPPED =
  "Skipped: docs/stories/ (1 BMAD v4 story: not read; the loop reads v6's sprint-status.yaml); openspec/changes/archive/ (1 archived OpenSpec change: completed, never run).";
const NONE =
  'There are no plans here: none under docs/plans/, and no spec-kit, Kiro, Task Master, OpenSpec or BMAD tasks file where those tools write them.';

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

  it('status on an archived change by its path says it is skipped, and why', async () => {
    const work = checkout({
      'openspec/changes/add-import/tasks.md': TASKS,
      'openspec/changes/add-import/proposal.md': '# Proposal\n',
      'openspec/changes/archive/2025-01-01-a/tasks.md': TASKS,
    });
    for (const named of [
      'openspec/changes/archive/2025-01-01-a/tasks.md',
      'openspec/changes/archive/2025-01-01-a',
    ])
      expect(await inProcess(work, 'status', named)).toEqual({
        code: 1,
        stdout: '',
        stderr: `coder-loop status: ${named} is not run: it is in openspec/changes/archive/, skipped (1 archived OpenSpec change: completed, never run).`,
      });
  });

  it('doctor says what it skipped beside the plans it found', async () => {
    const run = await inProcess(checkout(OTHER_TOOLS), 'doctor');
    expect(run.stdout.split('\n')).toContain(`plans: ${SKIPPED}`);
  });

  it('a nested OpenSpec archive and BMAD v4 stories at any depth, one entry per folder; BMAD v6 is a plan, not skipped', () => {
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
      {
        path: 'hw3/openspec/changes/archive/',
        why: '2 archived OpenSpec changes: completed, never run',
      },
      {
        path: 'stories/',
        why: "2 BMAD v4 stories: not read; the loop reads v6's sprint-status.yaml",
      },
    ]);
  });
});

describe("a tool's own folder below the root (a sub-project's .kiro/, .taskmaster/, .specify/)", () => {
  const KIRO = '- [ ] 1. Build it\n  - [ ] 1.1 Write the code\n';
  const TM = '{"master":{"tasks":[{"id":1,"title":"A","status":"pending","dependencies":[]}]}}\n';
  const nested = {
    'app/.kiro/specs/feat/tasks.md': KIRO,
    'app/.kiro/specs/other/tasks.md': KIRO,
    'svc/.taskmaster/tasks/tasks.json': TM,
    '.kiro/specs/root/tasks.md': KIRO,
    '.kiro/specs/root/requirements.md': '# R\n',
    '.kiro/specs/root/design.md': '# D\n',
  };
  const hint = (glob: string) =>
    `not looked for by default: add "${glob}" to \`plans\` in .github/coder.yml, with the default places you use (a \`plans\` list replaces them)`;

  it('plans names each such folder and the glob that reaches it; the root one is a plan', async () => {
    const run = await inProcess(checkout(nested), 'plans');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      expect.stringMatching(/^kiro +root +\.kiro\/specs\/root\/tasks\.md/),
      `Skipped: app/.kiro/ (2 Kiro tasks files in a folder below the root, ${hint('app/.kiro/specs/*/tasks.md')}); svc/.taskmaster/ (1 Task Master tasks file in a folder below the root, ${hint('svc/.taskmaster/tasks/tasks.json')}).`,
    ]);
  });

  it('with that glob in `plans`, the plan is found and no longer named as skipped', async () => {
    const run = await inProcess(
      checkout({
        ...nested,
        '.github/coder.yml':
          'plans:\n  - ".kiro/specs/*/tasks.md"\n  - "app/.kiro/specs/*/tasks.md"\n  - "**/none"\n',
      }),
      'plans',
    );
    expect(run.stdout).toContain('app/.kiro/specs/feat/tasks.md');
    expect(run.stdout).not.toContain('Skipped: app/.kiro/');
    expect(run.stdout).toContain('Skipped: svc/.taskmaster/');
  });
});
