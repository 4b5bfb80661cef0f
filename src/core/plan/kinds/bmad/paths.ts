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

/**
 * The order BMAD's status view recommends a story in (sprint_plan.py's `status`, status-view.md):
 * resume the one `in-progress`, else review the one in `review`, else start the next
 * `ready-for-dev`, else the next `backlog` one.
 */
const PRIORITY = ['in-progress', 'review', 'ready-for-dev', 'backlog'];

/**
 * The story the loop takes next, as BMAD's status view picks it: the first, in the file's order,
 * of the highest status in `PRIORITY` (an `in-progress` story later in the file before an
 * earlier `backlog` one); undefined when every story is finished.
 */
export function currentStory(entries: readonly BmadEntry[]): BmadEntry | undefined {
  const stories = entries.filter((e) => e.kind === 'story');
  for (const status of PRIORITY) {
    const found = stories.find((e) => e.status === status);
    if (found) return found;
  }
  return undefined;
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
  // A file in one of those folders with the key in another name (`story-1-1-a.md`): BMAD's
  // dev-story looks for `<key>.md` alone, and so does the loop; the near miss is named.
  const near = candidates
    .map((c) => `${c.slice(0, c.lastIndexOf('/') + 1)}story-${story.key}.md`)
    .find(exists);
  return {
    story,
    missing: `Story ${story.key} is ${story.raw ?? 'without a status'} but its file is missing: ${candidates.join(' or ')}.${near ? ` ${near} is there, but BMAD's dev-story looks for ${story.key}.md: rename it.` : ''}`,
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
  // `# Story 3.5.0` for `3-5-0-cleanup` is its own number, whether or not another story shares 3.5.
  const keyed = /^(\d+)-(\d+[a-z]?)-(\d+)-./.exec(entry.key);
  const own = keyed ? `${keyed[1]}.${keyed[2]}.${keyed[3]}` : undefined;
  if (
    story.number !== undefined &&
    entry.number !== undefined &&
    story.number !== entry.number &&
    story.number !== own
  ) {
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
 * A BMAD plan's name: the project folder that holds `_bmad-output/` (or `docs/`, where the
 * alphas and a config with `output_folder: docs` put it), or `bmad` for a project at the
 * repository root; elsewhere the sprint status's own folder.
 */
export function bmadPlanName(sprintStatusPath: string): string {
  const folder = sprintStatusPath.slice(0, Math.max(0, sprintStatusPath.lastIndexOf('/')));
  const project =
    /^(?:(.*)\/)?(?:_bmad-output\/implementation-artifacts|docs\/(?:sprint|implementation)-artifacts|docs)$/.exec(
      folder,
    );
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  if (project) return project[1] ? base(project[1]) : 'bmad';
  return folder === '' ? 'bmad' : base(folder);
}

/** The loop's own folder for a BMAD plan: `coder-loop/` beside its sprint-status.yaml. */
export function bmadSidecar(sprintStatusPath: string): string {
  const slash = sprintStatusPath.lastIndexOf('/');
  return slash === -1 ? 'coder-loop' : `${sprintStatusPath.slice(0, slash)}/coder-loop`;
}

/**
 * BMAD's module config, `{bmad_folder}/bmm/config.yaml`: `_bmad/` in v6, `.bmad/` or `bmad/` in
 * the alphas (their `bmad_folder`). Its folder's parent is the project's `{project-root}`.
 */
const BMAD_CONFIG = /^(?:(.*)\/)?(?:_bmad|\.bmad|bmad)\/bmm\/config\.yaml$/;

/** An alpha's sprint status, `{output_folder}/sprint-status.yaml` with the alphas' `docs`. */
const ALPHA_SPRINT_STATUS = /(?:^|\/)docs\/sprint-status\.yaml$/;

/** A sprint-status.yaml with BMAD's shape: its `development_status:` mapping. */
function hasBmadShape(text: string): boolean {
  return /^development_status:[ \t]*(?:#.*)?\r?$/m.test(text);
}

/**
 * A top-level value of BMAD's config as its installer writes it (`key: "value"`, `key: value`),
 * read line by line: an unquoted `{project-root}/…` is no YAML a parser takes, and BMAD reads it.
 */
function configValue(text: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:[ \\t]*(.*?)[ \\t]*\\r?$`, 'm').exec(text);
  if (!m) return undefined;
  const value = m[1]!.replace(/[ \t]+#.*$/, '');
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return quoted ? quoted[2] : value;
}

/** A config value as a repository path: `{project-root}/x`, `./x` and `x` are `<root>/x`. */
function configFolder(value: string | undefined, root: string, outputFolder: string | undefined) {
  if (value === undefined) return undefined;
  const resolved = value.replace(/\{output_folder\}/g, outputFolder ?? '_bmad-output');
  const path = repositoryFolder(resolved);
  if (path === undefined) return undefined;
  return root === '' ? path : `${root}/${path}`;
}

/**
 * Where a BMAD config says its sprint-status.yaml is, as BMAD's sprint planning writes it: v6's
 * `{implementation_artifacts}/sprint-status.yaml`, the later alphas'
 * `{sprint_artifacts}/sprint-status.yaml`, the first alphas' `{output_folder}/sprint-status.yaml`.
 * Undefined when the config names no folder of the repository.
 */
export function bmadConfigSprintStatus(configPath: string, text: string): string | undefined {
  const at = BMAD_CONFIG.exec(configPath);
  if (!at) return undefined;
  const root = at[1] ?? '';
  const output = configValue(text, 'output_folder');
  const outputFolder = output === undefined ? undefined : repositoryFolder(output);
  const folder =
    configFolder(configValue(text, 'implementation_artifacts'), root, outputFolder) ??
    configFolder(configValue(text, 'sprint_artifacts'), root, outputFolder) ??
    configFolder(output, root, outputFolder);
  return folder === undefined ? undefined : `${folder}/sprint-status.yaml`;
}

/**
 * The files whose text finds BMAD plans beyond `BMAD_GLOBS`: each BMAD config, each alpha's
 * `docs/sprint-status.yaml` (a plan only with BMAD's shape), and — when a config is there, to
 * tell a leftover copy — every other sprint-status.yaml.
 */
export function bmadDiscoveryReads(paths: readonly string[]): string[] {
  const configs = paths.filter((p) => BMAD_CONFIG.test(p));
  return paths.filter(
    (p) =>
      configs.includes(p) ||
      ALPHA_SPRINT_STATUS.test(p) ||
      (configs.length > 0 && isSprintStatusPath(p)),
  );
}

/**
 * BMAD's plans as its own config places them: `globbed` (the sprint statuses the globs found),
 * with the one each config names and an alpha's `docs/sprint-status.yaml` of BMAD's shape; a
 * sprint status with the same text as the one a config names is a leftover copy, skipped.
 */
export function discoverBmad(
  paths: readonly string[],
  texts: ReadonlyMap<string, string>,
  globbed: readonly string[],
): { plans: string[]; skipped: { path: string; why: string }[] } {
  const present = new Set(paths);
  const named = new Map<string, string>();
  for (const path of paths) {
    const text = texts.get(path);
    if (text === undefined || !BMAD_CONFIG.test(path)) continue;
    const status = bmadConfigSprintStatus(path, text);
    if (status !== undefined && present.has(status) && !named.has(status)) named.set(status, path);
  }
  const alpha = paths.filter((p) => {
    const text = texts.get(p);
    return ALPHA_SPRINT_STATUS.test(p) && text !== undefined && hasBmadShape(text);
  });
  const all = [...new Set([...globbed, ...named.keys(), ...alpha])].sort();
  const skipped: { path: string; why: string }[] = [];
  const plans = all.filter((path) => {
    if (named.has(path)) return true;
    const text = texts.get(path);
    const original = [...named.keys()].find((n) => text !== undefined && texts.get(n) === text);
    if (original === undefined) return true;
    skipped.push({
      path,
      why: `a copy of ${original}, the sprint status ${named.get(original)} names: not read`,
    });
    return false;
  });
  return { plans, skipped };
}
