import { dialectKind } from '../dialectPlan.js';
import { defineKind } from '../kindModule.js';
import { setDialectStates } from '../markdownDialect.js';
import { kiroContext } from './context.js';
import { KIRO_MARKS, readKiro } from './reader.js';

const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Kiro: a spec folder `.kiro/specs/<feature>/` with `requirements.md` (or `bugfix.md`),
 * `design.md` and `tasks.md`; `[-]` in progress, `[x]` done, `[ ]*` optional. Its steering
 * documents (`.kiro/steering/`) are every spec's.
 */
export const kiroKind = defineKind({
  id: 'kiro',
  label: 'Kiro',
  tasksFile: 'tasks.md',
  globs: ['.kiro/specs/*/tasks.md'],
  test: (path) => (/(?:^|\/)\.kiro\/specs\/[^/]+\/tasks\.md$/.test(path) ? 'plan' : undefined),
  tasksFilesAt: (dir) =>
    // Kiro's steering, shared by its specs beside it.
    baseOf(dir) === 'steering' && baseOf(dirOf(dir)) === '.kiro'
      ? [`${dir}/tasks.md`, `${dirOf(dir)}/specs/-/tasks.md`]
      : [`${dir}/tasks.md`],
  // Kiro's steering documents (`.kiro/steering/`: product.md, tech.md, structure.md and any
  // other), which Kiro reads into every spec's work: `<dir>/.kiro/specs/<feature>` → `<dir>/.kiro/steering`.
  sharedFolders: (folder) => [`${dirOf(dirOf(folder))}/steering`],
  required: [
    { names: ['requirements.md', 'bugfix.md'], what: "Kiro's requirements" },
    { names: ['design.md'], what: "Kiro's design" },
  ],
  reads: (plan) => ['requirements.md', 'bugfix.md', 'design.md'].map((f) => `${plan.folder}/${f}`),
  marks: { start: '[-]', done: '[x]' },
  ...dialectKind({
    read: (source, path) => readKiro(source, path),
    noPhaseFix: 'Write a task as "- [ ] 1. Title" with sub-tasks "- [ ] 1.1 Title".',
    write: (source, tasks, state) => setDialectStates(source, KIRO_MARKS, tasks, state),
    context: kiroContext,
  }),
  agentMayNotEdit: { words: 'feature folders' },
});
