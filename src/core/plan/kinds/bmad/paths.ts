import type { Problem } from '../../../problem.js';
import { BMAD_STATUSES, writtenStatus, type BmadEntry } from './sprintStatus.js';
import type { BmadStory } from './story.js';

/**
 * Where a story's file is, and which story is next, as BMAD's own workflows decide: create-story
 * writes a story's file in the folder the project's config (`_bmad/bmm/config.yaml`) names —
 * `{implementation_artifacts}/{story_key}.md` since v6.0.0-alpha.20, `{sprint_artifacts}` in the
 * alphas before it, `{dev_ephemeral_location}/stories` in alpha.8, `{dev_story_location}` in the
 * first alphas — and dev-story reads it there. `story_location`, which sprint planning records in
 * sprint-status.yaml and no workflow reads, is tried next when it names a folder of the
 * repository, then the folder sprint-status.yaml is in (v6 keeps both in one folder).
 */

/** BMAD's module config of a project, as read: its path and its text. */
export interface BmadConfig {
  path: string;
  text: string;
}

/** The folder of a path ('' at the root). */
const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/** A folder as a message names it. */
const folderName = (folder: string) => (folder === '' ? 'the repository root' : `${folder}/`);

/**
 * A location as BMAD writes one, from the project root `root`: `{project-root}/x`, `./x` and `x`
 * are `<root>/x`, `..` goes up; what names no folder of the repository says why.
 */
function resolveFolder(
  location: string,
  root: string,
): { folder: string } | { outside: string } | { unknown: string } {
  const value = location.trim();
  if (value === '') return { unknown: 'is empty' };
  const rest = value.replace(/^\{project-root\}(?:[\\/]+|$)/, '');
  if (rest === value && /^(?:[\\/~]|[A-Za-z]:[\\/])/.test(value))
    return { outside: 'is an absolute path, outside the repository' };
  const placeholder = /\{[^}]*\}/.exec(rest);
  if (placeholder)
    return { unknown: `holds ${placeholder[0]}, a placeholder the loop does not resolve` };
  const parts = root === '' ? [] : root.split('/');
  for (const part of rest.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return { outside: 'points outside the repository' };
  }
  return { folder: parts.join('/') };
}

/** `story_location` as a repository folder from the project root; undefined when it names none. */
function repositoryFolder(location: string, root = ''): string | undefined {
  const resolved = resolveFolder(location, root);
  return 'folder' in resolved ? resolved.folder : undefined;
}

/**
 * A top-level value of BMAD's config as its installer writes it (`key: "value"`, `key: value`),
 * read line by line, with its line: an unquoted `{project-root}/…` is no YAML a parser takes, and
 * BMAD reads it.
 */
