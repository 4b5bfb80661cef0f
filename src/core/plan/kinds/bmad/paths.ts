import type { Problem } from '../../../problem.js';
import type { BmadEntry } from './sprintStatus.js';
import type { BmadStory } from './story.js';

/**
 * Where a story's file is, and which story is next, as BMAD's own workflows decide: dev-story
 * and create-story name a story's file `{implementation_artifacts}/{story_key}.md`, the folder
 * sprint-status.yaml is in (`sprint_status = {implementation_artifacts}/sprint-status.yaml`);
 * `story_location`, which sprint planning records in the file, is tried first when it names a
 * folder of the repository.
 */

/** `story_location` as a repository path: `{project-root}/x` and `x` are `x`; else undefined. */
function repositoryFolder(location: string): string | undefined {
  const path = location
    .trim()
    .replace(/^\{project-root\}\/?/, '')
    .replace(/^\.\//, '')
    .replace(/\/+$/, '');
  if (path === '' || path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.includes('{'))
    return undefined;
  if (path.split('/').some((part) => part === '..' || part === '')) return undefined;
  return path;
}

/** The paths a story's file may have, the first one that exists being its file. */
export function storyFileCandidates(
  sprintStatusPath: string,
  storyLocation: string | undefined,
  key: string,
): string[] {
  const slash = sprintStatusPath.lastIndexOf('/');
  const beside = slash === -1 ? '' : sprintStatusPath.slice(0, slash);
  const folders = [storyLocation && repositoryFolder(storyLocation), beside];
  return [
    ...new Set(
      folders
        .filter((f) => f !== undefined)
        .map((f) => (f === '' ? `${key}.md` : `${f}/${key}.md`)),
    ),
  ];
}

/** The story the loop takes next: the first, in the file's order, that is not `done`. */
export function currentStory(entries: readonly BmadEntry[]): BmadEntry | undefined {
  return entries.find((e) => e.kind === 'story' && e.status !== 'done');
}

/** What the loop can do with the current story. */
export type NextStory =
  | { story: BmadEntry; file: string }
  | { story: BmadEntry; waiting: string }
  | { story: BmadEntry; missing: string }
  | { complete: true };

/**
 * The current story and whether the loop can work it, as BMAD's own workflows would: its file is
 * the first candidate that exists; a `backlog` story with a file is ready for dev (sprint_plan.py
 * floors a story with a file on disk at `ready-for-dev`), without one it waits for
 * bmad-create-story; a story in `review` waits for bmad-code-review (BMAD's sync never moves a
 * status back, so the loop does not start it again).
 */
export function nextStory(
  entries: readonly BmadEntry[],
  sprintStatusPath: string,
  storyLocation: string | undefined,
  exists: (path: string) => boolean,
): NextStory {
  const story = currentStory(entries);
  if (!story) return { complete: true };
  const candidates = storyFileCandidates(sprintStatusPath, storyLocation, story.key);
  const file = candidates.find(exists);
  if (story.status === 'review') {
    return {
      story,
      waiting: `Story ${story.key} is in review: BMAD's code review (bmad-code-review) moves it to done.`,
    };
  }
  if (file !== undefined) return { story, file };
  if (story.status === 'backlog') {
    return {
      story,
      waiting: `Story ${story.key} has no story file yet: BMAD's create-story (bmad-create-story) writes ${candidates.at(-1)}.`,
    };
  }
  return {
    story,
    missing: `Story ${story.key} is ${story.raw ?? 'without a status'} but its file is missing: ${candidates.join(' or ')}.`,
  };
}

/**
 * A story file and sprint-status.yaml that say different things: BMAD's tools go by
 * sprint-status.yaml when it exists (dev-story's step 4), and so does the loop — with a warning,
 * but for the two disagreements BMAD's own flow leaves: the story `ready-for-dev` while
 * sprint-status.yaml says `in-progress` (dev-story's step 4 writes only the latter), or says
 * `backlog` (sprint_plan.py reads a backlog story with a file as `ready-for-dev`).
 */
export function storyDisagreement(
  entry: BmadEntry,
  story: Pick<BmadStory, 'status' | 'number'>,
  path: string,
): Problem[] {
  const out: Problem[] = [];
  if (story.number !== undefined && entry.number !== undefined && story.number !== entry.number) {
    out.push({
      severity: 'warning',
      path,
      line: 1,
      message: `The file is headed "Story ${story.number}" but sprint-status.yaml's key "${entry.key}" says story ${entry.number}.`,
      fix: `Head it "# Story ${entry.number}: …".`,
    });
  }
  const written = story.status?.raw.toLowerCase();
  if (written === undefined || entry.status === undefined || written === entry.status) return out;
  if (written === 'ready-for-dev' && ['in-progress', 'backlog'].includes(entry.status)) return out;
  out.push({
    severity: 'warning',
    path,
    line: story.status!.line,
    message: `The story says "Status: ${story.status!.raw}" but sprint-status.yaml says "${entry.key}: ${entry.raw}"; it is read as sprint-status.yaml says, as BMAD's own workflows read it.`,
    fix: `Write "Status: ${entry.status}" (or correct sprint-status.yaml).`,
  });
  return out;
}

/**
 * Where BMAD's sprint status is, as globs from the repository root: v6's
 * `{implementation_artifacts}` (`_bmad-output/implementation-artifacts/`) and the v6 alphas'
 * `{sprint_artifacts}` (`docs/sprint-artifacts/`), at any depth (a project in a monorepo).
 */
export const BMAD_GLOBS: readonly string[] = [
  '**/_bmad-output/implementation-artifacts/sprint-status.yaml',
  '**/docs/sprint-artifacts/sprint-status.yaml',
];

/** Whether a path is a BMAD sprint status, wherever `plans` globs find it. */
export function isSprintStatusPath(path: string): boolean {
  return path === 'sprint-status.yaml' || path.endsWith('/sprint-status.yaml');
}

/**
 * A BMAD plan's name: the project folder that holds `_bmad-output/` (or the alphas' `docs/`), or
 * `bmad` for a project at the repository root; elsewhere the sprint status's own folder.
 */
export function bmadPlanName(sprintStatusPath: string): string {
  const folder = sprintStatusPath.slice(0, Math.max(0, sprintStatusPath.lastIndexOf('/')));
  const project =
    /^(?:(.*)\/)?(?:_bmad-output\/implementation-artifacts|docs\/sprint-artifacts)$/.exec(folder);
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  if (project) return project[1] ? base(project[1]) : 'bmad';
  return folder === '' ? 'bmad' : base(folder);
}

/** The loop's own folder for a BMAD plan: `coder-loop/` beside its sprint-status.yaml. */
export function bmadSidecar(sprintStatusPath: string): string {
  const slash = sprintStatusPath.lastIndexOf('/');
  return slash === -1 ? 'coder-loop' : `${sprintStatusPath.slice(0, slash)}/coder-loop`;
}
