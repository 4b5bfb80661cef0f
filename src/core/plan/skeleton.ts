import { CHECKPOINT_END, CHECKPOINT_START } from './checkpoint.js';
import { PLAN_FILES } from './layout.js';
import { MASTER_LOG_TITLE } from './masterLog.js';

/**
 * A new plan's files (plan-relative path → content): every file of seed 002, each with short
 * guidance, and valid as written — `coder-loop lint` accepts it.
 */
export function planSkeleton(name: string, today: string): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    PLAN_FILES.context,
    `# ${name} — context

The source of truth for this plan: what we are building, for whom, and the decisions that hold.
Coders read this first.

## Goal

Say in two or three sentences what is true when the plan is complete.

## Constraints

- List the rules every phase must respect (languages, APIs, performance, compatibility).

## Decisions

- ${today}: plan created.

${CHECKPOINT_START}
## Checkpoint

- Updated: ${today}
- Next: Phase 1: Foundation (\`/coder next ${name}\`)
${CHECKPOINT_END}
`,
  );
  files.set(
    PLAN_FILES.checklist,
    `# ${name} — checklist

Phases run in order. Tasks: \`[ ]\` todo, \`[~]\` in progress, \`[x]\` done. Each phase has its
task plan in "Task Plans/" (matched by its number).

## Phase 1: Foundation

- [ ] 1.1 Write a failing test for the first behaviour
- [ ] 1.2 Implement the minimal code that makes it pass

## Phase 2: Hardening

- [ ] 2.1 Cover the error cases named in the requirements
- [ ] 2.2 Document the behaviour for users
`,
  );
  files.set(
    PLAN_FILES.codemap,
    `%% The architecture this plan builds towards. Coders check their work against it.
flowchart TD
    User["User"] --> Entry["Entry point"]
    Entry --> Core["Core logic"]
    Core --> Store["Storage"]
`,
  );
  files.set(
    `${PLAN_FILES.masterPlanDir}/03_Requirements_Core.md`,
    `# Requirements — core

Validation criteria: each one is checkable, and a phase is done when its requirements hold.

- R1: Describe an observable behaviour and how a test shows it.
`,
  );
  files.set(
    `${PLAN_FILES.taskPlansDir}/Phase 1 - Foundation.md`,
    `# Phase 1: Foundation — task plan

## Steps

1. Write the failing test (TDD): it names the behaviour from the requirements.
2. Implement the minimal code that makes it pass.
3. Run the whole test suite.

## Done when

- The tests of this phase pass in CI and the code review approves.
`,
  );
  files.set(
    `${PLAN_FILES.taskPlansDir}/Phase 2 - Hardening.md`,
    `# Phase 2: Hardening — task plan

## Steps

1. Add a test for each error case in the requirements.
2. Make each one pass.
3. Write the user documentation.

## Done when

- Every error case has a test and the docs describe the behaviour.
`,
  );
  files.set(PLAN_FILES.masterLog, `${MASTER_LOG_TITLE}\n\nAppend-only: one line per event.\n\n`);
  return files;
}
