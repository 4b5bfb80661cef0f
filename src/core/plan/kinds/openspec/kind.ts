import { dialectKind, presentLinks } from '../dialectPlan.js';
import { defineKind } from '../kindModule.js';
import { setDialectStates } from '../markdownDialect.js';
import { OPENSPEC_MARKS, readOpenspec } from './reader.js';

const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/**
 * OpenSpec: an active change `openspec/changes/<change>/` (at any depth: `hw3/openspec/…`) with
 * `proposal.md`, `tasks.md`, a design and delta specs; `[x]` done, no in-progress mark.
 * `changes/archive/` holds completed changes: found, never run.
 */
export const openspecKind = defineKind({
  id: 'openspec',
  label: 'OpenSpec',
  tasksFile: 'tasks.md',
  // At any depth (`hw3/openspec/changes/…`); never `changes/archive/` (the kind test).
  globs: ['**/openspec/changes/*/tasks.md'],
  test: (path) =>
    /(?:^|\/)openspec\/changes\/(?!archive\/)[^/]+\/tasks\.md$/.test(path)
      ? 'plan'
      : /(?:^|\/)openspec\/changes\//.test(path)
        ? 'never'
        : undefined,
  tasksFilesAt: (dir) => [`${dir}/changes/-/tasks.md`],
  // OpenSpec's own folder: its changes, archive and specs.
  documentsRoot: (folder) => dirOf(dirOf(folder)),
  notRun(path) {
    const archive = /^(.*?(?:^|\/)openspec\/changes\/archive\/)[^/]+\/tasks\.md$/.exec(path);
    if (!archive) return undefined;
    return {
      folder: archive[1]!,
      why: (n) => `${n} archived OpenSpec change${n === 1 ? '' : 's'}: completed, never run`,
    };
  },
  required: [{ names: ['proposal.md'], what: "OpenSpec's proposal" }],
  marks: { start: undefined, done: '[x]' },
  ...dialectKind({
    read: (source, path) => readOpenspec(source, path),
    noPhaseFix: 'Write tasks as "- [ ] 1.1 Description" under a "## 1. Group" heading.',
    write: (source, tasks, state) => setDialectStates(source, OPENSPEC_MARKS, tasks, state),
    // The change's documents: the proposal, the design, and its delta specs.
    context(plan, _phase, present) {
      const links = presentLinks(plan, present, [
        ['Proposal', 'proposal.md'],
        ['Design', 'design.md'],
      ]);
      const specs = `${plan.folder}/specs/`;
      for (const path of [...present]
        .filter((p) => p.startsWith(specs) && p.endsWith('/spec.md'))
        .sort()) {
        links.push({ label: `Spec delta ${path.slice(specs.length, -'/spec.md'.length)}`, path });
      }
      return { links, sections: [] };
    },
  }),
  agentMayNotEdit: { path: 'openspec/' },
});
