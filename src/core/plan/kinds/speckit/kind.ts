import { dialectKind, presentLinks } from '../dialectPlan.js';
import { defineKind } from '../kindModule.js';
import { setDialectStates } from '../markdownDialect.js';
import type { KindContext } from '../view.js';
import { SPECKIT_MARKS, readSpeckit } from './reader.js';

/**
 * spec-kit (github/spec-kit): a feature folder `specs/<feature>/` (`.specify/specs/` in older
 * layouts) with `spec.md`, `plan.md` and `tasks.md`; `[X]` done, no in-progress mark.
 */
export const speckitKind = defineKind({
  id: 'speckit',
  label: 'spec-kit',
  tasksFile: 'tasks.md',
  globs: ['specs/*/tasks.md', '.specify/specs/*/tasks.md'],
  // A feature folder's name is the user's, and `/speckit.specify` takes any `specs` folder the
  // `plans` globs name: a tasks.md no other kind claims is spec-kit's.
  test: () => 'plan',
  fallback: true,
  tasksFilesAt: (dir) => [`${dir}/tasks.md`],
  required: [
    { names: ['spec.md'], what: "spec-kit's spec" },
    { names: ['plan.md'], what: "spec-kit's plan" },
  ],
  marks: { start: undefined, done: '[X]' },
  ...dialectKind({
    read: (source, path) => readSpeckit(source, path),
    noPhaseFix: 'Write tasks as "- [ ] T001 Description" under a "## Phase 1: Name" heading.',
    write: (source, tasks, state) => setDialectStates(source, SPECKIT_MARKS, tasks, state),
    context(plan, _phase, present) {
      const links: KindContext['links'] = presentLinks(plan, present, [
        ['Spec', 'spec.md'],
        ['Plan', 'plan.md'],
        ['Data model', 'data-model.md'],
        ['Research', 'research.md'],
        ['Quickstart', 'quickstart.md'],
      ]);
      const contracts = `${plan.folder}/contracts/`;
      for (const path of [...present].filter((p) => p.startsWith(contracts)).sort()) {
        links.push({ label: `Contract ${path.slice(contracts.length)}`, path });
      }
      return { links, sections: [] };
    },
  }),
  agentMayNotEdit: { words: 'feature folders' },
});