function configEntry(text: string, key: string): { value: string; line: number } | undefined {
  const m = new RegExp(`^${key}:[ \\t]*(.*?)[ \\t]*\\r?$`, 'm').exec(text);
  if (!m) return undefined;
  const value = m[1]!.replace(/(?:^|[ \t]+)#.*$/, '');
  const quoted = /^(["'])(.*)\1$/.exec(value);
  const line = text.slice(0, m.index).split('\n').length;
  return { value: quoted ? quoted[2]! : value, line };
}

/**
 * BMAD's module config, `{bmad_folder}/bmm/config.yaml`: `_bmad/` in v6, `.bmad/` or `bmad/` in
 * the alphas (their `bmad_folder`). Its folder's parent is the project's `{project-root}`.
 */
const BMAD_CONFIG = /^(?:(.*)\/)?(_bmad|\.bmad|bmad)\/bmm\/config\.yaml$/;

/** Whether a path is BMAD's module config (`_bmad/bmm/config.yaml`, an alpha's `.bmad/`, `bmad/`). */
export function isBmadConfigPath(path: string): boolean {
  return BMAD_CONFIG.test(path);
}

/**
 * Whether a file's name is a story file's, `<story key>.md` (`1-2-login.md`, `2-6a-split.md`,
 * `3-5-0-cleanup.md`), from the path alone: the config or `story_location` may put it anywhere.
 */
export function isStoryFileName(path: string): boolean {
  return /^\d+-\d+[a-z]?-[^/]+\.md$/.test(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * The configs a sprint status's project may have, as the workflows load `{project-root}/_bmad/bmm/
 * config.yaml`: in the folders holding the sprint status, the nearest first; v6's `_bmad/` before
 * the alphas' `.bmad/` and `bmad/`. The first of them that exists is the project's.
 */
export function bmadConfigCandidates(sprintStatusPath: string): string[] {
  const parts = dirOf(sprintStatusPath).split('/').filter(Boolean);
  const out: string[] = [];
  for (let n = parts.length; n >= 0; n--) {
    const root = parts.slice(0, n).join('/');
    for (const folder of ['_bmad', '.bmad', 'bmad'])
      out.push(`${root === '' ? '' : `${root}/`}${folder}/bmm/config.yaml`);
  }
  return out;
}

/**
 * The project's config among `texts`: the first of `bmadConfigCandidates` there is. With
 * `present`, the first that exists decides: one that could not be read gives none.
 */
export function bmadProjectConfig(
  sprintStatusPath: string,
  texts: ReadonlyMap<string, string>,
  present?: ReadonlySet<string>,
): BmadConfig | undefined {
  for (const path of bmadConfigCandidates(sprintStatusPath)) {
    const text = texts.get(path);
    if (text !== undefined) return { path, text };
    if (present?.has(path)) return undefined;
  }
  return undefined;
}

/**
 * The keys of a config that name the folder create-story writes story files in, newest BMAD
 * first (an installer writes the keys its version knows; a newer one's key wins over a leftover),
 * with the folder under it and where sprint-status.yaml is written: in that folder too, or also
 * in `{output_folder}`.
 */
const STORY_KEYS = [
  // v6.0.0-alpha.20 on: create-story's `default_output_file: "{implementation_artifacts}/…"`.
  { key: 'implementation_artifacts', under: '', sprintStatus: 'same' },
  // v6.0.0-alpha.9 to alpha.19: `story_dir: "{sprint_artifacts}"`, and create-story's
  // `sprint_status: "{sprint_artifacts}/sprint-status.yaml || {output_folder}/sprint-status.yaml"`.
  { key: 'sprint_artifacts', under: '', sprintStatus: 'same-or-output' },
  // v6.0.0-alpha.8: `story_dir: "{config_source}:dev_ephemeral_location/stories"`.
  { key: 'dev_ephemeral_location', under: '/stories', sprintStatus: 'apart' },
  // The first alphas: `story_dir: "{config_source}:dev_story_location"`.
  { key: 'dev_story_location', under: '', sprintStatus: 'apart' },
] as const;

/** Where a project's story files are looked for, and where create-story writes one. */
export interface StoryFolders {
  /** The folders, in the order a story's file is looked for in them. */
  folders: string[];
  /** The folder BMAD's create-story writes a story's file in. */
  writes: string;
  /** What in the config names no folder the loop can look in, or another than the plan's. */
  problems: Problem[];
}

/**
 * The folders a story's file is looked for in: the config's (where create-story writes it and
 * dev-story reads it), `story_location`'s, then sprint-status.yaml's own; the config's folder
 * and a relative `story_location` are from the project root, the folder that holds `_bmad/`.
 */
export function storyFolders(
  sprintStatusPath: string,
  storyLocation: string | undefined,
  config?: BmadConfig,
): StoryFolders {
  const beside = dirOf(sprintStatusPath);
  const root = config ? (BMAD_CONFIG.exec(config.path)?.[1] ?? '') : '';
  const located = storyLocation === undefined ? undefined : repositoryFolder(storyLocation, root);
  const others = [...new Set([located, beside].filter((f) => f !== undefined))];
  const problems: Problem[] = [];
  const entry = config && pickEntry(config.text);
  let configured: string | undefined;
  if (config && entry) {
    const { key, under, sprintStatus, value, line } = entry;
    const resolved = resolveFolder(placeholders(value, config), root);
    if (!('folder' in resolved)) {
      const why = 'outside' in resolved ? resolved.outside : resolved.unknown;
      const looks = others.map((f) =>
        f === beside ? `beside ${baseOf(sprintStatusPath)}` : `in ${folderName(f)}`,
      );
      problems.push({
        severity: 'warning',
        path: config.path,
        line,
        message: `${key} "${value}" ${why}, so the loop cannot look where BMAD's create-story writes story files; it looks ${looks.join(' and ')} instead.`,
        fix: `Write the folder from the project root: ${key}: "{project-root}/<folder>".`,
      });
    } else {
      configured = `${resolved.folder}${under}`.replace(/^\//, '');
      const output = resolveFolder(placeholders('{output_folder}', config), root);
      const apart =
        sprintStatus !== 'apart' &&
        configured !== beside &&
        !(sprintStatus === 'same-or-output' && 'folder' in output && output.folder === beside);
      if (apart) {
        const own = root === '' ? beside : beside.slice(root.length + 1);
        problems.push({
          severity: 'warning',
          path: config.path,
          line,
          message: `${key} is ${folderName(configured)}, where BMAD's workflows read sprint-status.yaml and write story files, but this sprint status is in ${folderName(beside)}: BMAD's create-story writes its story files to ${folderName(configured)}, and the loop looks there first.`,
          fix: `Move ${baseOf(sprintStatusPath)} and its story files to ${folderName(configured)}, or set ${key}: "{project-root}/${own}".`,
        });
      }
    }
  }
  const folders = [...new Set([configured, ...others].filter((f) => f !== undefined))];
  return { folders, writes: configured ?? beside, problems };
}

/** The first of `STORY_KEYS` a config sets, with its value and its line. */
function pickEntry(text: string) {
  for (const k of STORY_KEYS) {
    const entry = configEntry(text, k.key);
    if (entry !== undefined) return { ...k, ...entry };
  }
  return undefined;
}

/** The last part of a path. */
const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * A config value with the placeholders its installer may leave: `{output_folder}` (the config's
 * own `output_folder`, else BMAD's default `_bmad-output`, as the v6 default
 * `{output_folder}/implementation-artifacts` says) and `{bmad_folder}` (the config's own folder).
 */
function placeholders(value: string, config: BmadConfig): string {
  const output = configEntry(config.text, 'output_folder')?.value;
  const folder = BMAD_CONFIG.exec(config.path)?.[2] ?? '_bmad';
  const outputValue =
    output === undefined || output.includes('{output_folder}') ? '_bmad-output' : output;
  return value.replace(/\{output_folder\}/g, outputValue).replace(/\{bmad_folder\}/g, folder);
}

/** The paths a story's file may have, the first one that exists being its file. */
export function storyFileCandidates(
  sprintStatusPath: string,
  storyLocation: string | undefined,
  key: string,
  config?: BmadConfig,
): string[] {
  return storyFolders(sprintStatusPath, storyLocation, config).folders.map((f) =>
    f === '' ? `${key}.md` : `${f}/${key}.md`,
  );
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
 * bmad-create-story — and an epic that holds it up is named (`epicStop`); a story in `review`
 * waits for bmad-code-review (BMAD's sync never moves a status back, so the loop does not start
 * it again).
 */
export function nextStory(
  entries: readonly BmadEntry[],
  sprintStatusPath: string,
  storyLocation: string | undefined,
  exists: (path: string) => boolean,
  config?: BmadConfig,
): NextStory {
  const story = currentStory(entries);
  if (!story) return { complete: true };
  const { folders, writes } = storyFolders(sprintStatusPath, storyLocation, config);
  const inFolder = (f: string) => (f === '' ? `${story.key}.md` : `${f}/${story.key}.md`);
  const candidates = folders.map(inFolder);
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
      waiting: `Story ${story.key} has no story file yet: BMAD's create-story (bmad-create-story) writes ${inFolder(writes)}.${epicStop(entries, story)}`,
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
 * Why a backlog story's epic holds it up, as BMAD's create-story reads the epic when it writes
 * the epic's first story (its step 1): a status BMAD does not define for an epic (`blocked`,
 * `on-hold`) stops it ("Invalid epic status"), and so does `done` ("Cannot create story in
 * completed epic"). A status BMAD does not define is named on any story of the epic, as someone
 * wrote it to hold the epic. With it, the first backlog story whose epic holds nothing up, which
 * the loop takes once create-story has written it (a `ready-for-dev` story before a `backlog`
 * one). '' when nothing holds the story up.
 */
function epicStop(entries: readonly BmadEntry[], story: BmadEntry): string {
  const epicOf = (s: BmadEntry) => entries.find((e) => e.kind === 'epic' && e.epic === s.epic);
  const first = (s: BmadEntry) => s.key.startsWith(`${s.epic}-1-`);
  const stops = (s: BmadEntry) => {
    const epic = epicOf(s);
    if (epic?.raw === undefined) return false;
    return epic.status === undefined || (epic.status === 'done' && first(s));
  };
  if (!stops(story)) return '';
  const epic = epicOf(story)!;
  const said = `${epic.key} is "${epic.raw}" on line ${epic.line}`;
  const instead = entries.find((e) => e.kind === 'story' && e.status === 'backlog' && !stops(e));
  const meanwhile = instead
    ? `; meanwhile, bmad-create-story ${instead.key} (the first backlog story of an epic that can go on) writes a story the loop takes first, ready-for-dev before backlog`
    : '';
  if (epic.status === 'done') {
    return ` But ${said}, and create-story writes no story in a done epic ("Cannot create story in completed epic"): set it back to in-progress, or move the story to a new epic${meanwhile}.`;
  }
  const halts = first(story) ? `, and create-story stops on it ("Invalid epic status")` : '';
  return ` But ${said}, no status BMAD defines for an epic (${BMAD_STATUSES.epic.join(', ')})${halts}: when the epic can go on, set it to backlog or in-progress${meanwhile}.`;
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
  // Read as BMAD's workflows read the line: `**IN PROGRESS** ⏳` is in-progress, `drafted` (an
  // alpha's) ready-for-dev.
  const written = story.status === undefined ? undefined : writtenStatus(story.status.raw);
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

/** An alpha's sprint status, `{output_folder}/sprint-status.yaml` with the alphas' `docs`. */
const ALPHA_SPRINT_STATUS = /(?:^|\/)docs\/sprint-status\.yaml$/;

/** A sprint-status.yaml with BMAD's shape: its `development_status:` mapping. */
function hasBmadShape(text: string): boolean {
  return /^development_status:[ \t]*(?:#.*)?\r?$/m.test(text);
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
  for (const key of ['implementation_artifacts', 'sprint_artifacts', 'output_folder']) {
    const entry = configEntry(text, key);
    if (entry === undefined) continue;
    const resolved = resolveFolder(
      placeholders(entry.value, { path: configPath, text }),
      at[1] ?? '',
    );
    if ('folder' in resolved && resolved.folder !== '')
      return `${resolved.folder}/sprint-status.yaml`;
  }
  return undefined;
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
