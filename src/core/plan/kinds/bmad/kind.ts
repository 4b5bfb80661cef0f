import { defineKind } from '../kindModule.js';
import type { KindFileEdit, KindPhase } from '../view.js';
import {
  BMAD_GLOBS,
  bmadDiscoveryReads,
  bmadPlanName,
  discoverBmad,
  isBmadConfigPath,
  isStoryFileName,
} from './paths.js';
import { bmadDocumentsRoot, bmadReads, openBmad, type BmadPhase } from './plan.js';
import { readSprintStatus, setSprintStatus } from './sprintStatus.js';

const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/**
 * BMAD-METHOD v6 (bmad-code-org/BMAD-METHOD): a project's `sprint-status.yaml` is the plan, its
 * stories the phases in `development_status` order, a story file's `## Tasks / Subtasks` boxes a
 * phase's tasks. A start sets the story `in-progress` in sprint-status.yaml (dev-story's step 4);
 * a completion ticks the story's boxes and sets its `Status:` and its sprint-status value `done`
 * (code review's step 4). docs/plan-format.md says why.
 */
export const bmadKind = defineKind({
  id: 'bmad',
  label: 'BMAD',
  tasksFile: 'sprint-status.yaml',
  globs: BMAD_GLOBS,
  test: () => 'plan',
  // A file under `_bmad-output/` is the plan's of `_bmad-output/implementation-artifacts/`; one
  // under an alpha's `docs/sprint-artifacts/` (never the rest of `docs/`) is that folder's plan's.
  tasksFilesAt: (dir) =>
    dir === '_bmad-output' || dir.endsWith('/_bmad-output')
      ? [`${dir}/sprint-status.yaml`, `${dir}/implementation-artifacts/sprint-status.yaml`]
      : [`${dir}/sprint-status.yaml`],
  // BMAD's config says where story files are, and may put them outside `_bmad-output/`; a
  // story file is known by its name wherever it is (`bmadReads` names where each is looked for).
  beyondRoot: { places: isBmadConfigPath, placed: isStoryFileName },
  // `_bmad-output/` (planning and implementation artifacts), or an alpha's `docs/sprint-artifacts/`.
  documentsRoot: (folder) => bmadDocumentsRoot(`${folder}/sprint-status.yaml`),
  // BMAD v4's stories (`docs/stories/1.1.story.md`, no sprint-status.yaml): found, not read.
  notRun(path) {
    if (!path.endsWith('.story.md')) return undefined;
    return {
      folder: `${dirOf(path)}/`.replace(/^\//, ''),
      why: (n) =>
        `${n} BMAD v4 stor${n === 1 ? 'y' : 'ies'}: not read; the loop reads v6's sprint-status.yaml`,
    };
  },
  // Where BMAD's config (`_bmad/bmm/config.yaml`) says its sprint status is, and an alpha's
  // `docs/sprint-status.yaml` of BMAD's shape; a copy of the config's file elsewhere is skipped.
  discoveryReads: bmadDiscoveryReads,
  discover: discoverBmad,
  required: [],
  reads: (plan, texts) => bmadReads(plan.path, texts),
  planName: bmadPlanName,
  marks: { start: 'in-progress', done: '[x]', starts: 'the story' },
  open(plan, source, context, present, files) {
    const read = openBmad(plan.path, present, new Map([...files, [plan.path, source]]));
    const own = (phase: KindPhase): BmadPhase => {
      const found = read.phases.find((p) => p.number === phase.number);
      if (!found) throw new Error(`Story ${phase.number} is not in ${plan.path}.`);
      return found;
    };
    const sprint = (edits: KindFileEdit[]) => edits.find((e) => e.path === plan.path)?.text;
    const others = (edits: KindFileEdit[]) => edits.filter((e) => e.path !== plan.path);
    return {
      phases: read.phases,
      current: read.current,
      complete: read.complete && context.length === 0,
      waiting: read.waiting,
      problems: [...context, ...read.problems],
      warnings: read.warnings,
      markStart: (phase) => sprint(read.start(own(phase))) ?? source,
      markDone: (phase) => sprint(read.finish(own(phase))) ?? source,
      beside: {
        start: (phase) => others(read.start(own(phase))),
        done: (phase) => others(read.finish(own(phase))),
        // BMAD has no in-progress box: `doing` leaves the boxes as they are.
        tasks: (ids, state) =>
          state === 'doing'
            ? []
            : read.phases
                .filter((p) => p.tasks.some((t) => ids.has(t.id)))
                .flatMap((p) => read.setTasks(p, ids, state)),
      },
      context: (phase) => read.context(own(phase)),
      refuseMark: (phase, state) => read.refuseMark(own(phase), state),
      withoutFile: read.withoutFile,
    };
  },
  // The stories' statuses: what a start or a completion changes in sprint-status.yaml.
  states(plan, source) {
    const read = readSprintStatus(source, plan.path);
    return new Map(read.entries.filter((e) => e.kind === 'story').map((e) => [e.key, e.raw ?? '']));
  },
  // Its boxes are in the story files (`beside`); a task under way puts its story under way: the
  // story `in-progress` in sprint-status.yaml (from `backlog` or `ready-for-dev`), as a start does.
  setTasks(plan, source, ids, state) {
    if (state !== 'doing') return source;
    const stories = new Set([...ids].map((id) => id.slice(0, id.indexOf('/'))));
    const starting = readSprintStatus(source, plan.path)
      .entries.filter(
        (e) =>
          e.kind === 'story' &&
          stories.has(e.number!) &&
          e.value !== undefined &&
          (e.status === 'backlog' || e.status === 'ready-for-dev'),
      )
      // Last first, so that the offsets of the earlier values hold.
      .sort((a, b) => b.value!.start - a.value!.start);
    return starting.reduce((out, e) => setSprintStatus(out, e, 'in-progress'), source);
  },
  agentMayNotEdit: { path: '_bmad-output/' },
});
